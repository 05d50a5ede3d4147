// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the recorder (snapshots and events into records) and the
 * live resolver. The recorder's input is a fake sysfs tree written here;
 * the live resolver is checked against a model of the loads and unloads
 * it was given, from several threads while a writer adds and publishes
 * (the TSan lane runs it too: make test-threads SANITIZE=thread).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "secmap.h"

/* ---- the recorder ---- */

struct collected {
	struct secmap_record recs[16];
	char names[16][32];
	size_t nr;
	int fail_at;		/* return -EIO for this record (1-based), 0: never */
};

static int collect(void *ctx, const struct secmap_record *rec)
{
	struct collected *c = ctx;

	if (c->nr >= 16)
		return -ENOSPC;
	if (c->fail_at && (int)c->nr + 1 == c->fail_at)
		return -EIO;
	c->recs[c->nr] = *rec;
	if (rec->section)
		snprintf(c->names[c->nr], sizeof(c->names[0]), "%s", rec->section);
	c->recs[c->nr].section = NULL;
	c->recs[c->nr].module = NULL;
	c->nr++;
	return 0;
}

/* The .ko of module "drv" has .text (code, 0x80 bytes at 0x40) and .data (writable). */
static int ko_section(void *ctx, const struct secmap_module *mod, const char *name,
		      struct secmap_ko_section *out)
{
	(void)ctx;
	if (strcmp(secmap_module_name(mod), "drv"))
		return -ENOENT;
	*out = (struct secmap_ko_section){ .sz = sizeof(*out) };
	if (!strcmp(name, ".text")) {
		out->size = 0x80;
		out->offset = 0x40;
		out->flags = 0x6;	/* SHF_ALLOC | SHF_EXECINSTR */
		return 0;
	}
	if (!strcmp(name, ".data")) {
		out->size = 0x10;
		out->offset = 0x100;
		out->flags = 0x3;	/* SHF_WRITE | SHF_ALLOC */
		return 0;
	}
	return -ENOENT;
}

static int put(const char *root, const char *rel, const char *text)
{
	char path[256], cmd[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

FIXTURE(recorder) {
	char root[64];
	struct secmap_snapshot *snap;
	struct collected got;
};

/* drv: .text, .data, .data..percpu; other: .text (no .ko). */
FIXTURE_SETUP(recorder)
{
	strcpy(self->root, "/tmp/secmap-live-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	ASSERT_EQ(0, put(self->root, "proc/modules",
			 "drv 16384 0 - Live 0xffffffffc0100000\n"
			 "other 8192 0 - Live 0xffffffffc0200000\n"));
	ASSERT_EQ(0, put(self->root, "sys/module/drv/sections/.text", "0xffffffffc0100000\n"));
	ASSERT_EQ(0, put(self->root, "sys/module/drv/sections/.data", "0xffffffffc0102000\n"));
	ASSERT_EQ(0, put(self->root, "sys/module/drv/sections/.data..percpu",
			 "0x0000000000001000\n"));
	ASSERT_EQ(0, put(self->root, "sys/module/other/sections/.text", "0xffffffffc0200000\n"));
	ASSERT_EQ(0, secmap_snapshot_from_sysfs(self->root, &self->snap));
	memset(&self->got, 0, sizeof(self->got));
}

FIXTURE_TEARDOWN(recorder)
{
	char cmd[128];

	secmap_snapshot_free(self->snap);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->root);
	if (system(cmd))
		TH_LOG("could not remove %s", self->root);
}

static const struct secmap_record *find_map(const struct collected *c, uint64_t start)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (c->recs[i].type == SECMAP_REC_SEC_MAP && c->recs[i].start == start)
			return &c->recs[i];
	return NULL;
}

