// SPDX-License-Identifier: GPL-2.0
/*
 * What `secmap record` needs of each module build's .ko: the size, file
 * offset and flags of each of its sections, read once per build and kept
 * as a small table; the file is closed (and its decompressed image freed)
 * at once, so that a recorder beside perf stays small whatever the number
 * of modules. Builds are found by name and build-id in a tree (tsearch):
 * n log n in the builds, no limit on their number.
 *
 * The tables come from `secmap dump`'s .ko cache (cli/ko_cache.c) first,
 * under the module's build-id and with that cache's checks (the build-id
 * in the entry, every section of the module listed): a build cached by
 * dump or by an earlier record opens no .ko. A .ko read is stored there,
 * as dump stores it, when its build-id is the module's exactly; an entry
 * that fails the checks is a miss, and is written again from the file.
 * With --ko-path, as with dump's, the files are read and the cache only
 * filled.
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_ko.h"
#include "record_ko.h"

struct ko_table_sec {
	const char *name;		/* into the table's names */
	struct secmap_ko_section s;
};

struct ko_table {
	char *module;
	uint8_t build_id[SECMAP_BUILD_ID_MAX];
	size_t build_id_len;
	bool usable;			/* a .ko of this build was read */
	struct ko_table_sec *secs;	/* sorted by name */
	size_t nr_secs;
	char *names;
};

struct ko_tables {
	const struct secmap_ko_search *search;
	struct secmap_ko_index *index;
	char *cache_dir;		/* dump's .ko cache, or NULL */
	bool read_cache;		/* not with --ko-path: files named are read */
	void *root;			/* tsearch() tree of struct ko_table */
	size_t nr;
	size_t nr_cached;		/* builds whose table came from the cache */
	size_t nr_opened;		/* .ko files opened */
};

static int cmp_table(const void *a, const void *b)
{
	const struct ko_table *x = a, *y = b;
	int c = strcmp(x->module, y->module);

	if (c)
		return c;
	if (x->build_id_len != y->build_id_len)
		return x->build_id_len < y->build_id_len ? -1 : 1;
	return x->build_id_len ? memcmp(x->build_id, y->build_id, x->build_id_len) : 0;
}

static int cmp_sec(const void *a, const void *b)
{
	return strcmp(((const struct ko_table_sec *)a)->name,
		      ((const struct ko_table_sec *)b)->name);
}

int ko_tables_new(const struct secmap_ko_search *search, struct ko_tables **tables)
{
	*tables = calloc(1, sizeof(**tables));
	if (!*tables)
		return -ENOMEM;
	(*tables)->search = search;
	/* No $XDG_CACHE_HOME nor $HOME: no cache, every build from its .ko. */
	(*tables)->cache_dir = ko_cache_dir();
	/*
	 * As dump: files the user named are read as named (a stripped copy
	 * keeps the build-id, not every offset), and fill the cache still.
	 */
	(*tables)->read_cache = !(search->paths && search->paths[0]);
	return 0;
}

static void free_table(void *p)
{
	struct ko_table *t = p;

	free(t->module);
	free(t->secs);
	free(t->names);
	free(t);
}

void ko_tables_free(struct ko_tables *tables)
{
	if (!tables)
		return;
	tdestroy(tables->root, free_table);
	secmap_ko_index_free(tables->index);
	free(tables->cache_dir);
	free(tables);
}

size_t ko_tables_count(const struct ko_tables *tables)
{
	return tables ? tables->nr : 0;
}

size_t ko_tables_cached(const struct ko_tables *tables)
{
	return tables ? tables->nr_cached : 0;
}

size_t ko_tables_opened(const struct ko_tables *tables)
{
	return tables ? tables->nr_opened : 0;
}

/* @mod's sections as @ko (from a .ko or the cache) describes them, into @t. */
static int fill_table(struct ko_table *t, const struct secmap_module *mod,
		      const struct dump_ko *ko)
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
		const char *name = secmap_section_name(secmap_module_section(mod, i));
		const struct dump_ko_sec *ks = dump_ko_section(ko, i);
		struct ko_table_sec *s = &t->secs[t->nr_secs];

		if (!ks)
			continue;	/* not in the .ko: no size, no offset */
		s->s = ks->s;
		s->name = p;
		p = stpcpy(p, name) + 1;
		t->nr_secs++;
	}
	qsort(t->secs, t->nr_secs, sizeof(*t->secs), cmp_sec);
	return 0;
}

