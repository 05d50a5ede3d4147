// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the perf.data data-section reader (secmap_perf_data_*), on
 * files built here byte by byte: each record kind decoded, every sample
 * field layout walked, several events told apart by id, compressed batches
 * split anywhere (COMPRESSED and COMPRESSED2), refusals, every truncation
 * of the data section and random byte flips (clean errors, no crash: run
 * under SANITIZE=1). tests/perf_data_test.sh compares with the real perf.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "kselftest_harness.h"

#include "samples.h"

#include "secmap.h"

#define HDR_SIZE	104
#define ATTR_LEN	128

/* sample_type bits, read_format, branch_sample_type, attr flags */
#define S_IP		(1ULL << 0)
#define S_TID		(1ULL << 1)
#define S_TIME		(1ULL << 2)
#define S_ADDR		(1ULL << 3)
#define S_READ		(1ULL << 4)
#define S_CALLCHAIN	(1ULL << 5)
#define S_ID		(1ULL << 6)
#define S_CPU		(1ULL << 7)
#define S_PERIOD	(1ULL << 8)
#define S_STREAM_ID	(1ULL << 9)
#define S_RAW		(1ULL << 10)
#define S_BRANCH_STACK	(1ULL << 11)
#define S_REGS_USER	(1ULL << 12)
#define S_STACK_USER	(1ULL << 13)
#define S_WEIGHT	(1ULL << 14)
#define S_DATA_SRC	(1ULL << 15)
#define S_IDENTIFIER	(1ULL << 16)
#define S_TRANSACTION	(1ULL << 17)
#define S_REGS_INTR	(1ULL << 18)
#define S_PHYS_ADDR	(1ULL << 19)
#define S_AUX		(1ULL << 20)
#define S_CGROUP	(1ULL << 21)
#define S_DATA_PAGE	(1ULL << 22)
#define S_CODE_PAGE	(1ULL << 23)
#define F_ENABLED	1
#define F_RUNNING	2
#define F_ID		4
#define F_GROUP		8
#define F_LOST		16
#define B_HW_INDEX	(1ULL << 17)
#define A_SAMPLE_ID_ALL	(1ULL << 18)
#define A_USE_CLOCKID	(1ULL << 25)

struct bytes {
	uint8_t *p;
	size_t len;
	size_t cap;	/* the room at @p; a view of another's bytes (a cut) is never appended to */
};

/* Doubled as it fills: a file of megabytes is made a word at a time. */
static void append(struct bytes *b, const void *d, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = 2 * (b->len + n + 1);
		b->p = realloc(b->p, b->cap);
	}
	if (!b->p)
		abort();
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void set64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static void set32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put64(struct bytes *b, uint64_t v)
{
	uint8_t le[8];

	set64(le, v);
	append(b, le, 8);
}

static void put32x2(struct bytes *b, uint32_t x, uint32_t y)
{
	put64(b, (uint64_t)y << 32 | x);
}

/* Start a record: returns where it begins, for end_rec(). */
static size_t begin_rec(struct bytes *b, uint32_t type, uint16_t misc)
{
	size_t at = b->len;

	put32x2(b, type, misc);
	return at;
}

static void end_rec(struct bytes *b, size_t at)
{
	while ((b->len - at) % 8)
		append(b, "", 1);
	b->p[at + 6] = (uint8_t)(b->len - at);
	b->p[at + 7] = (uint8_t)((b->len - at) >> 8);
}

struct ev {
	uint64_t sample_type, read_format, branch_type, flags;
	uint64_t regs_user, regs_intr;
	int32_t clockid;
	const uint64_t *ids;
	size_t nr_ids;
	const char *name;	/* in HEADER_EVENT_DESC; NULL: no such feature */
};

/* A perf.data: header, ids, attrs, @data, and HEADER_EVENT_DESC if any event is named. */
static struct bytes make_file(const struct ev *evs, size_t nr, const struct bytes *data)
{
	struct bytes b = { 0 }, desc = { 0 };
	uint8_t hdr[HDR_SIZE] = "PERFILE2", attr[ATTR_LEN];
	size_t ids_off[8], attrs_off, data_off, i, len;
	bool named = false;

	append(&b, hdr, sizeof(hdr));
	for (i = 0; i < nr; i++) {
		ids_off[i] = b.len;
		for (size_t j = 0; j < evs[i].nr_ids; j++)
			put64(&b, evs[i].ids[j]);
	}
	attrs_off = b.len;
	for (i = 0; i < nr; i++) {
		memset(attr, 0, sizeof(attr));
		set32(attr, 1);			/* PERF_TYPE_SOFTWARE */
		set32(attr + 4, ATTR_LEN);
		set64(attr + 8, i);		/* config */
		set64(attr + 16, 4000);
		set64(attr + 24, evs[i].sample_type);
		set64(attr + 32, evs[i].read_format);
		set64(attr + 40, evs[i].flags);
		set64(attr + 72, evs[i].branch_type);
		set64(attr + 80, evs[i].regs_user);
		set32(attr + 92, (uint32_t)evs[i].clockid);
		set64(attr + 96, evs[i].regs_intr);
		append(&b, attr, sizeof(attr));
		put64(&b, ids_off[i]);
		put64(&b, 8 * evs[i].nr_ids);
		named |= evs[i].name != NULL;
	}
	data_off = b.len;
	append(&b, data->p, data->len);

	if (named) {
		put32x2(&desc, (uint32_t)nr, ATTR_LEN);
		for (i = 0; i < nr; i++) {
			const char *name = evs[i].name ? evs[i].name : "";

			memset(attr, 0, sizeof(attr));
			append(&desc, attr, sizeof(attr));
			len = (strlen(name) + 1 + 7) / 8 * 8;
			put32x2(&desc, (uint32_t)evs[i].nr_ids, (uint32_t)len);
			append(&desc, name, strlen(name) + 1);
			for (size_t j = strlen(name) + 1; j < len; j++)
				append(&desc, "", 1);
			for (size_t j = 0; j < evs[i].nr_ids; j++)
				put64(&desc, evs[i].ids[j]);
		}
		put64(&b, b.len + 16);
		put64(&b, desc.len);
		append(&b, desc.p, desc.len);
		b.p[72 + 1] |= 1 << 4;		/* HEADER_EVENT_DESC, bit 12 */
		free(desc.p);
	}
	set64(b.p + 8, HDR_SIZE);
	set64(b.p + 16, ATTR_LEN + 16);
	set64(b.p + 24, attrs_off);
	set64(b.p + 32, nr * (ATTR_LEN + 16));
	set64(b.p + 40, data_off);
	set64(b.p + 48, data->len);
	return b;
}

static char tmp_path[64];

static const char *write_file(const struct bytes *b)
{
	FILE *f;

	strcpy(tmp_path, "/tmp/perf_data_test.XXXXXX");
	close(mkstemp(tmp_path));
	f = fopen(tmp_path, "w");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f))
		abort();
	return tmp_path;
}

static int open_bytes(const struct bytes *b, struct secmap_perf_data **pd)
{
	int ret = secmap_perf_data_open(write_file(b), pd);

	unlink(tmp_path);
	return ret;
}

/* Read every record: 0 at a clean end, else the error; *@n records. */
static int drain(struct secmap_perf_data *pd, size_t *n)
{
	SECMAP_OPTS(secmap_perf_record, rec);
	size_t sum = 0;
	int ret;

	*n = 0;
	while ((ret = secmap_perf_data_next(pd, &rec)) == 1) {
		(*n)++;
		/* Touch everything handed out, for ASan. */
		if (rec.filename)
			sum += strlen(rec.filename);
		if (rec.comm)
			sum += strlen(rec.comm);
		for (size_t i = 0; i < rec.nr_callchain; i++)
			sum += rec.callchain[i];
		for (size_t i = 0; i < rec.build_id_len; i++)
			sum += rec.build_id[i];
	}
	(void)secmap_perf_data_offset(pd);
	return ret + (int)(sum & 0);
}

static const uint64_t one_id[] = { 77 };
#define TRAILER (S_TID | S_TIME | S_CPU)
static const struct ev simple_ev = {
	.sample_type = S_IP | S_TID | S_TIME | S_CPU | S_PERIOD | S_CALLCHAIN,
	.flags = A_SAMPLE_ID_ALL | A_USE_CLOCKID, .clockid = 1,
	.ids = one_id, .nr_ids = 1, .name = "cpu-clock",
};

/* The trailer starts 8-byte aligned, after the body's padding. */
static void trailer(struct bytes *b, uint32_t pid, uint64_t time, uint32_t cpu)
{
	while (b->len % 8)
		append(b, "", 1);
	put32x2(b, pid, pid + 1);
	put64(b, time);
	put32x2(b, cpu, 0);
}

/* An EXIT record at 6000: a kind the reader hands out as "other". */
static void put_exit(struct bytes *d)
{
	size_t r = begin_rec(d, 4, 0);

	put32x2(d, 100, 99);
	put32x2(d, 101, 101);
	put64(d, 6000);
	trailer(d, 100, 6000, 1);
	end_rec(d, r);
}

/* One record of each kind simple_ev's file can hold. */
static struct bytes simple_data(void)
{
	struct bytes d = { 0 };
	size_t r;

	r = begin_rec(&d, 3, 0x2000);			/* COMM, exec */
	put32x2(&d, 100, 101);
	append(&d, "sleep\0\0", 8);
	trailer(&d, 100, 1000, 1);
	end_rec(&d, r);

	r = begin_rec(&d, 1, 1);			/* MMAP, kernel */
	put32x2(&d, (uint32_t)-1, 0);
	put64(&d, 0xffffffff81000000ull);
	put64(&d, 0x1000000);
	put64(&d, 0xffffffff81000000ull);
	append(&d, "[kernel.kallsyms]_text", 23);
	append(&d, "\0", 1);
	trailer(&d, 0, 0, 0);
	end_rec(&d, r);

	r = begin_rec(&d, 10, 2 | (1 << 14));		/* MMAP2 with a build-id */
	put32x2(&d, 100, 100);
	put64(&d, 0x400000);
	put64(&d, 0x2000);
	put64(&d, 0x1000);
	append(&d, (uint8_t[24]){ 20, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, [23] = 0x42 }, 24);
	put32x2(&d, 5, 2);
	append(&d, "/bin/sleep", 11);
	trailer(&d, 100, 1100, 1);
	end_rec(&d, r);

	r = begin_rec(&d, 10, 2);			/* MMAP2 with the file's identity */
	put32x2(&d, 100, 100);
	put64(&d, 0x7f0000);
	put64(&d, 0x3000);
	put64(&d, 0);
	put32x2(&d, 8, 1);
	put64(&d, 1234);
	put64(&d, 5);
	put32x2(&d, 5, 2);
	append(&d, "/lib/libc.so.6", 15);
	trailer(&d, 100, 1200, 1);
	end_rec(&d, r);