TEST_F(recorder, snapshot_records_and_flags)
{
	SECMAP_OPTS(secmap_recorder_opts, opts, .record = collect, .ko_section = ko_section,
		    .ctx = &self->got);
	SECMAP_OPTS(secmap_recorder_stats, stats);
	struct secmap_recorder *rec;
	const struct secmap_record *r;

	ASSERT_EQ(0, secmap_recorder_new(&opts, &rec));
	ASSERT_EQ(0, secmap_recorder_snapshot(rec, self->snap, SECMAP_RESYNC_START,
					      SECMAP_SOURCE_SYSFS, 0));
	/* A RESYNC that counts what follows, then one SEC_MAP per sysfs file. */
	ASSERT_EQ(5, self->got.nr);
	EXPECT_EQ(SECMAP_REC_RESYNC, self->got.recs[0].type);
	EXPECT_EQ(4, self->got.recs[0].nr_maps);
	EXPECT_EQ(2, self->got.recs[0].nr_modules);
	EXPECT_EQ(SECMAP_RESYNC_START, self->got.recs[0].reason);

	r = find_map(&self->got, 0xffffffffc0100000ULL);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0x80, r->len);
	EXPECT_EQ(0x40, r->pgoff);
	EXPECT_EQ(SECMAP_MAP_F_SNAPSHOT | SECMAP_MAP_F_EXEC, r->flags);
	r = find_map(&self->got, 0xffffffffc0102000ULL);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(SECMAP_MAP_F_SNAPSHOT | SECMAP_MAP_F_WRITE, r->flags);
	/* Per-CPU by its name, and no .ko entry: no length. */
	r = find_map(&self->got, 0x1000);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(SECMAP_MAP_F_SNAPSHOT | SECMAP_MAP_F_PERCPU | SECMAP_MAP_F_NO_KO, r->flags);
	EXPECT_EQ(0, r->len);
	r = find_map(&self->got, 0xffffffffc0200000ULL);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(SECMAP_MAP_F_SNAPSHOT | SECMAP_MAP_F_NO_KO, r->flags);

	ASSERT_EQ(0, secmap_recorder_stats(rec, &stats));
	EXPECT_EQ(4, stats.maps);
	EXPECT_EQ(0, stats.resyncs);
	secmap_recorder_free(rec);
}

TEST_F(recorder, sink_error_stops_the_call)
{
	SECMAP_OPTS(secmap_recorder_opts, opts, .record = collect, .ctx = &self->got);
	struct secmap_recorder *rec;

	self->got.fail_at = 3;
	ASSERT_EQ(0, secmap_recorder_new(&opts, &rec));
	EXPECT_EQ(-EIO, secmap_recorder_snapshot(rec, self->snap, SECMAP_RESYNC_RELOAD,
						 SECMAP_SOURCE_NETLINK, 0));
	EXPECT_EQ(2, self->got.nr);
	secmap_recorder_free(rec);
}

TEST_F(recorder, gap_and_clock_estimate)
{
	SECMAP_OPTS(secmap_recorder_opts, opts, .record = collect, .ctx = &self->got);
	struct secmap_recorder *rec;

	ASSERT_EQ(0, secmap_recorder_new(&opts, &rec));
	/* No stamp seen yet (a sysfs snapshot has none): nothing to move from. */
	EXPECT_EQ(0, secmap_recorder_local_at(rec, 5000));
	secmap_recorder_gap(rec, 5000);
	ASSERT_EQ(0, secmap_recorder_snapshot(rec, self->snap, SECMAP_RESYNC_RELOAD,
					      SECMAP_SOURCE_NETLINK, 7));
	EXPECT_EQ(5000, self->got.recs[0].gap_mono_ns);
	EXPECT_EQ(7, self->got.recs[0].lost);
	secmap_recorder_free(rec);
}

/* libbpf's rule for a struct that grew: known if the new fields are zero. */
TEST(recorder_opts_size)
{
	struct {
		struct secmap_recorder_opts opts;
		uint64_t newer_field;
	} big = { 0 };
	struct secmap_recorder_opts small = { 0 };
	struct collected c = { 0 };
	struct secmap_recorder *rec;

	big.opts.sz = sizeof(big);
	big.opts.record = collect;
	big.opts.ctx = &c;
	ASSERT_EQ(0, secmap_recorder_new(&big.opts, &rec));
	secmap_recorder_free(rec);
	big.newer_field = 1;
	EXPECT_EQ(-E2BIG, secmap_recorder_new(&big.opts, &rec));
	EXPECT_EQ(NULL, rec);
	small.sz = sizeof(size_t);	/* older than any field we read */
	small.record = collect;
	EXPECT_EQ(-EINVAL, secmap_recorder_new(&small, &rec));
	small.sz = sizeof(small);
	small.record = NULL;
	EXPECT_EQ(-EINVAL, secmap_recorder_new(&small, &rec));
}

