// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A secmap recording inside a perf.data file (secmap inject), and the way
 * back to the file perf wrote (secmap inject --strip).
 *
 * The recording goes after the last byte perf wrote, with a trailer at the
 * very end that says where it is (struct secmap_perf_trailer): every perf
 * subcommand reads up to the last feature section and ignores the rest,
 * and no feature bit is set that `perf inject` would trip on. The trailer
 * carries a hash of every byte before it, so a file that a tool rewrote
 * while keeping its end, or that was damaged, is told apart from one whose
 * recording still belongs to it.
 *
 * With perf-native module maps (perf_rewrite.c) the data section and the
 * build-id table change too; an undo log after the recording (struct
 * secmap_perf_undo) keeps what it takes to give perf's file back byte for
 * byte: the bytes before the data (header, attrs, ids), those after it
 * (feature table and sections), and each edit of the data with perf's
 * records it took out; and a hash of perf's file, to check what it gives.
 *
 * Injecting into a file that holds a recording already first gives back
 * the file perf wrote (into an unnamed temporary file), then injects into
 * that: injecting twice gives the same file as injecting once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "internal.h"
#include "perf_maps.h"
#include "perf_rewrite.h"

#define TRAILER_SIZE	sizeof(struct secmap_perf_trailer)
/* The fingerprint is of everything before it: up to its offset in the trailer. */
#define TRAILER_HASHED	offsetof(struct secmap_perf_trailer, fingerprint)
#define UNDO_SIZE	sizeof(struct secmap_perf_undo)
#define EDIT_SIZE	sizeof(struct secmap_perf_undo_edit)
#define HASH_BUF	(1 << 20)
/* How far into the data a dropped recording's module maps are looked for. */
#define SCAN_MAX	(16ULL << 20)

enum embed_kind { EMBED_NONE, EMBED_TRAILER, EMBED_FEATURE };

/* What a perf.data holds of secmap. */
struct embedded {
	enum embed_kind kind;
	uint64_t trailer_at;		/* where the trailer starts */
	uint64_t perf_size;		/* perf's part of the file */
	uint64_t rec_offset, rec_size;
	uint64_t undo_offset, undo_size;
};

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~7ULL;
}

int libsecmap_hash_range(int fd, uint64_t off, uint64_t len, uint64_t hash[2])
{
	XXH3_state_t *st = XXH3_createState();
	uint8_t *buf = malloc(HASH_BUF);
	XXH128_hash_t h;
	size_t chunk;
	int err = 0;

	if (!st || !buf) {
		err = -ENOMEM;
		goto out;
	}
	XXH3_128bits_reset(st);
	while (len && !err) {
		chunk = len < HASH_BUF ? (size_t)len : HASH_BUF;
		err = libsecmap_pread_all(fd, buf, chunk, off);
		XXH3_128bits_update(st, buf, chunk);
		off += chunk;
		len -= chunk;
	}
	h = XXH3_128bits_digest(st);
	hash[0] = h.low64;
	hash[1] = h.high64;
out:
	XXH3_freeState(st);
	free(buf);
	return err;
}

/* [@off, @off + @len) lies within [@lo, @hi). */
static bool within(uint64_t off, uint64_t len, uint64_t lo, uint64_t hi)
{
	return off >= lo && off <= hi && len <= hi - off;
}

/*
 * The trailer at the end of @fd's file (@size bytes), checked against the
 * file but not yet against the hash: -ENODATA if there is none.
 */