	r = begin_rec(&d, 9, 1);			/* SAMPLE, kernel */
	put64(&d, 0xffffffff81234567ull);
	put32x2(&d, 100, 101);
	put64(&d, 5000);
	put32x2(&d, 1, 0);
	put64(&d, 250000);
	put64(&d, 3);
	put64(&d, (uint64_t)-128);			/* PERF_CONTEXT_KERNEL */
	put64(&d, 0xffffffff81234567ull);
	put64(&d, 0xffffffff81000010ull);
	end_rec(&d, r);

	put_exit(&d);

	r = begin_rec(&d, 68, 0);			/* FINISHED_ROUND */
	end_rec(&d, r);
	return d;
}

TEST(each_kind)
{
	struct bytes d = simple_data(), f = make_file(&simple_ev, 1, &d);
	const struct secmap_perf_event *ev;
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;

	ASSERT_EQ(0, open_bytes(&f, &pd));
	ASSERT_EQ(1, secmap_perf_data_nr_events(pd));
	EXPECT_STREQ("cpu-clock", secmap_perf_data_event_name(pd, 0));
	ev = secmap_perf_data_event(pd, 0);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(simple_ev.sample_type, ev->sample_type);
	EXPECT_EQ(1, ev->use_clockid);
	EXPECT_EQ(1, ev->clockid);
	EXPECT_EQ(1, ev->sample_id_all);
	EXPECT_EQ(1, ev->nr_ids);
	EXPECT_EQ(NULL, secmap_perf_data_event(pd, 1));

	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_COMM, rec.kind);
	EXPECT_EQ(100, rec.pid);
	EXPECT_EQ(101, rec.tid);
	EXPECT_STREQ("sleep", rec.comm);
	EXPECT_EQ(1000, rec.time);
	EXPECT_EQ(1, rec.cpu);
	EXPECT_EQ(0, rec.event);
	EXPECT_EQ(HDR_SIZE + ATTR_LEN + 16 + 8, secmap_perf_data_offset(pd));

	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_MMAP, rec.kind);
	EXPECT_EQ(1, rec.cpumode);
	EXPECT_EQ(-1, rec.pid);
	EXPECT_EQ(0xffffffff81000000ull, rec.start);
	EXPECT_EQ(0x1000000, rec.len);
	EXPECT_EQ(0xffffffff81000000ull, rec.pgoff);
	EXPECT_STREQ("[kernel.kallsyms]_text", rec.filename);

	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_MMAP2, rec.kind);
	EXPECT_EQ(0x400000, rec.start);
	EXPECT_EQ(0x1000, rec.pgoff);
	EXPECT_STREQ("/bin/sleep", rec.filename);
	ASSERT_EQ(20, rec.build_id_len);
	EXPECT_EQ(0xde, rec.build_id[0]);
	EXPECT_EQ(0x42, rec.build_id[19]);
	EXPECT_EQ(5, rec.prot);
	EXPECT_EQ(2, rec.flags);
	EXPECT_EQ(1100, rec.time);

	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_MMAP2, rec.kind);
	EXPECT_EQ(NULL, rec.build_id);
	EXPECT_EQ(8, rec.maj);
	EXPECT_EQ(1, rec.min);
	EXPECT_EQ(1234, rec.ino);
	EXPECT_EQ(5, rec.ino_generation);
	EXPECT_STREQ("/lib/libc.so.6", rec.filename);

	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_SAMPLE, rec.kind);
	EXPECT_EQ(0, rec.event);
	EXPECT_EQ(1, rec.cpumode);
	EXPECT_EQ(0xffffffff81234567ull, rec.ip);
	EXPECT_EQ(100, rec.pid);
	EXPECT_EQ(101, rec.tid);
	EXPECT_EQ(5000, rec.time);
	EXPECT_EQ(1, rec.cpu);
	EXPECT_EQ(250000, rec.period);
	ASSERT_EQ(3, rec.nr_callchain);
	EXPECT_EQ((uint64_t)-128, rec.callchain[0]);
	EXPECT_EQ(0xffffffff81000010ull, rec.callchain[2]);

	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_OTHER, rec.kind);
	EXPECT_EQ(4, rec.type);
	EXPECT_EQ(6000, rec.time);

	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_FINISHED_ROUND, rec.kind);
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(d.p);
	free(f.p);
}

/*
 * The 6.18 kernel on the test host left MISC_MMAP_BUILD_ID set on a 6.1
 * perf's MMAP2 records while a perf 7 (build-id mmaps by default) was
 * recording: the fields are the classic ones, maj where the build-id's
 * size goes. Such a size (0xfe, a virtio disk's major) is no build-id.
 */
TEST(stale_build_id_flag)
{
	struct bytes d = { 0 }, f;
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	size_t r;

	r = begin_rec(&d, 10, 2 | (1 << 14));
	put32x2(&d, 100, 100);
	put64(&d, 0x422000);
	put64(&d, 0x422000);
	put64(&d, 0x22000);
	put32x2(&d, 0xfe, 0);
	put64(&d, 1539056);
	put64(&d, 1558771908);
	put32x2(&d, 5, 2);
	append(&d, "/usr/bin/python3.14", 20);
	trailer(&d, 100, 1100, 1);
	end_rec(&d, r);
	f = make_file(&simple_ev, 1, &d);

	ASSERT_EQ(0, open_bytes(&f, &pd));
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_MMAP2, rec.kind);
	EXPECT_EQ(NULL, rec.build_id);
	EXPECT_EQ(0, rec.build_id_len);
	EXPECT_EQ(0xfe, rec.maj);
	EXPECT_EQ(0, rec.min);
	EXPECT_EQ(1539056, rec.ino);
	EXPECT_EQ(1558771908, rec.ino_generation);
	EXPECT_EQ(5, rec.prot);
	EXPECT_EQ(2, rec.flags);
	EXPECT_STREQ("/usr/bin/python3.14", rec.filename);
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(d.p);
	free(f.p);
}

/*
 * Records are decoded where they lie in the file; a record whose size is
 * not a multiple of 8 puts the next one off alignment, and its callchain
 * must still come out whole, as an aligned array.
 */
TEST(callchain_off_alignment)
{
	struct bytes d = { 0 }, f;
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	size_t r;

	r = begin_rec(&d, 70, 0);			/* one of perf's own: 12 bytes */
	put32x2(&d, 7, 7);
	d.p[r + 6] = 12;
	d.len = r + 12;
	r = begin_rec(&d, 9, 1);			/* SAMPLE, kernel, at 4 mod 8 */
	put64(&d, 0xffffffff81234567ull);
	put32x2(&d, 100, 101);
	put64(&d, 5000);
	put32x2(&d, 1, 0);
	put64(&d, 250000);
	put64(&d, 3);
	put64(&d, (uint64_t)-128);
	put64(&d, 0xffffffff81234567ull);
	put64(&d, 0xffffffff81000010ull);
	d.p[r + 6] = (uint8_t)(d.len - r);
	f = make_file(&simple_ev, 1, &d);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(70, rec.type);
	EXPECT_EQ(12, rec.size);
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_SAMPLE, rec.kind);
	EXPECT_EQ(0xffffffff81234567ull, rec.ip);
	EXPECT_EQ(250000, rec.period);
	ASSERT_EQ(3, rec.nr_callchain);
	EXPECT_EQ(0, (uintptr_t)rec.callchain % sizeof(uint64_t));
	EXPECT_EQ((uint64_t)-128, rec.callchain[0]);
	EXPECT_EQ(0xffffffff81234567ull, rec.callchain[1]);
	EXPECT_EQ(0xffffffff81000010ull, rec.callchain[2]);
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);
	free(d.p);
}

/* A sample of simple_data()'s layout, kernel mode, at @time. */
static void put_kernel_sample(struct bytes *d, uint64_t time)
{
	size_t r = begin_rec(d, 9, 1);

	put64(d, 0xffffffff81234567ull);
	put32x2(d, 100, 101);
	put64(d, time);
	put32x2(d, 1, 0);
	put64(d, 250000);
	put64(d, 0);
	end_rec(d, r);
}

/*
 * A pass that skips samples sees every other record and a clean end, also
 * where the data section ends in samples with no FINISHED_ROUND after them
 * (perf record --threads, perf inject).
 */
TEST(skipping_samples_to_the_end)
{
	struct bytes d = { 0 }, f;
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;

	put_kernel_sample(&d, 4000);
	put_exit(&d);
	for (int i = 0; i < 3; i++)
		put_kernel_sample(&d, 7000 + i);
	f = make_file(&simple_ev, 1, &d);

	ASSERT_EQ(0, open_bytes(&f, &pd));
	secmap_perf_data_skip_samples(pd, true);
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_OTHER, rec.kind);
	EXPECT_EQ(4, rec.type);
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);

	/* And the same file read whole gives the four samples. */
	ASSERT_EQ(0, open_bytes(&f, &pd));
	for (int i = 0; i < 5; i++) {
		ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
		EXPECT_EQ(i == 1 ? SECMAP_PERF_REC_OTHER : SECMAP_PERF_REC_SAMPLE, rec.kind);
	}
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);
	free(d.p);
}

/* A kernel sample at @time whose callchain holds @nr words, time * 100000 + index. */
static void put_chain_sample(struct bytes *d, uint64_t time, size_t nr)
{
	size_t r = begin_rec(d, 9, 1);

	put64(d, 0xffffffff81000000ull + time);
	put32x2(d, 100, 101);
	put64(d, time);
	put32x2(d, 1, 0);
	put64(d, 250000);
	put64(d, nr);
	for (size_t i = 0; i < nr; i++)
		put64(d, time * 100000 + i);
	end_rec(d, r);
}

/*
 * The data section is read through a window of the file (perf_data.h's
 * WINDOW, 128 KiB, and a record's worth): records of every size, up to
 * the largest a header can say, fall across its edges. Each comes back
 * whole and in order, read in full and with samples skipped; a file cut
 * short while it is read ends in an error, not a crash.
 */
