/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli/record_ko.c: per module build, the section table `secmap record`
 * takes from its .ko (read once, file closed at once), or from the .ko
 * cache it shares with `secmap dump` (cli/ko_cache.c).
 */
#ifndef SECMAP_RECORD_KO_H
#define SECMAP_RECORD_KO_H

#include "secmap_cli.h"

struct ko_tables;
struct ko_table;

/* @search must outlive the tables. The cache is ko_cache_dir()'s, if any. */
int ko_tables_new(const struct secmap_ko_search *search, struct ko_tables **tables);
void ko_tables_free(struct ko_tables *tables);
/* How many builds were looked up; of them, how many found in the cache; .ko files opened. */
size_t ko_tables_count(const struct ko_tables *tables);
size_t ko_tables_cached(const struct ko_tables *tables);
size_t ko_tables_opened(const struct ko_tables *tables);
/* @mod's build's table, or NULL: no usable .ko (not found, another build-id, unreadable). */
const struct ko_table *ko_tables_get(struct ko_tables *tables, const struct secmap_module *mod);
/* What the .ko says of section @name, or NULL. */
const struct secmap_ko_section *ko_table_section(const struct ko_table *t, const char *name);

#endif /* SECMAP_RECORD_KO_H */
