// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the recording format: the writer's bytes against the
 * layout Documentation/secmap-record.rst gives, round trips, and a reader
 * that refuses every truncation and corruption cleanly (run under ASan).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "internal.h"

static const uint8_t bid[20] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x10, 0x32,
	0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0xaa, 0xbb, 0xcc, 0xdd,
};

/* Everything a writer produced, read back from its memfd. */
static uint8_t *slurp(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	uint8_t *buf;

	if (end < 0)
		return NULL;
	buf = malloc(end ? (size_t)end : 1);
	if (buf && pread(fd, buf, (size_t)end, 0) != end) {
		free(buf);
		return NULL;
	}
	*len = (size_t)end;
	return buf;
}

static uint64_t le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

static const char kallsyms_text[] =
	"ffffffff81000000 T _text\nffffffff81001000 T _stext\nffffffff81002000 t helper\n";

/* One of each record type, as a recorder writes them. */
static uint8_t *sample_file(struct __test_metadata *_metadata, size_t *len)
{
	struct secmap_writer *w;
	struct secmap_record kernel = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_KERNEL, .pid = -1, .flags = SECMAP_KERNEL_F_REF_ADDR,
		.time_local_ns = 100, .time_mono_ns = 200, .release = "6.12.0-test",
		.ref_name = "_text", .ref_addr = 0xffffffff81000000ULL,
		.build_id = bid, .build_id_len = sizeof(bid),
	};
	struct secmap_record ks = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_KALLSYMS, .pid = -1, .text = kallsyms_text,
		.text_len = sizeof(kallsyms_text) - 1,
	};
	struct secmap_record resync = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_RESYNC, .reason = SECMAP_RESYNC_START,
		.source = SECMAP_SOURCE_NETLINK, .time_local_ns = 300, .time_mono_ns = 400,
		.nr_maps = 1, .nr_modules = 1,
	};
	struct secmap_record map = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_SEC_MAP, .pid = -1,
		.flags = SECMAP_MAP_F_EXEC | SECMAP_MAP_F_SNAPSHOT,
		.time_local_ns = 300, .time_mono_ns = 400, .start = 0xffffffffc0001000ULL,
		.len = 0x1234, .pgoff = 0x40, .section = ".text", .module = "dummy",
		.build_id = bid, .build_id_len = sizeof(bid),
	};
	struct secmap_record map2 = map;
	struct secmap_record unmap = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_UNMAP, .pid = -1, .flags = SECMAP_UNMAP_F_INIT,
		.time_local_ns = 700, .time_mono_ns = 800, .seq = 8, .module = "late_module_x",
	};
	struct secmap_record fin = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_FINISHED, .time_local_ns = 900, .time_mono_ns = 1000,
		.lost = 3, .nr_resyncs = 1,
	};
	uint8_t *buf;
	int fd;

	map2.flags = SECMAP_MAP_F_INIT | SECMAP_MAP_F_EXEC;
	map2.section = ".init.text";
	map2.module = "late_module_x";
	map2.seq = 7;
	map2.build_id_len = 0;
	map2.time_local_ns = 500;
	fd = memfd_create("rec", MFD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, secmap_writer_new(fd, 0, &w));
	ASSERT_EQ(0, secmap_writer_add(w, &kernel));
	ASSERT_EQ(0, secmap_writer_add(w, &ks));
	ASSERT_EQ(0, secmap_writer_add(w, &resync));
	ASSERT_EQ(0, secmap_writer_add(w, &map));
	ASSERT_EQ(0, secmap_writer_add(w, &map2));
	ASSERT_EQ(0, secmap_writer_add(w, &unmap));
	ASSERT_EQ(0, secmap_writer_add(w, &fin));
	ASSERT_EQ(0, secmap_writer_free(w));
	buf = slurp(fd, len);
	close(fd);
	ASSERT_NE(NULL, buf);
	return buf;
}