TEST(records_across_the_read_window)
{
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	struct bytes d = { 0 }, f;
	size_t nr_samples = 0, nr_exits = 0, n, i;
	uint64_t t;
	int ret;

	for (t = 1; d.len < 1536 * 1024; t++) {
		/* 0 to 8184 frames: 56 bytes to 65 528, the largest a record can be. */
		put_chain_sample(&d, t, t % 7 == 0 ? 8184 - t % 13 : (t * 37) % 700);
		nr_samples++;
		if (t % 5 == 0) {
			put_exit(&d);
			nr_exits++;
		}
	}
	f = make_file(&simple_ev, 1, &d);

	ASSERT_EQ(0, open_bytes(&f, &pd));
	for (t = 1, n = 0; (ret = secmap_perf_data_next(pd, &rec)) == 1; n++) {
		if (rec.kind != SECMAP_PERF_REC_SAMPLE)
			continue;
		ASSERT_EQ(t, rec.time);
		ASSERT_EQ(0xffffffff81000000ull + t, rec.ip);
		ASSERT_EQ(t % 7 == 0 ? 8184 - t % 13 : (t * 37) % 700, rec.nr_callchain);
		for (i = 0; i < rec.nr_callchain; i++)
			ASSERT_EQ(t * 100000 + i, rec.callchain[i]);
		t++;
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(nr_samples + nr_exits, n);
	EXPECT_EQ(nr_samples + 1, t);
	secmap_perf_data_close(pd);

	ASSERT_EQ(0, open_bytes(&f, &pd));
	secmap_perf_data_skip_samples(pd, true);
	for (n = 0; (ret = secmap_perf_data_next(pd, &rec)) == 1; n++) {
		ASSERT_EQ(4, rec.type);
		ASSERT_EQ(6000, rec.time);
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(nr_exits, n);
	secmap_perf_data_close(pd);

	/* Cut to a third once open: mapped, this was a SIGBUS. */
	ASSERT_EQ(0, secmap_perf_data_open(write_file(&f), &pd));
	ASSERT_EQ(0, truncate(tmp_path, (off_t)(f.len / 3)));
	ret = drain(pd, &n);
	EXPECT_EQ(-EBADMSG, ret);
	EXPECT_LT(n, nr_samples + nr_exits);
	EXPECT_GT(n, 0);
	secmap_perf_data_close(pd);
	unlink(tmp_path);
	free(f.p);
	free(d.p);
}

/* Every layout-shaping sample_type bit at once; a second sample checks nothing was misread. */
TEST(all_sample_fields)
{
	static const uint64_t ids[] = { 5 };
	struct ev e = {
		.sample_type = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_ID | S_STREAM_ID |
			       S_CPU | S_PERIOD | S_READ | S_CALLCHAIN | S_RAW | S_BRANCH_STACK |
			       S_REGS_USER | S_STACK_USER | S_WEIGHT | S_DATA_SRC | S_TRANSACTION |
			       S_REGS_INTR | S_PHYS_ADDR | S_AUX | S_CGROUP | S_DATA_PAGE |
			       S_CODE_PAGE,
		.read_format = F_GROUP | F_ENABLED | F_RUNNING | F_ID | F_LOST,
		.branch_type = B_HW_INDEX, .regs_user = 0x7, .regs_intr = 0x3,
		.ids = ids, .nr_ids = 1,
	};
	struct bytes d = { 0 }, f;
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	size_t r = 0, last, k, n;

	for (k = 0; k < 2; k++) {
		r = begin_rec(&d, 9, 2);
		put64(&d, 5);			/* identifier */
		put64(&d, 0x1000 + k);		/* ip */
		put32x2(&d, 7, 8);
		put64(&d, 9000 + k);		/* time */
		put64(&d, 0xadd0);
		put64(&d, 5);			/* id */
		put64(&d, 6);			/* stream id */
		put32x2(&d, 1, 0);
		put64(&d, 100);			/* period */
		put64(&d, 2);			/* read: nr, enabled, running, 2 x {value, id, lost} */
		for (n = 0; n < 2 + 2 * 3; n++)
			put64(&d, n);
		put64(&d, 2);			/* callchain */
		put64(&d, (uint64_t)-512);
		put64(&d, 0x1000 + k);
		put32x2(&d, 12, 0);		/* raw: u32 size, then 12 bytes: 16 in all */
		put64(&d, 0);
		put64(&d, 1);			/* branch stack: nr, hw_idx, {from, to, flags} */
		put64(&d, 0);
		put64(&d, 1);
		put64(&d, 2);
		put64(&d, 3);
		put64(&d, 1);			/* regs user: abi, 3 regs */
		put64(&d, 1);
		put64(&d, 2);
		put64(&d, 3);
		put64(&d, 16);			/* stack user: size, 16 bytes, dyn_size */
		put64(&d, 0);
		put64(&d, 0);
		put64(&d, 8);
		put64(&d, 1);			/* weight */
		put64(&d, 2);			/* data src */
		put64(&d, 3);			/* transaction */
		put64(&d, k ? 0 : 2);		/* regs intr: abi (0: no regs), 2 regs */
		if (!k) {
			put64(&d, 1);
			put64(&d, 2);
		}
		put64(&d, 4);			/* phys addr */
		put64(&d, 5);			/* cgroup */
		put64(&d, 4096);		/* data page size */
		put64(&d, 4096);		/* code page size */
		put64(&d, 8);			/* aux: size, 8 bytes */
		put64(&d, 0);
		end_rec(&d, r);
	}
	last = r;
	f = make_file(&e, 1, &d);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	EXPECT_STREQ("event0", secmap_perf_data_event_name(pd, 0));
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
		EXPECT_EQ(SECMAP_PERF_REC_SAMPLE, rec.kind);
		EXPECT_EQ(0x1000 + k, rec.ip);
		EXPECT_EQ(9000 + k, rec.time);
		EXPECT_EQ(0xadd0, rec.addr);
		EXPECT_EQ(5, rec.id);
		EXPECT_EQ(6, rec.stream_id);
		EXPECT_EQ(100, rec.period);
		EXPECT_EQ(2, rec.nr_callchain);
	}
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);

	/* The second sample one u64 short: its aux data no longer fits. */
	d.len -= 8;
	d.p[last + 6] = (uint8_t)(d.len - last);
	d.p[last + 7] = (uint8_t)((d.len - last) >> 8);
	f = make_file(&e, 1, &d);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(-EBADMSG, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(HDR_SIZE + 8 + ATTR_LEN + 16 + last, secmap_perf_data_offset(pd));
	EXPECT_EQ(-EBADMSG, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);
	free(d.p);
}

/* Two events, told apart by PERF_SAMPLE_IDENTIFIER; an unknown id is skipped and counted. */
TEST(two_events)
{
	static const uint64_t a_ids[] = { 10, 11 }, b_ids[] = { 20, 21 };
	struct ev evs[2] = {
		{ .sample_type = S_IDENTIFIER | S_IP | S_TIME, .flags = A_SAMPLE_ID_ALL,
		  .ids = a_ids, .nr_ids = 2, .name = "cpu-clock" },
		{ .sample_type = S_IDENTIFIER | S_IP | S_TIME | S_PERIOD, .flags = A_SAMPLE_ID_ALL,
		  .ids = b_ids, .nr_ids = 2, .name = "task-clock" },
	};
	static const uint64_t seq[] = { 21, 10, 99, 11 };
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	struct bytes d = { 0 }, f;
	size_t r, i;

	for (i = 0; i < 4; i++) {
		r = begin_rec(&d, 9, 1);
		put64(&d, seq[i]);
		put64(&d, 0x100 + i);
		put64(&d, 1000 + i);
		if (seq[i] >= 20)
			put64(&d, 42);
		end_rec(&d, r);
	}
	r = begin_rec(&d, 3, 0);		/* COMM with a trailer naming event 1 */
	put32x2(&d, 1, 2);
	append(&d, "abc\0\0\0\0", 8);
	put64(&d, 7777);
	put64(&d, 20);
	end_rec(&d, r);
	f = make_file(evs, 2, &d);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	ASSERT_EQ(2, secmap_perf_data_nr_events(pd));
	EXPECT_STREQ("cpu-clock", secmap_perf_data_event_name(pd, 0));
	EXPECT_STREQ("task-clock", secmap_perf_data_event_name(pd, 1));
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(1, rec.event);
	EXPECT_EQ(0x100, rec.ip);
	EXPECT_EQ(42, rec.period);
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(0, rec.event);
	EXPECT_EQ(0x101, rec.ip);
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(0, rec.event);
	EXPECT_EQ(0x103, rec.ip);
	EXPECT_EQ(1, secmap_perf_data_unknown_ids(pd));
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_COMM, rec.kind);
	EXPECT_EQ(1, rec.event);
	EXPECT_EQ(7777, rec.time);
	EXPECT_STREQ("abc", rec.comm);
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);

	/* Without ids in the samples, two events cannot be told apart. */
	evs[0].sample_type = evs[1].sample_type = S_IP | S_TIME;
	f = make_file(evs, 2, &d);
	EXPECT_EQ(-ENOTSUP, open_bytes(&f, &pd));
	free(f.p);
	/* Ids at different places. */
	evs[0].sample_type = S_IP | S_ID;
	evs[1].sample_type = S_IP | S_TIME | S_ID;
	f = make_file(evs, 2, &d);
	EXPECT_EQ(-ENOTSUP, open_bytes(&f, &pd));
	free(f.p);
	free(d.p);
}

TEST(refused)
{
	struct ev e = simple_ev;
	struct bytes d = simple_data(), f;
	struct secmap_perf_data *pd;

	e.sample_type |= 1ULL << 25;		/* a layout bit this reader does not know */
	f = make_file(&e, 1, &d);
	EXPECT_EQ(-ENOTSUP, open_bytes(&f, &pd));
	free(f.p);

	e = simple_ev;
	e.sample_type |= S_READ;
	e.read_format = 1 << 5;
	f = make_file(&e, 1, &d);
	EXPECT_EQ(-ENOTSUP, open_bytes(&f, &pd));

	memcpy(f.p, "2ELIFREP", 8);		/* the other byte order */
	EXPECT_EQ(-ENOTSUP, open_bytes(&f, &pd));
	memcpy(f.p, "PERFILE2", 8);
	set64(f.p + 8, 16);			/* pipe mode */
	EXPECT_EQ(-ENOTSUP, open_bytes(&f, &pd));
	memcpy(f.p, "PERFILE3", 8);
	EXPECT_EQ(-EINVAL, open_bytes(&f, &pd));
	EXPECT_EQ(-ENOENT, secmap_perf_data_open("/nonexistent/perf.data", &pd));
	free(f.p);
	free(d.p);
}

/*
 * A sample of an event that records no pid/tid is nobody's: -1 and -1, as
 * perf has it (perf script prints ":-1 -1"), not pid 0, the idle task's.
 */
TEST(sample_without_tid)
{
	struct ev e = { .sample_type = S_IP | S_TIME | S_PERIOD, .name = "cpu-clock" };
	struct bytes d = { 0 }, f;
	struct secmap_perf_data *pd;
	SECMAP_OPTS(secmap_perf_record, rec);
	size_t r;

	r = begin_rec(&d, 9, 1);			/* SAMPLE, kernel */
	put64(&d, 0xffffffff81000010ull);
	put64(&d, 5000);
	put64(&d, 250000);
	end_rec(&d, r);
	f = make_file(&e, 1, &d);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_SAMPLE, rec.kind);
	EXPECT_EQ(-1, rec.pid);
	EXPECT_EQ(-1, rec.tid);
	EXPECT_EQ(5000, rec.time);
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);
	free(d.p);
}

