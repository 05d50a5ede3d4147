// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * perf.data files: parse and check the header, attrs and feature table;
 * read a feature section; copy ranges between files; write everything
 * after a data section (feature table and sections, ids and attrs that lay
 * there); and create an output file that replaces its target only whole.
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
 * When the data section changes size or a feature section changes,
 * everything after the data is rewritten: table, sections in bit order,
 * then any ids or attrs that lay there (their offsets updated). The data
 * never moves, so no offset into it changes. Files are streamed
 * (copy_file_range, else read/write through a small buffer): a perf.data
 * can be gigabytes.
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

bool libsecmap_perf_magic(const uint8_t *buf, size_t len)
{
	return len >= 8 && (!memcmp(buf, PERF_MAGIC, 8) || !memcmp(buf, PERF_MAGIC_SWAPPED, 8));
}
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

static struct libsecmap_perf_range get_range(const uint8_t *p)
{
	return (struct libsecmap_perf_range){ .offset = get64(p), .size = get64(p + 8) };
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

int libsecmap_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
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

static int copy_rw(struct libsecmap_copier *c, uint64_t in_off, uint64_t out_off, uint64_t len)
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
			err = libsecmap_pwrite_all(c->out, c->buf, chunk, out_off);
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
int libsecmap_copy_range(struct libsecmap_copier *c, uint64_t in_off, uint64_t out_off,
			 uint64_t len)
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
	pf->attr_buf = NULL;
	pf->ids_pos = NULL;
}

static int attrs_corrupt(void)
{
	return libsecmap_reason(-EBADMSG, "corrupt attrs section (events' attributes or ids "
				"out of place)");
}

/* The file header: magic, format, its own size. */
static int read_file_header(int fd, struct libsecmap_perf_file *pf)
{
	struct stat st;
	uint64_t sz;
	size_t len;
	int err;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return libsecmap_reason(-EISDIR, "is a directory (perf record --threads writes "
					"one: not supported, record without --threads)");
	/* FIFOs, devices: no seeking back and forth. */
	if (!S_ISREG(st.st_mode))
		return libsecmap_reason(-EINVAL, "not a regular file");
	pf->file_size = (uint64_t)st.st_size;

	len = pf->file_size < LIBSECMAP_PERF_HEADER_SIZE ? (size_t)pf->file_size : LIBSECMAP_PERF_HEADER_SIZE;
	err = libsecmap_pread_all(fd, pf->header, len, 0);
	if (err)
		return err;
	if (!memcmp(pf->header, PERF_MAGIC_SWAPPED, 8) && len >= 8)
		return libsecmap_reason(-ENOTSUP, "perf.data from a machine of the other byte "
					"order is not supported");
	if ((!memcmp(pf->header, PERF_MAGIC_V1, 8) || !memcmp(pf->header, PERF_MAGIC_V1_SWAPPED, 8)) &&
	    len >= 8)
		return libsecmap_reason(-ENOTSUP, "perf.data of the first format (magic PERFFILE) "
					"is not supported");
	if (len < 8 || memcmp(pf->header, PERF_MAGIC, 8))
		return libsecmap_reason(-EINVAL, "not a perf.data file (no PERFILE2 magic)");
	if (len < HDR_SIZE + 8)
		return libsecmap_reason(-EBADMSG, "truncated (file header: %zu of %d bytes)", len,
					LIBSECMAP_PERF_HEADER_SIZE);
	sz = get64(pf->header + HDR_SIZE);
	/* A pipe-mode stream saved to a file, or a header from before features. */
	if (sz == PERF_PIPE_HEADER_SIZE)
		return libsecmap_reason(-ENOTSUP, "pipe-mode perf.data is not supported (it "
					"cannot carry feature sections); record with -o FILE");
	if (sz == PERF_OLD_HEADER_SIZE)
		return libsecmap_reason(-ENOTSUP, "perf.data of an early format without feature "
					"sections is not supported");
	if (sz != LIBSECMAP_PERF_HEADER_SIZE)
		return libsecmap_reason(-EBADMSG, "corrupt file header (header size field)");
	if (len < LIBSECMAP_PERF_HEADER_SIZE)
		return libsecmap_reason(-EBADMSG, "truncated (file header: %zu of %d bytes)", len,
					LIBSECMAP_PERF_HEADER_SIZE);
	return 0;
}

