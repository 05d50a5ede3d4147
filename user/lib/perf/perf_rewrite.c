// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Rewrite a perf.data data section for stock perf (secmap inject): perf's
 * own maps of the modules a struct secmap_perf_maps covers give way to a
 * PERF_RECORD_MMAP2 per region per load and a PERF_RECORD_KSYMBOL that
 * unregisters it when it goes (Documentation/secmap-record.rst, "For stock
 * perf"). Every other record is copied byte for byte, in ranges
 * (copy_file_range), while the records are read once, front to back.
 *
 * Where the new records go: perf sorts records by time, flushing on each
 * FINISHED_ROUND what is older than the newest time of the round before.
 * A record goes in just before the first record, in file order, whose time
 * is later (for a map: not earlier) than its own; every record before it
 * in the file is older, so no flush has passed its time when perf reads
 * it, and perf puts it in its place among the records of other CPUs that
 * follow. A compressed record is copied whole, so a new record goes before
 * it when any record inside it is later. Maps of modules loaded before the
 * recording go where perf's own module maps were, with perf's time 0
 * (delivered at once, as perf's are), else before the first timed record.
 *
 * What was taken out and put in is kept as a list of edits, so that the
 * data section perf wrote can be given back (perf_embed.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "perf_maps.h"
#include "perf_rewrite.h"

/* perf's, not the uapi's: the build-id's size follows it in MMAP2. */
#define BUILD_ID_TABLE_MAX	(256 << 20)

#define CLOCK_MONOTONIC_ID	1
#define OUT_BUF_SIZE		(64 << 10)
#define REC_SIZE_MAX		0xfff8

struct rewriter {
	struct libsecmap_copier *c;
	const struct secmap_perf_maps *maps;
	struct libsecmap_rewrite *out;
	int clock;			/* enum secmap_clock */
	uint64_t trailer_type;		/* the first event's sample_type */
	uint64_t data_off;		/* where the data section starts, in both files */
	uint64_t copied;		/* input bytes copied or dropped so far */
	uint64_t out_pos;		/* output bytes written so far */
	const struct pm_event **order;	/* the events in time order */
	size_t nr_order, next;
	bool start_done;		/* the maps of modules loaded before: written */
	uint8_t buf[OUT_BUF_SIZE];	/* new records, not written yet */
	size_t buf_len;
	uint64_t buf_at;		/* where they go */
};

/* Bytes of the sample_id_all trailer, and the trailer itself at @p. */
static size_t trailer_size(uint64_t st)
{
	return 8 * libsecmap_trailer_words(st);
}

/* perf's synthesized records have a trailer of zeros: id 0 is the first event. */
static void put_trailer(uint8_t *p, uint64_t st, uint64_t time)
{
	memset(p, 0, trailer_size(st));
	if (st & PERF_SAMPLE_TID)
		p += 8;
	if (st & PERF_SAMPLE_TIME)
		put64(p, time);
}

static int flush_buf(struct rewriter *rw)
{
	int err;

	if (!rw->buf_len)
		return 0;
	err = libsecmap_pwrite_all(rw->c->out, rw->buf, rw->buf_len, rw->buf_at);
	rw->buf_len = 0;
	return err;
}

/* Copy the input up to @to, after what was written before. */
static int copy_upto(struct rewriter *rw, uint64_t to)
{
	int err;

	if (to <= rw->copied)
		return 0;
	err = flush_buf(rw);
	if (!err)
		err = libsecmap_copy_range(rw->c, rw->copied, rw->out_pos, to - rw->copied);
	if (err)
		return err;
	rw->out_pos += to - rw->copied;
	rw->copied = to;
	return 0;
}

static struct libsecmap_rewrite_edit *last_edit(struct libsecmap_rewrite *out)
{
	return out->nr_edits ? &out->edits[out->nr_edits - 1] : NULL;
}

/* The edit at the output's current end, new or the last one if it ends there. */
static int edit_here(struct rewriter *rw, struct libsecmap_rewrite_edit **ep)
{
	struct libsecmap_rewrite *out = rw->out;
	struct libsecmap_rewrite_edit *e = last_edit(out);
	uint64_t at = rw->out_pos - rw->data_off;

	if (e && e->offset + e->inserted == at) {
		*ep = e;
		return 0;
	}
	if (out->nr_edits == out->cap_edits) {
		size_t cap = out->cap_edits ? 2 * out->cap_edits : 64;

		e = realloc(out->edits, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		out->edits = e;
		out->cap_edits = cap;
	}
	e = &out->edits[out->nr_edits++];
	memset(e, 0, sizeof(*e));
	e->offset = at;
	*ep = e;
	return 0;
}

/* Append one new record of @size bytes, built by the caller at the returned place. */
static int append(struct rewriter *rw, const uint8_t *rec, size_t size)
{
	struct libsecmap_rewrite_edit *e;
	int err;

	err = edit_here(rw, &e);
	if (err)
		return err;
	if (rw->buf_len + size > sizeof(rw->buf)) {
		err = flush_buf(rw);
		if (err)
			return err;
	}
	if (!rw->buf_len)
		rw->buf_at = rw->out_pos;
	memcpy(rw->buf + rw->buf_len, rec, size);
	rw->buf_len += size;
	rw->out_pos += size;
	e->inserted += size;
	return 0;
}

static int write_map(struct rewriter *rw, const struct pm_event *ev, uint64_t time)
{
	const char *path = libsecmap_perf_maps_path(rw->maps, ev->object);
	size_t name = (strlen(path) + 8) & ~(size_t)7, tsize = trailer_size(rw->trailer_type);
	size_t size = 72 + name + tsize;
	uint8_t rec[REC_SIZE_MAX];

	if (size > REC_SIZE_MAX)
		return -ENAMETOOLONG;
	memset(rec, 0, size);
	put32(rec, PERF_RECORD_MMAP2);
	put16(rec + 4, PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put16(rec + 6, (uint16_t)size);
	put32(rec + 8, (uint32_t)-1);		/* pid: the host kernel, as perf's */
	put64(rec + 16, ev->start);
	put64(rec + 24, ev->len);
	/* pgoff 0: perf takes a module map's offset from its .text, at 0 */
	rec[40] = PM_BUILD_ID_LEN;
	memcpy(rec + 44, libsecmap_perf_maps_build_id(rw->maps, ev->object), PM_BUILD_ID_LEN);
	put32(rec + 64, 5);			/* PROT_READ | PROT_EXEC */
	memcpy(rec + 72, path, strlen(path));
	put_trailer(rec + 72 + name, rw->trailer_type, time);
	rw->out->maps++;
	return append(rw, rec, size);
}

static int write_unmap(struct rewriter *rw, const struct pm_event *ev)
{
	const char *module = libsecmap_perf_maps_module(rw->maps, ev->object);
	size_t len = strlen(SECMAP_PERF_KSYM_PREFIX) + strlen(module);
	size_t name = (len + 8) & ~(size_t)7, tsize = trailer_size(rw->trailer_type);
	size_t size = 24 + name + tsize;
	uint8_t rec[24 + 128 + 64];

	if (size > sizeof(rec))
		return -ENAMETOOLONG;
	memset(rec, 0, size);
	put32(rec, PERF_RECORD_KSYMBOL);
	put16(rec + 6, (uint16_t)size);
	put64(rec + 8, ev->start);
	put32(rec + 16, ev->len > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->len);
	/* ksym_type 0 (unknown); flags: unregister. */
	put16(rec + 22, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
	memcpy(rec + 24, SECMAP_PERF_KSYM_PREFIX, strlen(SECMAP_PERF_KSYM_PREFIX));
	memcpy(rec + 24 + strlen(SECMAP_PERF_KSYM_PREFIX), module, strlen(module));
	put_trailer(rec + 24 + name, rw->trailer_type, ev->time[rw->clock]);
	rw->out->unmaps++;
	return append(rw, rec, size);
}

/* The maps of modules loaded before the recording, once, at time 0. */
static int write_start(struct rewriter *rw, uint64_t at)
{
	size_t nr, i;
	const struct pm_event *ev = libsecmap_perf_maps_events(rw->maps, &nr);
	int err;

	rw->start_done = true;
	err = copy_upto(rw, at);
	for (i = 0; !err && i < nr; i++)
		if (ev[i].at_start)
			err = write_map(rw, &ev[i], 0);
	return err;
}

/* The new records due before a record of time @t at input offset @at. */
static int write_due(struct rewriter *rw, uint64_t t, uint64_t at)
{
	const struct pm_event *ev;
	int err;

	while (rw->next < rw->nr_order) {
		ev = rw->order[rw->next];
		/* A map goes before what happens at its time, an unmap after. */
		if (ev->kind == PM_MAP ? ev->time[rw->clock] > t : ev->time[rw->clock] >= t)
			break;
		err = copy_upto(rw, at);
		if (!err)
			err = ev->kind == PM_MAP ? write_map(rw, ev, ev->time[rw->clock]) :
						   write_unmap(rw, ev);
		if (err)
			return err;
		rw->next++;
	}
	return 0;
}

/* Take out the record of @size bytes at input offset @at. */
static int drop(struct rewriter *rw, uint64_t at, uint64_t size)
{
	struct libsecmap_rewrite_edit *e;
	int err;

	err = copy_upto(rw, at);
	if (!err)
		err = edit_here(rw, &e);
	if (err)
		return err;
	/* Nothing was copied since this edit: what it took out ends at @at. */
	if (!e->removed)
		e->removed_at = at;
	else if (e->removed_at + e->removed != at)
		return -EINVAL;
	e->removed += size;
	rw->copied = at + size;
	return 0;
}

bool libsecmap_perf_is_our_record(const struct secmap_perf_record *rec, const uint8_t *raw)
{
	size_t plen = strlen(SECMAP_PERF_KSYM_PREFIX);

	if (rec->kind == SECMAP_PERF_REC_MMAP2)
		return rec->pid == -1 && strstr(rec->filename, SECMAP_PERF_PATH_MARK);
	return rec->type == PERF_RECORD_KSYMBOL && rec->size >= 24 + plen &&
	       !memcmp(raw + 24, SECMAP_PERF_KSYM_PREFIX, plen);
}

/* perf's own map of a module that @maps covers. */
static bool is_perf_module_map(const struct rewriter *rw, const struct secmap_perf_record *rec)
{
	char name[64];

	if (rec->kind != SECMAP_PERF_REC_MMAP && rec->kind != SECMAP_PERF_REC_MMAP2)
		return false;
	if (rec->cpumode != PERF_RECORD_MISC_KERNEL || rec->pid != -1)
		return false;
	return libsecmap_kmod_name(rec->filename, name, sizeof(name)) &&
	       libsecmap_perf_maps_covers(rw->maps, name, strlen(name));
}

static int cmp_event(const void *a, const void *b, void *arg)
{
	const struct pm_event *x = *(const struct pm_event *const *)a;
	const struct pm_event *y = *(const struct pm_event *const *)b;
	int clock = *(const int *)arg;

	if (x->time[clock] != y->time[clock])
		return x->time[clock] < y->time[clock] ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind == PM_UNMAP ? -1 : 1;	/* gone before another comes */
	return x < y ? -1 : x > y;
}

/* The clock and trailer layout the file's records use, or why not. */
static int file_clock(struct secmap_perf_data *pd, struct rewriter *rw)
{
	const struct secmap_perf_event *e0 = secmap_perf_data_event(pd, 0), *e;
	size_t i;

	if (!e0)
		return -EBADMSG;
	/* Without a time on every record, perf could not order new ones. */
	if (!e0->sample_id_all || !(e0->sample_type & PERF_SAMPLE_TIME))
		return -ENOTSUP;
	for (i = 1; (e = secmap_perf_data_event(pd, i)); i++)
		if (e->use_clockid != e0->use_clockid ||
		    (e0->use_clockid && e->clockid != e0->clockid))
			return -ENOTSUP;
	if (e0->use_clockid && e0->clockid != CLOCK_MONOTONIC_ID)
		return -ENOTSUP;
	rw->clock = e0->use_clockid ? SECMAP_CLOCK_MONO : SECMAP_CLOCK_LOCAL;
	rw->trailer_type = e0->sample_type;
	return 0;
}

static int sort_events(struct rewriter *rw)
{
	size_t nr, i;
	const struct pm_event *ev = libsecmap_perf_maps_events(rw->maps, &nr);

	rw->order = malloc((nr + 1) * sizeof(*rw->order));
	if (!rw->order)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		if (!ev[i].at_start)
			rw->order[rw->nr_order++] = &ev[i];
	qsort_r(rw->order, rw->nr_order, sizeof(*rw->order), cmp_event, &rw->clock);
	return 0;
}

int libsecmap_perf_rewrite_data(struct libsecmap_copier *c, const struct libsecmap_perf_file *pf,
				const struct secmap_perf_maps *maps, struct libsecmap_rewrite *out)
{
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd = NULL;
	struct rewriter *rw;
	uint64_t at;
	int ret;

	memset(out, 0, sizeof(*out));
	rw = calloc(1, sizeof(*rw));
	if (!rw)
		return -ENOMEM;
	rw->c = c;
	rw->maps = maps;
	rw->out = out;
	rw->data_off = pf->data.offset;
	rw->copied = rw->out_pos = pf->data.offset;
	ret = libsecmap_perf_data_open_fd(c->in, &pd);
	if (!ret)
		ret = file_clock(pd, rw);
	if (!ret)
		ret = sort_events(rw);
	while (!ret && (ret = secmap_perf_data_next(pd, &rec)) > 0) {
		/* secmap's maps from an inject before, whose recording was dropped since. */
		bool ours = libsecmap_perf_is_our_record(&rec, libsecmap_perf_data_raw(pd));

		at = secmap_perf_data_offset(pd);
		out->records++;
		ret = 0;
		if (ours || is_perf_module_map(rw, &rec)) {
			/* Only a whole record can be taken out; a batch is one zstd stream. */
			if (libsecmap_perf_data_in_batch(pd)) {
				ret = -ENOTSUP;
				break;
			}
			if (!rw->start_done && !ours)
				ret = write_start(rw, at);
			if (!ret)
				ret = drop(rw, at, rec.size);
			out->removed += !ret;
			continue;
		}
		if (!(rec.fields & PERF_SAMPLE_TIME) || !rec.time)
			continue;
		if (!rw->start_done)
			ret = write_start(rw, at);
		if (!ret)
			ret = write_due(rw, rec.time, at);
	}
	if (!ret && !rw->start_done)
		ret = write_start(rw, pf->data_end);
	if (!ret)
		ret = write_due(rw, UINT64_MAX, pf->data_end);
	if (!ret)
		ret = copy_upto(rw, pf->data_end);
	if (!ret)
		ret = flush_buf(rw);
	out->data_end = rw->out_pos;
	if (ret < 0 && pd)
		out->bad_offset = secmap_perf_data_offset(pd);
	secmap_perf_data_close(pd);
	free(rw->order);
	free(rw);
	return ret < 0 ? ret : 0;
}

void libsecmap_rewrite_release(struct libsecmap_rewrite *out)
{
	free(out->edits);
	free(out->build_ids);
	memset(out, 0, sizeof(*out));
}

/* An object's entry: its length, as perf writes it (util/build-id.c write_buildid). */
static size_t build_id_entry_size(const struct secmap_perf_maps_object *o)
{
	return BUILD_ID_ENTRY_HEAD + ((strlen(o->path) + 8) & ~(size_t)7);
}

/* The objects' entries after the @len bytes at *@buf, grown once for all of them. */
static int append_build_ids(const struct secmap_perf_maps *maps, uint8_t **buf, size_t *len)
{
	size_t nr = secmap_perf_maps_nr_objects(maps), i, size, total = 0;
	SECMAP_OPTS(secmap_perf_maps_object, o);
	uint8_t *p;

	for (i = 0; i < nr; i++) {
		secmap_perf_maps_object(maps, i, &o);
		size = build_id_entry_size(&o);
		if (size > UINT16_MAX)
			return -ENAMETOOLONG;
		total += size;
	}
	p = realloc(*buf, *len + total + 1);
	if (!p)
		return -ENOMEM;
	*buf = p;
	for (i = 0; i < nr; i++) {
		secmap_perf_maps_object(maps, i, &o);
		size = build_id_entry_size(&o);
		p = *buf + *len;
		memset(p, 0, size);
		put16(p + 4, PERF_RECORD_MISC_KERNEL | MISC_BUILD_ID_SIZE);
		put16(p + 6, (uint16_t)size);
		put32(p + 8, (uint32_t)-1);		/* the host */
		memcpy(p + 12, o.build_id, PM_BUILD_ID_LEN);
		p[32] = PM_BUILD_ID_LEN;
		memcpy(p + BUILD_ID_ENTRY_HEAD, o.path, strlen(o.path));
		*len += size;
	}
	return 0;
}

int libsecmap_perf_rewrite_build_ids(int fd, const struct libsecmap_perf_file *pf,
				     const struct secmap_perf_maps *maps,
				     struct libsecmap_rewrite *out)
{
	struct libsecmap_perf_range r = pf->feat[HEADER_BUILD_ID];
	char name[64];
	uint8_t *in, *p;
	uint64_t pos = 0, size;
	int err;

	/* perf record -z writes none: perf then takes build-ids from the maps. */
	if (!libsecmap_feat_test(pf->features, HEADER_BUILD_ID))
		return 0;
	if (r.size > BUILD_ID_TABLE_MAX)
		return -EFBIG;
	in = malloc(r.size ? r.size : 1);
	if (!in)
		return -ENOMEM;
	err = libsecmap_pread_all(fd, in, r.size, r.offset);
	out->build_ids = malloc(r.size ? r.size : 1);
	if (!err && !out->build_ids)
		err = -ENOMEM;
	while (!err && r.size - pos >= BUILD_ID_ENTRY_HEAD) {
		const char *file;

		p = in + pos;
		size = get16(p + 6);
		if (size <= BUILD_ID_ENTRY_HEAD || size > r.size - pos ||
		    !memchr(p + BUILD_ID_ENTRY_HEAD, 0, size - BUILD_ID_ENTRY_HEAD)) {
			err = -EBADMSG;
			break;
		}
		file = (const char *)p + BUILD_ID_ENTRY_HEAD;
		pos += size;
		/* The host kernel's entries for the modules replaced, and ours from before. */
		if ((get16(p + 4) & 7) == PERF_RECORD_MISC_KERNEL && (int32_t)get32(p + 8) == -1 &&
		    ((libsecmap_kmod_name(file, name, sizeof(name)) &&
		      libsecmap_perf_maps_covers(maps, name, strlen(name))) ||
		     strstr(file, SECMAP_PERF_PATH_MARK)))
			continue;
		memcpy(out->build_ids + out->build_ids_len, p, size);
		out->build_ids_len += size;
	}
	/* perf stops at what is too short for an entry: so do we, keeping it out. */
	free(in);
	if (!err)
		err = append_build_ids(maps, &out->build_ids, &out->build_ids_len);
	if (!err)
		out->has_build_ids = true;
	return err;
}