/* @d's records as zstd, in COMPRESSED (or COMPRESSED2) records cut every @chunk bytes. */
static struct bytes compress_records(const struct bytes *d, size_t chunk, bool v2)
{
	size_t bound = ZSTD_compressBound(d->len), clen, at, n, r;
	struct bytes out = { 0 };
	uint8_t *z = malloc(bound);

	clen = ZSTD_compress(z, bound, d->p, d->len, 3);
	if (ZSTD_isError(clen))
		abort();
	for (at = 0; at < clen; at += n) {
		n = clen - at < chunk ? clen - at : chunk;
		r = begin_rec(&out, v2 ? 83 : 81, 0);
		if (v2)
			put64(&out, n);
		append(&out, z + at, n);
		if (!v2) {
			/* COMPRESSED has no padding: its size is the payload's. */
			out.p[r + 6] = (uint8_t)(out.len - r);
			out.p[r + 7] = (uint8_t)((out.len - r) >> 8);
		} else {
			end_rec(&out, r);
		}
	}
	free(z);
	return out;
}

TEST(compressed)
{
	struct bytes d = simple_data(), f, z;
	struct secmap_perf_data *pd;
	size_t n, want, chunk;
	int v2, ret;

	f = make_file(&simple_ev, 1, &d);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	ASSERT_EQ(0, drain(pd, &want));
	secmap_perf_data_close(pd);
	free(f.p);
	ASSERT_EQ(7, want);

	for (v2 = 0; v2 < 2; v2++) {
		for (chunk = 1; chunk < 200; chunk += 7) {
			z = compress_records(&d, chunk, v2);
			f = make_file(&simple_ev, 1, &z);
			ASSERT_EQ(0, open_bytes(&f, &pd));
			ASSERT_EQ(0, drain(pd, &n)) TH_LOG("chunk %zu v2 %d", chunk, v2);
			EXPECT_EQ(want, n);
			secmap_perf_data_close(pd);
			free(f.p);
			/*
			 * Cut before its last compressed record: a record left
			 * half-made, or (where the cut falls between records in
			 * the decompressed stream) fewer records. perf never ends
			 * its zstd frame, so an open frame proves nothing.
			 */
			if (z.len > 300) {
				size_t last = z.len - (v2 ? ((chunk + 16 + 7) / 8 * 8) : chunk + 8);

				z.len = last;
				f = make_file(&simple_ev, 1, &z);
				ASSERT_EQ(0, open_bytes(&f, &pd));
				ret = drain(pd, &n);
				EXPECT_TRUE(ret == -EBADMSG || (ret == 0 && n < want));
				secmap_perf_data_close(pd);
				free(f.p);
			}
			free(z.p);
		}
	}
	free(d.p);
}

/* A batch that decompresses past the cap is refused, not allocated. */
TEST(decompression_bomb)
{
	struct bytes zeros = { 0 }, z, f;
	struct secmap_perf_data *pd;
	size_t n;

	zeros.len = (size_t)65 << 20;
	zeros.p = calloc(1, zeros.len);
	ASSERT_NE(NULL, zeros.p);
	z = compress_records(&zeros, 60000, false);
	free(zeros.p);
	f = make_file(&simple_ev, 1, &z);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	EXPECT_EQ(-EFBIG, drain(pd, &n));
	secmap_perf_data_close(pd);
	free(f.p);
	free(z.p);
}

/* @nr records of @size bytes each, FINISHED_ROUND with a body of zeros. */
static struct bytes round_records(size_t nr, size_t size)
{
	struct bytes d = { .p = calloc(nr, size), .len = nr * size };

	if (!d.p)
		abort();
	for (size_t i = 0; i < nr; i++) {
		set32(d.p + i * size, 68);
		d.p[i * size + 6] = (uint8_t)size;
		d.p[i * size + 7] = (uint8_t)(size >> 8);
	}
	return d;
}

#define ROUND_SIZE	65528
#define BOMB_RECORDS	1008		/* 63 MiB: each bomb fits in one batch */
#define NR_BOMBS	20

/*
 * 20 COMPRESSED records of some KiB, each a zstd frame of 63 MiB of
 * records: each batch fits, but all of them took 1.3 GB of decompressing.
 * In all, a file's compressed records decompress to at most 64 MiB plus
 * 4096 times the data read so far: the second bomb is refused, part way.
 */
TEST(compressed_bombs_total_budget)
{
	struct bytes raw = round_records(BOMB_RECORDS, ROUND_SIZE), data = { 0 }, f;
	size_t bound = ZSTD_compressBound(raw.len), zlen, i, n, at;
	uint8_t *z = malloc(bound);
	struct secmap_perf_data *pd;
	uint64_t budget;

	ASSERT_NE(NULL, z);
	zlen = ZSTD_compress(z, bound, raw.p, raw.len, 19);
	free(raw.p);
	ASSERT_FALSE(ZSTD_isError(zlen));
	ASSERT_LT(zlen + 8, 65536);
	for (i = 0; i < NR_BOMBS; i++) {
		at = begin_rec(&data, 81, 0);
		append(&data, z, zlen);
		data.p[at + 6] = (uint8_t)(data.len - at);
		data.p[at + 7] = (uint8_t)((data.len - at) >> 8);
	}
	free(z);
	f = make_file(&simple_ev, 1, &data);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	EXPECT_EQ(-EFBIG, drain(pd, &n));
	secmap_perf_data_close(pd);
	/* The first whole (within the 64 MiB any file may have); not the third. */
	TH_LOG("%zu bytes of compressed records: %zu records read, %zu MiB", data.len, n,
	       n * ROUND_SIZE >> 20);
	budget = (64 << 20) + 4096 * (uint64_t)data.len;
	EXPECT_GE(n, BOMB_RECORDS);
	EXPECT_LE((uint64_t)n * ROUND_SIZE, budget);
	EXPECT_LT(n, 2 * BOMB_RECORDS);
	free(f.p);
	free(data.p);
}

/*
 * What perf record -z writes with dwarf callchains (whole stacks, much the
 * same from one sample to the next) measured 250 to 1900 times smaller:
 * such a file (this one, 2500 times) reads to its end, well past the
 * first 64 MiB. A total budget of 1024 times the input would refuse it.
 */
TEST(compressed_high_ratio_reads)
{
	const size_t nr = 3072;		/* 192 MiB */
	struct bytes raw = round_records(nr, ROUND_SIZE), z, f;
	struct secmap_perf_data *pd;
	uint64_t seed = 1;
	size_t i, j, n;

	/* 16 bytes that change from record to record, as a sample's time and ip do. */
	for (i = 0; i < nr; i++)
		for (j = 0; j < 16; j++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			raw.p[i * ROUND_SIZE + 64 + j] = (uint8_t)(seed >> 56);
		}
	z = compress_records(&raw, 4096, false);
	TH_LOG("ratio %zu", raw.len / z.len);
	EXPECT_GE(raw.len / z.len, 1000);
	f = make_file(&simple_ev, 1, &z);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	EXPECT_EQ(0, drain(pd, &n));
	EXPECT_EQ(nr, n);
	secmap_perf_data_close(pd);
	free(f.p);
	free(z.p);
	free(raw.p);
}

/* Every length of the data section: a clean end at record boundaries, -EBADMSG elsewhere. */
TEST(every_truncation)
{
	struct bytes d = simple_data(), cut, f, z;
	struct secmap_perf_data *pd;
	size_t len, n, at, nr, bounds[16], nb = 0;
	int ret;

	for (at = 0; at < d.len; at += d.p[at + 6] | d.p[at + 7] << 8)
		bounds[nb++] = at;
	bounds[nb++] = d.len;
	for (len = 0; len <= d.len; len++) {
		cut = (struct bytes){ .p = d.p, .len = len };
		f = make_file(&simple_ev, 1, &cut);
		ret = open_bytes(&f, &pd);
		free(f.p);
		if (!len) {
			EXPECT_EQ(-EBADMSG, ret);	/* data.size 0: killed perf record */
			continue;
		}
		ASSERT_EQ(0, ret);
		ret = drain(pd, &n);
		secmap_perf_data_close(pd);
		for (nr = 0; nr < nb && bounds[nr] < len; nr++)
			;
		if (bounds[nr] == len) {
			EXPECT_EQ(0, ret) TH_LOG("len %zu", len);
			EXPECT_EQ(nr, n);
		} else {
			EXPECT_EQ(-EBADMSG, ret) TH_LOG("len %zu", len);
			EXPECT_EQ(nr - 1, n);
		}
	}

	/* Compressed, cut anywhere: an error or a clean end, never more records. */
	z = compress_records(&d, 64, true);
	for (len = 1; len <= z.len; len++) {
		cut = (struct bytes){ .p = z.p, .len = len };
		f = make_file(&simple_ev, 1, &cut);
		ASSERT_EQ(0, open_bytes(&f, &pd));
		ret = drain(pd, &n);
		EXPECT_TRUE(ret == 0 || ret == -EBADMSG);
		EXPECT_LE(n, nb - 1);
		secmap_perf_data_close(pd);
		free(f.p);
	}
	free(z.p);
	free(d.p);
}

/*
 * perf's LOST (id, count) and LOST_SAMPLES (count): counted by report and
 * script. Cut anywhere, a clean end or -EBADMSG; a record too short for
 * its count, -EBADMSG.
 */
TEST(lost_records)
{
	struct bytes d = { 0 }, bad = { 0 }, cut, f;
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	size_t r, len, n;
	int ret;

	r = begin_rec(&d, 2, 0);
	put64(&d, 77);
	put64(&d, 12);
	trailer(&d, 100, 3000, 1);
	end_rec(&d, r);
	r = begin_rec(&d, 13, 0);
	put64(&d, 3);
	trailer(&d, 100, 3001, 1);
	end_rec(&d, r);
	f = make_file(&simple_ev, 1, &d);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_LOST, rec.kind);
	EXPECT_EQ(77, rec.id);
	EXPECT_EQ(12, rec.period);
	EXPECT_EQ(3000, rec.time);
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_LOST_SAMPLES, rec.kind);
	EXPECT_EQ(3, rec.period);
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);

	for (len = 1; len < d.len; len++) {
		cut = (struct bytes){ .p = d.p, .len = len };
		f = make_file(&simple_ev, 1, &cut);
		ASSERT_EQ(0, open_bytes(&f, &pd));
		ret = drain(pd, &n);
		EXPECT_TRUE(ret == -EBADMSG || (ret == 0 && n < 2)) TH_LOG("len %zu", len);
		secmap_perf_data_close(pd);
		free(f.p);
	}

	/* A LOST with its id but no count. */
	r = begin_rec(&bad, 2, 0);
	put64(&bad, 77);
	trailer(&bad, 100, 3000, 1);
	end_rec(&bad, r);
	f = make_file(&simple_ev, 1, &bad);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	EXPECT_EQ(-EBADMSG, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);
	free(bad.p);
	free(d.p);
}

