// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * perf.data files: read one feature section, and write a copy of a file with
 * a secmap recording as feature section SECMAP_PERF_FEATURE_BIT.
 *
 * The layout, as perf writes it (all little-endian here: files of the other
 * byte order are refused):
 *
 *   file header (104 bytes): magic "PERFILE2", size, attr_size, then
 *     {offset, size} of attrs, data and event_types, then adds_features,
 *     a 256-bit bitmap (4 u64)
 *   attrs: per event, a perf_event_attr (its own size field says how long)
 *     followed by {offset, size} of the event's array of u64 sample ids
 *   data: the records
 *   at data.offset + data.size, the feature table: {offset, size} for each
 *     set bit of adds_features, in bit order; then the sections themselves
 *
 * perf record puts ids and attrs before the data. perf inject (6.12 on),
 * reading from a pipe, writes them after the feature sections instead.
 *
 * Adding a section makes the table 16 bytes longer, so everything after the
 * data is rewritten: table, sections in bit order, then any ids or attrs
 * that lay there (their offsets updated). The data never moves, so no
 * offset into it changes; up to its end the file is copied as it is, except
 * the header's bitmap (and attrs offset when the attrs moved). Files are
 * streamed (copy_file_range, else read/write through a small buffer): a
 * perf.data can be gigabytes.
 *
 * Nothing in the input is trusted: every offset and size is checked against
 * the file size, without overflow, before anything is written; and what
 * could not be moved safely (a section inside the data, ranges that
 * straddle its end) is refused rather than rewritten.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define PERF_MAGIC		"PERFILE2"
#define PERF_MAGIC_SWAPPED	"2ELIFREP"	/* written on a host of the other byte order */
#define PERF_MAGIC_V1		"PERFFILE"	/* perf's first format */
#define PERF_MAGIC_V1_SWAPPED	"ELIFFREP"
#define PERF_PIPE_HEADER_SIZE	16	/* magic and size only: no attrs, no features */
#define PERF_OLD_HEADER_SIZE	72	/* before adds_features existed */
#define PERF_ATTR_SIZE_VER0	64	/* the smallest perf_event_attr */

/* Byte offsets in the file header. */
#define HDR_SIZE		8
#define HDR_ATTR_SIZE		16
#define HDR_ATTRS		24
#define HDR_DATA		40
#define HDR_EVENT_TYPES		56
#define HDR_FEATURES		72

/*
 * Attrs are read into memory to find the ids sections (and moved when they
 * lie after the data). perf writes some 150 bytes per event: far less than this.
 */
#define ATTRS_MAX		(64 << 20)

/* Chunks for copy_file_range(), and the buffer of the read/write fallback. */
#define COPY_CHUNK		(1 << 30)
#define COPY_BUF_SIZE		(1 << 20)

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static struct libsecmap_perf_range get_range(const uint8_t *p)
{
	return (struct libsecmap_perf_range){ .offset = get64(p), .size = get64(p + 8) };
}

static bool feat_test(const uint64_t *bits, unsigned int bit)
{
	return bits[bit / 64] >> (bit % 64) & 1;
}

/* @r lies within [@lo, @hi). */
static bool range_within(struct libsecmap_perf_range r, uint64_t lo, uint64_t hi)
{
	return r.offset >= lo && r.offset <= hi && r.size <= hi - r.offset;
}

/* @len bytes at @off, all of them: a file shorter than fstat() said is corrupt. */
int libsecmap_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EBADMSG;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

struct copier {
	int in, out;
	bool no_cfr;		/* copy_file_range() does not work between these two */
	uint8_t *buf;		/* for the fallback, allocated on first use */
};

static int copy_rw(struct copier *c, uint64_t in_off, uint64_t out_off, uint64_t len)
{
	size_t chunk;
	int err;

	if (!len)
		return 0;
	if (!c->buf) {
		c->buf = malloc(COPY_BUF_SIZE);
		if (!c->buf)
			return -ENOMEM;
	}
	while (len) {
		chunk = len < COPY_BUF_SIZE ? (size_t)len : COPY_BUF_SIZE;
		err = libsecmap_pread_all(c->in, c->buf, chunk, in_off);
		if (!err)
			err = pwrite_all(c->out, c->buf, chunk, out_off);
		if (err)
			return err;
		in_off += chunk;
		out_off += chunk;
		len -= chunk;
	}
	return 0;
}

