/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsecmap, module files: finding a module's .ko, reading it, and the section
 * tables taken from it (and cached on disk).
 * Part of secmap.h: include <secmap/secmap.h>, not this file.
 */
#ifndef SECMAP_KO_H
#define SECMAP_KO_H

#include "secmap/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Module files. secmap_ko_find() looks for the .ko of module @name ('-' and
 * '_' alike) and returns a malloc()ed path: first in opts->paths (files, or
 * directories searched recursively),
 * then by build-id in perf's cache (BUILDID_CACHE/.build-id/xx/rest/...),
 * in debuginfo trees (DEBUG_ROOT/.build-id/xx/rest.debug and
 * DEBUG_ROOT/lib/modules/RELEASE/...), then through
 * MODULES_ROOT/RELEASE/modules.dep. -ENOENT if nowhere.
 */
struct secmap_ko_search {
	size_t sz;
	const char *release;		/* NULL: uname -r */
	const char *const *paths;	/* NULL-terminated, searched first; may be NULL */
	const char *modules_root;	/* NULL: /lib/modules */
	const char *debug_root;		/* NULL: /usr/lib/debug */
	const char *buildid_cache;	/* NULL: $HOME/.debug */
};
int secmap_ko_find(const struct secmap_ko_search *opts, const char *name,
		   const uint8_t *build_id, size_t build_id_len, char **path);

/*
 * For many lookups (one per loaded module): an index of the places
 * secmap_ko_find() searches, from a copy of @opts. Directories are walked
 * and modules.dep read once, on the first lookup that reaches them; files
 * added to them later are not seen. By build-id lookups still go to the
 * file system each time. secmap_ko_index_find() returns what
 * secmap_ko_find() would, in the same order of places. Not for concurrent
 * use from several threads.
 */
struct secmap_ko_index;
int secmap_ko_index_new(const struct secmap_ko_search *opts, struct secmap_ko_index **index);
void secmap_ko_index_free(struct secmap_ko_index *index);
int secmap_ko_index_find(struct secmap_ko_index *index, const char *name,
			 const uint8_t *build_id, size_t build_id_len, char **path);
/*
 * The places secmap_ko_index_find() looks at for a module with
 * @build_id, in its order, ", "-separated, for a message that says where
 * a .ko was not found. *@places is malloc()ed. 0, -EINVAL or -ENOMEM.
 */
int secmap_ko_index_places(const struct secmap_ko_index *index, const uint8_t *build_id,
			   size_t build_id_len, char **places);

struct secmap_ko;	/* an opened module file: decompressed, parsed with libelf */
struct secmap_ko_section {
	size_t sz;		/* the caller's sizeof; filled up to it */
	uint64_t size;		/* sh_size */
	uint64_t offset;	/* sh_offset in the decompressed ELF (perf's pgoff) */
	uint64_t flags;		/* sh_flags: SHF_ALLOC, SHF_WRITE, SHF_EXECINSTR... */
	size_t nr_symbols;	/* STT_FUNC/STT_OBJECT symbols defined in it */
};
/*
 * Open @path (.ko, .ko.xz, .ko.zst, .ko.gz; detected by magic, not name).
 * -ENOENT, -EACCES; -EINVAL: not a relocatable ELF or corrupt/truncated;
 * -ENOTSUP: compressed in a format not supported; -EFBIG: larger than
 * 512 MiB, as a file or decompressed.
 */
int secmap_ko_open(const char *path, struct secmap_ko **ko);
void secmap_ko_close(struct secmap_ko *ko);
/* Build-id length (0: none); *id points into @ko. */
size_t secmap_ko_build_id(const struct secmap_ko *ko, const uint8_t **id);
/*
 * The decompressed ELF image of @ko (what perf's build-id cache keeps as
 * "elf"): *@image points into @ko, valid until secmap_ko_close().
 */
size_t secmap_ko_image(const struct secmap_ko *ko, const uint8_t **image);
/* -ENOENT if the file has no section @name. */
int secmap_ko_section(const struct secmap_ko *ko, const char *name,
		      struct secmap_ko_section *section);
/*
 * The STT_FUNC and STT_OBJECT symbols defined in section @name (the one
 * secmap_ko_section() describes), in symbol table order: values are offsets
 * into the section, as in any relocatable. *@symbols is malloc()ed, its
 * names point into @ko. -ENOENT: no such section.
 */
