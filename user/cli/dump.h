/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "secmap dump": which modules it shows and how, shared with monitor (one
 * module's JSON) and the unit tests. cli/dump.c has the command and the
 * table, cli/dump_json.c the JSON, cli/dump_ko.c what the .ko files add.
 */
#ifndef SECMAP_DUMP_H
#define SECMAP_DUMP_H

#include <stddef.h>
#include <stdio.h>

#include "secmap_cli.h"

struct dump_ko;
struct json_out;

/*
 * Pick the modules of @snap named in @names ('-' and '_' alike), kept in the
 * kernel's order; all of them if @nr_names is 0. On -ENOENT, *@missing is
 * the first name that matched nothing. *@mods is malloc()ed.
 */
int dump_select(const struct secmap_snapshot *snap, char *const *names, size_t nr_names,
		const struct secmap_module ***mods, size_t *nr_mods, const char **missing);

/*
 * {"name", "state", "taint", "build_id", "regions": [...], "sections": [...]}
 * of @mod, described to @o under @key. With @ko (what dump found of its
 * .ko), also "path", and per section "exec" and "symbols", with "size" and
 * "pgoff" from the file (null where unknown); without (monitor), no "path",
 * "exec" nor "symbols", and "size" and "pgoff" null.
 */
void dump_module_out(struct json_out *o, const char *key, const struct secmap_module *mod,
		     const struct dump_ko *ko);

/*
 * {"source": @source, "modules": [...]} to @f, honouring --pretty: @source
 * is where the modules were read, "netlink" or "sysfs"; @kos NULL or one
 * entry per module (see dump_module_out()). 0 or -errno from writing.
 */
int dump_print_json(FILE *f, const char *source, const struct secmap_module *const *mods,
		    size_t nr_mods, const struct dump_ko *kos);

/*
 * The table: a line per module, then one per section. With @kos (one entry
 * per module), a SIZE and a PGOFF column and the file. 0 or -errno.
 */
int dump_print_table(FILE *f, const struct secmap_module *const *mods, size_t nr_mods,
		     const struct dump_ko *kos);

#endif /* SECMAP_DUMP_H */