/* The bytes follow the documented layout, checked without the reader. */
TEST(writer_layout)
{
	size_t len, off;
	uint8_t *buf = sample_file(_metadata, &len);

	ASSERT_EQ(0, memcmp(buf, "SECMAPv1", 8));
	EXPECT_EQ(1, le(buf + 8, 2));	/* major */
	EXPECT_EQ(2, le(buf + 10, 2));	/* minor: 1 added the UEVENT file flag, 2 LOAD_TRACE */
	EXPECT_EQ(64, le(buf + 12, 4));	/* header_size */
	/* KERNEL: 48 fixed + "6.12.0-test" (11+1 -> 16) + "_text" (8) + build-id (24). */
	off = 64;
	EXPECT_EQ(SECMAP_REC_KERNEL, le(buf + off, 4));
	EXPECT_EQ(48 + 16 + 8 + 24, le(buf + off + 6, 2));
	EXPECT_EQ(0xffffffff, le(buf + off + 8, 4));		/* pid -1 */
	EXPECT_EQ(0xffffffff81000000ULL, le(buf + off + 32, 8));
	EXPECT_EQ(11, le(buf + off + 40, 2));
	EXPECT_STREQ("6.12.0-test", (char *)buf + off + 48);
	EXPECT_STREQ("_text", (char *)buf + off + 64);
	EXPECT_EQ(0, memcmp(buf + off + 72, bid, sizeof(bid)));
	off += 96;
	/* KALLSYMS: 24 fixed + text padded to 8. */
	EXPECT_EQ(SECMAP_REC_KALLSYMS, le(buf + off, 4));
	EXPECT_EQ(sizeof(kallsyms_text) - 1, le(buf + off + 12, 4));
	EXPECT_EQ(0, le(buf + off + 16, 8));
	EXPECT_EQ(0, memcmp(buf + off + 24, kallsyms_text, sizeof(kallsyms_text) - 1));
	off += le(buf + off + 6, 2);
	/* RESYNC: 64 bytes. */
	EXPECT_EQ(SECMAP_REC_RESYNC, le(buf + off, 4));
	EXPECT_EQ(64, le(buf + off + 6, 2));
	EXPECT_EQ(1, le(buf + off + 56, 4));
	off += 64;
	/* SEC_MAP: 72 fixed + ".text" (8) + "dummy" (8) + build-id (24). */
	EXPECT_EQ(SECMAP_REC_SEC_MAP, le(buf + off, 4));
	EXPECT_EQ(72 + 8 + 8 + 24, le(buf + off + 6, 2));
	EXPECT_EQ(0xffffffffc0001000ULL, le(buf + off + 32, 8));
	EXPECT_EQ(0x1234, le(buf + off + 40, 8));
	EXPECT_EQ(0x40, le(buf + off + 48, 8));
	EXPECT_EQ(5, le(buf + off + 64, 2));
	EXPECT_EQ(5, le(buf + off + 66, 2));
	EXPECT_EQ(20, buf[off + 68]);
	EXPECT_STREQ(".text", (char *)buf + off + 72);
	EXPECT_STREQ("dummy", (char *)buf + off + 80);
	/* Every record is 8-aligned, and they tile the file exactly. */
	for (off = 64; off < len; off += le(buf + off + 6, 2)) {
		ASSERT_EQ(0, off % 8);
		ASSERT_LE(8, le(buf + off + 6, 2));
	}
	EXPECT_EQ(len, off);
	free(buf);
}

TEST(round_trip)
{
	struct secmap_reader *r;
	SECMAP_OPTS(secmap_record, rec);
	size_t len;
	uint8_t *buf = sample_file(_metadata, &len);

	ASSERT_EQ(0, secmap_data_validate(buf, len));
	ASSERT_EQ(0, secmap_reader_from_buffer(buf, len, &r));
	ASSERT_EQ(1, secmap_reader_next(r, &rec));
	EXPECT_EQ(SECMAP_REC_KERNEL, rec.type);
	EXPECT_EQ(-1, rec.pid);
	EXPECT_STREQ("6.12.0-test", rec.release);
	EXPECT_STREQ("_text", rec.ref_name);
	EXPECT_EQ(0xffffffff81000000ULL, rec.ref_addr);
	EXPECT_EQ(sizeof(bid), rec.build_id_len);
	EXPECT_EQ(0, memcmp(rec.build_id, bid, sizeof(bid)));
	ASSERT_EQ(1, secmap_reader_next(r, &rec));
	EXPECT_EQ(SECMAP_REC_KALLSYMS, rec.type);
	ASSERT_EQ(sizeof(kallsyms_text) - 1, rec.text_len);
	EXPECT_EQ(0, memcmp(rec.text, kallsyms_text, rec.text_len));
	ASSERT_EQ(1, secmap_reader_next(r, &rec));
	EXPECT_EQ(SECMAP_REC_RESYNC, rec.type);
	EXPECT_EQ(SECMAP_RESYNC_START, rec.reason);
	EXPECT_EQ(300, rec.time_local_ns);
	EXPECT_EQ(400, rec.time_mono_ns);
	ASSERT_EQ(1, secmap_reader_next(r, &rec));
	EXPECT_EQ(SECMAP_REC_SEC_MAP, rec.type);
	EXPECT_STREQ(".text", rec.section);
	EXPECT_STREQ("dummy", rec.module);
	EXPECT_EQ(0xffffffffc0001000ULL, rec.start);
	EXPECT_EQ(0x1234, rec.len);
	EXPECT_EQ(0x40, rec.pgoff);
	EXPECT_EQ(SECMAP_MAP_F_EXEC | SECMAP_MAP_F_SNAPSHOT, rec.flags);
	ASSERT_EQ(1, secmap_reader_next(r, &rec));
	EXPECT_STREQ(".init.text", rec.section);
	EXPECT_STREQ("late_module_x", rec.module);
	EXPECT_EQ(0, rec.build_id_len);
	EXPECT_EQ(NULL, rec.build_id);
	EXPECT_EQ(7, rec.seq);
	EXPECT_EQ(500, rec.time_local_ns);
	ASSERT_EQ(1, secmap_reader_next(r, &rec));
	EXPECT_EQ(SECMAP_REC_UNMAP, rec.type);
	EXPECT_EQ(SECMAP_UNMAP_F_INIT, rec.flags);
	EXPECT_STREQ("late_module_x", rec.module);
	ASSERT_EQ(1, secmap_reader_next(r, &rec));
	EXPECT_EQ(SECMAP_REC_FINISHED, rec.type);
	EXPECT_EQ(3, rec.lost);
	EXPECT_EQ(1, rec.nr_resyncs);
	EXPECT_EQ(0, secmap_reader_next(r, &rec));
	EXPECT_EQ(0, secmap_reader_skipped(r));
	secmap_reader_free(r);
	free(buf);
}