/* ---- the live resolver ---- */

#define SLOTS		8
#define SLOT_BASE	0xffffffffc0000000ULL
#define SLOT_SIZE	0x10000ULL
#define TEXT_LEN	0x8000ULL
#define STEP_NS		10ULL

/* Load k (from 1) goes to slot k % SLOTS at time k * STEP_NS; the slot's last load goes then. */
struct life {
	char name[16];
	uint64_t start, from, to;
};

struct model {
	struct life *lives;
	size_t nr;
};

static void model_make(struct model *m, size_t loads)
{
	size_t k;

	m->lives = calloc(loads + 1, sizeof(*m->lives));
	m->nr = loads;
	for (k = 1; k <= loads; k++) {
		snprintf(m->lives[k].name, sizeof(m->lives[k].name), "m%zu", k);
		m->lives[k].start = SLOT_BASE + (k % SLOTS) * SLOT_SIZE;
		m->lives[k].from = k * STEP_NS;
		m->lives[k].to = k + SLOTS <= loads ? (k + SLOTS) * STEP_NS : UINT64_MAX;
	}
}

/* The model's answer: the load holding @addr at @t, or 0. */
static size_t model_at(const struct model *m, uint64_t addr, uint64_t t)
{
	size_t k;

	for (k = 1; k <= m->nr; k++)
		if (addr >= m->lives[k].start && addr < m->lives[k].start + TEXT_LEN &&
		    t >= m->lives[k].from && t < m->lives[k].to)
			return k;
	return 0;
}

static int add_step(struct secmap_live *live, const struct model *m, size_t k)
{
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.pid = SECMAP_PID_HOST_KERNEL,
		.time_local_ns = k * STEP_NS,
		.time_mono_ns = k * STEP_NS,
	};
	int err;

	if (k > SLOTS) {
		rec.type = SECMAP_REC_UNMAP;
		rec.module = m->lives[k - SLOTS].name;
		rec.seq = k - SLOTS;
		err = secmap_live_add(live, &rec);
		if (err)
			return err;
	}
	rec.type = SECMAP_REC_SEC_MAP;
	rec.module = m->lives[k].name;
	rec.seq = k;
	rec.section = ".text";
	rec.start = m->lives[k].start;
	rec.len = TEXT_LEN;
	rec.flags = SECMAP_MAP_F_EXEC;
	return secmap_live_add(live, &rec);
}

static int new_live(struct secmap_live **live)
{
	static const struct secmap_resolver_opts ropts = { .sz = sizeof(struct secmap_resolver_opts), .no_ko = true };
	SECMAP_OPTS(secmap_live_opts, opts, .resolver = &ropts);

	return secmap_live_new(&opts, live);
}

/* One answer against the model; 0 if they agree. */
static int check_one(const struct secmap_resolver *res, const struct model *m, uint64_t addr,
		     uint64_t t)
{
	SECMAP_OPTS(secmap_resolution, out);
	size_t want = model_at(m, addr, t);
	int ret = secmap_resolve(res, addr, t, &out);

	if (!want)
		return ret == -ENOENT ? 0 : -1;
	if (ret || out.kind != SECMAP_RESOLVED_MODULE || strcmp(out.module, m->lives[want].name) ||
	    !out.section || strcmp(out.section, ".text") ||
	    out.section_offset != addr - m->lives[want].start)
		return -1;
	return 0;
}

