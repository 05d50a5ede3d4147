// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Recordings: the streaming writer of the format in
 * uapi/linux/secmap_record.h, little-endian whatever the host.
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

#define KALLSYMS_PIECE_MAX (SECMAP_REC_SIZE_MAX - sizeof(struct secmap_rec_kallsyms))


/* Flushed when this much is pending, or when the caller asks. */
#define WRITER_BUF_SIZE (256 * 1024)

struct secmap_writer {
	int fd;
	int err;		/* the first write error; sticks */
	uint8_t *buf;
	size_t len;		/* pending bytes in @buf */
	uint64_t flushed;	/* bytes written to @fd */
	uint64_t kallsyms_off;	/* where the next KALLSYMS piece starts */
};

/* Room for @n more bytes in the buffer, flushing first if need be. */
static uint8_t *writer_reserve(struct secmap_writer *w, size_t n)
{
	uint8_t *p;

	if (w->len + n > WRITER_BUF_SIZE && secmap_writer_flush(w))
		return NULL;
	p = w->buf + w->len;
	memset(p, 0, n);
	w->len += n;
	return p;
}

/* A string's bytes at @p, which writer_reserve() zeroed: the padding is there. */
static uint8_t *put_str(uint8_t *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	return p + str_space(len);
}

static uint8_t *put_bytes(uint8_t *p, const uint8_t *b, size_t len)
{
	if (len)
		memcpy(p, b, len);
	return p + pad8(len);
}

static void put_rec_header(void *p, uint32_t type, size_t size)
{
	struct secmap_rec_header h = {
		.type = htole32(type),
		.misc = 0,
		.size = htole16((uint16_t)size),
	};

	memcpy(p, &h, sizeof(h));
}

/* Length of a string the format can carry: no NUL inside (by strlen), under 64 KiB. */
static int str_len(const char *s, size_t *len)
{
	if (!s)
		return -EINVAL;
	*len = strlen(s);
	return *len > 0 && *len < 0xffff ? 0 : -EINVAL;
}

SECMAP_EXPORT int secmap_writer_new(int fd, uint64_t file_flags, struct secmap_writer **writer)
{
	struct secmap_file_header h = { 0 };
	struct secmap_writer *w;

	if (!writer || fd < 0)
		return libsecmap_err(-EINVAL);
	*writer = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return libsecmap_err(-ENOMEM);
	w->buf = malloc(WRITER_BUF_SIZE);
	if (!w->buf) {
		free(w);
		return libsecmap_err(-ENOMEM);
	}
	w->fd = fd;
	memcpy(h.magic, SECMAP_FILE_MAGIC, sizeof(h.magic));
	h.major = htole16(SECMAP_FILE_MAJOR);
	h.minor = htole16(SECMAP_FILE_MINOR);
	h.header_size = htole32(sizeof(h));
	h.flags = htole64(file_flags);
	memcpy(w->buf, &h, sizeof(h));
	w->len = sizeof(h);
	*writer = w;
	return 0;
}

static int write_kernel(struct secmap_writer *w, const struct secmap_record *rec)
{
	struct secmap_rec_kernel k = { 0 };
	size_t rel_len, ref_len, size;
	uint8_t *p;

	if (str_len(rec->release, &rel_len) || str_len(rec->ref_name, &ref_len) ||
	    rec->build_id_len > 255 || (rec->build_id_len && !rec->build_id) ||
	    !libsecmap_valid_release(rec->release))
		return -EINVAL;
	size = sizeof(k) + str_space(rel_len) + str_space(ref_len) + pad8(rec->build_id_len);
	if (size > SECMAP_REC_SIZE_MAX)
		return -EINVAL;
	p = writer_reserve(w, size);
	if (!p)
		return w->err;
	put_rec_header(&k.header, SECMAP_REC_KERNEL, size);
	k.pid = (int32_t)htole32((uint32_t)rec->pid);
	k.flags = htole32(rec->flags);
	k.time_local_ns = htole64(rec->time_local_ns);
	k.time_mono_ns = htole64(rec->time_mono_ns);
	k.ref_addr = htole64(rec->ref_addr);
	k.release_len = htole16((uint16_t)rel_len);
	k.ref_name_len = htole16((uint16_t)ref_len);
	k.build_id_len = (uint8_t)rec->build_id_len;
	memcpy(p, &k, sizeof(k));
	p = put_str(p + sizeof(k), rec->release, rel_len);
	p = put_str(p, rec->ref_name, ref_len);
	put_bytes(p, rec->build_id, rec->build_id_len);
	return 0;
}

/* Pieces written with one writev(): three iovecs each, well under IOV_MAX. */
#define KALLSYMS_BATCH 64