/*
 * @t's table from the cache: 0 and t->usable if there was a usable entry,
 * -ENOENT if not (none, or one that fails the cache's checks), -ENOMEM.
 */
static int load_cached(struct ko_tables *tables, struct ko_table *t,
		       const struct secmap_module *mod)
{
	struct dump_ko cached;
	int err;

	if (!tables->cache_dir || !tables->read_cache || !t->build_id_len)
		return -ENOENT;
	err = ko_cache_load(tables->cache_dir, mod, &cached);
	if (err)
		return err;
	err = fill_table(t, mod, &cached);
	t->usable = !err;
	tables->nr_cached += !err;
	free(cached.path);
	free(cached.secs);
	return err;
}

/*
 * @t's table from the open @ko (at @path): the module's sections as dump
 * takes them, stored in the cache (best effort) when the file's build-id
 * is the module's, as dump stores them.
 */
static int table_from_ko(struct ko_tables *tables, struct ko_table *t,
			 const struct secmap_module *mod, const struct secmap_ko *ko,
			 char *path, bool exact)
{
	struct dump_ko read = { .path = path };
	int err;

	err = dump_ko_fill(mod, ko, &read);
	if (!err)
		err = fill_table(t, mod, &read);
	t->usable = !err;
	if (!err && exact && tables->cache_dir)
		ko_cache_store(tables->cache_dir, mod, &read);
	free(read.secs);
	return err;
}

/* Find, open, check and read the .ko of @t's build; warnings as record gave them. */
static int read_table(struct ko_tables *tables, struct ko_table *t,
		      const struct secmap_module *mod)
{
	const uint8_t *kbid;
	struct secmap_ko *ko;
	char *path = NULL;
	size_t kbid_len;
	int err;

	err = load_cached(tables, t, mod);
	if (err != -ENOENT)
		return err;
	if (!tables->index) {
		err = secmap_ko_index_new(tables->search, &tables->index);
		if (err)
			return err == -ENOMEM ? err : 0;
	}
	if (secmap_ko_index_find(tables->index, t->module, t->build_id, t->build_id_len, &path))
		return 0;
	tables->nr_opened++;
	err = secmap_ko_open(path, &ko);
	if (err) {
		fprintf(stderr, "Warning: %s: cannot read %s; no sizes or offsets for it\n",
			t->module, path);
		free(path);
		return err == -ENOMEM ? err : 0;
	}
	kbid_len = secmap_ko_build_id(ko, &kbid);
	/* As dump: a file of another build has other sections. */
	if (t->build_id_len && kbid_len &&
	    (t->build_id_len != kbid_len || memcmp(t->build_id, kbid, kbid_len))) {
		fprintf(stderr, "Warning: %s: %s has another build-id than the loaded module; "
			"not used\n", t->module, path);
		err = 0;
	} else {
		/* Cached only under a build-id both have: a file without one is used, not kept. */
		err = table_from_ko(tables, t, mod, ko, path, t->build_id_len && kbid_len);
	}
	secmap_ko_close(ko);
	free(path);
	return err;
}

const struct ko_table *ko_tables_get(struct ko_tables *tables, const struct secmap_module *mod)
{
	struct ko_table key = { .module = (char *)secmap_module_name(mod) }, *t, **found;
	const uint8_t *bid;

	key.build_id_len = secmap_module_build_id(mod, &bid);
	if (key.build_id_len > sizeof(key.build_id))
		return NULL;
	if (key.build_id_len)
		memcpy(key.build_id, bid, key.build_id_len);
	found = tfind(&key, &tables->root, cmp_table);
	if (found)
		return (*found)->usable ? *found : NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	*t = key;
	t->module = strdup(key.module);
	if (!t->module || !tsearch(t, &tables->root, cmp_table)) {
		free(t->module);
		free(t);
		return NULL;
	}
	tables->nr++;
	/* Out of memory or not: the build is known now, and not asked about again. */
	if (read_table(tables, t, mod) || !t->usable)
		return NULL;
	return t;
}

const struct secmap_ko_section *ko_table_section(const struct ko_table *t, const char *name)
{
	struct ko_table_sec key = { .name = name };
	const struct ko_table_sec *s;

	if (!t)
		return NULL;
	s = bsearch(&key, t->secs, t->nr_secs, sizeof(*t->secs), cmp_sec);
	return s ? &s->s : NULL;
}