/* Pieces of a large kallsyms join up to the text, in order. */
TEST(kallsyms_split)
{
	size_t n = 200000, len, got = 0;
	char *text = malloc(n);
	SECMAP_OPTS(secmap_record, rec, .type = SECMAP_REC_KALLSYMS, .pid = -1);
	struct secmap_writer *w;
	struct secmap_reader *r;
	int fd, pieces = 0;
	uint8_t *buf;

	ASSERT_NE(NULL, text);
	for (size_t i = 0; i < n; i++)
		text[i] = (char)('a' + i % 26);
	rec.text = text;
	rec.text_len = n;
	fd = memfd_create("rec", MFD_CLOEXEC);
	ASSERT_EQ(0, secmap_writer_new(fd, 0, &w));
	ASSERT_EQ(0, secmap_writer_add(w, &rec));
	ASSERT_EQ(0, secmap_writer_free(w));
	buf = slurp(fd, &len);
	close(fd);
	ASSERT_EQ(0, secmap_reader_from_buffer(buf, len, &r));
	while (secmap_reader_next(r, &rec) == 1) {
		ASSERT_EQ(got, rec.text_offset);
		ASSERT_EQ(0, memcmp(text + got, rec.text, rec.text_len));
		got += rec.text_len;
		pieces++;
	}
	EXPECT_EQ(n, got);
	EXPECT_LE(4, pieces);
	secmap_reader_free(r);
	free(buf);
	free(text);
}

TEST(writer_refuses_unencodable)
{
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_SEC_MAP, .section = ".text", .module = "m",
	};
	struct secmap_writer *w;
	char *big = malloc(70000);
	int fd = memfd_create("rec", MFD_CLOEXEC);

	ASSERT_NE(NULL, big);
	ASSERT_EQ(0, secmap_writer_new(fd, 0, &w));
	rec.module = "";
	EXPECT_EQ(-EINVAL, secmap_writer_add(w, &rec));
	rec.module = NULL;
	EXPECT_EQ(-EINVAL, secmap_writer_add(w, &rec));
	memset(big, 'x', 69999);
	big[69999] = 0;
	rec.module = big;
	EXPECT_EQ(-EINVAL, secmap_writer_add(w, &rec));
	rec.module = "m";
	rec.build_id = (const uint8_t *)big;
	rec.build_id_len = 256;
	EXPECT_EQ(-EINVAL, secmap_writer_add(w, &rec));
	rec.build_id_len = 0;
	rec.type = 99;
	EXPECT_EQ(-EINVAL, secmap_writer_add(w, &rec));
	rec.type = SECMAP_REC_RESYNC;	/* reason 0 */
	EXPECT_EQ(-EINVAL, secmap_writer_add(w, &rec));
	/* A release that would be a path out of /lib/modules, or no release at all. */
	rec.type = SECMAP_REC_KERNEL;
	rec.ref_name = "_text";
	rec.release = "../../../tmp/x";
	EXPECT_EQ(-EINVAL, secmap_writer_add(w, &rec));
	rec.release = "..";
	EXPECT_EQ(-EINVAL, secmap_writer_add(w, &rec));
	rec.release = "6.12\n0";
	EXPECT_EQ(-EINVAL, secmap_writer_add(w, &rec));
	EXPECT_EQ(64, secmap_writer_bytes(w));
	EXPECT_EQ(0, secmap_writer_free(w));
	close(fd);
	free(big);
}

