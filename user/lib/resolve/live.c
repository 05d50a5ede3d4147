// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A live resolver: records are added while other threads resolve.
 *
 * Lookups never wait. The writer builds the next generation, a whole
 * resolver, from every record added so far, and swaps it in with one
 * atomic store; readers bracket their use of a generation with two
 * counters, one per parity of an epoch (SRCU's scheme). To free the old
 * generation the writer flips the epoch twice, each time waiting for the
 * readers counted under the parity it left: any reader that could still
 * hold the old generation entered before the swap, and is counted under
 * one of the two.
 *
 * A generation costs a replay of the records (linear) and a resolver's
 * finish (n log n); the .ko files are opened once for all generations
 * (ko_pool.c). Module loads are rare next to samples: an agent publishes
 * after each batch of events.
 */
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "internal.h"

struct secmap_live {
	struct secmap_resolver_opts opts;
	struct secmap_record **log;	/* every record accepted, deep copies */
	size_t nr_log, cap_log;
	/* The next generation: the log replayed, plus what came since. NULL: none yet. */
	struct secmap_resolver *staging;
	struct libsecmap_ko_pool *pool;
	uint64_t generations;
	size_t nr_published;		/* records of the log in the current generation */
	_Atomic(struct secmap_resolver *) current;
	atomic_uint epoch;
	atomic_ulong readers[2];
};

SECMAP_EXPORT int secmap_live_new(const struct secmap_live_opts *opts, struct secmap_live **livep)
{
	SECMAP_OPTS(secmap_resolver_opts, ropts);
	SECMAP_OPTS(secmap_live_opts, o);
	struct secmap_live *live;
	int err = 0;

	if (!livep)
		return libsecmap_err(-EINVAL);
	*livep = NULL;
	if (opts)
		err = libsecmap_struct_in(opts, offsetofend(struct secmap_live_opts, resolver), &o,
					  sizeof(o));
	if (!err && o.resolver)
		err = libsecmap_struct_in(o.resolver, SECMAP_RESOLVER_OPTS_SZ_1_0, &ropts,
					  sizeof(ropts));
	if (!err && ropts.clock > SECMAP_CLOCK_MONO)
		err = -EINVAL;
	if (err)
		return libsecmap_err(err);
	live = calloc(1, sizeof(*live));
	if (!live)
		return libsecmap_err(-ENOMEM);
	live->opts = ropts;
	err = libsecmap_ko_pool_new(&live->pool);
	if (err) {
		free(live);
		return libsecmap_err(err);
	}
	*livep = live;
	return 0;
}

SECMAP_EXPORT void secmap_live_free(struct secmap_live *live)
{
	size_t i;

	if (!live)
		return;
	secmap_resolver_free(atomic_load(&live->current));
	secmap_resolver_free(live->staging);
	for (i = 0; i < live->nr_log; i++)
		free(live->log[i]);
	free(live->log);
	/* Last: the generations' symbol names point into its images. */
	libsecmap_ko_pool_free(live->pool);
	free(live);
}

/* @n bytes of @src at *@at, which moves past them; NULL for no @src. */
static void *copy_bytes(char **at, const void *src, size_t n)
{
	void *dst = *at;

	if (!src)
		return NULL;
	memcpy(dst, src, n);
	*at += n;
	return dst;
}

static size_t str_size(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* @rec and everything it points to, in one allocation. */
static struct secmap_record *copy_record(const struct secmap_record *rec)
{
	size_t section = str_size(rec->section), module = str_size(rec->module);
	size_t release = str_size(rec->release), ref_name = str_size(rec->ref_name);
	size_t id_len = rec->build_id ? rec->build_id_len : 0;
	size_t text_len = rec->text ? rec->text_len : 0;
	size_t bytes = sizeof(*rec) + section + module + release + ref_name + id_len;
	struct secmap_record *c;
	char *at;

	if (text_len > SIZE_MAX - bytes)
		return NULL;
	c = malloc(bytes + text_len);
	if (!c)
		return NULL;
	*c = *rec;
	at = (char *)(c + 1);
	c->section = copy_bytes(&at, rec->section, section);
	c->module = copy_bytes(&at, rec->module, module);
	c->release = copy_bytes(&at, rec->release, release);
	c->ref_name = copy_bytes(&at, rec->ref_name, ref_name);
	c->build_id = copy_bytes(&at, rec->build_id, id_len);
	c->text = copy_bytes(&at, rec->text, text_len);
	return c;
}

/* A new staging resolver holding the whole log. 0 or an error of adding it. */
static int stage(struct secmap_live *live)
{
	struct secmap_resolver *res;
	size_t i;
	int err;

	err = secmap_resolver_new(&live->opts, &res);
	if (err)
		return err;
	libsecmap_resolver_set_ko_pool(res, live->pool);
	for (i = 0; i < live->nr_log; i++) {
		err = secmap_resolver_add(res, live->log[i]);
		if (err) {
			secmap_resolver_free(res);
			return err;
		}
	}
	live->staging = res;
	return 0;
}

SECMAP_EXPORT int secmap_live_add(struct secmap_live *live, const struct secmap_record *rec)
{
	struct secmap_record **log, *copy, r;
	int err;

	if (!live || !rec)
		return libsecmap_err(-EINVAL);
	err = libsecmap_struct_in(rec, SECMAP_RECORD_SZ_1_0, &r, sizeof(r));
	if (err)
		return libsecmap_err(err);
	rec = &r;
	if (!live->staging) {
		err = stage(live);
		if (err)
			return libsecmap_err(err);
	}
	log = libsecmap_grow(live->log, &live->cap_log, live->nr_log, sizeof(*log), 64);
	if (!log)
		return libsecmap_err(-ENOMEM);
	live->log = log;
	copy = copy_record(rec);
	if (!copy)
		return libsecmap_err(-ENOMEM);
	err = secmap_resolver_add(live->staging, copy);
	if (err) {
		/* Refused, and kept out of the log: the next add stages the log again. */
		free(copy);
		secmap_resolver_free(live->staging);
		live->staging = NULL;
		return err;
	}
	live->log[live->nr_log++] = copy;
	return 0;
}

/* Until no reader counted under @parity is left. */
static void wait_readers(struct secmap_live *live, unsigned int parity)
{
	struct timespec nap = { 0, 1000 };
	unsigned int spins = 0;

	while (atomic_load(&live->readers[parity])) {
		if (++spins < 64) {
			sched_yield();
			continue;
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 1000000)
			nap.tv_nsec *= 2;
	}
}

/* No reader holds what was current before the last swap. */
static void wait_for_readers(struct secmap_live *live)
{
	unsigned int e;

	e = atomic_fetch_add(&live->epoch, 1);
	wait_readers(live, e & 1);
	e = atomic_fetch_add(&live->epoch, 1);
	wait_readers(live, e & 1);
}

SECMAP_EXPORT int secmap_live_publish(struct secmap_live *live)
{
	struct secmap_resolver *old;
	int err;

	if (!live)
		return libsecmap_err(-EINVAL);
	/* Not @staging: a refused record or a failed finish drops it, and keeps the log. */
	if (live->generations && live->nr_published == live->nr_log)
		return 0;	/* nothing added since the last generation */
	if (!live->staging) {
		err = stage(live);
		if (err)
			return libsecmap_err(err);
	}
	err = secmap_resolver_finish(live->staging);
	if (err) {
		secmap_resolver_free(live->staging);
		live->staging = NULL;
		return libsecmap_err(err);
	}
	old = atomic_exchange(&live->current, live->staging);
	live->staging = NULL;
	live->generations++;
	live->nr_published = live->nr_log;
	if (old) {
		wait_for_readers(live);
		secmap_resolver_free(old);
	}
	return 0;
}

SECMAP_EXPORT const struct secmap_resolver *secmap_live_enter(struct secmap_live *live,
							      unsigned int *token)
{
	unsigned int parity;

	if (!live || !token)
		return NULL;
	parity = atomic_load(&live->epoch) & 1;
	atomic_fetch_add(&live->readers[parity], 1);
	*token = parity;
	return atomic_load(&live->current);
}

SECMAP_EXPORT void secmap_live_exit(struct secmap_live *live, unsigned int token)
{
	if (live && token < 2)
		atomic_fetch_sub(&live->readers[token], 1);
}

SECMAP_EXPORT uint64_t secmap_live_generations(const struct secmap_live *live)
{
	return live ? live->generations : 0;
}

SECMAP_EXPORT size_t secmap_live_nr_records(const struct secmap_live *live)
{
	return live ? live->nr_log : 0;
}