/* A KSYMBOL of @len bytes at @addr named @name (with @flags), at @time. */
static void put_ksymbol(struct bytes *d, uint64_t addr, uint32_t len, uint16_t flags,
			const char *name, uint64_t time)
{
	size_t r = begin_rec(d, PERF_RECORD_KSYMBOL, 0);

	put64(d, addr);
	put32x2(d, len, (uint32_t)flags << 16 | PERF_RECORD_KSYMBOL_TYPE_BPF);
	append(d, name, strlen(name) + 1);
	while ((d->len - r) % 8)
		append(d, "", 1);
	trailer(d, 100, time, 0);
	end_rec(d, r);
}

/*
 * KSYMBOL (BPF programs and other kernel code): address, length, type,
 * flags and name; SECMAP_PERF_REC_OTHER to a caller of the 1.0 struct,
 * which has no fields for it; a name without its end, -EBADMSG.
 */
TEST(ksymbol_records)
{
	struct bytes d = { 0 }, bad = { 0 }, f;
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_record old;
	struct secmap_perf_data *pd;
	size_t r;

	put_ksymbol(&d, 0xffffffffc0022118ull, 35, 0, "bpf_prog_f522_spin", 3000);
	put_ksymbol(&d, 0xffffffffc0022118ull, 35, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
		    "bpf_prog_f522_spin", 4000);
	f = make_file(&simple_ev, 1, &d);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	ASSERT_EQ(1, secmap_perf_data_next(pd, &rec));
	EXPECT_EQ(SECMAP_PERF_REC_KSYMBOL, rec.kind);
	EXPECT_EQ(0xffffffffc0022118ull, rec.start);
	EXPECT_EQ(35, rec.len);
	EXPECT_EQ(PERF_RECORD_KSYMBOL_TYPE_BPF, rec.ksym_type);
	EXPECT_EQ(0, rec.ksym_flags);
	EXPECT_STREQ("bpf_prog_f522_spin", rec.ksym_name);
	EXPECT_EQ(3000, rec.time);
	memset(&old, 0, sizeof(old));
	old.sz = offsetof(struct secmap_perf_record, ptid) + sizeof(old.ptid);
	ASSERT_EQ(1, secmap_perf_data_next(pd, &old));
	EXPECT_EQ(SECMAP_PERF_REC_OTHER, old.kind);
	EXPECT_EQ(PERF_RECORD_KSYMBOL, old.type);
	EXPECT_EQ(NULL, old.ksym_name);		/* beyond its size: untouched */
	EXPECT_EQ(0, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);

	/* The name runs into the trailer: no end within the record. */
	r = begin_rec(&bad, PERF_RECORD_KSYMBOL, 0);
	put64(&bad, 0xffffffffc0000000ull);
	put32x2(&bad, 16, PERF_RECORD_KSYMBOL_TYPE_BPF);
	append(&bad, "bpf_prog", 8);
	trailer(&bad, 100, 3000, 1);
	end_rec(&bad, r);
	f = make_file(&simple_ev, 1, &bad);
	ASSERT_EQ(0, open_bytes(&f, &pd));
	EXPECT_EQ(-EBADMSG, secmap_perf_data_next(pd, &rec));
	secmap_perf_data_close(pd);
	free(f.p);
	free(bad.p);
	free(d.p);
}

/* Random bytes flipped anywhere in the file: clean errors only. */
TEST(byte_flips)
{
	struct bytes d = simple_data(), f = make_file(&simple_ev, 1, &d), g;
	struct secmap_perf_data *pd;
	unsigned int seed = 1, i, k;
	size_t n;
	int ret;

	g.p = malloc(f.len);
	g.len = f.len;
	for (i = 0; i < 3000; i++) {
		memcpy(g.p, f.p, f.len);
		for (k = 0; k <= i % 4; k++)
			g.p[rand_r(&seed) % g.len] ^= (uint8_t)(1 + rand_r(&seed) % 255);
		ret = open_bytes(&g, &pd);
		if (ret) {
			EXPECT_TRUE(ret == -EBADMSG || ret == -ENOTSUP || ret == -EINVAL ||
				    ret == -EFBIG || ret == -ENOMEM) TH_LOG("open %d", ret);
			continue;
		}
		ret = drain(pd, &n);
		EXPECT_TRUE(ret == 0 || ret == -EBADMSG || ret == -EFBIG) TH_LOG("next %d", ret);
		secmap_perf_data_close(pd);
	}
	free(g.p);
	free(f.p);
	free(d.p);
}

/* The paths of a perf.data and an empty recording beside it, for the walk. */
struct walk_files {
	char data[64];
	char rec[64];
};

/*
 * report and script's walk over simple_ev's file of @d, with no module
 * maps; @flags as sample_walk_open() takes them.
 */
static int open_walk(const struct bytes *d, int flags, struct walk_files *files,
		     struct sample_walk **w)
{
	static const uint8_t empty_recording[64] = "SECMAPv1\001\000\000\000\100";
	struct resolver_args args = { .no_ko = true, .quiet = true };
	struct bytes f = make_file(&simple_ev, 1, d);
	int fd;

	snprintf(files->data, sizeof(files->data), "%s", write_file(&f));
	free(f.p);
	strcpy(files->rec, "/tmp/perf_data_test.rec.XXXXXX");
	fd = mkstemp(files->rec);
	if (fd < 0)
		return -errno;
	if (write(fd, empty_recording, 64) != 64) {
		close(fd);
		return -EIO;
	}
	close(fd);
	args.input = files->data;
	args.map = files->rec;
	return sample_walk_open(&args, flags, w);
}

static void close_walk(struct walk_files *files, struct sample_walk *w)
{
	sample_walk_close(w);
	unlink(files->data);
	unlink(files->rec);
}

/* open_walk() with a recording of @nr records, @recs, written by libsecmap's writer. */
static int open_walk_with(const struct bytes *d, const struct secmap_record *recs, size_t nr,
			  struct walk_files *files, struct sample_walk **w)
{
	struct resolver_args args = { .no_ko = true, .quiet = true };
	struct secmap_writer *wr;
	struct bytes f;
	int fd, err;
	size_t i;

	strcpy(files->rec, "/tmp/perf_data_test.rec.XXXXXX");
	fd = mkstemp(files->rec);
	if (fd < 0)
		return -errno;
	err = secmap_writer_new(fd, 0, &wr);
	for (i = 0; !err && i < nr; i++)
		err = secmap_writer_add(wr, &recs[i]);
	if (!err)
		err = secmap_writer_free(wr);
	close(fd);
	if (err)
		return err;
	f = make_file(&simple_ev, 1, d);
	snprintf(files->data, sizeof(files->data), "%s", write_file(&f));
	free(f.p);
	args.input = files->data;
	args.map = files->rec;
	return sample_walk_open(&args, 0, w);
}

/* An MMAP2 of @pid: @len bytes at @start of @path, made at @time. */
static void put_mmap2(struct bytes *d, int32_t pid, uint64_t start, uint64_t len,
		      const char *path, uint64_t time)
{
	size_t r = begin_rec(d, 10, 2);

	put32x2(d, pid, pid);
	put64(d, start);
	put64(d, len);
	put64(d, 0);
	put32x2(d, 8, 1);
	put64(d, 1234);
	put64(d, 5);
	put32x2(d, 5, 2);
	append(d, path, strlen(path) + 1);
	trailer(d, pid, time, 0);
	end_rec(d, r);
}

/* A user SAMPLE of simple_ev at @ip, of @pid/@tid at @time on @cpu, without callchain. */
static void put_user_sample(struct bytes *d, uint64_t ip, int32_t pid, int32_t tid,
			    uint64_t time, uint32_t cpu)
{
	size_t r = begin_rec(d, 9, 2);

	put64(d, ip);
	put32x2(d, pid, tid);
	put64(d, time);
	put32x2(d, cpu, 0);
	put64(d, 250000);
	put64(d, 0);
	end_rec(d, r);
}

/*
 * The walk of @d gives @nr samples, named @comms in order; with @dso, each
 * one's frame is in that file.
 */
