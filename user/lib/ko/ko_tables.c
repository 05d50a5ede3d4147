// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Section tables (secmap.h): per module build, the size, file offset and
 * flags of each of its sections as its .ko says them, read once and kept
 * as a small table; the file is closed (and its decompressed image freed)
 * at once, so that a recorder beside perf stays small whatever the number
 * of modules. Builds are found by name and build-id in a tree (tsearch):
 * n log n in the builds, no limit on their number.
 *
 * The tables come from the cache on disk (ko_cache.c) first, under the
 * module's build-id and with that cache's checks; `secmap dump` and
 * `secmap record` share it, so a build either has read opens no .ko in
 * the other. A .ko read is stored there when its build-id is the
 * module's exactly.
 *
 * A resolver's files (ko_pool.c) are another matter: it needs their
 * symbols, so it keeps them open.
 */
#include <search.h>

#include "internal.h"

/* A section of the module, by name: what the file says of it. */
struct table_sec {
	const char *name;		/* into the table's names */
	struct secmap_ko_section s;
};

struct secmap_ko_table {
	char *module;
	uint8_t build_id[SECMAP_BUILD_ID_MAX];	/* the module's: the key */
	size_t build_id_len;
	uint8_t file_id[SECMAP_BUILD_ID_MAX];	/* the file's */
	size_t file_id_len;
	char *path;			/* NULL: no .ko found */
	int err;			/* what secmap_ko_tables_get() answers */
	bool cached;
	struct table_sec *secs;		/* those the file has, sorted by name */
	size_t nr_secs;
	char *names;
};

struct secmap_ko_tables {
	struct secmap_ko_tables_opts opts;
	char *cache_dir;
	bool read_cache;		/* not with search->paths: the files named are read */
	struct libsecmap_ko_cache_listing *listing;
	bool listed;			/* the listing was taken (it may still be NULL) */
	struct secmap_ko_index *index;
	int index_err;
	void *root;			/* tsearch() tree of struct secmap_ko_table */
	struct secmap_ko_tables_stats stats;
};

static int cmp_table(const void *a, const void *b)
{
	const struct secmap_ko_table *x = a, *y = b;

	return libsecmap_cmp_build(x->module, x->build_id, x->build_id_len, y->module, y->build_id,
				   y->build_id_len);
}

static int cmp_sec(const void *a, const void *b)
{
	return strcmp(((const struct table_sec *)a)->name, ((const struct table_sec *)b)->name);
}

SECMAP_EXPORT int secmap_ko_tables_new(const struct secmap_ko_tables_opts *opts,
				       struct secmap_ko_tables **tablesp)
{
	struct secmap_ko_tables *t;
	int err;

	*tablesp = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return libsecmap_err(-ENOMEM);
	err = libsecmap_struct_in(opts, offsetofend(struct secmap_ko_tables_opts, ctx),
				  &t->opts, sizeof(t->opts));
	if (!err && !t->opts.search)
		err = -EINVAL;
	if (!err && t->opts.cache_dir) {
		t->cache_dir = strdup(t->opts.cache_dir);
		if (!t->cache_dir)
			err = -ENOMEM;
	}
	if (err) {
		free(t);
		return libsecmap_err(err);
	}
	t->opts.cache_dir = t->cache_dir;
	t->read_cache = t->cache_dir && !(t->opts.search->paths && t->opts.search->paths[0]);
	t->stats.sz = sizeof(t->stats);
	*tablesp = t;
	return 0;
}

static void free_table(void *p)
{
	struct secmap_ko_table *t = p;

	free(t->module);
	free(t->path);
	free(t->secs);
	free(t->names);
	free(t);
}

SECMAP_EXPORT void secmap_ko_tables_free(struct secmap_ko_tables *tables)
{
	if (!tables)
		return;
	tdestroy(tables->root, free_table);
	secmap_ko_index_free(tables->index);
	libsecmap_ko_cache_listing_free(tables->listing);
	free(tables->cache_dir);
	free(tables);
}

