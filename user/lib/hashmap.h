/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The one hash table of the library and the tool (hashmap.c): open
 * addressing, at most half full, each slot a full 64-bit hash and one
 * word (an index, or a pointer) that the caller makes its key from. The
 * hash is seeded per table at random: a file cannot be made to put every
 * name or id in one chain.
 *
 * A lookup walks the slots of equal hash and compares keys itself:
 *
 *	h = libsecmap_hashmap_hash(&m, name, strlen(name));
 *	for (s = libsecmap_hashmap_probe(&m, h); s; s = libsecmap_hashmap_next(&m, h, s))
 *		if (!strcmp(items[s->item].name, name))
 *			return &items[s->item];
 *	return libsecmap_hashmap_add(&m, h, new_index) ? NULL : ...;
 *
 * Slots move when the table grows or an item is removed: hold none across
 * libsecmap_hashmap_add() or libsecmap_hashmap_remove().
 */
#ifndef LIBSECMAP_HASHMAP_H
#define LIBSECMAP_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct libsecmap_hashmap_slot {
	uint64_t hash;		/* 0: free (a hash of 0 is stored as 1) */
	uintptr_t item;
};

struct libsecmap_hashmap {
	struct libsecmap_hashmap_slot *slots;
	size_t size, nr;	/* size: 0 or a power of two */
	uint64_t seed;
};

/* An empty table with a seed of its own. */
void libsecmap_hashmap_init(struct libsecmap_hashmap *m);
void libsecmap_hashmap_free(struct libsecmap_hashmap *m);
/* The table's hash of @len bytes at @p (XXH3, seeded); never 0. */
uint64_t libsecmap_hashmap_hash(const struct libsecmap_hashmap *m, const void *p, size_t len);
/* Of a number (an id): a seeded 64-bit mix; never 0. */
static inline uint64_t libsecmap_hashmap_hash_u64(const struct libsecmap_hashmap *m, uint64_t x)
{
	x ^= m->seed;
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x ? x : 1;
}
/* Two hashes into one (a key of several parts); never 0. */
static inline uint64_t libsecmap_hashmap_combine(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	h ^= h >> 32;
	return h ? h : 1;
}

/* The first slot whose hash is @hash, or NULL. */
static inline struct libsecmap_hashmap_slot *
libsecmap_hashmap_probe(const struct libsecmap_hashmap *m, uint64_t hash)
{
	size_t mask = m->size - 1, i;

	if (!m->size)
		return NULL;
	for (i = hash & mask; m->slots[i].hash; i = (i + 1) & mask)
		if (m->slots[i].hash == hash)
			return &m->slots[i];
	return NULL;
}

/* The next slot after @s whose hash is @hash, or NULL. */
static inline struct libsecmap_hashmap_slot *
libsecmap_hashmap_next(const struct libsecmap_hashmap *m, uint64_t hash,
		       const struct libsecmap_hashmap_slot *s)
{
	size_t mask = m->size - 1, i;

	for (i = ((size_t)(s - m->slots) + 1) & mask; m->slots[i].hash; i = (i + 1) & mask)
		if (m->slots[i].hash == hash)
			return &m->slots[i];
	return NULL;
}

/* Add @item under @hash (the caller has looked: no equal key is there). 0 or -ENOMEM. */
int libsecmap_hashmap_add(struct libsecmap_hashmap *m, uint64_t hash, uintptr_t item);
/* Remove the item of slot @s (from a probe of this table). */
void libsecmap_hashmap_remove(struct libsecmap_hashmap *m, struct libsecmap_hashmap_slot *s);

#endif /* LIBSECMAP_HASHMAP_H */