struct secmap_ko_symbol {
	size_t sz;		/* this library's sizeof: the array's stride */
	const char *name;
	uint64_t value;		/* st_value: offset in the section */
	uint64_t size;		/* st_size; 0 for some assembly symbols */
	bool func;		/* STT_FUNC, else STT_OBJECT */
	bool global;		/* not STB_LOCAL */
};
int secmap_ko_section_symbols(const struct secmap_ko *ko, const char *name,
			      struct secmap_ko_symbol **symbols, size_t *nr);
/* Symbol @i of such an array, whatever the caller's sizeof: step by the library's @sz. */
static inline struct secmap_ko_symbol *secmap_ko_symbol_at(struct secmap_ko_symbol *symbols, size_t i)
{
	return (struct secmap_ko_symbol *)((char *)symbols + i * symbols->sz);
}

/*
 * Section tables: for a loaded module, what its .ko says of each of the
 * module's sections (a secmap_ko_section), read once per build (name and
 * build-id) and the file closed at once, so that a program that meets
 * many modules stays small. With a cache directory, each table is also
 * kept there under the build-id, and later programs take it from there
 * without finding or decompressing the file. An entry is used only when
 * its build-id and list of sections are the module's; any other is read
 * again from the .ko and written anew, through a temporary file and
 * rename(). A table is stored only when the file's build-id is the
 * module's. With opts->search->paths set, the files named there are read
 * as named (a stripped copy keeps the build-id, not every offset) and the
 * cache is only filled.
 *
 * secmap_ko_cache_dir(): the cache directory the secmap tools share,
 * $XDG_CACHE_HOME/secmap/ko or $HOME/.cache/secmap/ko, malloc()ed;
 * -ENOENT when neither variable holds an absolute path.
 */
struct secmap_ko_tables;
struct secmap_ko_table;
struct secmap_ko_tables_opts {
	size_t sz;
	const struct secmap_ko_search *search;	/* where .ko files are; must outlive the handle */
	const char *cache_dir;			/* NULL: no cache */
	/*
	 * Called once per build, after its first lookup, with what
	 * secmap_ko_tables_get() returns for it: for a caller's messages.
	 */
	void (*looked_up)(void *ctx, const struct secmap_module *mod,
			  const struct secmap_ko_table *table, int err);
	void *ctx;
};
int secmap_ko_cache_dir(char **dir);
int secmap_ko_tables_new(const struct secmap_ko_tables_opts *opts,
			 struct secmap_ko_tables **tables);
void secmap_ko_tables_free(struct secmap_ko_tables *tables);
/*
 * The table of @mod's build, valid until secmap_ko_tables_free(); the
 * same answer every time for a build. 0: *@table describes the module's
 * sections. -ENOENT: no .ko found (*@table NULL). -ESTALE: the file found
 * has another build-id: *@table describes it, for a caller that wants it
 * anyway. Any other error with *@table set: the file found cannot be read
 * (as secmap_ko_open() says), and the table has no sections. Without
 * *@table: the search failed (-EACCES...), or -ENOMEM.
 */
int secmap_ko_tables_get(struct secmap_ko_tables *tables, const struct secmap_module *mod,
			 const struct secmap_ko_table **table);
/* The .ko the table was read from (for a cached one, as it was then). */
const char *secmap_ko_table_path(const struct secmap_ko_table *table);
/* The file's build-id (0: none); *@id points into @table. */
size_t secmap_ko_table_build_id(const struct secmap_ko_table *table, const uint8_t **id);
/* Whether it came from the cache rather than the file. */
bool secmap_ko_table_cached(const struct secmap_ko_table *table);
/* Section @name of the module: -ENOENT when the file has none of that name. */
int secmap_ko_table_section(const struct secmap_ko_table *table, const char *name,
			    struct secmap_ko_section *section);
struct secmap_ko_tables_stats {
	size_t sz;
	uint64_t builds;	/* builds looked up */
	uint64_t cached;	/* of them, answered by the cache */
	uint64_t opened;	/* .ko files opened */
	uint64_t stored;	/* entries written to the cache */
};
int secmap_ko_tables_stats(const struct secmap_ko_tables *tables,
			   struct secmap_ko_tables_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* SECMAP_KO_H */
