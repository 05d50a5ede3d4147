// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The hash table of hashmap.h: growth, removal, and its seeded hash. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "hashmap.h"

/* Drawn once per process; each table mixes in its address. */
static _Atomic uint64_t process_seed;

void libsecmap_hashmap_init(struct libsecmap_hashmap *m)
{
	uint64_t seed = atomic_load_explicit(&process_seed, memory_order_relaxed), expected = 0;

	if (!seed) {
		if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
			seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		seed |= 1;
		/* Threads racing here agree on the first one's. */
		if (!atomic_compare_exchange_strong(&process_seed, &expected, seed))
			seed = expected;
	}
	m->slots = NULL;
	m->size = m->nr = 0;
	m->seed = seed;
	m->seed = libsecmap_hashmap_hash_u64(m, (uintptr_t)m);
}

void libsecmap_hashmap_free(struct libsecmap_hashmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->size = m->nr = 0;
}

uint64_t libsecmap_hashmap_hash(const struct libsecmap_hashmap *m, const void *p, size_t len)
{
	uint64_t h = XXH3_64bits_withSeed(p, len, m->seed);

	return h ? h : 1;
}

static void place(struct libsecmap_hashmap_slot *slots, size_t size, uint64_t hash,
		  uintptr_t item)
{
	size_t mask = size - 1, i;

	for (i = hash & mask; slots[i].hash; i = (i + 1) & mask)
		;
	slots[i].hash = hash;
	slots[i].item = item;
}

int libsecmap_hashmap_add(struct libsecmap_hashmap *m, uint64_t hash, uintptr_t item)
{
	if (2 * (m->nr + 1) > m->size) {
		size_t n = m->size ? 2 * m->size : 16, i;
		struct libsecmap_hashmap_slot *slots;

		if (n > SIZE_MAX / sizeof(*slots))
			return -ENOMEM;
		slots = calloc(n, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		for (i = 0; i < m->size; i++)
			if (m->slots[i].hash)
				place(slots, n, m->slots[i].hash, m->slots[i].item);
		free(m->slots);
		m->slots = slots;
		m->size = n;
	}
	place(m->slots, m->size, hash ? hash : 1, item);
	m->nr++;
	return 0;
}

/* Backward-shift deletion: no tombstones, so probes stay as short as the load allows. */
void libsecmap_hashmap_remove(struct libsecmap_hashmap *m, struct libsecmap_hashmap_slot *s)
{
	size_t mask = m->size - 1, i = (size_t)(s - m->slots), j, home;

	m->slots[i].hash = 0;
	m->nr--;
	for (j = (i + 1) & mask; m->slots[j].hash; j = (j + 1) & mask) {
		home = m->slots[j].hash & mask;
		/* Move j back to i unless its home lies cyclically in (i, j]. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		m->slots[j].hash = 0;
		i = j;
	}
}
