// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A resolver's .ko files: each module build looked up and opened (and
 * decompressed) once, kept open while symbol names point into them, and
 * counted against one budget. A live resolver's generations share one
 * pool; each generation still sorts its own symbols.
 */
#include <search.h>

#include "internal.h"

struct pool_entry {
	char *name;
	uint8_t id[SECMAP_BUILD_ID_MAX];
	size_t id_len;
	char *path;		/* NULL: not found */
	struct secmap_ko *ko;	/* NULL: @err says why */
	int err;
};

struct libsecmap_ko_pool {
	struct secmap_ko_index *idx;	/* made on the first lookup, from its search */
	void *root;			/* struct pool_entry, by name and build-id */
	size_t spent;			/* decompressed, of LIBSECMAP_KO_BUDGET */
};

int libsecmap_ko_pool_new(struct libsecmap_ko_pool **pool)
{
	*pool = calloc(1, sizeof(**pool));
	return *pool ? 0 : -ENOMEM;
}

static void free_entry(void *p)
{
	struct pool_entry *e = p;

	secmap_ko_close(e->ko);
	free(e->path);
	free(e->name);
	free(e);
}

void libsecmap_ko_pool_free(struct libsecmap_ko_pool *pool)
{
	if (!pool)
		return;
	tdestroy(pool->root, free_entry);
	secmap_ko_index_free(pool->idx);
	free(pool);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct pool_entry *x = a, *y = b;

	return libsecmap_cmp_build(x->name, x->id, x->id_len, y->name, y->id, y->id_len);
}

/*
 * Find and open what secmap_ko_index_find() finds for the build; how it
 * went in @e->err. 0, or -ENOMEM.
 */
static int open_entry(struct libsecmap_ko_pool *pool, const struct secmap_ko_search *search,
		      struct pool_entry *e)
{
	size_t spent = 0;
	int err;

	if (!pool->idx) {
		err = secmap_ko_index_new(search, &pool->idx);
		if (err == -ENOMEM)
			return err;
		if (err) {
			e->err = err;
			return 0;
		}
	}
	err = secmap_ko_index_find(pool->idx, e->name, e->id_len ? e->id : NULL, e->id_len,
				   &e->path);
	if (err == -ENOMEM)
		return err;
	if (err) {
		e->err = -ENOENT;
		return 0;
	}
	err = libsecmap_ko_open_budget(e->path, pool->spent < LIBSECMAP_KO_BUDGET ?
				       LIBSECMAP_KO_BUDGET - pool->spent : 0, &e->ko, &spent);
	pool->spent += spent;
	if (err == -ENOMEM)
		return err;
	e->err = err;
	return 0;
}

int libsecmap_ko_pool_get(struct libsecmap_ko_pool *pool, const struct secmap_ko_search *search,
			  const char *name, const uint8_t *id, size_t id_len, const char **path,
			  struct secmap_ko **ko)
{
	struct pool_entry key = { .name = (char *)name, .id_len = id_len }, *e, **found;
	int err;

	*path = NULL;
	*ko = NULL;
	if (id_len > sizeof(key.id))
		return -EINVAL;
	if (id_len)
		memcpy(key.id, id, id_len);
	found = tfind(&key, &pool->root, cmp_entry);
	if (!found) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		*e = key;
		e->name = strdup(name);
		err = e->name ? open_entry(pool, search, e) : -ENOMEM;
		found = err ? NULL : tsearch(e, &pool->root, cmp_entry);
		if (!found) {
			/* Out of memory: not remembered, asked again next time. */
			free_entry(e);
			return -ENOMEM;
		}
	}
	e = *found;
	*path = e->path;
	*ko = e->ko;
	return e->err;
}