static int read_trailer(int fd, uint64_t size, struct embedded *e, uint64_t hash[2])
{
	uint8_t tail[16], t[TRAILER_SIZE];
	uint64_t end;
	uint32_t tsize;
	int err;

	if (size < TRAILER_SIZE)
		return -ENODATA;
	err = libsecmap_pread_all(fd, tail, sizeof(tail), size - sizeof(tail));
	if (err)
		return err;
	if (memcmp(tail + 8, SECMAP_PERF_TRAILER_MAGIC, 8))
		return -ENODATA;
	if (get16(tail) != SECMAP_PERF_TRAILER_MAJOR)
		return -ENOTSUP;
	tsize = get32(tail + 4);
	if (tsize < TRAILER_SIZE || tsize > size || tsize % 8)
		return -EBADMSG;
	/* A later minor version may grow the trailer: its first fields stay. */
	err = libsecmap_pread_all(fd, t, TRAILER_SIZE, size - tsize);
	if (err)
		return err;
	end = size - tsize;
	e->trailer_at = end;
	e->perf_size = get64(t);
	e->rec_offset = get64(t + 8);
	e->rec_size = get64(t + 16);
	e->undo_offset = get64(t + 24);
	e->undo_size = get64(t + 32);
	hash[0] = get64(t + 40);
	hash[1] = get64(t + 48);
	if (e->perf_size > end || !within(e->rec_offset, e->rec_size, e->perf_size, end) ||
	    e->rec_size < 8 || (e->undo_size && !within(e->undo_offset, e->undo_size, e->perf_size, end)))
		return -EBADMSG;
	e->kind = EMBED_TRAILER;
	return 0;
}

/*
 * Whether the data section holds module maps secmap wrote (their
 * recording dropped since), over its first SCAN_MAX bytes, where the maps
 * of loaded modules are.
 */
static bool has_our_maps(int fd, const struct libsecmap_perf_file *pf)
{
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	bool found = false;

	/* A file whose records cannot be read has none: not a reason to give. */
	if (libsecmap_perf_data_open_fd(fd, &pd)) {
		libsecmap_reason_clear();
		return false;
	}
	secmap_perf_data_skip_samples(pd, true);
	while (!found && secmap_perf_data_next(pd, &rec) == 1 &&
	       secmap_perf_data_offset(pd) - pf->data.offset < SCAN_MAX)
		found = libsecmap_perf_is_our_record(&rec, libsecmap_perf_data_raw(pd));
	secmap_perf_data_close(pd);
	return found;
}

/*
 * What @fd's perf.data (parsed into @pf) holds of secmap, checked: -ESTALE
 * for a trailer whose perf.data changed, -EEXIST for a feature section 255
 * that is no recording. EMBED_NONE if nothing.
 */
static int find_embedded(int fd, const struct libsecmap_perf_file *pf, struct embedded *e)
{
	uint64_t want[2], got[2];
	char magic[8];
	int err;

	memset(e, 0, sizeof(*e));
	err = read_trailer(fd, pf->file_size, e, want);
	if (!err) {
		err = libsecmap_hash_range(fd, 0, e->trailer_at + TRAILER_HASHED, got);
		if (!err && (got[0] != want[0] || got[1] != want[1]))
			err = -ESTALE;
		return err;
	}
	if (err != -ENODATA)
		return err;
	e->perf_size = pf->file_size;
	if (!libsecmap_feat_test(pf->features, SECMAP_PERF_FEATURE_BIT))
		return 0;
	e->rec_offset = pf->feat[SECMAP_PERF_FEATURE_BIT].offset;
	e->rec_size = pf->feat[SECMAP_PERF_FEATURE_BIT].size;
	if (e->rec_size < sizeof(magic))
		return -EEXIST;
	err = libsecmap_pread_all(fd, magic, sizeof(magic), e->rec_offset);
	if (err)
		return err;
	if (memcmp(magic, SECMAP_FILE_MAGIC, sizeof(magic)))
		return -EEXIST;
	e->kind = EMBED_FEATURE;
	return 0;
}

int libsecmap_perf_recording_range(int fd, uint64_t *off, uint64_t *size)
{
	struct libsecmap_perf_file pf;
	struct embedded e;
	int err;

	err = libsecmap_perf_file_parse(fd, &pf);
	if (!err)
		err = find_embedded(fd, &pf, &e);
	if (!err && e.kind == EMBED_NONE)
		err = has_our_maps(fd, &pf) ? -ENOLINK : -ENODATA;
	if (!err) {
		*off = e.rec_offset;
		*size = e.rec_size;
	}
	libsecmap_perf_file_release(&pf);
	return err;
}