static void expect_comms(struct __test_metadata *_metadata, const struct bytes *d,
			 const char *const *comms, size_t nr, const char *dso)
{
	struct walk_files files;
	struct sample_walk *w;
	const struct secmap_sample *smp;
	size_t n = 0;
	int ret;

	ASSERT_EQ(0, open_walk(d, 0, &files, &w));
	while ((ret = sample_walk_next(w, &smp)) == 1 && n < nr) {
		EXPECT_STREQ(comms[n], smp->comm) TH_LOG("sample %zu", n);
		if (dso)
			EXPECT_STREQ(dso, smp->frame->dso) TH_LOG("sample %zu", n);
		n++;
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(nr, n);
	close_walk(&files, w);
}

/*
 * report and script's walk: a process forked by a child that was itself
 * forked while recording. perf writes each CPU's buffer in turn, so the
 * grandchild's FORK can come first in the file; the maps it inherits are
 * those of its parent at its fork, which had them from its own parent.
 * Only maps made before a fork are inherited.
 */
TEST(forks_applied_in_time_order)
{
	const char *dso[2] = { NULL, NULL }, *comm = NULL;
	struct walk_files files;
	struct bytes d = { 0 };
	struct sample_walk *w;
	const struct secmap_sample *smp;
	int n = 0, ret;
	size_t r;

	r = begin_rec(&d, 3, 0);			/* COMM, synthesized at start */
	put32x2(&d, 100, 100);
	append(&d, "parent\0", 8);
	trailer(&d, 100, 0, 0);
	end_rec(&d, r);
	r = begin_rec(&d, 10, 2);			/* MMAP2 of pid 100, at start */
	put32x2(&d, 100, 100);
	put64(&d, 0x400000);
	put64(&d, 0x10000);
	put64(&d, 0);
	put32x2(&d, 8, 1);
	put64(&d, 1234);
	put64(&d, 5);
	put32x2(&d, 5, 2);
	append(&d, "/usr/bin/parent", 16);
	trailer(&d, 100, 0, 0);
	end_rec(&d, r);
	r = begin_rec(&d, 7, 0);			/* FORK 300 <- 200 at 2000: first in the file */
	put32x2(&d, 300, 200);
	put32x2(&d, 300, 200);
	put64(&d, 2000);
	trailer(&d, 300, 2000, 1);
	end_rec(&d, r);
	r = begin_rec(&d, 10, 2);			/* pid 100 maps more at 2500 */
	put32x2(&d, 100, 100);
	put64(&d, 0x500000);
	put64(&d, 0x1000);
	put64(&d, 0);
	put32x2(&d, 8, 1);
	put64(&d, 1235);
	put64(&d, 5);
	put32x2(&d, 5, 2);
	append(&d, "/usr/lib/late.so", 17);
	trailer(&d, 100, 2500, 0);
	end_rec(&d, r);
	r = begin_rec(&d, 7, 0);			/* FORK 200 <- 100 at 1000 */
	put32x2(&d, 200, 100);
	put32x2(&d, 200, 100);
	put64(&d, 1000);
	trailer(&d, 200, 1000, 0);
	end_rec(&d, r);
	for (int i = 0; i < 2; i++) {
		put_user_sample(&d, i ? 0x500010 : 0x400100, 300, 300, 3000 + i, 1);
	}
	ASSERT_EQ(0, open_walk(&d, 0, &files, &w));
	while ((ret = sample_walk_next(w, &smp)) == 1 && n < 2) {
		dso[n++] = smp->frame->dso;
		comm = smp->comm;
	}
	EXPECT_EQ(2, n);
	EXPECT_STREQ("/usr/bin/parent", dso[0]);
	EXPECT_STREQ("[unknown]", dso[1]);
	EXPECT_STREQ("parent", comm);
	close_walk(&files, w);
	free(d.p);
}

/*
 * A thread's name before its first COMM (its FORK lost under load, say)
 * is perf's ":TID", not the name it takes later; a sample of no task
 * (pid and tid -1) is ":-1"; the idle task is swapper.
 */
TEST(comm_unknown_until_recorded)
{
	/*
	 * Back before the COMM after a sample past it; threads with no COMM
	 * whose tids are 64 apart (the session remembers such names by tid).
	 */
	static const int32_t pids[] = { 400, 400, 400, -1, 0, 6, 70, 6 };
	static const uint64_t times[] = { 3000, 6000, 3500, 6001, 6002, 6003, 6004, 6005 };
	static const char *const want[] = { ":401", "late", ":401", ":-1", "swapper",
					    ":7", ":71", ":7" };
	struct bytes d = { 0 };
	size_t r, i;

	r = begin_rec(&d, 3, 0x2000);			/* COMM, exec, at 5000 */
	put32x2(&d, 400, 401);
	append(&d, "late\0\0\0", 8);
	trailer(&d, 400, 5000, 0);
	end_rec(&d, r);
	for (i = 0; i < 8; i++)
		put_user_sample(&d, 0x400100, pids[i], pids[i] < 0 ? -1 : pids[i] + 1, times[i], 0);
	expect_comms(_metadata, &d, want, 8, NULL);
	free(d.p);
}

/*
 * Names are per thread, as perf keeps them: a thread renamed alone
 * (prctl(PR_SET_NAME), a COMM record of its tid) leaves its process's
 * other threads as they were; a new thread starts with the name of the
 * thread that made it; one never seen is ":TID". Maps stay the process's,
 * shared by its threads.
 */
TEST(comm_per_thread)
{
	static const int32_t tids[] = { 500, 501, 501, 502 };
	static const uint64_t times[] = { 4000, 2500, 4000, 4000 };
	static const char *const want[] = { "main", "main", "worker", ":502" };
	struct bytes d = { 0 };
	size_t r, i;

	r = begin_rec(&d, 3, 0);			/* COMM 500/500 "main" at 1000 */
	put32x2(&d, 500, 500);
	append(&d, "main\0\0\0", 8);
	trailer(&d, 500, 1000, 0);
	end_rec(&d, r);
	put_mmap2(&d, 500, 0x400000, 0x10000, "/usr/bin/main", 1000);
	r = begin_rec(&d, 7, 0);			/* FORK: thread 501 of 500, by 500, at 2000 */
	put32x2(&d, 500, 500);
	put32x2(&d, 501, 500);
	put64(&d, 2000);
	trailer(&d, 500, 2000, 0);
	end_rec(&d, r);
	r = begin_rec(&d, 3, 0);			/* COMM 500/501 "worker" at 3000 (prctl) */
	put32x2(&d, 500, 501);
	append(&d, "worker\0", 8);
	trailer(&d, 500, 3000, 0);
	end_rec(&d, r);
	for (i = 0; i < 4; i++)
		put_user_sample(&d, 0x400100, 500, tids[i], times[i], 0);
	expect_comms(_metadata, &d, want, 4, "/usr/bin/main");
	free(d.p);
}

/*
 * Callchains read as perf reads them: after PERF_CONTEXT_HV a frame is
 * nobody's ("[unknown]"); any other marker (a guest's, or a word of a
 * broken user stack in the markers' range, as a JIT's frames give) makes
 * perf drop the whole chain and keep the sample, so secmap script and
 * perf script show the same frames.
 */
TEST(chain_markers_as_perf_reads_them)
{
	static const uint64_t kernel = (uint64_t)-128, user = (uint64_t)-512,
		hv = (uint64_t)-32, guest = (uint64_t)-2048, stray = (uint64_t)-144;
	static const struct {
		uint64_t chain[6];
		size_t nr, frames;
	} want[] = {
		{ { kernel, 0xffffffff81000010, user, 0x400100 }, 4, 2 },
		{ { kernel, 0xffffffff81000010, user, 0x400100, stray }, 5, 0 },
		{ { kernel, 0xffffffff81000010, guest, 0x1000 }, 4, 0 },
		{ { kernel, 0xffffffff81000010, hv, 0x1000 }, 4, 2 },
		{ { kernel }, 1, 0 },
	};
	struct walk_files files;
	struct bytes d = { 0 };
	struct sample_walk *w;
	const struct secmap_sample *smp;
	size_t r, i, j, n = 0;
	int ret;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		r = begin_rec(&d, 9, 1);		/* SAMPLE, kernel */
		put64(&d, 0xffffffff81000010ull);
		put32x2(&d, 100, 101);
		put64(&d, 1000 + i);
		put32x2(&d, 0, 0);
		put64(&d, 250000);
		put64(&d, want[i].nr);
		for (j = 0; j < want[i].nr; j++)
			put64(&d, want[i].chain[j]);
		end_rec(&d, r);
	}
	ASSERT_EQ(0, open_walk(&d, SAMPLE_WALK_CHAIN, &files, &w));
	while ((ret = sample_walk_next(w, &smp)) == 1 && n < sizeof(want) / sizeof(want[0])) {
		EXPECT_TRUE(smp->event_callchain);
		EXPECT_EQ(want[n].frames, smp->nr_chain) TH_LOG("sample %zu", n);
		if (smp->nr_chain == 2) {
			EXPECT_EQ(0xffffffff81000010ull, secmap_frame_at(smp->chain, 0)->ip);
			EXPECT_EQ(want[n].chain[3], secmap_frame_at(smp->chain, 1)->ip);
		}
		if (n == 3 && smp->nr_chain == 2) {
			EXPECT_STREQ("[unknown]", secmap_frame_at(smp->chain, 1)->dso);
			EXPECT_EQ(NULL, secmap_frame_at(smp->chain, 1)->symbol);
		}
		n++;
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(sizeof(want) / sizeof(want[0]), n);
	close_walk(&files, w);
	free(d.p);
}

/*
 * A range mapped again later: a sample names the file mapped there at its
 * time, whichever answered the sample before it (the walk remembers the
 * last answer per task and must know when that no longer holds).
 */
TEST(user_map_replaced_later)
{
	static const uint8_t empty_recording[64] = "SECMAPv1\001\000\000\000\100";
	static const struct { uint64_t ip, time; const char *dso; } want[] = {
		{ 0x400100, 2000, "/a" },
		{ 0x400200, 6000, "/b" },	/* after the remap */
		{ 0x400300, 3000, "/a" },	/* before it, after an answer of /b */
		{ 0x400400, 4000, "/a" },
		{ 0x410000, 4500, "/c" },	/* another map, beside them */
		{ 0x400500, 5000, "/b" },	/* the remap's own time */
		{ 0x400600, 500, "/a" },	/* before any map: the earliest there */
	};
	char rec_path[] = "/tmp/perf_data_test.rec.XXXXXX", data_path[64];
	struct resolver_args args = { .no_ko = true, .quiet = true };
	struct bytes d = { 0 }, f;
	struct sample_walk *w;
	const struct secmap_sample *smp;
	size_t i, n = 0;
	int fd, ret;

	put_mmap2(&d, 100, 0x400000, 0x10000, "/a", 1000);
	put_mmap2(&d, 100, 0x410000, 0x1000, "/c", 1000);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		put_user_sample(&d, want[i].ip, 100, 100, want[i].time, 0);
	}
	/* In the file after the samples, as another CPU's buffer may put it. */
	put_mmap2(&d, 100, 0x400000, 0x10000, "/b", 5000);
	f = make_file(&simple_ev, 1, &d);
	snprintf(data_path, sizeof(data_path), "%s", write_file(&f));
	fd = mkstemp(rec_path);
	ASSERT_LE(0, fd);
	ASSERT_EQ(64, write(fd, empty_recording, 64));
	close(fd);
	args.input = data_path;
	args.map = rec_path;

	ASSERT_EQ(0, sample_walk_open(&args, false, &w));
	while ((ret = sample_walk_next(w, &smp)) == 1) {
		ASSERT_GT(sizeof(want) / sizeof(want[0]), n);
		EXPECT_EQ(want[n].ip, smp->frame->ip);
		EXPECT_STREQ(want[n].dso, smp->frame->dso);
		n++;
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(sizeof(want) / sizeof(want[0]), n);
	sample_walk_close(w);
	unlink(data_path);
	unlink(rec_path);
	free(d.p);
	free(f.p);
}

/* What nm -S says of function @name in @so: its address and size; false if not listed. */
static bool nm_function(const char *so, const char *name, uint64_t *addr, uint64_t *size)
{
	char cmd[512], line[512], got[256], type;
	unsigned long long a, z;
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", so);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %llx %c %255s", &a, &z, &type, got) == 4 &&
		    !strcmp(got, name)) {
			*addr = a;
			*size = z;
			found = true;
		}
	if (p)
		pclose(p);
	return found;
}

/* The offset in @so of address @vaddr, by the PT_LOAD readelf -lW shows holding it; ~0 if none. */
static uint64_t readelf_file_offset(const char *so, uint64_t vaddr)
{
	unsigned long long off, va, pa, filesz;
	char cmd[512], line[512];
	uint64_t got = ~0ULL;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", so);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx", &off, &va, &pa, &filesz) == 4 &&
		    vaddr >= va && vaddr - va < filesz)
			got = vaddr - va + off;
	if (p)
		pclose(p);
	return got;
}