/* A write error sticks: nothing after it claims success. */
TEST(writer_error_sticks)
{
	SECMAP_OPTS(secmap_record, rec, .type = SECMAP_REC_FINISHED);
	struct secmap_writer *w;
	int fds[2];

	ASSERT_EQ(0, pipe(fds));
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	ASSERT_EQ(0, secmap_writer_new(fds[1], 0, &w));
	EXPECT_EQ(-EPIPE, secmap_writer_flush(w));
	EXPECT_EQ(-EPIPE, secmap_writer_add(w, &rec));
	EXPECT_EQ(-EPIPE, secmap_writer_free(w));
	close(fds[1]);
}

/* Read all; 0 at a clean end, else the error. Never crashes (ASan). */
static int read_all(const uint8_t *buf, size_t len, int *records)
{
	struct secmap_reader *r;
	SECMAP_OPTS(secmap_record, rec);
	int ret;

	*records = 0;
	ret = secmap_reader_from_buffer(buf, len, &r);
	if (ret)
		return ret;
	while ((ret = secmap_reader_next(r, &rec)) == 1) {
		(*records)++;
		/* Touch every string the reader hands out. */
		if (rec.section)
			ret = (int)strlen(rec.section);
		if (rec.module)
			ret = (int)strlen(rec.module);
		if (rec.release)
			ret = (int)strlen(rec.release) + (int)strlen(rec.ref_name);
		if (rec.build_id_len)
			ret = rec.build_id[rec.build_id_len - 1];
		if (rec.text_len)
			ret = rec.text[rec.text_len - 1];
	}
	secmap_reader_free(r);
	return ret;
}

/* Every prefix but the whole file fails (or ends early at a record boundary: fewer records). */
TEST(every_truncation)
{
	size_t len, cut;
	int full, n, ret;
	uint8_t *buf = sample_file(_metadata, &len), *copy;

	ASSERT_EQ(0, read_all(buf, len, &full));
	for (cut = 0; cut < len; cut++) {
		copy = malloc(cut ? cut : 1);
		memcpy(copy, buf, cut);
		ret = read_all(copy, cut, &n);
		/* Cut at a record boundary, outside the snapshot: a valid shorter file. */
		if (!ret) {
			EXPECT_LT(n, full);
		} else {
			EXPECT_TRUE(ret == -EBADMSG || ret == -EINVAL) TH_LOG("cut %zu: %d", cut, ret);
		}
		free(copy);
	}
	free(buf);
}

/* Random flips: any outcome but a crash or an out-of-bounds read (ASan). */
TEST(random_flips)
{
	size_t len, i;
	int n, k;
	uint8_t *buf = sample_file(_metadata, &len), *copy = malloc(len);
	unsigned int seed = 1234;

	for (i = 0; i < 20000; i++) {
		memcpy(copy, buf, len);
		for (k = 0; k < 1 + (int)(i % 4); k++)
			copy[rand_r(&seed) % len] ^= (uint8_t)(1 + rand_r(&seed) % 255);
		read_all(copy, len, &n);
	}
	free(copy);
	free(buf);
}

TEST(refusals)
{
	size_t len;
	int n;
	uint8_t *buf = sample_file(_metadata, &len), *copy = malloc(len);

	/* Another magic: not a recording. */
	memcpy(copy, buf, len);
	copy[0] = 'X';
	EXPECT_EQ(-EINVAL, read_all(copy, len, &n));
	/* Another major: refused, whatever follows. */
	memcpy(copy, buf, len);
	copy[8] = 2;
	EXPECT_EQ(-ENOTSUP, read_all(copy, len, &n));
	/* A later minor is read. */
	memcpy(copy, buf, len);
	copy[10] = 7;
	EXPECT_EQ(0, read_all(copy, len, &n));
	/* Header size not a multiple of 8, or past the end. */
	memcpy(copy, buf, len);
	copy[12] = 65;
	EXPECT_EQ(-EBADMSG, read_all(copy, len, &n));
	/* A string whose NUL is not where its length says: ".text" with length 3. */
	memcpy(copy, buf, len);
	for (size_t off = 64; off < len; off += le(copy + off + 6, 2)) {
		if (le(copy + off, 4) == SECMAP_REC_SEC_MAP) {
			copy[off + 64] = 3;
			break;
		}
	}
	EXPECT_EQ(-EBADMSG, read_all(copy, len, &n));
	free(copy);
	free(buf);
}