/*
 * Copy @len bytes from @in_off to @out_off. copy_file_range() lets the file
 * system share or copy the blocks itself; it fails between some file systems
 * (EXDEV before 5.3 and again after 5.18, EOPNOTSUPP, ENOSYS, EINVAL), and
 * returns 0 early on some: the rest then goes through a buffer.
 */
static int copy_range(struct copier *c, uint64_t in_off, uint64_t out_off, uint64_t len)
{
	loff_t ioff = (loff_t)in_off, ooff = (loff_t)out_off;
	ssize_t n;

	while (len && !c->no_cfr) {
		n = copy_file_range(c->in, &ioff, c->out, &ooff,
				    len < COPY_CHUNK ? (size_t)len : COPY_CHUNK, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EXDEV && errno != EOPNOTSUPP && errno != ENOSYS &&
		    errno != EINVAL)
			return -errno;
		if (n <= 0) {
			c->no_cfr = true;
			break;
		}
		len -= (uint64_t)n;
	}
	return copy_rw(c, (uint64_t)ioff, (uint64_t)ooff, len);
}

void libsecmap_perf_file_release(struct libsecmap_perf_file *pf)
{
	free(pf->attr_buf);
	free(pf->ids_pos);
}

/* Header, attrs (with each event's ids) and feature table of the file at @fd. */
static int perf_file_parse(int fd, struct libsecmap_perf_file *pf)
{
	uint8_t table[LIBSECMAP_PERF_FEAT_BITS * 16];
	struct libsecmap_perf_range data, event_types, ids;
	uint64_t attr_size, sz;
	unsigned int bit, nr = 0;
	struct stat st;
	size_t i, pos, len;
	int err;

	memset(pf, 0, sizeof(*pf));
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;	/* FIFOs, devices: no seeking back and forth */
	pf->file_size = (uint64_t)st.st_size;

	len = pf->file_size < LIBSECMAP_PERF_HEADER_SIZE ? (size_t)pf->file_size : LIBSECMAP_PERF_HEADER_SIZE;
	err = libsecmap_pread_all(fd, pf->header, len, 0);
	if (err)
		return err;
	if (len < 8)
		return -EINVAL;
	if (!memcmp(pf->header, PERF_MAGIC_SWAPPED, 8) || !memcmp(pf->header, PERF_MAGIC_V1, 8) ||
	    !memcmp(pf->header, PERF_MAGIC_V1_SWAPPED, 8))
		return -ENOTSUP;
	if (memcmp(pf->header, PERF_MAGIC, 8))
		return -EINVAL;
	if (len < HDR_SIZE + 8)
		return -EBADMSG;
	sz = get64(pf->header + HDR_SIZE);
	/* A pipe-mode stream saved to a file, or a header from before features. */
	if (sz == PERF_PIPE_HEADER_SIZE || sz == PERF_OLD_HEADER_SIZE)
		return -ENOTSUP;
	if (sz != LIBSECMAP_PERF_HEADER_SIZE || len < LIBSECMAP_PERF_HEADER_SIZE)
		return -EBADMSG;

	attr_size = get64(pf->header + HDR_ATTR_SIZE);
	pf->attrs = get_range(pf->header + HDR_ATTRS);
	data = get_range(pf->header + HDR_DATA);
	event_types = get_range(pf->header + HDR_EVENT_TYPES);
	for (i = 0; i < LIBSECMAP_PERF_FEAT_BITS / 64; i++)
		pf->features[i] = get64(pf->header + HDR_FEATURES + 8 * i);

	/*
	 * perf rewrites data.size only when the recording ends: 0 is a perf
	 * record that was killed, whose records run to the end of the file
	 * with no feature table after them.
	 */
	if (!range_within(data, LIBSECMAP_PERF_HEADER_SIZE, pf->file_size) || !data.size)
		return -EBADMSG;
	pf->data = data;
	pf->data_end = data.offset + data.size;
	/* As perf checks: attrs after the header, not overlapping the data. */
	if (!attr_size || !range_within(pf->attrs, LIBSECMAP_PERF_HEADER_SIZE, pf->file_size) ||
	    (pf->attrs.size && pf->attrs.offset < pf->data_end &&
	     pf->attrs.offset + pf->attrs.size > data.offset))
		return -EBADMSG;

	for (bit = 0; bit < LIBSECMAP_PERF_FEAT_BITS; bit++)
		nr += feat_test(pf->features, bit);
	if (pf->file_size - pf->data_end < 16ULL * nr)
		return -EBADMSG;
	pf->table_end = pf->data_end + 16ULL * nr;
	err = libsecmap_pread_all(fd, table, 16ULL * nr, pf->data_end);
	if (err)
		return err;
	for (bit = 0, i = 0; bit < LIBSECMAP_PERF_FEAT_BITS; bit++) {
		if (!feat_test(pf->features, bit))
			continue;
		pf->feat[bit] = get_range(table + 16 * i++);
		/* Sections come after the data; one inside it could not be moved. */
		if (!range_within(pf->feat[bit], pf->data_end, pf->file_size) ||
		    (pf->feat[bit].size && pf->feat[bit].offset < pf->table_end))
			return -EBADMSG;
	}

	/*
	 * Whatever the header points at must lie wholly before the data's end
	 * (kept in place) or after the table (moved). perf no longer reads
	 * event_types: one after the data is not worth moving.
	 */
	if (event_types.size && !range_within(event_types, 0, pf->data_end))
		return -EBADMSG;
	if (pf->attrs.size && !range_within(pf->attrs, 0, pf->data_end) &&
	    pf->attrs.offset < pf->table_end)
		return -EBADMSG;
	if (!pf->attrs.size)
		return 0;
	if (pf->attrs.size > ATTRS_MAX)
		return -EFBIG;
	pf->attr_buf = malloc(pf->attrs.size);
	pf->nr_attrs = pf->attrs.size / attr_size;
	pf->ids_pos = calloc(pf->nr_attrs ? pf->nr_attrs : 1, sizeof(*pf->ids_pos));
	if (!pf->attr_buf || !pf->ids_pos)
		return -ENOMEM;
	err = libsecmap_pread_all(fd, pf->attr_buf, pf->attrs.size, pf->attrs.offset);
	if (err)
		return err;
	/*
	 * Walked as perf reads them: each attr is as long as its size field
	 * says (0: the first ABI's 64 bytes), then comes the ids section.
	 */
	for (i = 0, pos = 0; i < pf->nr_attrs; i++) {
		if (pf->attrs.size - pos < PERF_ATTR_SIZE_VER0)
			return -EBADMSG;
		sz = get32(pf->attr_buf + pos + 4);	/* perf_event_attr.size */
		if (!sz)
			sz = PERF_ATTR_SIZE_VER0;
		if (sz < PERF_ATTR_SIZE_VER0 || sz > pf->attrs.size - pos - 16)
			return -EBADMSG;
		pos += sz;
		pf->ids_pos[i] = pos;
		ids = get_range(pf->attr_buf + pos);
		if (ids.size && !range_within(ids, 0, pf->data_end) &&
		    !range_within(ids, pf->table_end, pf->file_size))
			return -EBADMSG;
		pos += 16;
	}
	return 0;
}