SECMAP_EXPORT int secmap_perf_read_recording(const char *path, void **data, size_t *len)
{
	uint64_t off, size;
	void *buf;
	int fd, err;

	libsecmap_reason_clear();
	if (!path || !data || !len)
		return libsecmap_err(-EINVAL);
	*data = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return libsecmap_err(-errno);
	err = libsecmap_perf_recording_range(fd, &off, &size);
	/* Bounded before it is read: the trailer may say anything up to the file's size. */
	if (!err && size > SECMAP_RECORDING_MAX)
		err = -EFBIG;
	if (!err) {
		buf = malloc(size ? (size_t)size : 1);
		err = buf ? libsecmap_pread_all(fd, buf, (size_t)size, off) : -ENOMEM;
		if (!err) {
			*data = buf;
			*len = (size_t)size;
		} else {
			free(buf);
		}
	}
	close(fd);
	return err ? libsecmap_err(err) : 0;
}

/* --- giving back the file perf wrote ------------------------------------------ */

struct undo {
	uint64_t nr_edits, data_offset, data_size, tail_size, hash[2];
	uint64_t prefix_at, tail_at, edits_at;	/* in the input file */
};

static int read_undo(int fd, const struct embedded *e, struct undo *u)
{
	uint8_t h[UNDO_SIZE];
	uint64_t end = e->undo_offset + e->undo_size, hs;
	int err;

	if (e->undo_size < UNDO_SIZE)
		return -EBADMSG;
	err = libsecmap_pread_all(fd, h, sizeof(h), e->undo_offset);
	if (err)
		return err;
	hs = get32(h + 8);
	if (memcmp(h, SECMAP_PERF_UNDO_MAGIC, 8) || hs < UNDO_SIZE || hs % 8 || hs > e->undo_size)
		return -EBADMSG;
	u->nr_edits = get64(h + 16);
	u->data_offset = get64(h + 24);
	u->data_size = get64(h + 32);
	u->tail_size = get64(h + 40);
	u->hash[0] = get64(h + 48);
	u->hash[1] = get64(h + 56);
	u->prefix_at = e->undo_offset + hs;
	if (!within(u->prefix_at, u->data_offset, u->prefix_at, end) ||
	    u->data_offset < LIBSECMAP_PERF_HEADER_SIZE)
		return -EBADMSG;
	u->tail_at = u->prefix_at + align8(u->data_offset);
	if (u->tail_at > end || !within(u->tail_at, u->tail_size, u->tail_at, end))
		return -EBADMSG;
	u->edits_at = u->tail_at + align8(u->tail_size);
	if (u->edits_at > end || u->nr_edits > (end - u->edits_at) / EDIT_SIZE)
		return -EBADMSG;
	return 0;
}

/* perf's data section, from the one written and the undo log's edits. */
static int undo_data(struct libsecmap_copier *c, const struct libsecmap_perf_file *pf,
		     const struct embedded *e, const struct undo *u)
{
	uint64_t end = e->undo_offset + e->undo_size, at = u->edits_at, cur = 0, out = u->data_offset;
	uint64_t size = pf->data.size;
	uint8_t ed[EDIT_SIZE];
	uint64_t i, off, ins, rem;
	int err;

	for (i = 0; i < u->nr_edits; i++) {
		if (end - at < EDIT_SIZE)
			return -EBADMSG;
		err = libsecmap_pread_all(c->in, ed, sizeof(ed), at);
		if (err)
			return err;
		off = get64(ed);
		ins = get64(ed + 8);
		rem = get64(ed + 16);
		at += EDIT_SIZE;
		if (off < cur || off > size || ins > size - off || rem > end - at ||
		    off - cur + rem > u->data_size - (out - u->data_offset))
			return -EBADMSG;
		err = libsecmap_copy_range(c, pf->data.offset + cur, out, off - cur);
		if (!err)
			err = libsecmap_copy_range(c, at, out + off - cur, rem);
		if (err)
			return err;
		out += off - cur + rem;
		cur = off + ins;
		at += align8(rem);
		if (at > end)
			return -EBADMSG;
	}
	if (size - cur != u->data_size - (out - u->data_offset))
		return -EBADMSG;
	return libsecmap_copy_range(c, pf->data.offset + cur, out, size - cur);
}