/*
 * A release with a '/' (the writer refuses one: patched in here) or a
 * control character: the .ko search would take it for a path. All 8 bytes
 * long, so the record's layout stays whole: the first one, a good
 * release, reads.
 */
TEST(release_is_a_name)
{
	static const char *const rel[] = { "6.12.0-t", "6.1/../x", "../tmp/x", "6.12\033abc" };
	size_t len, i, off = 64 + sizeof(struct secmap_rec_kernel);
	uint8_t *buf = sample_file(_metadata, &len), *copy = malloc(len);
	int n;

	ASSERT_NE(NULL, copy);
	for (i = 0; i < ARRAY_SIZE(rel); i++) {
		memcpy(copy, buf, len);
		ASSERT_EQ(SECMAP_REC_KERNEL, le(copy + 64, 4));
		ASSERT_EQ(8, strlen(rel[i]));
		memset(copy + off, 0, strlen("6.12.0-test"));
		memcpy(copy + off, rel[i], 8);
		copy[64 + 40] = 8;	/* release_len */
		EXPECT_EQ(i ? -EBADMSG : 0, read_all(copy, len, &n)) TH_LOG("release %s", rel[i]);
	}
	free(copy);
	free(buf);
}

/* Unknown record types are skipped by their size; known ones still read. */
TEST(unknown_type_skipped)
{
	struct secmap_reader *r;
	SECMAP_OPTS(secmap_record, rec);
	size_t len;
	uint8_t *buf = sample_file(_metadata, &len), *bigger = malloc(len + 16);
	int n = 0;

	memcpy(bigger, buf, 64);
	/* type 77, size 16, after the file header */
	memset(bigger + 64, 0, 16);
	bigger[64] = 77;
	bigger[70] = 16;
	memcpy(bigger + 80, buf + 64, len - 64);
	ASSERT_EQ(0, secmap_reader_from_buffer(bigger, len + 16, &r));
	while (secmap_reader_next(r, &rec) == 1)
		n++;
	EXPECT_EQ(7, n);
	EXPECT_EQ(1, secmap_reader_skipped(r));
	secmap_reader_free(r);
	free(bigger);
	free(buf);
}

/* A snapshot's maps must all be there, flagged, right after their RESYNC. */
TEST(snapshot_consistency)
{
	struct secmap_record resync = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_RESYNC, .reason = SECMAP_RESYNC_LOST,
		.source = SECMAP_SOURCE_NETLINK, .nr_maps = 2, .lost = 1,
	};
	struct secmap_record map = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_SEC_MAP, .flags = SECMAP_MAP_F_SNAPSHOT,
		.section = ".text", .module = "m",
	};
	struct secmap_writer *w;
	size_t len;
	uint8_t *buf;
	int fd, n;

	/* One map short. */
	fd = memfd_create("rec", MFD_CLOEXEC);
	ASSERT_EQ(0, secmap_writer_new(fd, 0, &w));
	ASSERT_EQ(0, secmap_writer_add(w, &resync));
	ASSERT_EQ(0, secmap_writer_add(w, &map));
	ASSERT_EQ(0, secmap_writer_free(w));
	buf = slurp(fd, &len);
	close(fd);
	EXPECT_EQ(-EBADMSG, read_all(buf, len, &n));
	free(buf);
	/* A snapshot map outside any snapshot. */
	fd = memfd_create("rec", MFD_CLOEXEC);
	ASSERT_EQ(0, secmap_writer_new(fd, 0, &w));
	ASSERT_EQ(0, secmap_writer_add(w, &map));
	ASSERT_EQ(0, secmap_writer_free(w));
	buf = slurp(fd, &len);
	close(fd);
	EXPECT_EQ(-EBADMSG, read_all(buf, len, &n));
	free(buf);
}

TEST(open_refuses_non_regular)
{
	struct secmap_reader *r;

	EXPECT_EQ(-EISDIR, secmap_reader_open("/", &r));
	EXPECT_EQ(-EINVAL, secmap_reader_open("/dev/null", &r));
	EXPECT_EQ(-ENOENT, secmap_reader_open("/nonexistent/secmap.data", &r));
}

TEST_HARNESS_MAIN
