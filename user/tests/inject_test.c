// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for secmap_perf_inject(), secmap_perf_strip(),
 * secmap_perf_read_recording() and secmap_perf_read_feature(), on perf.data
 * files built here byte by byte (no perf needed): perf's bytes stay as they
 * are, the recording and its trailer follow them and read back, the trailer
 * tells a changed file, strip gives back perf's file, every malformed input
 * is refused with the input unchanged and no temporary file left, and no
 * device, FIFO or symlink is ever replaced. tests/inject_perf_test.sh does
 * the same on files from the real perf; tests/perf_maps_test.sh covers the
 * rewrite for stock perf.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "kselftest_harness.h"

#include "internal.h"

#define HDR_SIZE	104
#define HDR_ATTRS	24
#define HDR_DATA	40
#define HDR_FEATURES	72
#define ATTR_LEN	128	/* perf_event_attr.size of the fixture's event */
#define DATA_LEN	200
#define TRAILER_LEN	72	/* struct secmap_perf_trailer */

struct bytes {
	uint8_t *p;
	size_t len;
};

static void grow(struct bytes *b, size_t len)
{
	b->p = realloc(b->p, len ? len : 1);
	if (!b->p)
		abort();
	if (len > b->len)
		memset(b->p + b->len, 0, len - b->len);
	b->len = len;
}

static void append(struct bytes *b, const void *d, size_t n)
{
	size_t at = b->len;

	grow(b, b->len + n);
	memcpy(b->p + at, d, n);
}

static uint64_t read_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void set64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static void append64(struct bytes *b, uint64_t v)
{
	uint8_t le[8];

	set64(le, v);
	append(b, le, sizeof(le));
}

struct feat {
	unsigned int bit;
	const char *data;
	size_t len;
};

/* Sections as perf record writes them (bit 5 empty, as after a failed write). */
static const struct feat std_feats[] = {
	{ 1, "hostname-ish", 12 },
	{ 3, "osrelease and some more bytes, 41 in all", 41 },
	{ 5, "", 0 },
	{ 7, "\x01\x02\x03\x04\x05\x06\x07\x08\x09", 9 },
};

#define NR_STD_FEATS ARRAY_SIZE(std_feats)

/*
 * A perf.data: header, one event's ids and attr, DATA_LEN bytes of data,
 * feature table and sections. @attrs_after: data right after the header,
 * then ids and attr after the sections, as perf inject from a pipe (6.12 on)
 * writes them.
 */
static struct bytes make_perf(const struct feat *feats, size_t nr, bool attrs_after)
{
	struct bytes b = { 0 };
	uint64_t ids_off, attr_off = 0, data_off, cur;
	uint8_t attr[ATTR_LEN];
	size_t i;

	grow(&b, HDR_SIZE);
	memcpy(b.p, "PERFILE2", 8);
	set64(b.p + 8, HDR_SIZE);
	set64(b.p + 16, ATTR_LEN + 16);
	memset(attr, 0xa5, sizeof(attr));
	memcpy(attr, "\x01\x00\x00\x00", 4);				/* type */
	memcpy(attr + 4, (uint8_t[]){ ATTR_LEN, 0, 0, 0 }, 4);		/* size */

	if (!attrs_after) {
		ids_off = b.len;
		append64(&b, 0x1111);
		append64(&b, 0x2222);
		attr_off = b.len;
		append(&b, attr, sizeof(attr));
		append64(&b, ids_off);
		append64(&b, 16);
	}
	data_off = b.len;
	for (i = 0; i < DATA_LEN; i++)
		append(&b, (uint8_t[]){ (uint8_t)(i * 7 + 1) }, 1);
	cur = b.len + 16 * nr;
	for (i = 0; i < nr; i++) {
		append64(&b, cur);
		append64(&b, feats[i].len);
		cur += feats[i].len;
		b.p[HDR_FEATURES + feats[i].bit / 8] |= 1 << (feats[i].bit % 8);
	}
	for (i = 0; i < nr; i++)
		append(&b, feats[i].data, feats[i].len);
	if (attrs_after) {
		ids_off = b.len;
		append64(&b, 0x1111);
		append64(&b, 0x2222);
		attr_off = b.len;
		append(&b, attr, sizeof(attr));
		append64(&b, ids_off);
		append64(&b, 16);
	}
	set64(b.p + HDR_ATTRS, attr_off);
	set64(b.p + HDR_ATTRS + 8, ATTR_LEN + 16);
	set64(b.p + HDR_DATA, data_off);
	set64(b.p + HDR_DATA + 8, DATA_LEN);
	return b;
}

/*
 * A recording secmap_data_validate() accepts: a file header, then (@extra
 * bytes, a multiple of 8) one record of a type readers skip.
 */
static struct bytes make_rec(size_t extra)
{
	struct bytes b = { 0 };

	grow(&b, 64 + extra);
	memcpy(b.p, SECMAP_FILE_MAGIC, 8);
	b.p[8] = SECMAP_FILE_MAJOR;
	b.p[12] = 64;
	if (extra) {
		b.p[64] = 0xe8;		/* type 1000 */
		b.p[65] = 0x03;
		b.p[70] = (uint8_t)extra;	/* size */
	}
	return b;
}

static int put_file(const char *path, const struct bytes *b)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, b->p, b->len);
	close(fd);
	return n == (ssize_t)b->len ? 0 : -1;
}

static struct bytes get_file(const char *path)
{
	struct bytes b = { 0 };
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		abort();
	grow(&b, (size_t)st.st_size);
	if (pread(fd, b.p, b.len, 0) != (ssize_t)b.len)
		abort();
	close(fd);
	return b;
}