TEST(live_generations)
{
	struct secmap_live *live;
	const struct secmap_resolver *res;
	struct model m;
	unsigned int token;
	size_t k, bad = 0;
	uint64_t t;

	model_make(&m, 40);
	ASSERT_EQ(0, new_live(&live));
	EXPECT_EQ(NULL, secmap_live_enter(live, &token));
	secmap_live_exit(live, token);
	for (k = 1; k <= 20; k++)
		ASSERT_EQ(0, add_step(live, &m, k));
	ASSERT_EQ(0, secmap_live_publish(live));
	EXPECT_EQ(1, secmap_live_generations(live));
	/* Nothing added: no new generation. */
	ASSERT_EQ(0, secmap_live_publish(live));
	EXPECT_EQ(1, secmap_live_generations(live));

	res = secmap_live_enter(live, &token);
	ASSERT_NE(NULL, res);
	for (t = 5; t < 20 * STEP_NS; t += STEP_NS)
		for (k = 0; k < SLOTS; k++)
			bad += !!check_one(res, &m, SLOT_BASE + k * SLOT_SIZE + 0x123, t);
	secmap_live_exit(live, token);
	EXPECT_EQ(0, bad);

	for (k = 21; k <= 40; k++)
		ASSERT_EQ(0, add_step(live, &m, k));
	ASSERT_EQ(0, secmap_live_publish(live));
	EXPECT_EQ(2, secmap_live_generations(live));
	EXPECT_EQ(40 + 32, secmap_live_nr_records(live));
	res = secmap_live_enter(live, &token);
	for (t = 5; t < 40 * STEP_NS + 100; t += STEP_NS)
		for (k = 0; k < SLOTS; k++) {
			bad += !!check_one(res, &m, SLOT_BASE + k * SLOT_SIZE + 0x7fff, t);
			bad += !!check_one(res, &m, SLOT_BASE + k * SLOT_SIZE + TEXT_LEN, t);
		}
	secmap_live_exit(live, token);
	EXPECT_EQ(0, bad);
	secmap_live_free(live);
	free(m.lives);
}

/*
 * A refused record is dropped; those before it, and later ones, still
 * count: before the first generation, and after one (a refusal drops the
 * next generation's staging, not the records kept for it).
 */
TEST(live_refused_record)
{
	SECMAP_OPTS(secmap_record, bad, .type = SECMAP_REC_SEC_MAP, .flags = SECMAP_MAP_F_SNAPSHOT,
				     .module = "x", .section = ".text", .start = 1, .len = 1);
	struct secmap_live *live;
	const struct secmap_resolver *res;
	unsigned int token;
	struct model m;

	model_make(&m, 3);
	ASSERT_EQ(0, new_live(&live));
	ASSERT_EQ(0, add_step(live, &m, 1));
	/* A snapshot's map with no RESYNC before it. */
	EXPECT_EQ(-EBADMSG, secmap_live_add(live, &bad));
	ASSERT_EQ(0, add_step(live, &m, 2));
	EXPECT_EQ(2, secmap_live_nr_records(live));
	ASSERT_EQ(0, secmap_live_publish(live));
	res = secmap_live_enter(live, &token);
	EXPECT_EQ(0, check_one(res, &m, m.lives[1].start, 15));
	EXPECT_EQ(0, check_one(res, &m, m.lives[2].start, 25));
	secmap_live_exit(live, token);

	ASSERT_EQ(0, add_step(live, &m, 3));
	EXPECT_EQ(-EBADMSG, secmap_live_add(live, &bad));
	ASSERT_EQ(0, secmap_live_publish(live));
	EXPECT_EQ(2, secmap_live_generations(live));
	res = secmap_live_enter(live, &token);
	EXPECT_EQ(0, check_one(res, &m, m.lives[3].start + 4, 35));
	secmap_live_exit(live, token);
	secmap_live_free(live);
	free(m.lives);
}

struct publisher {
	struct secmap_live *live;
	atomic_int done;
};

static void *publish_thread(void *arg)
{
	struct publisher *p = arg;

	secmap_live_publish(p->live);
	atomic_store(&p->done, 1);
	return NULL;
}

