/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "secmap dump" enrichment from the modules' files: what cli/dump_ko.c
 * takes of each module's .ko (size, file offset, flags, symbols of each
 * section) from the library's section tables, shared with tests/ko_test.c.
 */
#ifndef SECMAP_DUMP_KO_H
#define SECMAP_DUMP_KO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "secmap_cli.h"

/* One section of a loaded module, as its .ko describes it. */
struct dump_ko_sec {
	bool found;			/* the .ko has a section of that name */
	struct secmap_ko_section s;
};

/* One loaded module's .ko. */
struct dump_ko {
	char *path;			/* NULL: no .ko found, or not looked for */
	struct dump_ko_sec *secs;	/* per section of the module, in its order */
};

void dump_ko_free(struct dump_ko *kos, size_t nr);

/* What @ko says of its module's section @index; NULL when it says nothing. */
static inline const struct dump_ko_sec *dump_ko_section(const struct dump_ko *ko, size_t index)
{
	return ko && ko->secs && ko->secs[index].found ? &ko->secs[index] : NULL;
}

/*
 * Whether dump may use @table (the .ko found) for the loaded @mod: when
 * both have a build-id and they differ, SECMAP_EXIT_KO_MISMATCH with the
 * error text in *@msg, or with @force SECMAP_EXIT_OK and the warning text
 * in *@msg. Otherwise SECMAP_EXIT_OK and *@msg NULL. *@msg is malloc()ed
 * (NULL if out of memory).
 */
int dump_ko_check(const struct secmap_module *mod, const struct secmap_ko_table *table,
		  bool force, char **msg);

/* The places @search looks at for @mod, ", "-separated and malloc()ed. */
char *dump_ko_searched(const struct secmap_ko_search *search, const struct secmap_module *mod);

/*
 * Find, open and check the .ko of each of @mods, into a malloc()ed *@kos
 * (one entry per module). @named: the user named the modules, so one
 * without a .ko is an error (SECMAP_EXIT_NO_KO) rather than a notice on
 * @diag. Errors are reported with p_err(), warnings and notices go to
 * @diag. Returns an exit code; *@kos is set only on SECMAP_EXIT_OK.
 * @cache_dir: the .ko cache (secmap_ko_cache_dir()) to read and fill, or NULL.
 */
int dump_ko_resolve(const struct secmap_module *const *mods, size_t nr_mods,
		    const struct secmap_ko_search *search, bool force, bool named,
		    const char *cache_dir, FILE *diag, struct dump_ko **kos);

#endif /* SECMAP_DUMP_KO_H */