static bool same(const struct bytes *a, const struct bytes *b)
{
	return a->len == b->len && !memcmp(a->p, b->p, a->len);
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Entries of @dir other than . and .. */
static int count_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

FIXTURE(inject) {
	char dir[256];
	char in[PATH_MAX];
	char out[PATH_MAX];
	struct bytes rec;
};

FIXTURE_SETUP(inject)
{
	const char *tmp = getenv("TMPDIR");

	ASSERT_GT(sizeof(self->dir), (size_t)snprintf(self->dir, sizeof(self->dir),
						      "%s/inject_test.XXXXXX", tmp ? tmp : "/tmp"));
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->in, sizeof(self->in), "%s/perf.data", self->dir);
	snprintf(self->out, sizeof(self->out), "%s/out.data", self->dir);
	self->rec = make_rec(24);
}

FIXTURE_TEARDOWN(inject)
{
	nftw(self->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(self->rec.p);
}

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

/*
 * Check @out against @perf (perf's file) with @rec injected: perf's bytes as
 * they are, then the recording, then the trailer, with the hash of every
 * byte before its fingerprint computed here.
 */
static void check_injected(struct __test_metadata *_metadata, const struct bytes *perf,
			   const struct bytes *out, const struct bytes *rec)
{
	size_t rec_at = align8(perf->len), t_at = rec_at + align8(rec->len);
	XXH128_hash_t h;
	const uint8_t *t;

	ASSERT_EQ(t_at + TRAILER_LEN, out->len);
	h = XXH3_128bits(out->p, t_at + 40);
	EXPECT_EQ(0, memcmp(perf->p, out->p, perf->len));
	EXPECT_EQ(0, memcmp(rec->p, out->p + rec_at, rec->len));
	t = out->p + t_at;
	EXPECT_EQ(perf->len, read_le64(t));
	EXPECT_EQ(rec_at, read_le64(t + 8));
	EXPECT_EQ(rec->len, read_le64(t + 16));
	EXPECT_EQ(0, read_le64(t + 24));	/* no undo log: perf's file unchanged */
	EXPECT_EQ(0, read_le64(t + 32));
	EXPECT_EQ(h.low64, read_le64(t + 40));
	EXPECT_EQ(h.high64, read_le64(t + 48));
	EXPECT_EQ(0x0000004800000001ULL, read_le64(t + 56));	/* major 1, minor 0, size 72 */
	EXPECT_EQ(0, memcmp(t + 64, SECMAP_PERF_TRAILER_MAGIC, 8));
	/* No feature bit of ours: perf inject would trip on it. */
	EXPECT_EQ(0, memcmp(perf->p + HDR_FEATURES, out->p + HDR_FEATURES, 32));
}

/* secmap_perf_read_recording(@path) gives @rec. */
static void check_reads(struct __test_metadata *_metadata, const char *path,
			const struct bytes *rec)
{
	void *data = NULL;
	size_t len = 0;

	ASSERT_EQ(0, secmap_perf_read_recording(path, &data, &len));
	ASSERT_EQ(rec->len, len);
	EXPECT_EQ(0, memcmp(data, rec->p, len));
	free(data);
}

TEST_F(inject, read_back)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), out, again;
	void *data;
	size_t len, i;

	ASSERT_EQ(0, put_file(self->in, &in));
	ASSERT_EQ(0, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	out = get_file(self->out);
	again = get_file(self->in);
	EXPECT_TRUE(same(&in, &again));
	check_injected(_metadata, &in, &out, &self->rec);
	check_reads(_metadata, self->out, &self->rec);
	/* The fixture's recording is a valid one. */
	EXPECT_EQ(0, secmap_data_validate(self->rec.p, self->rec.len));
	for (i = 0; i < NR_STD_FEATS; i++) {
		ASSERT_EQ(0, secmap_perf_read_feature(self->out, std_feats[i].bit, &data, &len));
		ASSERT_EQ(std_feats[i].len, len);
		EXPECT_EQ(0, memcmp(data, std_feats[i].data, len));
		free(data);
	}
	EXPECT_EQ(-ENODATA, secmap_perf_read_recording(self->in, &data, &len));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(-ENODATA, secmap_perf_read_feature(self->out, SECMAP_PERF_FEATURE_BIT, &data,
						     &len));
	EXPECT_EQ(-ENODATA, secmap_perf_read_feature(self->out, 2, &data, &len));
	EXPECT_EQ(-EINVAL, secmap_perf_read_feature(self->out, 256, &data, &len));
	EXPECT_EQ(2, count_entries(self->dir));
	free(in.p);
	free(out.p);
	free(again.p);
}

TEST_F(inject, twice_replaces)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), once, twice, longer;
	struct bytes rec2 = make_rec(24), rec3 = make_rec(64);

	rec2.p[80] = 0x5a;	/* same length, other bytes */
	ASSERT_EQ(0, put_file(self->in, &in));
	ASSERT_EQ(0, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	once = get_file(self->out);
	ASSERT_EQ(0, secmap_perf_inject(self->out, self->out, rec2.p, rec2.len));
	twice = get_file(self->out);
	EXPECT_EQ(once.len, twice.len);
	check_injected(_metadata, &in, &twice, &rec2);
	check_reads(_metadata, self->out, &rec2);

	/* A longer one, then the first again: the size follows the recording's. */
	ASSERT_EQ(0, secmap_perf_inject(self->out, self->out, rec3.p, rec3.len));
	longer = get_file(self->out);
	EXPECT_EQ(once.len + 40, longer.len);
	check_injected(_metadata, &in, &longer, &rec3);
	free(longer.p);
	ASSERT_EQ(0, secmap_perf_inject(self->out, self->out, self->rec.p, self->rec.len));
	longer = get_file(self->out);
	EXPECT_TRUE(same(&once, &longer));
	EXPECT_EQ(2, count_entries(self->dir));
	free(in.p);
	free(once.p);
	free(twice.p);
	free(longer.p);
	free(rec2.p);
	free(rec3.p);
}

