// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Recordings: the validating reader of the format in
 * uapi/linux/secmap_record.h, of a secmap.data or of the recording inside
 * a perf.data. It trusts nothing in the file: every size, length, offset
 * and string is checked before a record is handed out.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "format.h"

/*
 * A recording larger than this is not one secmap wrote (about 10^7
 * sections): refused before a byte of it is read. The perf.data a
 * recording is embedded in may be of any size.
 */
#define READER_MAX_FILE SECMAP_RECORDING_MAX

struct secmap_reader {
	const uint8_t *buf;	/* the recording: in @map, or in @owned */
	size_t len;
	uint8_t *owned;
	/*
	 * A file is mapped, not read: what lies behind the records returned
	 * is handed back every MiB (it reads again from the file if touched),
	 * so a recording with a large kallsyms costs little resident memory.
	 */
	void *map;
	size_t map_len;
	size_t released;	/* bytes of @map handed back */
	size_t off;		/* the next record */
	size_t last_off;	/* the record last returned */
	int err;		/* a corrupt record stops the reader for good */
	uint16_t minor;
	uint64_t flags;
	uint64_t skipped;
	uint64_t kallsyms_next;	/* the offset the next KALLSYMS piece must have */
	uint32_t snapshot_left;	/* SEC_MAP records the last RESYNC still announces */
};

#define FIELD16(p, type, m) get16((p) + offsetof(struct type, m))
#define FIELD32(p, type, m) get32((p) + offsetof(struct type, m))
#define FIELD64(p, type, m) get64((p) + offsetof(struct type, m))

/* Walks the variable parts of one record, never past its end. */
struct var_cursor {
	const uint8_t *p;
	size_t left;
};

/* A string of @len bytes: no NUL inside, NUL right after, within the record. */
static int take_str(struct var_cursor *c, size_t len, const char **s)
{
	size_t space = str_space(len);

	if (!len || space > c->left || memchr(c->p, 0, len) || c->p[len])
		return -EBADMSG;
	*s = (const char *)c->p;
	c->p += space;
	c->left -= space;
	return 0;
}

static int take_bytes(struct var_cursor *c, size_t len, const uint8_t **b)
{
	size_t space = pad8(len);

	if (space > c->left)
		return -EBADMSG;
	*b = len ? c->p : NULL;
	c->p += space;
	c->left -= space;
	return 0;
}

static struct var_cursor var_after(const uint8_t *rec, size_t size, size_t fixed)
{
	struct var_cursor c = { rec + fixed, size - fixed };

	return c;
}

static int read_kernel(const uint8_t *p, size_t size, struct secmap_record *rec)
{
	struct var_cursor c;

	if (size < sizeof(struct secmap_rec_kernel))
		return -EBADMSG;
	c = var_after(p, size, sizeof(struct secmap_rec_kernel));
	rec->pid = (int32_t)FIELD32(p, secmap_rec_kernel, pid);
	rec->flags = FIELD32(p, secmap_rec_kernel, flags);
	rec->time_local_ns = FIELD64(p, secmap_rec_kernel, time_local_ns);
	rec->time_mono_ns = FIELD64(p, secmap_rec_kernel, time_mono_ns);
	rec->ref_addr = FIELD64(p, secmap_rec_kernel, ref_addr);
	rec->build_id_len = p[offsetof(struct secmap_rec_kernel, build_id_len)];
	if (take_str(&c, FIELD16(p, secmap_rec_kernel, release_len), &rec->release) ||
	    take_str(&c, FIELD16(p, secmap_rec_kernel, ref_name_len), &rec->ref_name) ||
	    take_bytes(&c, rec->build_id_len, &rec->build_id) || c.left)
		return -EBADMSG;
	/* It becomes a path in the .ko search: what uname -r can say, nothing else. */
	if (!libsecmap_valid_release(rec->release))
		return -EBADMSG;
	return 0;
}