/* Write the file perf wrote, from @c->in (parsed into @pf, holding @e), to @c->out. */
static int restore(struct libsecmap_copier *c, struct libsecmap_perf_file *pf,
		   const struct embedded *e)
{
	struct libsecmap_feat_override drop = { .bit = SECMAP_PERF_FEATURE_BIT, .remove = true };
	uint8_t header[LIBSECMAP_PERF_HEADER_SIZE];
	uint64_t end, hash[2];
	struct undo u;
	int err;

	if (e->kind == EMBED_FEATURE) {
		/* Earlier versions' feature section: the file without it. */
		memcpy(header, pf->header, sizeof(header));
		err = libsecmap_copy_range(c, 0, 0, pf->data_end);
		if (!err)
			err = libsecmap_perf_write_tail(c, pf, pf->data_end, &drop, 1, header, &end);
		return err ?: libsecmap_pwrite_all(c->out, header, sizeof(header), 0);
	}
	if (!e->undo_size)
		return libsecmap_copy_range(c, 0, 0, e->perf_size);
	err = read_undo(c->in, e, &u);
	if (err)
		return err;
	/* The data never moved; the undo log must agree. */
	if (u.data_offset != pf->data.offset)
		return -EBADMSG;
	err = libsecmap_copy_range(c, u.prefix_at, 0, u.data_offset);
	if (!err)
		err = undo_data(c, pf, e, &u);
	if (!err)
		err = libsecmap_copy_range(c, u.tail_at, u.data_offset + u.data_size, u.tail_size);
	/* What it gave is what perf wrote, or it is of no use. */
	if (!err)
		err = libsecmap_hash_range(c->out, 0, u.data_offset + u.data_size + u.tail_size,
					   hash);
	if (!err && (hash[0] != u.hash[0] || hash[1] != u.hash[1]))
		err = -EBADMSG;
	return err;
}

/*
 * Open the perf.data at @path, parse it into @pf and find what it holds of
 * secmap (@e): its fd, or -errno with nothing left open.
 */