TEST_F(inject, out_is_in)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), out;
	const struct timespec times[2] = { { 1000000000, 5 }, { 1200000000, 7 } };
	struct stat st;

	ASSERT_EQ(0, put_file(self->in, &in));
	ASSERT_EQ(0, chmod(self->in, 0640));
	ASSERT_EQ(0, utimensat(AT_FDCWD, self->in, times, 0));
	ASSERT_EQ(0, secmap_perf_inject(self->in, self->in, self->rec.p, self->rec.len));
	out = get_file(self->in);
	check_injected(_metadata, &in, &out, &self->rec);
	/* Mode kept; mtime too, as perf shows it as the time of capture. */
	ASSERT_EQ(0, stat(self->in, &st));
	EXPECT_EQ(0640, st.st_mode & 07777);
	EXPECT_EQ(times[1].tv_sec, st.st_mtim.tv_sec);
	EXPECT_EQ(times[1].tv_nsec, st.st_mtim.tv_nsec);
	EXPECT_EQ(1, count_entries(self->dir));
	free(in.p);
	free(out.p);
}

/* perf inject reading a pipe (6.12 on) puts ids and attrs after the sections: kept there. */
TEST_F(inject, attrs_after_sections)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, true), out, again;

	ASSERT_EQ(0, put_file(self->in, &in));
	ASSERT_EQ(0, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	out = get_file(self->out);
	check_injected(_metadata, &in, &out, &self->rec);
	/* Again: the same file. */
	ASSERT_EQ(0, secmap_perf_inject(self->out, self->out, self->rec.p, self->rec.len));
	again = get_file(self->out);
	EXPECT_TRUE(same(&out, &again));
	free(in.p);
	free(out.p);
	free(again.p);
}

/*
 * From another file system (a memfd): copy_file_range() fails with EXDEV
 * (or copies, on kernels 5.3 to 5.18); either way the bytes are the same.
 */
TEST_F(inject, input_on_other_fs)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), out;
	char path[64];
	int fd = memfd_create("perf.data", MFD_CLOEXEC);

	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)in.len, write(fd, in.p, in.len));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(0, secmap_perf_inject(path, self->out, self->rec.p, self->rec.len));
	out = get_file(self->out);
	check_injected(_metadata, &in, &out, &self->rec);
	close(fd);
	free(in.p);
	free(out.p);
}

/* strip gives back perf's bytes; a file that holds no recording is refused. */
TEST_F(inject, strip)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, true), back;
	char back_path[PATH_MAX];

	snprintf(back_path, sizeof(back_path), "%s/back.data", self->dir);
	ASSERT_EQ(0, put_file(self->in, &in));
	EXPECT_EQ(-ENODATA, secmap_perf_strip(self->in, self->out));
	EXPECT_EQ(1, count_entries(self->dir));
	ASSERT_EQ(0, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	ASSERT_EQ(0, secmap_perf_strip(self->out, back_path));
	back = get_file(back_path);
	EXPECT_TRUE(same(&in, &back));
	free(back.p);
	/* In place. */
	ASSERT_EQ(0, secmap_perf_strip(self->out, self->out));
	back = get_file(self->out);
	EXPECT_TRUE(same(&in, &back));
	EXPECT_EQ(3, count_entries(self->dir));
	free(back.p);
	free(in.p);
}

/* A byte of perf's part changed after inject: the recording is no longer trusted. */
TEST_F(inject, stale_trailer)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), out, after;
	void *data = NULL;
	size_t len;

	ASSERT_EQ(0, put_file(self->in, &in));
	ASSERT_EQ(0, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	out = get_file(self->out);
	out.p[HDR_SIZE + 40] ^= 1;	/* in the attrs */
	ASSERT_EQ(0, put_file(self->out, &out));
	EXPECT_EQ(-ESTALE, secmap_perf_read_recording(self->out, &data, &len));
	EXPECT_EQ(ESTALE, errno);
	EXPECT_EQ(-ESTALE, secmap_perf_inject(self->out, self->in, self->rec.p, self->rec.len));
	EXPECT_EQ(-ESTALE, secmap_perf_strip(self->out, self->in));
	after = get_file(self->in);
	EXPECT_TRUE(same(&in, &after));
	/* A byte of the recording, of the trailer's own fields: stale too. */
	out.p[HDR_SIZE + 40] ^= 1;
	out.p[in.len + 9] ^= 1;
	ASSERT_EQ(0, put_file(self->out, &out));
	EXPECT_EQ(-ESTALE, secmap_perf_read_recording(self->out, &data, &len));
	out.p[in.len + 9] ^= 1;
	out.p[out.len - TRAILER_LEN] ^= 1;	/* perf_size */
	ASSERT_EQ(0, put_file(self->out, &out));
	EXPECT_EQ(-ESTALE, secmap_perf_read_recording(self->out, &data, &len));
	out.p[out.len - TRAILER_LEN] ^= 1;
	/* The trailer cut off (perf inject drops what follows perf's part): none. */
	out.len -= 1;
	ASSERT_EQ(0, put_file(self->out, &out));
	EXPECT_EQ(-ENODATA, secmap_perf_read_recording(self->out, &data, &len));
	/* A trailer pointing outside the file, or its size field wrong. */
	out.len += 1;
	set64(out.p + out.len - TRAILER_LEN + 16, 1ULL << 40);
	ASSERT_EQ(0, put_file(self->out, &out));
	EXPECT_EQ(-EBADMSG, secmap_perf_read_recording(self->out, &data, &len));
	set64(out.p + out.len - TRAILER_LEN + 16, self->rec.len);
	out.p[out.len - 12] = 13;
	ASSERT_EQ(0, put_file(self->out, &out));
	EXPECT_EQ(-EBADMSG, secmap_perf_read_recording(self->out, &data, &len));
	out.p[out.len - 12] = TRAILER_LEN;
	out.p[out.len - 16] = 2;	/* a major version this reader does not know */
	ASSERT_EQ(0, put_file(self->out, &out));
	EXPECT_EQ(-ENOTSUP, secmap_perf_read_recording(self->out, &data, &len));
	free(after.p);
	free(out.p);
	free(in.p);
}

