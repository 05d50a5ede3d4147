// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, on the host: resolver lookups per second on one core, over a
 * synthetic timeline of MODULES modules x SECTIONS sections x RELOADS
 * loads, each reload at another module's former addresses; random
 * addresses (inside a mapped section) and times (inside its validity).
 * Every answer is checked against the timeline (the resolver interns
 * module names, so a pointer comparison), in the timed loop. Lookups one at
 * a time (secmap_resolve()) and in batches (secmap_resolve_many()) take
 * turns, round after round, with the baseline: a plain binary search over
 * as many sorted keys as the index has cuts, the floor any address-sorted
 * index pays in memory traffic.
 *
 *   resolve_bench [MODULES SECTIONS RELOADS LOOKUPS]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "secmap.h"

#define AREA	0xffffffffc0000000ull
#define SLOT	(1ull << 20)	/* each load's address slot */
#define SEC	0x2000ull	/* each section's size */

struct query {
	uint64_t addr, time;
	uint32_t module, section;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Round r lives over [r * 1e6 + m, r * 1e6 + 500000 + m]; slot of (m, r) is (m + 7r) mod M. */
static uint64_t slot_of(unsigned int m, unsigned int r, unsigned int nr_mods)
{
	return AREA + (uint64_t)((m + 7ull * r) % nr_mods) * SLOT;
}

int main(int argc, char **argv)
{
	unsigned int nr_mods = argc > 1 ? atoi(argv[1]) : 1000;
	unsigned int nr_secs = argc > 2 ? atoi(argv[2]) : 20;
	unsigned int nr_loads = argc > 3 ? atoi(argv[3]) : 10;
	size_t nr_lookups = argc > 4 ? strtoull(argv[4], NULL, 10) : 20000000;
	SECMAP_OPTS(secmap_resolver_opts, opts, .no_ko = true);
	struct secmap_resolver *res;
	SECMAP_OPTS(secmap_resolution, out);
	SECMAP_OPTS(secmap_record, rec);
	char names[1000][24], secnames[64][24];
	static const char *expect[1000];
	struct query *q;
	uint64_t *keys, sink = 0;
	size_t i, wrong = 0, nr_keys;
	unsigned int m, s, r;
	enum { BATCH = 256, ROUNDS = 21 };
	static struct secmap_resolution outs[BATCH];
	static uint64_t addrs[BATCH], times[BATCH];
	static int rets[BATCH];
	static double rate[3][ROUNDS];
	double t0, build_s, median[3];
	size_t wrong_many = 0, per_round, j, k;
	int round;
	int err;

	if (nr_mods > 1000 || nr_secs > 64 || !nr_mods || !nr_secs || !nr_loads ||
	    nr_lookups < ROUNDS) {
		fprintf(stderr, "resolve_bench: at most 1000 modules and 64 sections, at least %d "
			"lookups\n", ROUNDS);
		return 2;
	}
	for (m = 0; m < nr_mods; m++)
		snprintf(names[m], sizeof(names[m]), "mod_%04u", m);
	for (s = 0; s < nr_secs; s++)
		snprintf(secnames[s], sizeof(secnames[s]), ".text.s%02u", s);

	t0 = now();
	if (secmap_resolver_new(&opts, &res))
		return 1;
	rec.type = SECMAP_REC_RESYNC;
	rec.reason = SECMAP_RESYNC_START;
	rec.source = SECMAP_SOURCE_NETLINK;
	if (secmap_resolver_add(res, &rec))
		return 1;
	for (r = 0; r < nr_loads; r++) {
		for (m = 0; m < nr_mods; m++) {
			memset(&rec, 0, sizeof(rec));
			rec.sz = sizeof(rec);
			rec.type = SECMAP_REC_SEC_MAP;
			rec.module = names[m];
			rec.seq = (uint64_t)r * nr_mods + m + 1;
			rec.time_local_ns = rec.time_mono_ns = r * 1000000ull + m;
			rec.flags = SECMAP_MAP_F_EXEC;
			for (s = 0; s < nr_secs; s++) {
				rec.section = secnames[s];
				rec.start = slot_of(m, r, nr_mods) + s * SEC;
				rec.len = SEC;
				err = secmap_resolver_add(res, &rec);
				if (err)
					return 1;
			}
		}
		for (m = 0; m < nr_mods; m++) {
			memset(&rec, 0, sizeof(rec));
			rec.sz = sizeof(rec);
			rec.type = SECMAP_REC_UNMAP;
			rec.module = names[m];
			rec.time_local_ns = rec.time_mono_ns = r * 1000000ull + 500000 + m;
			if (secmap_resolver_add(res, &rec))
				return 1;
		}
	}
	if (secmap_resolver_finish(res))
		return 1;
	build_s = now() - t0;

	q = malloc(nr_lookups * sizeof(*q));
	if (!q)
		return 1;
	for (i = 0; i < nr_lookups; i++) {
		m = next_rand() % nr_mods;
		s = next_rand() % nr_secs;
		r = next_rand() % nr_loads;
		q[i].module = m;
		q[i].section = s;
		q[i].addr = slot_of(m, r, nr_mods) + s * SEC + next_rand() % SEC;
		q[i].time = r * 1000000ull + m + next_rand() % 500001;
	}
	/*
	 * The resolver's names are interned: one pointer per module, so the
	 * check of every answer below is a pointer comparison.
	 */
	for (i = 0; i < secmap_resolver_nr_modules(res); i++) {
		SECMAP_OPTS(secmap_resolver_module, mod);

		if (secmap_resolver_module(res, i, &mod) || sscanf(mod.name, "mod_%u", &m) != 1 ||
		    m >= nr_mods)
			return 1;
		expect[m] = mod.name;
	}
	nr_keys = 2 * (size_t)nr_mods * nr_secs;	/* about the index's cuts */
	keys = malloc(nr_keys * sizeof(*keys));
	if (!keys)
		return 1;
	for (i = 0; i < nr_keys; i++)
		keys[i] = AREA + i * (SEC / 2);

	/*
	 * The three take turns, ROUNDS rounds of nr_lookups / ROUNDS each: a
	 * host whose speed drifts over seconds (a shared machine's neighbours)
	 * then weighs on all three alike. Medians of the rounds are printed.
	 */
	per_round = nr_lookups / ROUNDS;
	for (round = 0; round < ROUNDS; round++) {
		const struct query *rq = q + round * per_round;

		t0 = now();
		for (i = 0; i < per_round; i++) {
			if (secmap_resolve(res, rq[i].addr, rq[i].time, &out) ||
			    out.module != expect[rq[i].module])
				wrong++;
			sink += out.section_offset;
		}
		rate[0][round] = per_round / (now() - t0);

		t0 = now();
		for (i = 0; i < per_round; i += BATCH) {
			k = per_round - i < BATCH ? per_round - i : BATCH;
			for (j = 0; j < k; j++) {
				addrs[j] = rq[i + j].addr;
				times[j] = rq[i + j].time;
			}
			outs[0].sz = sizeof(outs[0]);
			secmap_resolve_many(res, addrs, times, k, outs, rets);
			for (j = 0; j < k; j++) {
				if (rets[j] || outs[j].module != expect[rq[i + j].module])
					wrong_many++;
				sink += outs[j].section_offset;
			}
		}
		rate[1][round] = per_round / (now() - t0);

		t0 = now();
		for (i = 0; i < per_round; i++) {
			uint64_t key = AREA + (rq[i].addr - AREA) % (nr_keys * (SEC / 2));
			size_t lo = 0, hi = nr_keys;

			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (keys[mid] <= key)
					lo = mid + 1;
				else
					hi = mid;
			}
			sink += lo;
		}
		rate[2][round] = per_round / (now() - t0);
	}
	for (i = 0; i < 3; i++) {
		qsort(rate[i], ROUNDS, sizeof(rate[i][0]), cmp_double);
		median[i] = rate[i][ROUNDS / 2] / 1e6;
	}