/* A kernel SAMPLE of simple_ev at @ip, at @time. */
static void put_kernel_sample_at(struct bytes *d, uint64_t ip, uint64_t time)
{
	size_t r = begin_rec(d, 9, 1);

	put64(d, ip);
	put32x2(d, 100, 100);
	put64(d, time);
	put32x2(d, 0, 0);
	put64(d, 250000);
	put64(d, 0);
	end_rec(d, r);
}

/*
 * Kernel addresses the recording does not know (this one knows none):
 * code a KSYMBOL announced, by the latest one there at the sample's time,
 * its name as dso and symbol; else perf's pid -1 maps, which name the
 * module (perf's "[name]", '-' as '_') or the kernel, but no function.
 */
TEST(kernel_code_and_maps)
{
	static const struct {
		uint64_t ip, time;
		const char *dso, *module, *symbol;
		uint64_t offset;
	} want[] = {
		{ 0xffffffffc0001010ull, 1500, "bpf_prog_aa_one", "bpf_prog_aa_one", "bpf_prog_aa_one", 0x10 },
		{ 0xffffffffc0001020ull, 3500, "bpf_prog_bb_two", "bpf_prog_bb_two", "bpf_prog_bb_two", 0x20 },
		{ 0xffffffffc0100010ull, 1500, "[foo_bar]", "foo_bar", NULL, 0 },
		{ 0xffffffff81000020ull, 1500, "[kernel.kallsyms]", "[kernel.kallsyms]", NULL, 0 },
		{ 0xffffffffd0000000ull, 1500, "[unknown]", NULL, NULL, 0 },
	};
	struct walk_files files;
	struct bytes d = { 0 };
	struct sample_walk *w;
	const struct secmap_sample *smp;
	size_t i, n = 0;
	int ret;

	put_ksymbol(&d, 0xffffffffc0001000ull, 0x40, 0, "bpf_prog_aa_one", 1000);
	put_ksymbol(&d, 0xffffffffc0001000ull, 0x40, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
		    "bpf_prog_aa_one", 2000);
	put_ksymbol(&d, 0xffffffffc0001000ull, 0x40, 0, "bpf_prog_bb_two", 3000);
	put_mmap2(&d, -1, 0xffffffffc0100000ull, 0x1000,
		  "/lib/modules/6.1.0/kernel/net/foo-bar.ko.xz", 0);
	put_mmap2(&d, -1, 0xffffffff81000000ull, 0x3f000000, "[kernel.kallsyms]_text", 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		put_kernel_sample_at(&d, want[i].ip, want[i].time);
	ASSERT_EQ(0, open_walk(&d, 0, &files, &w));
	while ((ret = sample_walk_next(w, &smp)) == 1) {
		ASSERT_GT(sizeof(want) / sizeof(want[0]), n);
		EXPECT_EQ(want[n].ip, smp->frame->ip);
		EXPECT_STREQ(want[n].dso, smp->frame->dso);
		if (want[n].module)
			EXPECT_STREQ(want[n].module, smp->frame->module);
		if (want[n].symbol) {
			EXPECT_STREQ(want[n].symbol, smp->frame->symbol);
		} else {
			EXPECT_EQ(NULL, smp->frame->symbol);
		}
		EXPECT_EQ(want[n].offset, smp->frame->symbol_offset);
		n++;
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(sizeof(want) / sizeof(want[0]), n);
	close_walk(&files, w);
	free(d.p);
}

/*
 * perf's map of a module the recording has says nothing more: the
 * recording's maps of it say where it is, and an address in none of them
 * is not its (perf's span, from /proc/modules' base and size, may cover
 * another module's memory, its freed init on 6.4 and later). A module the
 * recording lacks still gets perf's name.
 */
TEST(kernel_maps_yield_to_the_recording)
{
	const struct secmap_record recs[] = {
		{ .sz = sizeof(recs[0]), .type = SECMAP_REC_RESYNC, .reason = SECMAP_RESYNC_START,
		  .source = SECMAP_SOURCE_NETLINK, .nr_maps = 1, .nr_modules = 1 },
		{ .sz = sizeof(recs[0]), .type = SECMAP_REC_SEC_MAP, .pid = SECMAP_PID_HOST_KERNEL,
		  .module = "foo_bar", .section = ".text", .start = 0xffffffffc0200000ull,
		  .len = 0x100, .flags = SECMAP_MAP_F_EXEC | SECMAP_MAP_F_SNAPSHOT },
	};
	struct walk_files files;
	struct bytes d = { 0 };
	struct sample_walk *w;
	const struct secmap_sample *smp;
	int ret, n = 0;

	put_mmap2(&d, -1, 0xffffffffc0100000ull, 0x1000,
		  "/lib/modules/6.1.0/kernel/net/foo-bar.ko.xz", 0);
	put_mmap2(&d, -1, 0xffffffffc0300000ull, 0x1000, "/lib/modules/6.1.0/other.ko", 0);
	put_kernel_sample_at(&d, 0xffffffffc0100010ull, 1500);
	put_kernel_sample_at(&d, 0xffffffffc0300010ull, 1500);
	ASSERT_EQ(0, open_walk_with(&d, recs, 2, &files, &w));
	while ((ret = sample_walk_next(w, &smp)) == 1) {
		if (n++ == 0) {
			EXPECT_STREQ("[unknown]", smp->frame->dso);
			EXPECT_EQ(NULL, smp->frame->module);
		} else {
			EXPECT_STREQ("[other]", smp->frame->dso);
			EXPECT_STREQ("other", smp->frame->module);
		}
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(2, n);
	close_walk(&files, w);
	free(d.p);
}

/*
 * The session remembers the core kernel's answers by address, since they
 * hold at any time: only where no module map of the recording ever
 * overlapped the core's text. Here one did, for a while: the same address
 * is the core's, the module's, and the core's again. Each sample comes
 * after a few hundred others, in batches of their own.
 */
TEST(core_kernel_answers_and_a_module_over_them)
{
	enum { SPREAD = 300 };
	static const char ks[] = "ffffffff81000000 T _text\nffffffff81000000 T core_fn\n"
				 "ffffffff81100000 T _etext\n";
	static const struct {
		uint64_t ip, time;
		const char *dso, *symbol;
	} want[] = {
		{ 0xffffffff81000010ull, 1000, "[kernel.kallsyms]", "core_fn" },
		{ 0xffffffff81050000ull, 1000, "[kernel.kallsyms]", "core_fn" },
		{ 0xffffffff81000010ull, 2500, "[over]", NULL },
		{ 0xffffffff81050000ull, 2500, "[kernel.kallsyms]", "core_fn" },
		{ 0xffffffff81000010ull, 3500, "[kernel.kallsyms]", "core_fn" },
	};
	const struct secmap_record recs[] = {
		{ .sz = sizeof(recs[0]), .type = SECMAP_REC_KALLSYMS, .text = ks,
		  .text_len = sizeof(ks) - 1 },
		{ .sz = sizeof(recs[0]), .type = SECMAP_REC_SEC_MAP, .pid = SECMAP_PID_HOST_KERNEL,
		  .module = "over", .section = ".text", .start = 0xffffffff81000000ull,
		  .len = 0x1000, .time_local_ns = 2000, .time_mono_ns = 2000,
		  .flags = SECMAP_MAP_F_EXEC, .seq = 1 },
		{ .sz = sizeof(recs[0]), .type = SECMAP_REC_UNMAP, .pid = SECMAP_PID_HOST_KERNEL,
		  .module = "over", .time_local_ns = 3000, .time_mono_ns = 3000, .seq = 1 },
	};
	const struct secmap_sample *smp;
	struct walk_files files;
	struct bytes d = { 0 };
	struct sample_walk *w;
	size_t i, j, n = 0;
	int ret;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		for (j = 0; j < SPREAD; j++)
			put_kernel_sample_at(&d, want[i].ip, want[i].time + j);
	ASSERT_EQ(0, open_walk_with(&d, recs, 3, &files, &w));
	while ((ret = sample_walk_next(w, &smp)) == 1) {
		i = n++ / SPREAD;
		ASSERT_GT(sizeof(want) / sizeof(want[0]), i);
		EXPECT_STREQ(want[i].dso, smp->frame->dso) TH_LOG("sample %zu", n - 1);
		if (want[i].symbol) {
			EXPECT_STREQ(want[i].symbol, smp->frame->symbol);
		} else {
			EXPECT_EQ(NULL, smp->frame->symbol);
		}
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(SPREAD * sizeof(want) / sizeof(want[0]), n);
	close_walk(&files, w);
	free(d.p);
}

/*
 * User frames named by the functions of the file mapped there, found by
 * the offset in the file, as nm and readelf place them; C++ names shown
 * as perf shows them; no name where the file has no function.
 */
TEST(user_symbols_from_the_file)
{
	static const char src[] =
		"extern \"C\" int secmap_ut_alpha(int x) { return x * 3 + 1; }\n"
		"extern \"C\" int secmap_ut_beta(int x) { return secmap_ut_alpha(x) ^ 0x55; }\n"
		"namespace ns { template <typename T> struct box { T get(T v) const; }; }\n"
		"template <typename T> T ns::box<T>::get(T v) const { return v + 7; }\n"
		"template struct ns::box<long>;\n";
	static const char *const funcs[][2] = {
		{ "secmap_ut_alpha", "secmap_ut_alpha" },
		{ "secmap_ut_beta", "secmap_ut_beta" },
		{ "_ZNK2ns3boxIlE3getEl", "ns::box<long>::get" },
	};
	char dir[] = "/tmp/perf_data_test.so.XXXXXX", cmd[512], so[64];
	uint64_t base = 0x7f1200000000ULL, addr[3], size, off[3];
	const struct secmap_sample *smp;
	struct walk_files files;
	struct bytes d = { 0 };
	struct sample_walk *w;
	struct stat st;
	size_t i, n = 0;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(so, sizeof(so), "%s/libut.so", dir);
	snprintf(cmd, sizeof(cmd), "%s/ut.cc", dir);
	f = fopen(cmd, "w");
	ASSERT_NE(NULL, f);
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "c++ -O1 -shared -fPIC -o '%s' '%s/ut.cc' 2>&1", so, dir);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, stat(so, &st));
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(nm_function(so, funcs[i][0], &addr[i], &size)) TH_LOG("%s", funcs[i][0]);
		ASSERT_LT(2, size);
		off[i] = readelf_file_offset(so, addr[i]);
		ASSERT_NE(~0ULL, off[i]);
	}
	put_mmap2(&d, 7, base, (uint64_t)st.st_size, so, 100);
	for (i = 0; i < 3; i++)
		put_user_sample(&d, base + off[i] + 2, 7, 7, 200 + i, 0);
	/* The ELF header: in the file, in no function. */
	put_user_sample(&d, base + 1, 7, 7, 300, 0);
	ASSERT_EQ(0, open_walk(&d, 0, &files, &w));
	while (sample_walk_next(w, &smp) == 1) {
		ASSERT_GT(4, n);
		EXPECT_STREQ(so, smp->frame->dso);
		if (n < 3) {
			ASSERT_NE(NULL, smp->frame->symbol) TH_LOG("%s", funcs[n][0]);
			EXPECT_STREQ(funcs[n][1], smp->frame->symbol);
			EXPECT_EQ(2, smp->frame->symbol_offset);
		} else {
			EXPECT_EQ(NULL, smp->frame->symbol);
		}
		n++;
	}
	EXPECT_EQ(4, n);
	close_walk(&files, w);
	free(d.p);
	snprintf(cmd, sizeof(cmd), "rm -r '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/* The name the walk gives a user sample at @off in @so, mapped at @base (NULL: none); in @buf. */
static const char *user_name_at(const char *so, uint64_t base, uint64_t off, char *buf, size_t len)
{
	const struct secmap_sample *smp;
	struct walk_files files;
	struct bytes d = { 0 };
	struct sample_walk *w;
	const char *name = NULL;
	struct stat st;

	if (stat(so, &st))
		return NULL;
	put_mmap2(&d, 7, base, (uint64_t)st.st_size, so, 100);
	put_user_sample(&d, base + off, 7, 7, 200, 0);
	if (open_walk(&d, 0, &files, &w))
		return NULL;
	if (sample_walk_next(w, &smp) == 1 && smp->frame->symbol) {
		snprintf(buf, len, "%s", smp->frame->symbol);
		name = buf;
	}
	close_walk(&files, w);
	free(d.p);
	return name;
}

/* Whether this process has mapped a file whose name holds @part. */
static bool mapped(const char *part)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, part) != NULL;
	if (f)
		fclose(f);
	return found;
}

/*
 * In @dir: lib@tag.so, stripped, linked (.gnu_debuglink) to its debuginfo
 * moved to @dir/@tag.debug/ (not .debug/ yet: the caller moves it there);
 * built with @ldflags, and @cflags that may change the code.
 */
static int stripped_library(const char *dir, const char *tag, const char *cflags,
			    const char *ldflags)
{
	static const char src[] =
		"static __attribute__((noinline)) int secmap_ut_hidden(int x) { return x * 5 + 3; }\n"
		"int secmap_ut_shown(int x) { return secmap_ut_hidden(x) ^ 0x33; }\n";
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && printf '%%s' '%s' >%s.c && "
		 "cc -O1 -g -shared -fPIC %s %s -o lib%s.so %s.c && "
		 "objcopy --only-keep-debug lib%s.so lib%s.so.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=lib%s.so.debug lib%s.so && "
		 "mkdir %s.debug && mv lib%s.so.debug %s.debug/ 2>&1",
		 dir, src, tag, cflags, ldflags, tag, tag, tag, tag, tag, tag, tag, tag, tag);
	return system(cmd);
}