static int read_kallsyms(struct secmap_reader *r, const uint8_t *p, size_t size,
			 struct secmap_record *rec)
{
	const uint8_t *text;
	struct var_cursor c;

	if (size < sizeof(struct secmap_rec_kallsyms))
		return -EBADMSG;
	c = var_after(p, size, sizeof(struct secmap_rec_kallsyms));
	rec->pid = (int32_t)FIELD32(p, secmap_rec_kallsyms, pid);
	rec->text_len = FIELD32(p, secmap_rec_kallsyms, len);
	rec->text_offset = FIELD64(p, secmap_rec_kallsyms, offset);
	/* The pieces must join up: none missing, none twice. */
	if (!rec->text_len || rec->text_offset != r->kallsyms_next ||
	    take_bytes(&c, rec->text_len, &text) || c.left)
		return -EBADMSG;
	rec->text = (const char *)text;
	r->kallsyms_next += rec->text_len;
	return 0;
}

static int read_resync(const uint8_t *p, size_t size, struct secmap_record *rec)
{
	if (size != sizeof(struct secmap_rec_resync))
		return -EBADMSG;
	rec->reason = FIELD32(p, secmap_rec_resync, reason);
	rec->source = FIELD32(p, secmap_rec_resync, source);
	rec->time_local_ns = FIELD64(p, secmap_rec_resync, time_local_ns);
	rec->time_mono_ns = FIELD64(p, secmap_rec_resync, time_mono_ns);
	rec->lost = FIELD64(p, secmap_rec_resync, lost);
	rec->gap_local_ns = FIELD64(p, secmap_rec_resync, gap_local_ns);
	rec->gap_mono_ns = FIELD64(p, secmap_rec_resync, gap_mono_ns);
	rec->nr_maps = FIELD32(p, secmap_rec_resync, nr_maps);
	rec->nr_modules = FIELD32(p, secmap_rec_resync, nr_modules);
	if (rec->reason < SECMAP_RESYNC_START || rec->reason > SECMAP_RESYNC_RELOAD ||
	    rec->source < SECMAP_SOURCE_NETLINK || rec->source > SECMAP_SOURCE_SYSFS)
		return -EBADMSG;
	return 0;
}

static int read_sec_map(const uint8_t *p, size_t size, struct secmap_record *rec)
{
	struct var_cursor c;

	if (size < sizeof(struct secmap_rec_sec_map))
		return -EBADMSG;
	c = var_after(p, size, sizeof(struct secmap_rec_sec_map));
	rec->pid = (int32_t)FIELD32(p, secmap_rec_sec_map, pid);
	rec->flags = FIELD32(p, secmap_rec_sec_map, flags);
	rec->time_local_ns = FIELD64(p, secmap_rec_sec_map, time_local_ns);
	rec->time_mono_ns = FIELD64(p, secmap_rec_sec_map, time_mono_ns);
	rec->start = FIELD64(p, secmap_rec_sec_map, start);
	rec->len = FIELD64(p, secmap_rec_sec_map, len);
	rec->pgoff = FIELD64(p, secmap_rec_sec_map, pgoff);
	rec->seq = FIELD64(p, secmap_rec_sec_map, seq);
	rec->build_id_len = p[offsetof(struct secmap_rec_sec_map, build_id_len)];
	if (take_str(&c, FIELD16(p, secmap_rec_sec_map, section_len), &rec->section) ||
	    take_str(&c, FIELD16(p, secmap_rec_sec_map, module_len), &rec->module) ||
	    take_bytes(&c, rec->build_id_len, &rec->build_id) || c.left)
		return -EBADMSG;
	/* A mapping that wraps around the address space is no mapping. */
	if (rec->len && rec->start + rec->len < rec->start)
		return -EBADMSG;
	return 0;
}