	printf("bench resolve: %u modules x %u sections x %u loads = %zu mappings, index built "
	       "in %.0f ms\n", nr_mods, nr_secs, nr_loads, secmap_resolver_nr_maps(res),
	       build_s * 1e3);
	printf("bench resolve: medians of %d rounds, the three taking turns (fastest round: "
	       "%.1f, %.1f, %.1f M/s)\n", ROUNDS, rate[0][ROUNDS - 1] / 1e6,
	       rate[1][ROUNDS - 1] / 1e6, rate[2][ROUNDS - 1] / 1e6);
	printf("bench resolve: %.1f M lookups/s on one core, one at a time (%.0f ns each; goal >= "
	       "30 M/s), %zu of %zu answers wrong\n", median[0], 1e3 / median[0], wrong,
	       per_round * ROUNDS);
	printf("bench resolve: %.1f M lookups/s on one core in batches of %d "
	       "(secmap_resolve_many), %zu wrong\n", median[1], BATCH, wrong_many);
	printf("bench resolve: baseline, plain binary search over %zu keys: %.1f M/s; "
	       "resolver/baseline %.2f one at a time, %.2f in batches (sink %" PRIu64 ")\n",
	       nr_keys, median[2], median[0] / median[2], median[1] / median[2], sink & 1);
	secmap_resolver_free(res);
	free(q);
	free(keys);
	return wrong || wrong_many ? 1 : 0;
}