/* The feature table after the data, each section in place. */
static int read_feature_table(int fd, struct libsecmap_perf_file *pf)
{
	uint8_t table[LIBSECMAP_PERF_FEAT_BITS * 16];
	unsigned int bit, nr = 0;
	size_t i;
	int err;

	for (bit = 0; bit < LIBSECMAP_PERF_FEAT_BITS; bit++)
		nr += libsecmap_feat_test(pf->features, bit);
	if (pf->file_size - pf->data_end < 16ULL * nr)
		return libsecmap_reason(-EBADMSG, "truncated (feature table ends past end of file)");
	pf->table_end = pf->data_end + 16ULL * nr;
	err = libsecmap_pread_all(fd, table, 16ULL * nr, pf->data_end);
	if (err)
		return err;
	for (bit = 0, i = 0; bit < LIBSECMAP_PERF_FEAT_BITS; bit++) {
		if (!libsecmap_feat_test(pf->features, bit))
			continue;
		pf->feat[bit] = get_range(table + 16 * i++);
		/* Sections come after the data; one inside it could not be moved. */
		if (pf->feat[bit].offset < pf->data_end)
			return libsecmap_reason(-EBADMSG, "feature section %u starts before the "
						"end of the data", bit);
		if (!range_within(pf->feat[bit], pf->data_end, pf->file_size))
			return libsecmap_reason(-EBADMSG, "truncated (feature section %u ends past "
						"end of file)", bit);
		if (pf->feat[bit].size && pf->feat[bit].offset < pf->table_end)
			return libsecmap_reason(-EBADMSG, "corrupt feature table (section %u "
						"overlaps it)", bit);
	}
	return 0;
}

/* The attrs section, each attr's own size, and where its ids are. */
static int read_attrs(int fd, struct libsecmap_perf_file *pf, uint64_t attr_size)
{
	struct libsecmap_perf_range ids;
	uint64_t sz;
	size_t i, pos;
	int err;

	if (pf->attrs.size > ATTRS_MAX)
		return libsecmap_reason(-EFBIG, "attrs section of %llu bytes: more than secmap "
					"reads", (unsigned long long)pf->attrs.size);
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
			return attrs_corrupt();
		sz = get32(pf->attr_buf + pos + 4);	/* perf_event_attr.size */
		if (!sz)
			sz = PERF_ATTR_SIZE_VER0;
		if (sz < PERF_ATTR_SIZE_VER0 || sz > pf->attrs.size - pos - 16)
			return attrs_corrupt();
		pos += sz;
		pf->ids_pos[i] = pos;
		ids = get_range(pf->attr_buf + pos);
		if (ids.size && !range_within(ids, 0, pf->data_end) &&
		    !range_within(ids, pf->table_end, pf->file_size))
			return attrs_corrupt();
		pos += 16;
	}
	return 0;
}

int libsecmap_perf_file_parse(int fd, struct libsecmap_perf_file *pf)
{
	struct libsecmap_perf_range data, event_types;
	uint64_t attr_size;
	size_t i;
	int err;

	memset(pf, 0, sizeof(*pf));
	libsecmap_reason_clear();
	err = read_file_header(fd, pf);
	if (err)
		return err;
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
	if (data.offset < LIBSECMAP_PERF_HEADER_SIZE || data.offset > pf->file_size)
		return libsecmap_reason(-EBADMSG, "corrupt file header (data offset)");
	if (data.size > pf->file_size - data.offset)
		return libsecmap_reason(-EBADMSG, "truncated (data section ends past end of file)");
	if (!data.size)
		return libsecmap_reason(-EBADMSG, "data size is 0: perf record did not finish "
					"(was it killed?)");
	pf->data = data;
	pf->data_end = data.offset + data.size;
	/* As perf checks: attrs after the header, not overlapping the data. */
	if (!attr_size || !range_within(pf->attrs, LIBSECMAP_PERF_HEADER_SIZE, pf->file_size) ||
	    (pf->attrs.size && pf->attrs.offset < pf->data_end &&
	     pf->attrs.offset + pf->attrs.size > data.offset))
		return attrs_corrupt();
	err = read_feature_table(fd, pf);
	if (err)
		return err;
	/*
	 * Whatever the header points at must lie wholly before the data's end
	 * (kept in place) or after the table (moved). perf no longer reads
	 * event_types: one after the data is not worth moving.
	 */
	if (event_types.size && !range_within(event_types, 0, pf->data_end))
		return libsecmap_reason(-EBADMSG, "corrupt file header (event types section out "
					"of place)");
	if (pf->attrs.size && !range_within(pf->attrs, 0, pf->data_end) &&
	    pf->attrs.offset < pf->table_end)
		return attrs_corrupt();
	return pf->attrs.size ? read_attrs(fd, pf, attr_size) : 0;
}