static int read_unmap(const uint8_t *p, size_t size, struct secmap_record *rec)
{
	struct var_cursor c;

	if (size < sizeof(struct secmap_rec_unmap))
		return -EBADMSG;
	c = var_after(p, size, sizeof(struct secmap_rec_unmap));
	rec->pid = (int32_t)FIELD32(p, secmap_rec_unmap, pid);
	rec->flags = FIELD32(p, secmap_rec_unmap, flags);
	rec->time_local_ns = FIELD64(p, secmap_rec_unmap, time_local_ns);
	rec->time_mono_ns = FIELD64(p, secmap_rec_unmap, time_mono_ns);
	rec->seq = FIELD64(p, secmap_rec_unmap, seq);
	rec->build_id_len = p[offsetof(struct secmap_rec_unmap, build_id_len)];
	if (take_str(&c, FIELD16(p, secmap_rec_unmap, module_len), &rec->module) ||
	    take_bytes(&c, rec->build_id_len, &rec->build_id) || c.left)
		return -EBADMSG;
	return 0;
}

static int read_finished(const uint8_t *p, size_t size, struct secmap_record *rec)
{
	if (size != sizeof(struct secmap_rec_finished))
		return -EBADMSG;
	rec->nr_resyncs = FIELD32(p, secmap_rec_finished, nr_resyncs);
	rec->time_local_ns = FIELD64(p, secmap_rec_finished, time_local_ns);
	rec->time_mono_ns = FIELD64(p, secmap_rec_finished, time_mono_ns);
	rec->lost = FIELD64(p, secmap_rec_finished, lost);
	return 0;
}

/* Decode the record at r->off; 1: returned, 0: skipped (unknown type), or -EBADMSG. */
static int read_one(struct secmap_reader *r, struct secmap_record *rec)
{
	const uint8_t *p = r->buf + r->off;
	size_t left = r->len - r->off, size;
	uint32_t type;
	int err;

	if (left < sizeof(struct secmap_rec_header))
		return -EBADMSG;
	type = FIELD32(p, secmap_rec_header, type);
	size = FIELD16(p, secmap_rec_header, size);
	if (size < sizeof(struct secmap_rec_header) || size % 8 || size > left)
		return -EBADMSG;
	memset(rec, 0, sizeof(*rec));
	rec->sz = sizeof(*rec);
	rec->type = type;
	switch (type) {
	case SECMAP_REC_KERNEL:
		err = read_kernel(p, size, rec);
		break;
	case SECMAP_REC_KALLSYMS:
		err = read_kallsyms(r, p, size, rec);
		break;
	case SECMAP_REC_RESYNC:
		err = read_resync(p, size, rec);
		break;
	case SECMAP_REC_SEC_MAP:
		err = read_sec_map(p, size, rec);
		break;
	case SECMAP_REC_UNMAP:
		err = read_unmap(p, size, rec);
		break;
	case SECMAP_REC_FINISHED:
		err = read_finished(p, size, rec);
		break;
	default:
		r->off += size;
		r->skipped++;
		return 0;
	}
	if (err)
		return err;
	/* A snapshot's maps come right after their RESYNC, as many as it says. */
	if (r->snapshot_left && (type != SECMAP_REC_SEC_MAP || !(rec->flags & SECMAP_MAP_F_SNAPSHOT)))
		return -EBADMSG;
	if (type == SECMAP_REC_SEC_MAP) {
		if (!!(rec->flags & SECMAP_MAP_F_SNAPSHOT) != !!r->snapshot_left)
			return -EBADMSG;
		if (r->snapshot_left)
			r->snapshot_left--;
	}
	if (type == SECMAP_REC_RESYNC)
		r->snapshot_left = rec->nr_maps;
	r->last_off = r->off;
	r->off += size;
	return 1;
}

#define RELEASE_STEP ((size_t)1 << 18)