int libsecmap_perf_file_open(const char *path, struct libsecmap_perf_file *pf)
{
	int fd, err;

	/* O_NONBLOCK: a FIFO must not hang the open; it is refused after fstat(). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	err = perf_file_parse(fd, pf);
	if (err) {
		libsecmap_perf_file_release(pf);
		close(fd);
		return err;
	}
	return fd;
}

SECMAP_EXPORT int secmap_perf_read_feature(const char *path, unsigned int bit, void **data,
					   size_t *len)
{
	struct libsecmap_perf_file pf;
	struct libsecmap_perf_range r;
	void *buf;
	int fd, err;

	if (!path || !data || !len || bit >= LIBSECMAP_PERF_FEAT_BITS)
		return libsecmap_err(-EINVAL);
	*data = NULL;
	*len = 0;
	fd = libsecmap_perf_file_open(path, &pf);
	if (fd < 0)
		return libsecmap_err(fd);
	r = pf.feat[bit];
	if (!feat_test(pf.features, bit)) {
		err = -ENODATA;
	} else if (r.size > SIZE_MAX - 1) {
		err = -EFBIG;
	} else if (!(buf = malloc(r.size ? (size_t)r.size : 1))) {
		err = -ENOMEM;
	} else {
		err = libsecmap_pread_all(fd, buf, (size_t)r.size, r.offset);
		if (err) {
			free(buf);
		} else {
			*data = buf;
			*len = (size_t)r.size;
		}
	}
	libsecmap_perf_file_release(&pf);
	close(fd);
	return err ? libsecmap_err(err) : 0;
}

/* An existing section at our bit may be replaced only if it is a recording too. */
static int check_our_bit(int fd, const struct libsecmap_perf_file *pf)
{
	struct libsecmap_perf_range r = pf->feat[SECMAP_PERF_FEATURE_BIT];
	char magic[8];
	int err;

	if (!feat_test(pf->features, SECMAP_PERF_FEATURE_BIT))
		return 0;
	if (r.size < sizeof(magic))
		return -EEXIST;
	err = libsecmap_pread_all(fd, magic, sizeof(magic), r.offset);
	if (err)
		return err;
	return memcmp(magic, SECMAP_FILE_MAGIC, sizeof(magic)) ? -EEXIST : 0;
}

/*
 * Everything after the data, rewritten at @cur: feature sections in bit
 * order (ours at its bit), ids and attrs that lay there, then the table
 * before them and the header. The first @pf->data_end bytes are copied.
 */
static int write_tail(struct copier *c, struct libsecmap_perf_file *pf, const void *data, size_t len)
{
	uint8_t table[LIBSECMAP_PERF_FEAT_BITS * 16], header[LIBSECMAP_PERF_HEADER_SIZE];
	uint64_t features[LIBSECMAP_PERF_FEAT_BITS / 64], cur, size;
	struct libsecmap_perf_range ids;
	bool ids_moved = false;
	unsigned int bit, nr = 0;
	size_t i;
	int err;

	memcpy(features, pf->features, sizeof(features));
	features[SECMAP_PERF_FEATURE_BIT / 64] |= 1ULL << (SECMAP_PERF_FEATURE_BIT % 64);
	for (bit = 0; bit < LIBSECMAP_PERF_FEAT_BITS; bit++)
		nr += feat_test(features, bit);

	err = copy_range(c, 0, 0, pf->data_end);
	if (err)
		return err;
	cur = pf->data_end + 16ULL * nr;
	for (bit = 0, i = 0; bit < LIBSECMAP_PERF_FEAT_BITS; bit++) {
		if (!feat_test(features, bit))
			continue;
		if (bit == SECMAP_PERF_FEATURE_BIT) {
			size = len;
			err = pwrite_all(c->out, data, len, cur);
		} else {
			size = pf->feat[bit].size;
			err = copy_range(c, pf->feat[bit].offset, cur, size);
		}
		if (err)
			return err;
		put64(table + 16 * i, cur);
		put64(table + 16 * i + 8, size);
		i++;
		if (__builtin_add_overflow(cur, size, &cur))
			return -EFBIG;
	}

	for (i = 0; i < pf->nr_attrs; i++) {
		ids = get_range(pf->attr_buf + pf->ids_pos[i]);
		if (!ids.size || range_within(ids, 0, pf->data_end))
			continue;
		err = copy_range(c, ids.offset, cur, ids.size);
		if (err)
			return err;
		put64(pf->attr_buf + pf->ids_pos[i], cur);
		ids_moved = true;
		if (__builtin_add_overflow(cur, ids.size, &cur))
			return -EFBIG;
	}

	memcpy(header, pf->header, sizeof(header));
	for (i = 0; i < LIBSECMAP_PERF_FEAT_BITS / 64; i++)
		put64(header + HDR_FEATURES + 8 * i, features[i]);
	if (pf->attrs.size && !range_within(pf->attrs, 0, pf->data_end)) {
		put64(header + HDR_ATTRS, cur);
		err = pwrite_all(c->out, pf->attr_buf, pf->attrs.size, cur);
	} else if (ids_moved) {
		err = pwrite_all(c->out, pf->attr_buf, pf->attrs.size, pf->attrs.offset);
	}
	if (!err)
		err = pwrite_all(c->out, table, 16ULL * nr, pf->data_end);
	if (!err)
		err = pwrite_all(c->out, header, sizeof(header), 0);
	return err;
}

/*
 * A new file beside @out_path, to be renamed over it: mode and, where
 * allowed, owner of the input (@st), so that replacing a user's perf.data as
 * root leaves it theirs. The name starts with a dot: a leftover after a
 * crash does not look like a perf.data.
 */
static int temp_create(const char *out_path, const struct stat *st, char **tmp_path)
{
	const char *slash = strrchr(out_path, '/');
	const char *base = slash ? slash + 1 : out_path;
	/* The directory: "." without a slash, "" (root) for "/x". */
	const char *dir = slash ? out_path : ".";
	int dir_len = slash ? (int)(slash - out_path) : 1;
	char *tmpl;
	int fd, err;

	if (!*base)
		return -EISDIR;
	if (asprintf(&tmpl, "%.*s/.%.200s.secmap-XXXXXX", dir_len, dir, base) < 0)
		return -ENOMEM;
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmpl);
		return err;
	}
	/* Best effort: where not permitted the file stays ours, as any new one would. */
	if (st->st_uid != geteuid() || st->st_gid != getegid())
		err = fchown(fd, st->st_uid, st->st_gid);
	if (fchmod(fd, st->st_mode & 0777) < 0) {
		err = -errno;
		close(fd);
		unlink(tmpl);
		free(tmpl);
		return err;
	}
	*tmp_path = tmpl;
	return fd;
}