/* Symlinks are followed, never replaced; devices, FIFOs and directories are refused. */
TEST_F(inject, output_kinds)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), out, after;
	char target[PATH_MAX], link[PATH_MAX], fifo[PATH_MAX], dangling[PATH_MAX];
	struct stat st;

	snprintf(target, sizeof(target), "%s/target.data", self->dir);
	snprintf(link, sizeof(link), "%s/link.data", self->dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	snprintf(dangling, sizeof(dangling), "%s/dangling", self->dir);
	ASSERT_EQ(0, put_file(target, &in));
	ASSERT_EQ(0, symlink("target.data", link));
	/* In place through a link: the file it leads to gets the recording. */
	ASSERT_EQ(0, secmap_perf_inject(link, link, self->rec.p, self->rec.len));
	ASSERT_EQ(0, lstat(link, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	out = get_file(target);
	check_injected(_metadata, &in, &out, &self->rec);
	free(out.p);
	/* -o naming a link: the same. */
	ASSERT_EQ(0, put_file(self->in, &in));
	ASSERT_EQ(0, secmap_perf_inject(self->in, link, self->rec.p, self->rec.len));
	ASSERT_EQ(0, lstat(link, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	out = get_file(target);
	check_injected(_metadata, &in, &out, &self->rec);
	free(out.p);
	/* A FIFO, a device, a directory: refused, left as they are. */
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	EXPECT_EQ(-EINVAL, secmap_perf_inject(self->in, fifo, self->rec.p, self->rec.len));
	ASSERT_EQ(0, lstat(fifo, &st));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	EXPECT_EQ(-EINVAL, secmap_perf_inject(self->in, "/dev/null", self->rec.p,
					      self->rec.len));
	ASSERT_EQ(0, stat("/dev/null", &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(-EISDIR, secmap_perf_inject(self->in, self->dir, self->rec.p, self->rec.len));
	/* A link that leads nowhere. */
	ASSERT_EQ(0, symlink("nowhere/x", dangling));
	EXPECT_EQ(-ENOLINK, secmap_perf_inject(self->in, dangling, self->rec.p, self->rec.len));
	ASSERT_EQ(0, lstat(dangling, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	EXPECT_EQ(5, count_entries(self->dir));
	after = get_file(self->in);
	EXPECT_TRUE(same(&in, &after));
	free(after.p);
	free(in.p);
}

static int write_str(int fd, const char *s)
{
	return write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
}

static bool holds(const char *path, const char *s)
{
	struct bytes b = get_file(path);
	bool same_bytes = b.p && b.len == strlen(s) && !memcmp(b.p, s, b.len);

	free(b.p);
	return same_bytes;
}

/* secmap_output, which record and archive write through. */
TEST_F(inject, output_file)
{
	char made[PATH_MAX], link[PATH_MAX], p[PATH_MAX], q[PATH_MAX];
	struct secmap_output *o;
	struct stat st;

	snprintf(made, sizeof(made), "%s/made.data", self->dir);
	snprintf(link, sizeof(link), "%s/link", self->dir);
	/* A link to a file still to be made, in a directory that exists: made. */
	ASSERT_EQ(0, symlink("made.data", link));
	ASSERT_EQ(0, secmap_output_open(link, &o));
	ASSERT_EQ(1, count_entries(self->dir)) TH_LOG("unnamed until committed");
	ASSERT_EQ(0, write_str(secmap_output_fd(o), "abc"));
	ASSERT_EQ(0, secmap_output_commit(o, 0));
	ASSERT_EQ(-1, secmap_output_fd(o));
	ASSERT_EQ(0, secmap_output_close(o));
	ASSERT_TRUE(holds(made, "abc"));
	ASSERT_EQ(0, lstat(link, &st));
	ASSERT_TRUE(S_ISLNK(st.st_mode));
	/* perf record's PATH.old, and writing on after the rename. */
	ASSERT_EQ(0, secmap_output_open(link, &o));
	ASSERT_EQ(0, write_str(secmap_output_fd(o), "def"));
	ASSERT_EQ(0, secmap_output_commit(o, SECMAP_OUTPUT_KEEP_OLD | SECMAP_OUTPUT_KEEP_OPEN));
	ASSERT_EQ(0, write_str(secmap_output_fd(o), "g"));
	ASSERT_EQ(-EINVAL, secmap_output_commit(o, 0));
	ASSERT_EQ(0, secmap_output_close(o));
	ASSERT_TRUE(holds(made, "defg"));
	snprintf(p, sizeof(p), "%s/made.data.old", self->dir);
	ASSERT_TRUE(holds(p, "abc"));
	/* Not committed: nothing left, nothing replaced. */
	ASSERT_EQ(0, secmap_output_open(made, &o));
	ASSERT_EQ(0, write_str(secmap_output_fd(o), "x"));
	ASSERT_EQ(0, secmap_output_close(o));
	ASSERT_TRUE(holds(made, "defg"));
	ASSERT_EQ(3, count_entries(self->dir));
	/* Never replaced: a FIFO, a device, a directory; nowhere to go. */
	snprintf(p, sizeof(p), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(p, 0600));
	ASSERT_EQ(-EINVAL, secmap_output_open(p, &o));
	ASSERT_EQ(NULL, o);
	ASSERT_EQ(-EINVAL, secmap_output_open("/dev/null", &o));
	ASSERT_EQ(0, stat("/dev/null", &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	snprintf(p, sizeof(p), "%s/null", self->dir);
	ASSERT_EQ(0, symlink("/dev/null", p));
	ASSERT_EQ(-EINVAL, secmap_output_open(p, &o));
	ASSERT_EQ(-EISDIR, secmap_output_open(self->dir, &o));
	snprintf(p, sizeof(p), "%s/dangling", self->dir);
	ASSERT_EQ(0, symlink("nowhere/x", p));
	ASSERT_EQ(-ENOLINK, secmap_output_open(p, &o));
	snprintf(p, sizeof(p), "%s/loop1", self->dir);
	snprintf(q, sizeof(q), "%s/loop2", self->dir);
	ASSERT_EQ(0, symlink("loop2", p));
	ASSERT_EQ(0, symlink("loop1", q));
	ASSERT_EQ(-ELOOP, secmap_output_open(p, &o));
	ASSERT_EQ(8, count_entries(self->dir));
}

/* Inject into @b, expecting @err, the input as it was and no file added. */
static void expect_refused(struct __test_metadata *_metadata, FIXTURE_DATA(inject) *self,
			   const struct bytes *b, int err, const char *what)
{
	struct bytes after;
	void *data = NULL;
	size_t len;

	ASSERT_EQ(0, put_file(self->in, b));
	EXPECT_EQ(err, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len)) {
		TH_LOG("%s (%zu bytes)", what, b->len);
	}
	EXPECT_EQ(-err, errno);
	after = get_file(self->in);
	EXPECT_TRUE(same(b, &after)) TH_LOG("%s: input changed", what);
	EXPECT_EQ(1, count_entries(self->dir)) TH_LOG("%s: file left behind", what);
	/* Reading sees the same problem. */
	EXPECT_EQ(err, secmap_perf_read_recording(self->in, &data, &len)) {
		TH_LOG("%s: read", what);
	}
	free(data);
	free(after.p);
}

TEST_F(inject, every_truncation)
{
	struct bytes full, cut = { 0 };
	char what[64];
	size_t n;
	int layout;

	for (layout = 0; layout < 2; layout++) {
		full = make_perf(std_feats, NR_STD_FEATS, layout);
		for (n = 0; n < full.len; n++) {
			free(cut.p);
			cut = (struct bytes){ 0 };
			append(&cut, full.p, n);
			snprintf(what, sizeof(what), "layout %d, cut at %zu", layout, n);
			expect_refused(_metadata, self, &cut, n < 8 ? -EINVAL : -EBADMSG, what);
		}
		free(full.p);
	}
	free(cut.p);
}

TEST_F(inject, refused_kinds)
{
	struct bytes b = make_perf(std_feats, NR_STD_FEATS, false), other = { 0 };

	memcpy(b.p, "2ELIFREP", 8);
	expect_refused(_metadata, self, &b, -ENOTSUP, "byte-swapped magic");
	memcpy(b.p, "PERFFILE", 8);
	expect_refused(_metadata, self, &b, -ENOTSUP, "first format");
	memcpy(b.p, "PERFILE2", 8);
	set64(b.p + 8, 72);
	expect_refused(_metadata, self, &b, -ENOTSUP, "header without feature bitmap");

	/* perf record -o -: a 16-byte header, then records. */
	append(&other, "PERFILE2", 8);
	append64(&other, 16);
	append(&other, b.p + HDR_SIZE, 300);
	expect_refused(_metadata, self, &other, -ENOTSUP, "pipe mode");
	other.len = 16;
	expect_refused(_metadata, self, &other, -ENOTSUP, "pipe mode, header only");
	memcpy(other.p, "not a perf.data", 15);
	expect_refused(_metadata, self, &other, -EINVAL, "text");
	free(b.p);
	free(other.p);
}

TEST_F(inject, refused_non_regular)
{
	ASSERT_EQ(0, mkfifo(self->in, 0600));
	/* Must not block opening the FIFO. */
	EXPECT_EQ(-EINVAL, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	ASSERT_EQ(0, unlink(self->in));
	ASSERT_EQ(0, mkdir(self->in, 0700));
	EXPECT_EQ(-EISDIR, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	EXPECT_EQ(1, count_entries(self->dir));
	ASSERT_EQ(0, rmdir(self->in));
	EXPECT_EQ(-ENOENT, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	EXPECT_EQ(0, count_entries(self->dir));
}

TEST_F(inject, bit_255_taken)
{
	struct feat f[NR_STD_FEATS + 1];
	struct bytes b, out, old, perf;

	memcpy(f, std_feats, sizeof(std_feats));
	f[NR_STD_FEATS] = (struct feat){ 255, "NOTSECMAP, someone else's", 25 };
	b = make_perf(f, NR_STD_FEATS + 1, false);
	expect_refused(_metadata, self, &b, -EEXIST, "foreign section at bit 255");
	free(b.p);
	f[NR_STD_FEATS] = (struct feat){ 255, "SECM", 4 };
	b = make_perf(f, NR_STD_FEATS + 1, false);
	expect_refused(_metadata, self, &b, -EEXIST, "short section at bit 255");
	free(b.p);

	/*
	 * One of ours, as earlier versions wrote it: read, stripped to the
	 * file without it, and on inject moved to the trailer, the bit cleared.
	 */
	f[NR_STD_FEATS] = (struct feat){ 255, SECMAP_FILE_MAGIC "an old recording", 24 };
	b = make_perf(f, NR_STD_FEATS + 1, false);
	old = (struct bytes){ 0 };
	append(&old, f[NR_STD_FEATS].data, 24);
	perf = make_perf(std_feats, NR_STD_FEATS, false);
	ASSERT_EQ(0, put_file(self->in, &b));
	check_reads(_metadata, self->in, &old);
	ASSERT_EQ(0, secmap_perf_strip(self->in, self->out));
	out = get_file(self->out);
	EXPECT_TRUE(same(&perf, &out));
	free(out.p);
	ASSERT_EQ(0, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	out = get_file(self->out);
	check_injected(_metadata, &perf, &out, &self->rec);
	check_reads(_metadata, self->out, &self->rec);
	free(b.p);
	free(out.p);
	free(old.p);
	free(perf.p);
}

/* Sets @off in a fresh copy of the standard file to @val and expects -EBADMSG. */
static void expect_corrupt(struct __test_metadata *_metadata, FIXTURE_DATA(inject) *self,
			   size_t off, uint64_t val, const char *what)
{
	struct bytes b = make_perf(std_feats, NR_STD_FEATS, false);

	set64(b.p + off, val);
	expect_refused(_metadata, self, &b, -EBADMSG, what);
	free(b.p);
}

TEST_F(inject, corrupt_layouts)
{
	struct bytes b = make_perf(std_feats, NR_STD_FEATS, false);
	uint64_t data_off = read_le64(b.p + HDR_DATA), table = data_off + DATA_LEN;
	uint64_t attrs = read_le64(b.p + HDR_ATTRS);

	expect_corrupt(_metadata, self, 8, 200, "header size");
	expect_corrupt(_metadata, self, 16, 0, "attr_size 0");
	expect_corrupt(_metadata, self, HDR_ATTRS, 64, "attrs inside the header");
	expect_corrupt(_metadata, self, HDR_ATTRS, data_off - 8, "attrs overlap the data");
	expect_corrupt(_metadata, self, HDR_ATTRS + 8, UINT64_MAX, "attrs size");
	expect_corrupt(_metadata, self, HDR_DATA, 8, "data inside the header");
	expect_corrupt(_metadata, self, HDR_DATA, UINT64_MAX - 10, "data offset wraps");
	expect_corrupt(_metadata, self, HDR_DATA + 8, b.len, "data past the end");
	expect_corrupt(_metadata, self, HDR_DATA + 8, UINT64_MAX, "data size wraps");
	expect_corrupt(_metadata, self, HDR_DATA + 8, 0, "data size 0 (killed perf record)");
	expect_corrupt(_metadata, self, 64, b.len, "event_types past the end");
	expect_corrupt(_metadata, self, table, data_off, "section inside the data");
	expect_corrupt(_metadata, self, table, 0, "section at 0");
	expect_corrupt(_metadata, self, table, table, "section over the table");
	expect_corrupt(_metadata, self, table, UINT64_MAX - 4, "section offset wraps");
	expect_corrupt(_metadata, self, table + 8, UINT64_MAX, "section size wraps");
	expect_corrupt(_metadata, self, table + 16 * 3 + 8, 100, "last section past the end");
	expect_corrupt(_metadata, self, attrs, 0x0000002000000001ULL, "attr shorter than ABI0");
	expect_corrupt(_metadata, self, attrs, 0x0000100000000001ULL, "attr longer than attrs");
	expect_corrupt(_metadata, self, attrs + ATTR_LEN, b.len - 8, "ids past the end");
	expect_corrupt(_metadata, self, attrs + ATTR_LEN, table - 8, "ids over the data's end");
	expect_corrupt(_metadata, self, attrs + ATTR_LEN, table + 8, "ids over the table");
	/* perf ignores event_types; one after the data is not moved but refused. */
	set64(b.p + 56, table + 16 * NR_STD_FEATS);
	set64(b.p + 64, 8);
	expect_refused(_metadata, self, &b, -EBADMSG, "event_types after the data");
	set64(b.p + 56, 0);
	set64(b.p + 64, 0);
	/* More bits than table: the table runs into what follows, or past the end. */
	b.p[HDR_FEATURES + 20] = 0xff;
	expect_refused(_metadata, self, &b, -EBADMSG, "bits without entries");
	free(b.p);
}

TEST_F(inject, bad_recording)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false);

	ASSERT_EQ(0, put_file(self->in, &in));
	EXPECT_EQ(-EINVAL, secmap_perf_inject(self->in, self->out, "NOTSECMAP", 9));
	EXPECT_EQ(-EINVAL, secmap_perf_inject(self->in, self->out, "SECM", 4));
	EXPECT_EQ(-EINVAL, secmap_perf_inject(self->in, self->out, NULL, 0));
	EXPECT_EQ(-EINVAL, secmap_perf_inject(self->in, "", self->rec.p, self->rec.len));
	EXPECT_EQ(1, count_entries(self->dir));
	free(in.p);
}

/* A failure after the temporary file was made: it goes too. */
TEST_F(inject, out_is_directory)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), after;

	ASSERT_EQ(0, put_file(self->in, &in));
	ASSERT_EQ(0, mkdir(self->out, 0700));
	EXPECT_EQ(-EISDIR, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	EXPECT_EQ(2, count_entries(self->dir));
	EXPECT_EQ(0, count_entries(self->out));
	after = get_file(self->in);
	EXPECT_TRUE(same(&in, &after));
	free(in.p);
	free(after.p);
}

/* Runs @fn in a child process; its exit status, or -1. */
static int in_child(int (*fn)(FIXTURE_DATA(inject) *self, const char *arg),
		    FIXTURE_DATA(inject) *self, const char *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(self, arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* As nobody when root (root writes anywhere): 0 if the inject failed with EACCES. */
static int inject_unprivileged(FIXTURE_DATA(inject) *self, const char *out)
{
	if (!geteuid() && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			   setresuid(65534, 65534, 65534)))
		return 2;
	return secmap_perf_inject(self->in, out, self->rec.p, self->rec.len) == -EACCES ? 0 : 1;
}

TEST_F(inject, out_dir_not_writable)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), after;
	char ro[300], out[PATH_MAX];

	snprintf(ro, sizeof(ro), "%s/ro", self->dir);
	snprintf(out, sizeof(out), "%s/out.data", ro);
	ASSERT_EQ(0, put_file(self->in, &in));
	ASSERT_EQ(0, chmod(self->dir, 0755));
	ASSERT_EQ(0, mkdir(ro, 0555));
	ASSERT_EQ(0, chmod(ro, 0555));	/* whatever the umask */
	EXPECT_EQ(0, in_child(inject_unprivileged, self, out));
	EXPECT_EQ(0, count_entries(ro));
	/* In place, in a directory that cannot be written: refused too. */
	ASSERT_EQ(0, chmod(self->dir, 0555));
	EXPECT_EQ(0, in_child(inject_unprivileged, self, self->in));
	ASSERT_EQ(0, chmod(self->dir, 0755));
	EXPECT_EQ(2, count_entries(self->dir));
	after = get_file(self->in);
	EXPECT_TRUE(same(&in, &after));
	free(in.p);
	free(after.p);
}

/* With files limited to a few hundred bytes: 0 if the inject failed with EFBIG. */
static int inject_limited(FIXTURE_DATA(inject) *self, const char *out)
{
	struct rlimit rl = { 300, 300 };

	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl))
		return 2;
	return secmap_perf_inject(self->in, out, self->rec.p, self->rec.len) == -EFBIG ? 0 : 1;
}

TEST_F(inject, write_error_cleans_up)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), after;

	ASSERT_GT(in.len, 300);
	ASSERT_EQ(0, put_file(self->in, &in));
	EXPECT_EQ(0, in_child(inject_limited, self, self->out));
	EXPECT_EQ(0, in_child(inject_limited, self, self->in));
	EXPECT_EQ(1, count_entries(self->dir));
	after = get_file(self->in);
	EXPECT_TRUE(same(&in, &after));
	free(in.p);
	free(after.p);
}

/*
 * Each byte of the header, attr size, ids and feature table changed: the
 * inject succeeds and reads back, or fails cleanly (under ASan: no bad
 * access), the input never touched.
 */
TEST_F(inject, changed_bytes)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), b = { 0 }, after;
	uint64_t attrs = read_le64(in.p + HDR_ATTRS), table = read_le64(in.p + HDR_DATA) + DATA_LEN;
	static const uint8_t deltas[] = { 0xff, 0x01, 0x80 };
	size_t pos, i, len;
	void *data;
	int err;

	for (pos = 0; pos < table + 16 * NR_STD_FEATS; pos++) {
		if (pos >= HDR_SIZE && pos < table && !(pos >= attrs + 4 && pos < attrs + 8) &&
		    !(pos >= attrs + ATTR_LEN && pos < attrs + ATTR_LEN + 16))
			continue;
		for (i = 0; i < sizeof(deltas); i++) {
			free(b.p);
			b = (struct bytes){ 0 };
			append(&b, in.p, in.len);
			b.p[pos] ^= deltas[i];
			ASSERT_EQ(0, put_file(self->in, &b));
			err = secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len);
			after = get_file(self->in);
			EXPECT_TRUE(same(&b, &after)) TH_LOG("byte %zu ^ %#x", pos, deltas[i]);
			free(after.p);
			if (err) {
				EXPECT_EQ(1, count_entries(self->dir));
				continue;
			}
			ASSERT_EQ(0, secmap_perf_read_recording(self->out, &data, &len));
			EXPECT_EQ(self->rec.len, len);
			EXPECT_EQ(0, memcmp(data, self->rec.p, len));
			free(data);
			ASSERT_EQ(0, unlink(self->out));
		}
	}
	free(b.p);
	free(in.p);
}

/* Peak resident memory of this process so far, in KiB. */
static long max_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

/* Feed @len zero bytes to @st. */
static void hash_zeros(XXH3_state_t *st, uint64_t len)
{
	static const uint8_t zeros[1 << 16];

	for (; len > sizeof(zeros); len -= sizeof(zeros))
		XXH3_128bits_update(st, zeros, sizeof(zeros));
	XXH3_128bits_update(st, zeros, (size_t)len);
}

/*
 * Write @path as secmap inject would, without writing its zeros (holes):
 * @perf, @gap zero bytes that are still perf's part, @rec at the start of
 * a recording of @rec_size bytes (zeros after it), and the trailer, whose
 * hash is computed over the zeros as they read. 0 or -1.
 */
static int put_embedded(const char *path, const struct bytes *perf, uint64_t gap,
			const struct bytes *rec, uint64_t rec_size)
{
	uint64_t perf_size = perf->len + gap, rec_at = align8(perf_size);
	uint64_t t_at = align8(rec_at + rec_size);
	XXH3_state_t *st = XXH3_createState();
	uint8_t t[TRAILER_LEN] = { 0 };
	XXH128_hash_t h;
	int fd, ret = -1;

	if (!st || rec->len > rec_size)
		goto out;
	set64(t, perf_size);
	set64(t + 8, rec_at);
	set64(t + 16, rec_size);
	XXH3_128bits_reset(st);
	XXH3_128bits_update(st, perf->p, perf->len);
	hash_zeros(st, rec_at - perf->len);
	XXH3_128bits_update(st, rec->p, rec->len);
	hash_zeros(st, t_at - rec_at - rec->len);
	XXH3_128bits_update(st, t, 40);
	h = XXH3_128bits_digest(st);
	set64(t + 40, h.low64);
	set64(t + 48, h.high64);
	t[56] = 1;			/* major 1, minor 0 */
	t[60] = TRAILER_LEN;
	memcpy(t + 64, SECMAP_PERF_TRAILER_MAGIC, 8);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	if (pwrite(fd, perf->p, perf->len, 0) == (ssize_t)perf->len &&
	    pwrite(fd, rec->p, rec->len, (off_t)rec_at) == (ssize_t)rec->len &&
	    pwrite(fd, t, sizeof(t), (off_t)t_at) == (ssize_t)sizeof(t))
		ret = 0;
	close(fd);
out:
	XXH3_freeState(st);
	return ret;
}

/*
 * A trailer that names a recording over SECMAP_RECORDING_MAX, its hash
 * right: refused before it is read, where a 2 GiB one took 2 GiB of
 * memory before the reader refused it. The file can still be injected
 * into: its recording is replaced, never read.
 */
TEST_F(inject, oversize_recording_refused)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false), out;
	struct secmap_reader *r = NULL;
	void *data = NULL;
	size_t len = 0;
	long rss;

	ASSERT_EQ(0, put_embedded(self->in, &in, 0, &self->rec, SECMAP_RECORDING_MAX + 8));
	rss = max_rss_kb();
	EXPECT_EQ(-EFBIG, secmap_perf_read_recording(self->in, &data, &len));
	EXPECT_EQ(NULL, data);
	EXPECT_EQ(-EFBIG, secmap_reader_open(self->in, &r));
	EXPECT_EQ(NULL, r);
	EXPECT_GT(rss + 64 * 1024, max_rss_kb()) TH_LOG("peak RSS %ld KiB, was %ld", max_rss_kb(), rss);
	/* Inject again: perf's file back, the new recording after it. */
	ASSERT_EQ(0, secmap_perf_inject(self->in, self->out, self->rec.p, self->rec.len));
	out = get_file(self->out);
	check_injected(_metadata, &in, &out, &self->rec);
	EXPECT_GT(rss + 64 * 1024, max_rss_kb());
	free(out.p);
	free(in.p);
}