/* Hand back the pages of the mapping before the next record, every RELEASE_STEP. */
static void release_behind(struct secmap_reader *r)
{
	size_t upto;

	if (!r->map)
		return;
	upto = ((size_t)(r->buf - (const uint8_t *)r->map) + r->off) & ~(size_t)4095;
	if (upto < r->released + RELEASE_STEP)
		return;
	madvise((uint8_t *)r->map + r->released, upto - r->released, MADV_DONTNEED);
	r->released = upto;
}

SECMAP_EXPORT int secmap_reader_next(struct secmap_reader *reader, struct secmap_record *rec)
{
	SECMAP_OPTS(secmap_record, r);
	int ret;

	if (!reader || !rec || rec->sz < SECMAP_RECORD_SZ_1_0)
		return libsecmap_err(-EINVAL);
	if (reader->err)
		return libsecmap_err(reader->err);
	release_behind(reader);
	while (reader->off < reader->len) {
		ret = read_one(reader, &r);
		if (ret < 0) {
			reader->err = ret;
			reader->last_off = reader->off;
			return libsecmap_err(ret);
		}
		if (ret)
			return libsecmap_struct_out(rec, SECMAP_RECORD_SZ_1_0, &r, sizeof(r)) ?: 1;
	}
	/* The file ended inside a snapshot: some of its maps are missing. */
	if (reader->snapshot_left) {
		reader->err = -EBADMSG;
		return libsecmap_err(-EBADMSG);
	}
	return 0;
}

/* A reader of the @len bytes at @buf, which must outlive it. */
static int reader_new(const uint8_t *buf, size_t len, struct secmap_reader **reader)
{
	struct secmap_reader *r;
	size_t hsize;

	if (len < sizeof(SECMAP_FILE_MAGIC) - 1 ||
	    memcmp(buf, SECMAP_FILE_MAGIC, sizeof(SECMAP_FILE_MAGIC) - 1))
		return -EINVAL;
	if (len < sizeof(struct secmap_file_header))
		return -EBADMSG;
	if (FIELD16(buf, secmap_file_header, major) != SECMAP_FILE_MAJOR)
		return -ENOTSUP;
	hsize = FIELD32(buf, secmap_file_header, header_size);
	/* A later minor may grow the header; records start 8-aligned after it. */
	if (hsize < sizeof(struct secmap_file_header) || hsize % 8 || hsize > len)
		return -EBADMSG;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->buf = buf;
	r->len = len;
	r->off = r->last_off = hsize;
	r->minor = FIELD16(buf, secmap_file_header, minor);
	r->flags = FIELD64(buf, secmap_file_header, flags);
	*reader = r;
	return 0;
}

SECMAP_EXPORT int secmap_reader_from_buffer(const void *buf, size_t len,
					    struct secmap_reader **reader)
{
	uint8_t *copy;
	int err;

	libsecmap_reason_clear();
	if (!reader || (!buf && len))
		return libsecmap_err(-EINVAL);
	*reader = NULL;
	if (len > READER_MAX_FILE)
		return libsecmap_err(-EFBIG);
	/* Never zero bytes: malloc(0) may return NULL. */
	copy = malloc(len ? len : 1);
	if (!copy)
		return libsecmap_err(-ENOMEM);
	if (len)
		memcpy(copy, buf, len);
	err = reader_new(copy, len, reader);
	if (err)
		free(copy);
	else
		(*reader)->owned = copy;
	return err ? libsecmap_err(err) : 0;
}

/*
 * The recording in the regular file @fd (@file_size bytes): where it lies,
 * the whole file for a secmap.data, the range its trailer names for a
 * perf.data. Only its size is bounded, not the perf.data's.
 */