SECMAP_EXPORT int secmap_ko_tables_stats(const struct secmap_ko_tables *tables,
					 struct secmap_ko_tables_stats *stats)
{
	int err = libsecmap_struct_out(stats, offsetofend(struct secmap_ko_tables_stats, stored),
				       &tables->stats, sizeof(tables->stats));

	return err ? libsecmap_err(err) : 0;
}

/* @mod's sections as @rows (one per section, in its order) describe them, into @t. */
static int fill_table(struct secmap_ko_table *t, const struct secmap_module *mod,
		      const struct libsecmap_ko_row *rows)
{
	size_t i, n = secmap_module_section_count(mod), len = 0;
	char *p;

	for (i = 0; i < n; i++)
		len += strlen(secmap_section_name(secmap_module_section(mod, i))) + 1;
	t->secs = calloc(n ? n : 1, sizeof(*t->secs));
	t->names = malloc(len ? len : 1);
	if (!t->secs || !t->names)
		return -ENOMEM;
	for (i = 0, p = t->names; i < n; i++) {
		struct table_sec *s = &t->secs[t->nr_secs];

		if (!rows[i].found)
			continue;	/* not in the .ko: no size, no offset */
		s->s = rows[i].s;
		s->name = p;
		p = stpcpy(p, secmap_section_name(secmap_module_section(mod, i))) + 1;
		t->nr_secs++;
	}
	qsort(t->secs, t->nr_secs, sizeof(*t->secs), cmp_sec);
	return 0;
}

/*
 * @t's table from the cache: 0 if there was a usable entry, -ENOENT if
 * not (none, or one that fails the cache's checks), -ENOMEM.
 */
static int load_cached(struct secmap_ko_tables *tables, struct secmap_ko_table *t,
		       const struct secmap_module *mod)
{
	struct libsecmap_ko_rows cached;
	int err;

	if (!tables->read_cache || !t->build_id_len)
		return -ENOENT;
	/* One listing answers the misses: no failed path walk per module. */
	if (!tables->listed) {
		tables->listing = libsecmap_ko_cache_list(tables->cache_dir);
		tables->listed = true;
	}
	if (!libsecmap_ko_cache_listed(tables->listing, mod))
		return -ENOENT;
	err = libsecmap_ko_cache_load(tables->cache_dir, mod, &cached);
	if (err)
		return err;
	err = fill_table(t, mod, cached.rows);
	if (!err) {
		t->path = cached.path;
		cached.path = NULL;
		/* An entry is used only under the module's build-id: the file's too. */
		memcpy(t->file_id, t->build_id, t->build_id_len);
		t->file_id_len = t->build_id_len;
		t->cached = true;
		tables->stats.cached++;
	}
	free(cached.path);
	free(cached.rows);
	return err;
}

/* What the open @ko says of each of @mod's sections, into @t; 0 or -ENOMEM. */
static int table_from_ko(struct secmap_ko_tables *tables, struct secmap_ko_table *t,
			 const struct secmap_module *mod, const struct secmap_ko *ko)
{
	size_t i, n = secmap_module_section_count(mod);
	struct libsecmap_ko_rows read = { .path = t->path };
	int err;

	read.rows = calloc(n ? n : 1, sizeof(*read.rows));
	if (!read.rows)
		return -ENOMEM;
	/* By name, .data..percpu included: the file has it, SHF_ALLOC and all. */
	for (i = 0; i < n; i++) {
		read.rows[i].s.sz = sizeof(read.rows[i].s);
		read.rows[i].found = !secmap_ko_section(ko, secmap_section_name(
							secmap_module_section(mod, i)),
							&read.rows[i].s);
	}
	err = fill_table(t, mod, read.rows);
	/* Cached only under a build-id both have: a file without one is used, not kept. */
	if (!err && tables->cache_dir && t->build_id_len && t->file_id_len && !t->err &&
	    !libsecmap_ko_cache_store(tables->cache_dir, mod, &read))
		tables->stats.stored++;
	free(read.rows);
	return err;
}