/* All of @iov, a partial write resumed where it stopped. */
static int writev_all(struct secmap_writer *w, struct iovec *iov, int cnt)
{
	ssize_t n;

	while (cnt > 0) {
		n = writev(w->fd, iov, cnt);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return w->err = n < 0 ? -errno : -EIO;
		w->flushed += (uint64_t)n;
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/*
 * Split into pieces that each fit a record; @text_offset is the writer's
 * to keep. Written straight from @rec's text, after what is buffered: a
 * kernel's is some MiB, and copying it through the buffer was half of
 * what recording it cost.
 */
static int write_kallsyms(struct secmap_writer *w, const struct secmap_record *rec)
{
	static const uint8_t zeros[8];
	struct secmap_rec_kallsyms k[KALLSYMS_BATCH];
	struct iovec iov[3 * KALLSYMS_BATCH];
	size_t done = 0, n, size;
	int cnt, nr;

	if (!rec->text || !rec->text_len)
		return -EINVAL;
	if (secmap_writer_flush(w))
		return w->err;
	while (done < rec->text_len) {
		memset(k, 0, sizeof(k));
		for (cnt = nr = 0; done < rec->text_len && nr < KALLSYMS_BATCH; nr++) {
			n = rec->text_len - done;
			if (n > KALLSYMS_PIECE_MAX)
				n = KALLSYMS_PIECE_MAX;
			size = sizeof(k[nr]) + pad8(n);
			put_rec_header(&k[nr].header, SECMAP_REC_KALLSYMS, size);
			k[nr].pid = (int32_t)htole32((uint32_t)rec->pid);
			k[nr].len = htole32((uint32_t)n);
			k[nr].offset = htole64(w->kallsyms_off);
			iov[cnt++] = (struct iovec){ .iov_base = &k[nr], .iov_len = sizeof(k[nr]) };
			iov[cnt++] = (struct iovec){ .iov_base = (void *)(rec->text + done),
						     .iov_len = n };
			if (pad8(n) != n)
				iov[cnt++] = (struct iovec){ .iov_base = (void *)zeros,
							     .iov_len = pad8(n) - n };
			w->kallsyms_off += n;
			done += n;
		}
		if (writev_all(w, iov, cnt))
			return w->err;
	}
	return 0;
}

static int write_resync(struct secmap_writer *w, const struct secmap_record *rec)
{
	struct secmap_rec_resync r = { 0 };
	uint8_t *p;

	if (rec->reason < SECMAP_RESYNC_START || rec->reason > SECMAP_RESYNC_RELOAD ||
	    rec->source < SECMAP_SOURCE_NETLINK || rec->source > SECMAP_SOURCE_SYSFS)
		return -EINVAL;
	p = writer_reserve(w, sizeof(r));
	if (!p)
		return w->err;
	put_rec_header(&r.header, SECMAP_REC_RESYNC, sizeof(r));
	r.reason = htole32(rec->reason);
	r.source = htole32(rec->source);
	r.time_local_ns = htole64(rec->time_local_ns);
	r.time_mono_ns = htole64(rec->time_mono_ns);
	r.lost = htole64(rec->lost);
	r.gap_local_ns = htole64(rec->gap_local_ns);
	r.gap_mono_ns = htole64(rec->gap_mono_ns);
	r.nr_maps = htole32(rec->nr_maps);
	r.nr_modules = htole32(rec->nr_modules);
	memcpy(p, &r, sizeof(r));
	return 0;
}

static int write_sec_map(struct secmap_writer *w, const struct secmap_record *rec)
{
	struct secmap_rec_sec_map m = { 0 };
	size_t sec_len, mod_len, size;
	uint8_t *p;

	if (str_len(rec->section, &sec_len) || str_len(rec->module, &mod_len) ||
	    rec->build_id_len > 255 || (rec->build_id_len && !rec->build_id))
		return -EINVAL;
	size = sizeof(m) + str_space(sec_len) + str_space(mod_len) + pad8(rec->build_id_len);
	if (size > SECMAP_REC_SIZE_MAX)
		return -EINVAL;
	p = writer_reserve(w, size);
	if (!p)
		return w->err;
	put_rec_header(&m.header, SECMAP_REC_SEC_MAP, size);
	m.pid = (int32_t)htole32((uint32_t)rec->pid);
	m.flags = htole32(rec->flags);
	m.time_local_ns = htole64(rec->time_local_ns);
	m.time_mono_ns = htole64(rec->time_mono_ns);
	m.start = htole64(rec->start);
	m.len = htole64(rec->len);
	m.pgoff = htole64(rec->pgoff);
	m.seq = htole64(rec->seq);
	m.section_len = htole16((uint16_t)sec_len);
	m.module_len = htole16((uint16_t)mod_len);
	m.build_id_len = (uint8_t)rec->build_id_len;
	memcpy(p, &m, sizeof(m));
	p = put_str(p + sizeof(m), rec->section, sec_len);
	p = put_str(p, rec->module, mod_len);
	put_bytes(p, rec->build_id, rec->build_id_len);
	return 0;
}

static int write_unmap(struct secmap_writer *w, const struct secmap_record *rec)
{
	struct secmap_rec_unmap u = { 0 };
	size_t mod_len, size;
	uint8_t *p;

	if (str_len(rec->module, &mod_len) || rec->build_id_len > 255 ||
	    (rec->build_id_len && !rec->build_id))
		return -EINVAL;
	size = sizeof(u) + str_space(mod_len) + pad8(rec->build_id_len);
	if (size > SECMAP_REC_SIZE_MAX)
		return -EINVAL;
	p = writer_reserve(w, size);
	if (!p)
		return w->err;
	put_rec_header(&u.header, SECMAP_REC_UNMAP, size);
	u.pid = (int32_t)htole32((uint32_t)rec->pid);
	u.flags = htole32(rec->flags);
	u.time_local_ns = htole64(rec->time_local_ns);
	u.time_mono_ns = htole64(rec->time_mono_ns);
	u.seq = htole64(rec->seq);
	u.module_len = htole16((uint16_t)mod_len);
	u.build_id_len = (uint8_t)rec->build_id_len;
	memcpy(p, &u, sizeof(u));
	p = put_str(p + sizeof(u), rec->module, mod_len);
	put_bytes(p, rec->build_id, rec->build_id_len);
	return 0;
}

static int write_finished(struct secmap_writer *w, const struct secmap_record *rec)
{
	struct secmap_rec_finished f = { 0 };
	uint8_t *p;

	p = writer_reserve(w, sizeof(f));
	if (!p)
		return w->err;
	put_rec_header(&f.header, SECMAP_REC_FINISHED, sizeof(f));
	f.nr_resyncs = htole32(rec->nr_resyncs);
	f.time_local_ns = htole64(rec->time_local_ns);
	f.time_mono_ns = htole64(rec->time_mono_ns);
	f.lost = htole64(rec->lost);
	memcpy(p, &f, sizeof(f));
	return 0;
}

SECMAP_EXPORT int secmap_writer_add(struct secmap_writer *writer, const struct secmap_record *user)
{
	struct secmap_record r, *rec = &r;
	int err;

	if (!writer || !user)
		return libsecmap_err(-EINVAL);
	err = libsecmap_struct_in(user, SECMAP_RECORD_SZ_1_0, &r, sizeof(r));
	if (err)
		return libsecmap_err(err);
	if (writer->err)
		return libsecmap_err(writer->err);
	switch (rec->type) {
	case SECMAP_REC_KERNEL:
		err = write_kernel(writer, rec);
		break;
	case SECMAP_REC_KALLSYMS:
		err = write_kallsyms(writer, rec);
		break;
	case SECMAP_REC_RESYNC:
		err = write_resync(writer, rec);
		break;
	case SECMAP_REC_SEC_MAP:
		err = write_sec_map(writer, rec);
		break;
	case SECMAP_REC_UNMAP:
		err = write_unmap(writer, rec);
		break;
	case SECMAP_REC_FINISHED:
		err = write_finished(writer, rec);
		break;
	default:
		err = -EINVAL;
	}
	return err ? libsecmap_err(err) : 0;
}

SECMAP_EXPORT int secmap_writer_flush(struct secmap_writer *writer)
{
	size_t done = 0;
	ssize_t n;

	if (!writer)
		return libsecmap_err(-EINVAL);
	while (!writer->err && done < writer->len) {
		n = write(writer->fd, writer->buf + done, writer->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			writer->err = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	/* What was written is written, even if the rest failed. */
	writer->flushed += done;
	memmove(writer->buf, writer->buf + done, writer->len - done);
	writer->len -= done;
	return writer->err ? libsecmap_err(writer->err) : 0;
}

SECMAP_EXPORT int secmap_writer_free(struct secmap_writer *writer)
{
	int err;

	if (!writer)
		return 0;
	err = secmap_writer_flush(writer);
	free(writer->buf);
	free(writer);
	return err;
}

SECMAP_EXPORT uint64_t secmap_writer_bytes(const struct secmap_writer *writer)
{
	return writer ? writer->flushed + writer->len : 0;
}