/*
 * A perf.data over SECMAP_RECORDING_MAX with a small recording (perf.data
 * files run to gigabytes): read, the recording alone mapped, not refused
 * for the file's size.
 */
TEST_F(inject, perf_data_over_recording_max)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false);
	struct secmap_reader *r = NULL;
	SECMAP_OPTS(secmap_record, rec);
	void *data = NULL;
	size_t len = 0;
	long rss;

	/* The recording off a page boundary: mapped from the page it starts in. */
	ASSERT_EQ(0, put_embedded(self->in, &in, SECMAP_RECORDING_MAX + 4096 + 3, &self->rec,
				  self->rec.len));
	rss = max_rss_kb();
	ASSERT_EQ(0, secmap_perf_read_recording(self->in, &data, &len));
	ASSERT_EQ(self->rec.len, len);
	EXPECT_EQ(0, memcmp(data, self->rec.p, len));
	free(data);
	ASSERT_EQ(0, secmap_reader_open(self->in, &r));
	EXPECT_EQ(0, secmap_reader_next(r, &rec));	/* its one record is of a type skipped */
	EXPECT_EQ(1, secmap_reader_skipped(r));
	secmap_reader_free(r);
	EXPECT_GT(rss + 64 * 1024, max_rss_kb());
	free(in.p);
}