/*
 * A stripped library's local function, named from the debuginfo its
 * .gnu_debuglink names in .debug/ beside it, only when that is the
 * library's (the same build-id; the link's CRC for a library without
 * one), and never from a link that names a path. No debuginfo at all,
 * and no debuginfod server asked for:
 * libdebuginfod (and curl, gnutls... behind it) never loaded.
 */
TEST(user_symbols_from_a_debuglink)
{
	char dir[] = "/tmp/perf_data_test.dbg.XXXXXX", cmd[1024], so[96], dbg[96], buf[128];
	static const char *const tags[] = { "id", "noid" };
	uint64_t base = 0x7f1300000000ULL, addr, size, off;
	size_t i;

	unsetenv("DEBUGINFOD_URLS");
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, stripped_library(dir, "id", "", ""));
	ASSERT_EQ(0, stripped_library(dir, "other", "-DOTHER=1 -fno-inline", ""));
	ASSERT_EQ(0, stripped_library(dir, "noid", "", "-Wl,--build-id=none"));
	for (i = 0; i < 2; i++) {
		snprintf(so, sizeof(so), "%s/lib%s.so", dir, tags[i]);
		snprintf(dbg, sizeof(dbg), "%s/%s.debug/lib%s.so.debug", dir, tags[i], tags[i]);
		/* Where it is: nm of the debuginfo (the library has no .symtab left). */
		ASSERT_TRUE(nm_function(dbg, "secmap_ut_hidden", &addr, &size));
		off = readelf_file_offset(so, addr);
		ASSERT_NE(~0ULL, off);
		EXPECT_EQ(NULL, user_name_at(so, base, off + 1, buf, sizeof(buf))) TH_LOG("%s", so);
		EXPECT_FALSE(mapped("libdebuginfod"));
		snprintf(cmd, sizeof(cmd), "cd '%s' && mv %s.debug .debug", dir, tags[i]);
		ASSERT_EQ(0, system(cmd));
		EXPECT_STREQ("secmap_ut_hidden", user_name_at(so, base, off + 1, buf, sizeof(buf)))
			TH_LOG("%s", so);
		/* Another file under the name: another build's, or one byte more. */
		if (i == 0)
			snprintf(cmd, sizeof(cmd), "cd '%s' && cp other.debug/libother.so.debug "
				 ".debug/libid.so.debug", dir);
		else
			snprintf(cmd, sizeof(cmd), "printf x >>'%s/.debug/libnoid.so.debug'", dir);
		ASSERT_EQ(0, system(cmd));
		EXPECT_EQ(NULL, user_name_at(so, base, off + 1, buf, sizeof(buf))) TH_LOG("%s", so);
		snprintf(cmd, sizeof(cmd), "rm -r '%s/.debug'", dir);
		ASSERT_EQ(0, system(cmd));
	}

	/*
	 * A link that names a path leads nowhere: sub/liblink.so's says
	 * "../liblink.so.debug", where its own debuginfo is. Named plainly
	 * beside it, the same file is found.
	 */
	ASSERT_EQ(0, stripped_library(dir, "link", "", ""));
	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir sub && mv liblink.so sub/ && "
		 "mv link.debug/liblink.so.debug . && "
		 "printf '../liblink.so.debug\\000\\000\\000\\000\\000' >link && "
		 "objcopy --update-section .gnu_debuglink=link sub/liblink.so", dir);
	ASSERT_EQ(0, system(cmd));
	snprintf(so, sizeof(so), "%s/sub/liblink.so", dir);
	snprintf(dbg, sizeof(dbg), "%s/liblink.so.debug", dir);
	ASSERT_TRUE(nm_function(dbg, "secmap_ut_hidden", &addr, &size));
	off = readelf_file_offset(so, addr);
	ASSERT_NE(~0ULL, off);
	EXPECT_EQ(NULL, user_name_at(so, base, off + 1, buf, sizeof(buf)));
	snprintf(cmd, sizeof(cmd), "cd '%s' && cp liblink.so.debug sub/ && "
		 "printf 'liblink.so.debug\\000\\000\\000\\000\\000\\000\\000\\000' >link && "
		 "objcopy --update-section .gnu_debuglink=link sub/liblink.so", dir);
	ASSERT_EQ(0, system(cmd));
	EXPECT_STREQ("secmap_ut_hidden", user_name_at(so, base, off + 1, buf, sizeof(buf)));

	snprintf(cmd, sizeof(cmd), "rm -r '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/* Counts samples; stops the walk at @stop_at (0: never). */
struct tool_count {
	size_t n, stop_at;
	const char *first_dso;
};

static int count_sample(void *ctx, const struct secmap_sample *s)
{
	struct tool_count *c = ctx;

	if (!c->n)
		c->first_dso = s->frame->dso;
	if (++c->n == c->stop_at)
		return 42;
	return 0;
}

/*
 * The session through the library alone (what report and script sit on):
 * no resolver, no samples; the samples' clock; a callback table; options
 * that grew; the stats.
 */
TEST(session_api)
{
	struct {
		struct secmap_session_opts opts;
		uint64_t newer;
	} big = { .opts = { .sz = sizeof(big), .flags = SECMAP_SESSION_ORDERED }, .newer = 1 };
	SECMAP_OPTS(secmap_session_tool, tool, .sample = count_sample);
	SECMAP_OPTS(secmap_session_stats, st);
	SECMAP_OPTS(secmap_resolver_opts, ropts, .no_ko = true);
	struct secmap_session *s = NULL;
	struct secmap_resolver *res = NULL;
	const struct secmap_sample *smp;
	struct tool_count c = { 0 };
	enum secmap_clock clock;
	struct walk_files files;
	struct bytes d = { 0 };
	struct sample_walk *w;

	put_mmap2(&d, 7, 0x400000, 0x1000, "/usr/bin/prog", 100);
	put_user_sample(&d, 0x400010, 7, 7, 200, 0);
	put_user_sample(&d, 0x400020, 7, 7, 300, 1);
	put_user_sample(&d, 0x400030, 7, 7, 400, 0);
	/* The files open_walk() writes: the perf.data and an empty recording. */
	ASSERT_EQ(0, open_walk(&d, 0, &files, &w));

	EXPECT_EQ(-E2BIG, secmap_session_open(files.data, &big.opts, &s));
	EXPECT_EQ(NULL, s);
	big.newer = 0;
	ASSERT_EQ(0, secmap_session_open(files.data, &big.opts, &s));
	EXPECT_EQ(-EINVAL, secmap_session_next(s, &smp));	/* no resolver yet */
	/* simple_ev is recorded with -k monotonic (use_clockid, clockid 1). */
	ASSERT_EQ(0, secmap_session_clock(s, &clock));
	EXPECT_EQ(SECMAP_CLOCK_MONO, clock);
	ropts.clock = clock;
	ASSERT_EQ(0, secmap_resolver_new(&ropts, &res));
	ASSERT_EQ(0, secmap_resolver_load(res, files.rec));
	ASSERT_EQ(0, secmap_session_set_resolver(s, res));
	EXPECT_EQ(1U, secmap_session_nr_events(s));
	c.stop_at = 2;
	EXPECT_EQ(42, secmap_session_process(s, &tool, &c));
	EXPECT_EQ(2U, c.n);
	EXPECT_STREQ("/usr/bin/prog", c.first_dso);
	c.stop_at = 0;
	EXPECT_EQ(0, secmap_session_process(s, &tool, &c));
	EXPECT_EQ(3U, c.n);
	ASSERT_EQ(0, secmap_session_stats(s, &st));
	EXPECT_EQ(0U, st.lost_chunks + st.lost_samples + st.forks_capped + st.order_relaxed);
	st.sz = sizeof(size_t);
	EXPECT_EQ(-EINVAL, secmap_session_stats(s, &st));
	secmap_session_close(s);
	secmap_resolver_free(res);
	close_walk(&files, w);
	free(d.p);
}

TEST_HARNESS_MAIN