/* The rename is durable only once the directory holding it is synced. */
static void sync_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!slash)
		dir = strdup(".");
	else
		dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

SECMAP_EXPORT int secmap_perf_inject(const char *in_path, const char *out_path, const void *data,
				     size_t len)
{
	struct copier c = { .in = -1, .out = -1 };
	char *tmp_path = NULL;
	struct libsecmap_perf_file pf;
	struct stat st;
	int err;

	if (!in_path || !out_path || !*out_path || !data || len < sizeof(SECMAP_FILE_MAGIC) - 1 ||
	    memcmp(data, SECMAP_FILE_MAGIC, sizeof(SECMAP_FILE_MAGIC) - 1))
		return libsecmap_err(-EINVAL);

	c.in = libsecmap_perf_file_open(in_path, &pf);
	if (c.in < 0)
		return libsecmap_err(c.in);
	err = check_our_bit(c.in, &pf);
	if (!err && fstat(c.in, &st) < 0)
		err = -errno;
	if (!err) {
		c.out = temp_create(out_path, &st, &tmp_path);
		if (c.out < 0)
			err = c.out;
	}
	if (!err)
		err = write_tail(&c, &pf, data, len);
	/* perf shows the file's mtime as when it was "captured on": keep it. */
	if (!err && futimens(c.out, (const struct timespec[2]){ st.st_atim, st.st_mtim }) < 0)
		err = -errno;
	if (!err && fsync(c.out) < 0)
		err = -errno;
	if (c.out >= 0 && close(c.out) < 0 && !err)
		err = -errno;
	/* The input stays open until here: with out == in, it is its old inode we read. */
	if (!err && rename(tmp_path, out_path) < 0)
		err = -errno;
	if (err && tmp_path)
		unlink(tmp_path);
	if (!err)
		sync_dir_of(out_path);
	free(tmp_path);
	free(c.buf);
	libsecmap_perf_file_release(&pf);
	close(c.in);
	return err ? libsecmap_err(err) : 0;
}
