/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "secmap dump" enrichment from the modules' files: what cli/dump_ko.c
 * reads from each module's .ko (size, file offset, flags, symbols of each
 * section) and cli/ko_cache.c keeps, shared with tests/ko_test.c.
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
 * Whether dump may use @ko (opened from @path) for the loaded @mod: when
 * both have a build-id and they differ, SECMAP_EXIT_KO_MISMATCH with the
 * error text in *@msg, or with @force SECMAP_EXIT_OK and the warning text
 * in *@msg. Otherwise SECMAP_EXIT_OK and *@msg NULL. *@msg is malloc()ed
 * (NULL if out of memory).
 */
int dump_ko_check(const struct secmap_module *mod, const char *path,
		  const struct secmap_ko *ko, bool force, char **msg);

/* What @ko says of each section of @mod, into a malloc()ed @out->secs; 0 or -ENOMEM. */
int dump_ko_fill(const struct secmap_module *mod, const struct secmap_ko *ko,
		 struct dump_ko *out);

/* The places @search looks at for @mod, ", "-separated and malloc()ed. */
char *dump_ko_searched(const struct secmap_ko_search *search, const struct secmap_module *mod);

/*
 * Find, open and check the .ko of each of @mods, into a malloc()ed *@kos
 * (one entry per module). @named: the user named the modules, so one
 * without a .ko is an error (SECMAP_EXIT_NO_KO) rather than a notice on
 * @diag. Errors are reported with p_err(), warnings and notices go to
 * @diag. Returns an exit code; *@kos is set only on SECMAP_EXIT_OK.
 * @cache_dir: the .ko cache (ko_cache_dir()) to read and fill, or NULL.
 */
int dump_ko_resolve(const struct secmap_module *const *mods, size_t nr_mods,
		    const struct secmap_ko_search *search, bool force, bool named,
		    const char *cache_dir, FILE *diag, struct dump_ko **kos);

/*
 * The .ko cache (cli/ko_cache.c): per build-id, what dump_ko_resolve()
 * takes from a .ko. ko_cache_dir(): $XDG_CACHE_HOME/secmap/ko or
 * ~/.cache/secmap/ko, malloc()ed; NULL without either. ko_cache_load():
 * 0 with @out filled for @mod, -ENOENT when there is no usable entry (none,
 * corrupt, another build-id, a section missing), -ENOMEM.
 * ko_cache_store(): writes @mod's entry from @ko atomically; 0 or -errno
 * (-EINVAL: @mod has no build-id to key it by, or @ko no path).
 */
char *ko_cache_dir(void);
/*
 * The entry names in @dir, read once (none when @dir does not exist yet);
 * NULL if it cannot be read (then ask ko_cache_load() about every module).
 * ko_cache_listed(): could @mod have an entry there? Entries written after
 * the listing are not seen: the module is read from its .ko again.
 */
struct ko_cache_listing *ko_cache_list(const char *dir);
bool ko_cache_listed(const struct ko_cache_listing *listing, const struct secmap_module *mod);
void ko_cache_listing_free(struct ko_cache_listing *listing);
int ko_cache_load(const char *dir, const struct secmap_module *mod, struct dump_ko *out);
int ko_cache_store(const char *dir, const struct secmap_module *mod, const struct dump_ko *ko);

#endif /* SECMAP_DUMP_KO_H */