static int recording_range(int fd, uint64_t file_size, uint64_t *off, uint64_t *size)
{
	uint8_t magic[8];
	int err;

	*off = 0;
	*size = file_size;
	if (file_size < sizeof(magic))
		return 0;	/* refused as too short */
	err = libsecmap_pread_all(fd, magic, sizeof(magic), 0);
	if (err)
		return err;
	if (libsecmap_perf_magic(magic, sizeof(magic))) {
		err = libsecmap_perf_recording_range(fd, off, size);
		if (err)
			return err;
		if (*off > file_size || *size > file_size - *off)
			return -EBADMSG;
	}
	return *size > READER_MAX_FILE ? -EFBIG : 0;
}

/*
 * The recording in @path (see recording_range()) mapped, opened without
 * blocking on a FIFO or device: *@buf in *@map, from a page boundary.
 */
static int map_recording(const char *path, void **map, size_t *map_len, const uint8_t **buf,
			 size_t *len)
{
	uint64_t off, size, map_off, page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct stat st;
	int fd, err;

	*map = NULL;
	*map_len = 0;
	*buf = (const uint8_t *)"";
	*len = 0;
	fd = libsecmap_open_regular_stat(path, &st);
	if (fd < 0)
		return fd;
	err = recording_range(fd, (uint64_t)st.st_size, &off, &size);
	if (err || !size)
		goto out;	/* nothing to map: refused as too short */
	map_off = off - off % page;	/* mmap() wants a multiple of the page size */
	*map_len = (size_t)(off - map_off + size);
	*map = mmap(NULL, *map_len, PROT_READ, MAP_PRIVATE, fd, (off_t)map_off);
	if (*map == MAP_FAILED) {
		*map = NULL;
		*map_len = 0;
		err = -errno;
		goto out;
	}
	madvise(*map, *map_len, MADV_SEQUENTIAL);
	*buf = (const uint8_t *)*map + (off - map_off);
	*len = (size_t)size;
out:
	close(fd);
	return err;
}

SECMAP_EXPORT int secmap_reader_open(const char *path, struct secmap_reader **reader)
{
	const uint8_t *buf;
	size_t map_len, len;
	void *map;
	int err;

	libsecmap_reason_clear();
	if (!path || !reader)
		return libsecmap_err(-EINVAL);
	*reader = NULL;
	err = map_recording(path, &map, &map_len, &buf, &len);
	if (!err)
		err = reader_new(buf, len, reader);
	if (err) {
		if (map)
			munmap(map, map_len);
		return libsecmap_err(err);
	}
	(*reader)->map = map;
	(*reader)->map_len = map_len;
	return 0;
}

SECMAP_EXPORT void secmap_reader_free(struct secmap_reader *reader)
{
	if (!reader)
		return;
	if (reader->map)
		munmap(reader->map, reader->map_len);
	free(reader->owned);
	free(reader);
}

SECMAP_EXPORT uint64_t secmap_reader_file_flags(const struct secmap_reader *reader)
{
	return reader ? reader->flags : 0;
}

SECMAP_EXPORT uint16_t secmap_reader_minor(const struct secmap_reader *reader)
{
	return reader ? reader->minor : 0;
}

SECMAP_EXPORT uint64_t secmap_reader_offset(const struct secmap_reader *reader)
{
	return reader ? reader->last_off : 0;
}

SECMAP_EXPORT uint64_t secmap_reader_skipped(const struct secmap_reader *reader)
{
	return reader ? reader->skipped : 0;
}

SECMAP_EXPORT int secmap_data_validate(const void *buf, size_t len)
{
	struct secmap_reader *r;
	SECMAP_OPTS(secmap_record, rec);
	int ret;

	libsecmap_reason_clear();
	if (!buf && len)
		return libsecmap_err(-EINVAL);
	if (len > READER_MAX_FILE)
		return libsecmap_err(-EFBIG);
	/* In place, not over a copy: the reader only reads, and @buf outlives it. */
	ret = reader_new(buf ? buf : (const void *)"", len, &r);
	if (ret)
		return libsecmap_err(ret);
	while ((ret = secmap_reader_next(r, &rec)) > 0)
		;
	secmap_reader_free(r);
	return ret;
}