/* Find, open, check and read the .ko of @t's build; t->err says how it went. */
static int read_table(struct secmap_ko_tables *tables, struct secmap_ko_table *t,
		      const struct secmap_module *mod)
{
	const uint8_t *kbid;
	struct secmap_ko *ko;
	int err;

	err = load_cached(tables, t, mod);
	if (err != -ENOENT)
		return err;
	if (!tables->index && !tables->index_err)
		tables->index_err = secmap_ko_index_new(tables->opts.search, &tables->index);
	if (tables->index_err == -ENOMEM)
		return tables->index_err;
	if (tables->index_err) {
		t->err = tables->index_err;
		return 0;
	}
	err = secmap_ko_index_find(tables->index, t->module, t->build_id, t->build_id_len,
				   &t->path);
	if (err) {
		t->err = err;
		return err == -ENOMEM ? err : 0;
	}
	tables->stats.opened++;
	err = secmap_ko_open(t->path, &ko);
	if (err) {
		t->err = err;
		return err == -ENOMEM ? err : 0;
	}
	t->file_id_len = secmap_ko_build_id(ko, &kbid);
	if (t->file_id_len > sizeof(t->file_id))
		t->file_id_len = 0;
	if (t->file_id_len)
		memcpy(t->file_id, kbid, t->file_id_len);
	/* A file of another build has other sections. */
	if (t->build_id_len && t->file_id_len &&
	    (t->build_id_len != t->file_id_len ||
	     memcmp(t->build_id, t->file_id, t->file_id_len)))
		t->err = -ESTALE;
	err = table_from_ko(tables, t, mod, ko);
	secmap_ko_close(ko);
	return err;
}

SECMAP_EXPORT int secmap_ko_tables_get(struct secmap_ko_tables *tables,
				       const struct secmap_module *mod,
				       const struct secmap_ko_table **table)
{
	struct secmap_ko_table key = { .module = (char *)secmap_module_name(mod) }, *t, **found;
	const uint8_t *bid;
	int err;

	*table = NULL;
	key.build_id_len = secmap_module_build_id(mod, &bid);
	if (key.build_id_len > sizeof(key.build_id))
		return libsecmap_err(-EINVAL);
	if (key.build_id_len)
		memcpy(key.build_id, bid, key.build_id_len);
	found = tfind(&key, &tables->root, cmp_table);
	if (!found) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return libsecmap_err(-ENOMEM);
		*t = key;
		t->module = strdup(key.module);
		err = t->module ? read_table(tables, t, mod) : -ENOMEM;
		found = err ? NULL : tsearch(t, &tables->root, cmp_table);
		if (!found) {
			/* Out of memory: not remembered, asked again next time. */
			free_table(t);
			return libsecmap_err(-ENOMEM);
		}
		tables->stats.builds++;
		if (tables->opts.looked_up)
			tables->opts.looked_up(tables->opts.ctx, mod, t->path ? t : NULL, t->err);
	}
	t = *found;
	if (t->path)
		*table = t;
	return t->err ? libsecmap_err(t->err) : 0;
}

SECMAP_EXPORT const char *secmap_ko_table_path(const struct secmap_ko_table *table)
{
	return table->path;
}

SECMAP_EXPORT size_t secmap_ko_table_build_id(const struct secmap_ko_table *table,
					      const uint8_t **id)
{
	*id = table->file_id;
	return table->file_id_len;
}

SECMAP_EXPORT bool secmap_ko_table_cached(const struct secmap_ko_table *table)
{
	return table->cached;
}

SECMAP_EXPORT int secmap_ko_table_section(const struct secmap_ko_table *table, const char *name,
					  struct secmap_ko_section *section)
{
	struct table_sec key = { .name = name };
	const struct table_sec *s;
	int err;

	/* A file that could not be read has no sections, and no array. */
	s = table->nr_secs ? bsearch(&key, table->secs, table->nr_secs, sizeof(*table->secs),
				     cmp_sec) : NULL;
	if (!s)
		return libsecmap_err(-ENOENT);
	err = libsecmap_struct_out(section, offsetofend(struct secmap_ko_section, nr_symbols),
				   &s->s, sizeof(s->s));
	return err ? libsecmap_err(err) : 0;
}