int libsecmap_perf_file_open(const char *path, struct libsecmap_perf_file *pf)
{
	int fd, err;

	/* O_NONBLOCK: a FIFO must not hang the open; it is refused after fstat(). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	err = libsecmap_perf_file_parse(fd, pf);
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

	libsecmap_reason_clear();
	if (!path || !data || !len || bit >= LIBSECMAP_PERF_FEAT_BITS)
		return libsecmap_err(-EINVAL);
	*data = NULL;
	*len = 0;
	fd = libsecmap_perf_file_open(path, &pf);
	if (fd < 0)
		return libsecmap_err(fd);
	r = pf.feat[bit];
	if (!libsecmap_feat_test(pf.features, bit)) {
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


static const struct libsecmap_feat_override *find_override(const struct libsecmap_feat_override *ov,
							    size_t nr, unsigned int bit)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (ov[i].bit == bit)
			return &ov[i];
	return NULL;
}

int libsecmap_perf_write_tail(struct libsecmap_copier *c, struct libsecmap_perf_file *pf,
			      uint64_t data_end, const struct libsecmap_feat_override *ov,
			      size_t nr_ov, uint8_t *header, uint64_t *end)
{
	uint8_t table[LIBSECMAP_PERF_FEAT_BITS * 16];
	uint64_t features[LIBSECMAP_PERF_FEAT_BITS / 64], cur, size;
	const struct libsecmap_feat_override *o;
	struct libsecmap_perf_range ids;
	bool ids_moved = false;
	unsigned int bit, nr = 0;
	size_t i;
	int err = 0;

	memcpy(features, pf->features, sizeof(features));
	for (i = 0; i < nr_ov; i++) {
		if (ov[i].bit >= LIBSECMAP_PERF_FEAT_BITS)
			return -EINVAL;
		if (ov[i].remove)
			features[ov[i].bit / 64] &= ~(1ULL << (ov[i].bit % 64));
		else
			features[ov[i].bit / 64] |= 1ULL << (ov[i].bit % 64);
	}
	for (bit = 0; bit < LIBSECMAP_PERF_FEAT_BITS; bit++)
		nr += libsecmap_feat_test(features, bit);

	cur = data_end + 16ULL * nr;
	for (bit = 0, i = 0; bit < LIBSECMAP_PERF_FEAT_BITS; bit++) {
		if (!libsecmap_feat_test(features, bit))
			continue;
		o = find_override(ov, nr_ov, bit);
		if (o) {
			size = o->len;
			err = libsecmap_pwrite_all(c->out, o->data, o->len, cur);
		} else {
			size = pf->feat[bit].size;
			err = libsecmap_copy_range(c, pf->feat[bit].offset, cur, size);
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
		err = libsecmap_copy_range(c, ids.offset, cur, ids.size);
		if (err)
			return err;
		put64(pf->attr_buf + pf->ids_pos[i], cur);
		ids_moved = true;
		if (__builtin_add_overflow(cur, ids.size, &cur))
			return -EFBIG;
	}

	for (i = 0; i < LIBSECMAP_PERF_FEAT_BITS / 64; i++)
		put64(header + HDR_FEATURES + 8 * i, features[i]);
	put64(header + HDR_DATA + 8, data_end - pf->data.offset);
	if (pf->attrs.size && !range_within(pf->attrs, 0, pf->data_end)) {
		put64(header + HDR_ATTRS, cur);
		err = libsecmap_pwrite_all(c->out, pf->attr_buf, pf->attrs.size, cur);
		if (!err && __builtin_add_overflow(cur, pf->attrs.size, &cur))
			err = -EFBIG;
	} else if (ids_moved) {
		err = libsecmap_pwrite_all(c->out, pf->attr_buf, pf->attrs.size, pf->attrs.offset);
	}
	if (!err)
		err = libsecmap_pwrite_all(c->out, table, 16ULL * nr, data_end);
	*end = cur;
	return err;
}