/* A buffer over SECMAP_RECORDING_MAX: refused untouched, nothing copied or written. */
TEST_F(inject, oversize_buffer_refused)
{
	struct bytes in = make_perf(std_feats, NR_STD_FEATS, false);
	size_t big = SECMAP_RECORDING_MAX + 8;
	struct secmap_reader *r = NULL;
	uint8_t *p;
	long rss;

	/* Pages never touched cost nothing; a copy of them would. */
	p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	memcpy(p, self->rec.p, self->rec.len);
	ASSERT_EQ(0, put_file(self->in, &in));
	rss = max_rss_kb();
	EXPECT_EQ(-EFBIG, secmap_data_validate(p, big));
	EXPECT_EQ(-EFBIG, secmap_reader_from_buffer(p, big, &r));
	EXPECT_EQ(NULL, r);
	EXPECT_EQ(-EFBIG, secmap_perf_inject(self->in, self->out, p, big));
	EXPECT_EQ(1, count_entries(self->dir));
	EXPECT_GT(rss + 64 * 1024, max_rss_kb());
	/* In place: a valid recording checks without a copy of it. */
	EXPECT_EQ(0, secmap_data_validate(self->rec.p, self->rec.len));
	EXPECT_EQ(-EINVAL, secmap_data_validate(NULL, 0));
	munmap(p, big);
	free(in.p);
}

TEST_HARNESS_MAIN