/* A publish frees nothing a reader still holds: it waits for the reader's exit. */
TEST(live_publish_waits_for_readers)
{
	struct publisher p = { 0 };
	const struct secmap_resolver *res;
	struct model m;
	unsigned int token;
	pthread_t th;

	model_make(&m, 2);
	ASSERT_EQ(0, new_live(&p.live));
	ASSERT_EQ(0, add_step(p.live, &m, 1));
	ASSERT_EQ(0, secmap_live_publish(p.live));
	res = secmap_live_enter(p.live, &token);
	ASSERT_EQ(0, add_step(p.live, &m, 2));
	ASSERT_EQ(0, pthread_create(&th, NULL, publish_thread, &p));
	usleep(100 * 1000);
	/* However slow the machine, it cannot have finished: we are inside. */
	EXPECT_EQ(0, atomic_load(&p.done));
	EXPECT_EQ(0, check_one(res, &m, m.lives[1].start + 8, 15));
	secmap_live_exit(p.live, token);
	pthread_join(th, NULL);
	EXPECT_EQ(1, atomic_load(&p.done));
	res = secmap_live_enter(p.live, &token);
	EXPECT_EQ(0, check_one(res, &m, m.lives[2].start + 8, 25));
	secmap_live_exit(p.live, token);
	secmap_live_free(p.live);
	free(m.lives);
}

#define LOADS		600
#define READERS		4

struct shared {
	struct secmap_live *live;
	struct model m;
	_Atomic uint64_t published;	/* every record up to this time is in the current generation */
	atomic_int stop;
	atomic_ulong checked, wrong;
};

static void *reader_thread(void *arg)
{
	struct shared *s = arg;
	unsigned int seed = (unsigned int)(uintptr_t)&seed, token;
	uint64_t addrs[8], times[8], upto;
	struct secmap_resolution out[8] = { { .sz = sizeof(out[0]) } };
	int ret[8];
	size_t i, k;

	while (!atomic_load(&s->stop)) {
		const struct secmap_resolver *res;

		upto = atomic_load(&s->published);
		if (!upto)
			continue;
		res = secmap_live_enter(s->live, &token);
		for (i = 0; i < 8; i++) {
			addrs[i] = SLOT_BASE + (rand_r(&seed) % (SLOTS + 1)) * SLOT_SIZE +
				   rand_r(&seed) % SLOT_SIZE;
			/* Between events, up to the last published one: fixed answers. */
			times[i] = (rand_r(&seed) % (upto / STEP_NS)) * STEP_NS + STEP_NS / 2;
			if (check_one(res, &s->m, addrs[i], times[i]))
				atomic_fetch_add(&s->wrong, 1);
		}
		secmap_resolve_many(res, addrs, times, 8, out, ret);
		for (i = 0; i < 8; i++) {
			k = model_at(&s->m, addrs[i], times[i]);
			if (k ? ret[i] || strcmp(out[i].module, s->m.lives[k].name) :
				ret[i] != -ENOENT)
				atomic_fetch_add(&s->wrong, 1);
		}
		secmap_live_exit(s->live, token);
		atomic_fetch_add(&s->checked, 16);
	}
	return NULL;
}

TEST(live_threads_against_model)
{
	struct shared s = { 0 };
	pthread_t th[READERS];
	size_t k, i;

	model_make(&s.m, LOADS);
	ASSERT_EQ(0, new_live(&s.live));
	for (i = 0; i < READERS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, reader_thread, &s));
	for (k = 1; k <= LOADS; k++) {
		ASSERT_EQ(0, add_step(s.live, &s.m, k));
		if (k % 4 == 0 || k == LOADS) {
			ASSERT_EQ(0, secmap_live_publish(s.live));
			atomic_store(&s.published, k * STEP_NS);
		}
	}
	/* Readers get the last generation too, for a while. */
	while (atomic_load(&s.checked) < 20000)
		usleep(1000);
	atomic_store(&s.stop, 1);
	for (i = 0; i < READERS; i++)
		pthread_join(th[i], NULL);
	TH_LOG("%lu answers checked over %" PRIu64 " generations",
	       atomic_load(&s.checked), secmap_live_generations(s.live));
	EXPECT_EQ(0, atomic_load(&s.wrong));
	EXPECT_EQ(LOADS / 4, secmap_live_generations(s.live));
	secmap_live_free(s.live);
	free(s.m.lives);
}

TEST_HARNESS_MAIN