static int open_perf_file(const char *path, struct libsecmap_perf_file *pf, struct stat *st,
			  struct embedded *e)
{
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	err = fstat(fd, st) < 0 ? -errno : libsecmap_perf_file_parse(fd, pf);
	if (!err)
		err = find_embedded(fd, pf, e);
	if (err) {
		libsecmap_perf_file_release(pf);
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Open @in_path, parse it into @pf, and if it holds secmap's work already,
 * swap it for the file perf wrote (in a scratch file in @dir): the fd of
 * what to read from. *@restored: whether that was done.
 */
static int open_original(const char *in_path, const char *dir, struct libsecmap_perf_file *pf,
			 struct stat *st, bool *restored)
{
	struct libsecmap_copier c = { .in = -1, .out = -1 };
	struct embedded e;
	int err;

	*restored = false;
	c.in = open_perf_file(in_path, pf, st, &e);
	if (c.in < 0 || e.kind == EMBED_NONE)
		return c.in;
	c.out = libsecmap_scratch_file(dir);
	if (c.out < 0) {
		err = c.out;
		goto out;
	}
	err = restore(&c, pf, &e);
	libsecmap_perf_file_release(pf);
	if (!err)
		err = libsecmap_perf_file_parse(c.out, pf);
	close(c.in);
	c.in = c.out;
	c.out = -1;
	*restored = true;
out:
	free(c.buf);
	if (err) {
		libsecmap_perf_file_release(pf);
		close(c.in);
		return err;
	}
	return c.in;
}

/* The undo log of @rw's rewrite of @c->in (parsed into @pf), at @at. */
static int write_undo(struct libsecmap_copier *c, const struct libsecmap_perf_file *pf,
		      const struct libsecmap_rewrite *rw, uint64_t at, uint64_t *end)
{
	uint64_t hash[2], pos, tail = pf->file_size - pf->data_end;
	uint8_t h[UNDO_SIZE] = { 0 }, ed[EDIT_SIZE];
	size_t i;
	int err;

	err = libsecmap_hash_range(c->in, 0, pf->file_size, hash);
	if (err)
		return err;
	memcpy(h, SECMAP_PERF_UNDO_MAGIC, 8);
	put64(h + 8, UNDO_SIZE);	/* header_size, and reserved 0 */
	put64(h + 16, rw->nr_edits);
	put64(h + 24, pf->data.offset);
	put64(h + 32, pf->data.size);
	put64(h + 40, tail);
	put64(h + 48, hash[0]);
	put64(h + 56, hash[1]);
	err = libsecmap_pwrite_all(c->out, h, sizeof(h), at);
	pos = at + sizeof(h);
	if (!err)
		err = libsecmap_copy_range(c, 0, pos, pf->data.offset);
	pos += align8(pf->data.offset);
	if (!err)
		err = libsecmap_copy_range(c, pf->data_end, pos, tail);
	pos += align8(tail);
	for (i = 0; !err && i < rw->nr_edits; i++) {
		const struct libsecmap_rewrite_edit *e = &rw->edits[i];

		put64(ed, e->offset);
		put64(ed + 8, e->inserted);
		put64(ed + 16, e->removed);
		err = libsecmap_pwrite_all(c->out, ed, sizeof(ed), pos);
		if (!err)
			err = libsecmap_copy_range(c, e->removed_at, pos + EDIT_SIZE, e->removed);
		pos += EDIT_SIZE + align8(e->removed);
	}
	*end = pos;
	return err;
}

/* Padding, the recording, the undo log and the trailer after perf's @perf_size bytes. */
static int append_embedding(struct libsecmap_copier *c, const struct libsecmap_perf_file *pf,
			    const struct libsecmap_rewrite *rw, uint64_t perf_size,
			    const void *data, size_t len)
{
	uint8_t t[TRAILER_SIZE] = { 0 }, pad[8] = { 0 };
	uint64_t rec_at = align8(perf_size), undo_at = rec_at + align8(len), end = undo_at;
	uint64_t hash[2];
	int err;

	err = libsecmap_pwrite_all(c->out, pad, rec_at - perf_size, perf_size);
	if (!err)
		err = libsecmap_pwrite_all(c->out, data, len, rec_at);
	if (!err)
		err = libsecmap_pwrite_all(c->out, pad, align8(len) - len, rec_at + len);
	if (!err && rw)
		err = write_undo(c, pf, rw, undo_at, &end);
	if (err)
		return err;
	put64(t, perf_size);
	put64(t + 8, rec_at);
	put64(t + 16, len);
	put64(t + 24, rw ? undo_at : 0);
	put64(t + 32, end - undo_at);
	/* The fingerprint covers every byte before it, the trailer's own fields too. */
	err = libsecmap_pwrite_all(c->out, t, TRAILER_HASHED, end);
	if (!err)
		err = libsecmap_hash_range(c->out, 0, end + TRAILER_HASHED, hash);
	if (err)
		return err;
	put64(t + 40, hash[0]);
	put64(t + 48, hash[1]);
	t[56] = SECMAP_PERF_TRAILER_MAJOR;	/* u16 major, u16 minor (0), le */
	t[60] = TRAILER_SIZE;			/* u32 size, le */
	memcpy(t + 64, SECMAP_PERF_TRAILER_MAGIC, 8);
	return libsecmap_pwrite_all(c->out, t, sizeof(t), end);
}

/* perf's file from @c->in, rewritten for stock perf with @maps, then the rest. */
static int write_rewritten(struct libsecmap_copier *c, struct libsecmap_perf_file *pf,
			   const struct secmap_perf_maps *maps, const void *data, size_t len,
			   struct secmap_perf_inject_stats *stats)
{
	uint8_t header[LIBSECMAP_PERF_HEADER_SIZE];
	struct libsecmap_feat_override ov = { .bit = 2 };
	struct libsecmap_rewrite rw = { 0 };
	uint64_t perf_size;
	int err;

	memcpy(header, pf->header, sizeof(header));
	err = libsecmap_copy_range(c, 0, 0, pf->data.offset);
	if (!err)
		err = libsecmap_perf_rewrite_data(c, pf, maps, &rw);
	if (!err)
		err = libsecmap_perf_rewrite_build_ids(c->in, pf, maps, &rw);
	ov.data = rw.build_ids;
	ov.len = rw.build_ids_len;
	if (!err)
		err = libsecmap_perf_write_tail(c, pf, rw.data_end, &ov, rw.has_build_ids, header,
						&perf_size);
	if (!err)
		err = libsecmap_pwrite_all(c->out, header, sizeof(header), 0);
	if (!err)
		err = append_embedding(c, pf, &rw, perf_size, data, len);
	if (stats) {
		stats->perf_maps_removed = rw.removed;
		stats->maps_written = rw.maps;
		stats->unmaps_written = rw.unmaps;
		stats->records = rw.records;
	}
	libsecmap_rewrite_release(&rw);
	return err;
}

SECMAP_EXPORT int secmap_perf_inject_ext(const char *in_path, const char *out_path,
					 const void *data, size_t len,
					 const struct secmap_perf_inject_opts *opts,
					 struct secmap_perf_inject_stats *stats)
{
	SECMAP_OPTS(secmap_perf_inject_opts, iopts);
	SECMAP_OPTS(secmap_perf_inject_stats, out);
	struct libsecmap_copier c = { .in = -1, .out = -1 };
	struct libsecmap_perf_file pf = { .attr_buf = NULL };
	struct libsecmap_out o;
	bool restored = false;
	struct stat st;
	int err;

	libsecmap_reason_clear();
	if (!in_path || !out_path || !*out_path || !data || len < sizeof(SECMAP_FILE_MAGIC) - 1 ||
	    memcmp(data, SECMAP_FILE_MAGIC, sizeof(SECMAP_FILE_MAGIC) - 1) ||
	    (stats && stats->sz < sizeof(size_t)))
		return libsecmap_err(-EINVAL);
	/* Any size: maps came with the first one. */
	err = opts ? libsecmap_struct_in(opts, sizeof(size_t), &iopts, sizeof(iopts)) : 0;
	if (err)
		return libsecmap_err(err);
	/* A recording no reader would take back is not written. */
	if (len > SECMAP_RECORDING_MAX)
		return libsecmap_err(-EFBIG);
	/* Counted in @out, and given to the caller's @stats up to its size. */
	if (stats)
		libsecmap_struct_out(stats, 0, &out, sizeof(out));
	/* The output first: its directory holds the scratch file, if any. */
	err = libsecmap_out_open(&o, out_path, NULL);
	if (err)
		return libsecmap_err(err);
	c.in = open_original(in_path, o.dir, &pf, &st, &restored);
	if (c.in < 0) {
		libsecmap_out_discard(&o);
		return libsecmap_err(c.in);
	}
	c.out = o.fd;
	/* Replacing a user's perf.data as root leaves it theirs. */
	err = libsecmap_out_like(&o, &st);
	if (!err && iopts.maps) {
		err = write_rewritten(&c, &pf, iopts.maps, data, len, &out);
	} else if (!err) {
		/* Unchanged: perf's bytes as they are, the recording after them. */
		err = libsecmap_copy_range(&c, 0, 0, pf.file_size);
		if (!err)
			err = append_embedding(&c, &pf, NULL, pf.file_size, data, len);
	}
	out.restored = restored;
	if (stats)
		libsecmap_struct_out(stats, 0, &out, sizeof(out));
	err = libsecmap_out_finish(&o, err, &st);
	free(c.buf);
	libsecmap_perf_file_release(&pf);
	close(c.in);
	return err ? libsecmap_err(err) : 0;
}

SECMAP_EXPORT int secmap_perf_inject(const char *in_path, const char *out_path, const void *data,
				     size_t len)
{
	return secmap_perf_inject_ext(in_path, out_path, data, len, NULL, NULL);
}

SECMAP_EXPORT int secmap_perf_strip(const char *in_path, const char *out_path)
{
	struct libsecmap_copier c = { .in = -1, .out = -1 };
	struct libsecmap_perf_file pf = { .attr_buf = NULL };
	struct libsecmap_out o;
	struct embedded e;
	struct stat st;
	int err;

	libsecmap_reason_clear();
	if (!in_path || !out_path || !*out_path)
		return libsecmap_err(-EINVAL);
	c.in = open_perf_file(in_path, &pf, &st, &e);
	if (c.in < 0)
		return libsecmap_err(c.in);
	err = e.kind == EMBED_NONE ? -ENODATA : libsecmap_out_open(&o, out_path, &st);
	if (!err) {
		c.out = o.fd;
		err = libsecmap_out_finish(&o, restore(&c, &pf, &e), &st);
	}
	free(c.buf);
	libsecmap_perf_file_release(&pf);
	close(c.in);
	return err ? libsecmap_err(err) : 0;
}
