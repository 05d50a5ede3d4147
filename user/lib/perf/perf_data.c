// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * perf.data data section: a validating record reader.
 *
 * The header, attrs and feature table are parsed and checked by perf_file.c;
 * here the attrs are decoded into events (names from HEADER_EVENT_DESC),
 * the sample ids mapped to them, and the records of the data section walked
 * one by one through a window read with pread() (perf_data.h's WINDOW): a
 * perf.data can be gigabytes, and only the window is resident. The header
 * and feature sections are read from a read-only mapping of the file.
 *
 * Each record is decoded where it lies, in the window or in the buffer of
 * decompressed bytes, where it is whole: valid until the next call, which
 * may move the window past it. Every read is checked against the
 * record's size. A callchain is copied, into a buffer of the reader, only
 * when it is not 8-byte aligned there or not in host byte order, since the
 * caller gets it as an array of u64. Compressed records carry
 * zstd output; perf decompresses them as one continuous stream (a record may
 * start in one and end in the next), and so does this reader, into a buffer
 * that may not grow beyond DECOMP_MAX; all of them together may not
 * decompress to more than DECOMP_RATIO times the file's data read so far.
 *
 * Record and sample layouts are those of include/uapi/linux/perf_event.h
 * (the comments of enum perf_event_type); perf's own records (type 64 and
 * up) are those of tools/lib/perf/include/perf/event.h.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "perf_data.h"

static int cmp_id(const void *a, const void *b)
{
	const struct pd_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

const struct pd_id *pd_find_id(struct secmap_perf_data *pd, uint64_t id)
{
	struct pd_id key = { .id = id };
	const struct pd_id *found;

	/* An event's samples on one CPU come in runs: the last one found first. */
	if (pd->last_id && pd->last_id->id == id)
		return pd->last_id;
	found = pd->nr_ids ? bsearch(&key, pd->ids, pd->nr_ids, sizeof(key), cmp_id) : NULL;
	if (found)
		pd->last_id = found;
	return found;
}

/* Where a sample's id is (u64 index after the header), and a trailer's (from its end). */
static int sample_id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return __builtin_popcountll(st & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					  PERF_SAMPLE_ADDR));
}

static int trailer_id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU);
}

/* Where field @bit of a sample of type @st is, *@pos moved past it; 0 if it has none. */
static uint16_t field_at(uint64_t st, uint64_t bit, uint16_t *pos)
{
	uint16_t at = st & bit ? *pos : 0;

	*pos += st & bit ? 8 : 0;
	return at;
}

static void sample_head_of(uint64_t st, struct sample_head *h)
{
	uint16_t pos = 8, identifier;

	/* In the order of the layout; the ID field, when present, wins. */
	identifier = field_at(st, PERF_SAMPLE_IDENTIFIER, &pos);
	h->ip = field_at(st, PERF_SAMPLE_IP, &pos);
	h->tid = field_at(st, PERF_SAMPLE_TID, &pos);
	h->time = field_at(st, PERF_SAMPLE_TIME, &pos);
	h->addr = field_at(st, PERF_SAMPLE_ADDR, &pos);
	h->id = field_at(st, PERF_SAMPLE_ID, &pos) ?: identifier;
	h->stream_id = field_at(st, PERF_SAMPLE_STREAM_ID, &pos);
	h->cpu = field_at(st, PERF_SAMPLE_CPU, &pos);
	h->period = field_at(st, PERF_SAMPLE_PERIOD, &pos);
	h->size = pos;
}

/* Decode one attr of @len bytes (fields past @len are zero, as the ABI says). */
static int decode_attr(const uint8_t *p, size_t len, struct pd_event *ev)
{
	uint8_t a[ATTR_LOOKED_AT] = { 0 };
	struct secmap_perf_event *e = &ev->pub;
	uint64_t flags;

	memcpy(a, p, len < sizeof(a) ? len : sizeof(a));
	e->sz = sizeof(*e);
	e->type = get32(a + ATTR_TYPE);
	e->config = get64(a + ATTR_CONFIG);
	e->sample_period = get64(a + ATTR_PERIOD);
	e->sample_type = get64(a + ATTR_SAMPLE_TYPE);
	e->read_format = get64(a + ATTR_READ_FORMAT);
	flags = get64(a + ATTR_FLAGS);
	e->freq = !!(flags & A_FREQ);
	e->sample_id_all = !!(flags & A_SAMPLE_ID_ALL);
	e->use_clockid = !!(flags & A_USE_CLOCKID);
	e->clockid = (int32_t)get32(a + ATTR_CLOCKID);
	e->branch_sample_type = get64(a + ATTR_BRANCH_TYPE);
	ev->nr_regs_user = (unsigned int)__builtin_popcountll(get64(a + ATTR_REGS_USER));
	ev->nr_regs_intr = (unsigned int)__builtin_popcountll(get64(a + ATTR_REGS_INTR));
	ev->trailer_size = 8ULL * libsecmap_trailer_words(e->sample_type);
	sample_head_of(e->sample_type, &ev->head);

	/* A layout this reader cannot walk is refused, not guessed. */
	if (e->sample_type & ~SAMPLE_KNOWN)
		return -ENOTSUP;
	if ((e->sample_type & PERF_SAMPLE_READ) && (e->read_format & ~FORMAT_KNOWN))
		return -ENOTSUP;
	if ((e->sample_type & PERF_SAMPLE_BRANCH_STACK) && (e->branch_sample_type & ~BRANCH_KNOWN))
		return -ENOTSUP;
	return 0;
}

/* Events from the attrs perf_file.c has checked, with their ids. */
static int load_events(struct secmap_perf_data *pd, int fd, const struct libsecmap_perf_file *pf)
{
	struct libsecmap_perf_range r;
	size_t i, j, k, start, nr, total = 0;
	uint8_t *buf;
	int err;

	if (!pf->nr_attrs)	/* no event: no sample could be decoded */
		return libsecmap_reason(-EBADMSG, "no event in the attrs section");
	pd->events = calloc(pf->nr_attrs, sizeof(*pd->events));
	if (!pd->events)
		return -ENOMEM;
	pd->nr_events = pf->nr_attrs;
	for (i = 0, start = 0; i < pf->nr_attrs; i++) {
		err = decode_attr(pf->attr_buf + start, pf->ids_pos[i] - start, &pd->events[i]);
		if (err)
			return err;
		r.size = get64(pf->attr_buf + pf->ids_pos[i] + 8);
		nr = (size_t)(r.size / 8);
		if (nr > IDS_MAX - total)
			return -EFBIG;
		total += nr;
		pd->events[i].pub.nr_ids = nr;
		start = pf->ids_pos[i] + 16;
	}

	pd->ids = calloc(total ? total : 1, sizeof(*pd->ids));
	buf = malloc(total ? total * 8 : 1);
	if (!pd->ids || !buf) {
		free(buf);
		return -ENOMEM;
	}
	for (i = 0, k = 0; i < pf->nr_attrs; i++) {
		r.offset = get64(pf->attr_buf + pf->ids_pos[i]);
		nr = pd->events[i].pub.nr_ids;
		/* perf_file.c checked the whole range lies within the file. */
		err = libsecmap_pread_all(fd, buf, nr * 8, r.offset);
		if (err) {
			free(buf);
			return err;
		}
		for (j = 0; j < nr; j++, k++) {
			pd->ids[k].id = get64(buf + 8 * j);
			pd->ids[k].event = i;
		}
	}
	free(buf);
	pd->nr_ids = total;
	qsort(pd->ids, total, sizeof(*pd->ids), cmp_id);
	/* One id naming two events would make samples ambiguous. */
	for (k = 1; k < total; k++)
		if (pd->ids[k].id == pd->ids[k - 1].id && pd->ids[k].event != pd->ids[k - 1].event)
			return libsecmap_reason(-EBADMSG, "two events have the sample id %llu",
						(unsigned long long)pd->ids[k].id);

	/*
	 * perf refuses the same: every event must say whether other records
	 * carry sample ids, and with several events the id must sit at one
	 * place in every sample and every trailer, or nothing tells them apart.
	 */
	pd->sample_id_all = pd->events[0].pub.sample_id_all;
	pd->id_pos = -1;
	pd->is_pos = -1;
	for (i = 0; i < pd->nr_events; i++)
		if (pd->events[i].pub.sample_id_all != pd->sample_id_all)
			return -ENOTSUP;
	if (pd->nr_events == 1)
		return 0;
	pd->id_pos = sample_id_pos(pd->events[0].pub.sample_type);
	pd->is_pos = trailer_id_pos(pd->events[0].pub.sample_type);
	if (pd->id_pos < 0)
		return -ENOTSUP;
	for (i = 1; i < pd->nr_events; i++)
		if (sample_id_pos(pd->events[i].pub.sample_type) != pd->id_pos ||
		    trailer_id_pos(pd->events[i].pub.sample_type) != pd->is_pos)
			return -ENOTSUP;
	return 0;
}

/*
 * HEADER_EVENT_DESC: u32 nr, u32 attr_size, then per event the attr, u32
 * nr_ids, a string (u32 length with padding, NUL-terminated), the ids.
 * An entry is matched to an event by its first id, else by its position.
 */
static int load_names(struct secmap_perf_data *pd, int fd, const struct libsecmap_perf_file *pf)
{
	struct libsecmap_perf_range r = pf->feat[HEADER_EVENT_DESC];
	uint64_t nr, attr_size, nr_ids, len, pos = 8, i;
	const struct pd_id *id;
	size_t idx;
	uint8_t *buf;
	char *name;
	int err = 0;

	if (!libsecmap_feat_test(pf->features, HEADER_EVENT_DESC))
		return 0;
	if (r.size > EVENT_DESC_MAX)
		return -EFBIG;
	if (r.size < 8)
		return libsecmap_reason(-EBADMSG, "corrupt event description feature section");
	buf = malloc(r.size);
	if (!buf)
		return -ENOMEM;
	err = libsecmap_pread_all(fd, buf, r.size, r.offset);
	if (err)
		goto out;
	nr = get32(buf);
	attr_size = get32(buf + 4);
	err = -EBADMSG;
	if (attr_size < 64)
		goto out;
	for (i = 0; i < nr; i++) {
		if (r.size - pos < attr_size || r.size - pos - attr_size < 8)
			goto out;
		pos += attr_size;
		nr_ids = get32(buf + pos);
		len = get32(buf + pos + 4);
		pos += 8;
		if (r.size - pos < len || !len || !memchr(buf + pos, 0, len))
			goto out;
		name = (char *)buf + pos;
		pos += len;
		if ((r.size - pos) / 8 < nr_ids)
			goto out;
		id = nr_ids ? pd_find_id(pd, get64(buf + pos)) : NULL;
		pos += 8 * nr_ids;
		idx = id ? id->event : (size_t)i;
		if (idx >= pd->nr_events || pd->events[idx].pub.name)
			continue;
		pd->events[idx].pub.name = strdup(name);
		if (!pd->events[idx].pub.name) {
			err = -ENOMEM;
			goto out;
		}
	}
	err = 0;
out:
	free(buf);
	return err;
}

static int fallback_names(struct secmap_perf_data *pd)
{
	char name[32];
	size_t i;

	for (i = 0; i < pd->nr_events; i++) {
		if (pd->events[i].pub.name)
			continue;
		snprintf(name, sizeof(name), "event%zu", i);
		pd->events[i].pub.name = strdup(name);
		if (!pd->events[i].pub.name)
			return -ENOMEM;
	}
	return 0;
}

SECMAP_EXPORT void secmap_perf_data_close(struct secmap_perf_data *pd)
{
	size_t i;

	if (!pd)
		return;
	if (pd->map)
		munmap((void *)pd->map, pd->map_len);
	if (pd->fd >= 0)
		close(pd->fd);
	free(pd->win);
	for (i = 0; i < pd->nr_events; i++)
		free((char *)pd->events[i].pub.name);
	free(pd->events);
	free(pd->ids);
	free(pd->cmdline);
	ZSTD_freeDStream(pd->zds);
	free(pd->dbuf);
	free(pd);
}

/* perf stops at what is too short for an entry (internal.h): so do we. */
int pd_next_build_id(const struct secmap_perf_data *pd, uint64_t *pos, struct pd_build_id *e)
{
	struct libsecmap_perf_range r = pd->feat[HEADER_BUILD_ID];
	const uint8_t *p = pd->map + r.offset + *pos;
	uint64_t left = r.size - *pos, size;

	if (!libsecmap_feat_test(pd->features, HEADER_BUILD_ID) || *pos >= r.size ||
	    left < BUILD_ID_ENTRY_HEAD)
		return 0;
	size = get16(p + 6);
	if (size <= BUILD_ID_ENTRY_HEAD || size > left ||
	    !memchr(p + BUILD_ID_ENTRY_HEAD, 0, size - BUILD_ID_ENTRY_HEAD))
		return libsecmap_reason(-EBADMSG, "corrupt build-id table (entry at %llu)",
					(unsigned long long)*pos);
	e->misc = get16(p + 4);
	e->pid = (int32_t)get32(p + 8);
	e->id = p + 12;
	e->id_len = e->misc & MISC_BUILD_ID_SIZE ? p[32] : 20;
	if (e->id_len > 20)
		e->id_len = 20;
	e->filename = (const char *)p + BUILD_ID_ENTRY_HEAD;
	*pos += size;
	return 1;
}

int libsecmap_perf_data_open_fd(int fd, struct secmap_perf_data **pdp)
{
	struct libsecmap_perf_file pf;
	struct secmap_perf_data *pd;
	void *map;
	int err;

	*pdp = NULL;
	err = libsecmap_perf_file_parse(fd, &pf);
	if (err) {
		libsecmap_perf_file_release(&pf);
		return err;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		err = -ENOMEM;
		goto out;
	}
	/* The caller's descriptor is its own to close. */
	pd->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	pd->win = malloc(WINDOW + REC_MAX);
	if (pd->fd < 0 || !pd->win) {
		err = pd->fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	err = load_events(pd, fd, &pf);
	if (!err)
		err = load_names(pd, fd, &pf);
	if (!err)
		err = fallback_names(pd);
	if (err)
		goto out;
	if (pf.file_size > SIZE_MAX) {
		err = -EFBIG;
		goto out;
	}
	map = mmap(NULL, (size_t)pf.file_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	/* The data is read once, front to back: let the kernel read ahead. */
	posix_fadvise(pd->fd, (off_t)pf.data.offset, (off_t)pf.data.size, POSIX_FADV_SEQUENTIAL);
	pd->map = map;
	pd->map_len = (size_t)pf.file_size;
	pd->pos = pf.data.offset;
	pd->offset = pf.data.offset;
	pd->data_start = pf.data.offset;
	pd->data_end = pf.data_end;
	memcpy(pd->features, pf.features, sizeof(pd->features));
	memcpy(pd->feat, pf.feat, sizeof(pd->feat));
	pd->data_size = pf.data.size;
	pd->feat_offset = pf.data_end;
	*pdp = pd;
	pd = NULL;
out:
	secmap_perf_data_close(pd);
	libsecmap_perf_file_release(&pf);
	return err;
}

SECMAP_EXPORT int secmap_perf_data_open(const char *path, struct secmap_perf_data **pdp)
{
	int fd, err;

	libsecmap_reason_clear();
	if (!path || !pdp)
		return libsecmap_err(-EINVAL);
	*pdp = NULL;
	/* O_NONBLOCK: a FIFO must not hang the open; the parser refuses it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return libsecmap_err(-errno);
	err = libsecmap_perf_data_open_fd(fd, pdp);
	close(fd);
	return err ? libsecmap_err(err) : 0;
}

bool libsecmap_perf_data_in_batch(const struct secmap_perf_data *pd)
{
	return pd->in_batch;
}

const uint8_t *libsecmap_perf_data_raw(const struct secmap_perf_data *pd)
{
	return pd->rec;
}

SECMAP_EXPORT size_t secmap_perf_data_nr_events(const struct secmap_perf_data *pd)
{
	return pd ? pd->nr_events : 0;
}

SECMAP_EXPORT const struct secmap_perf_event *
secmap_perf_data_event(const struct secmap_perf_data *pd, size_t idx)
{
	return pd && idx < pd->nr_events ? &pd->events[idx].pub : NULL;
}

SECMAP_EXPORT const char *secmap_perf_data_event_name(const struct secmap_perf_data *pd,
						      size_t idx)
{
	return pd && idx < pd->nr_events ? pd->events[idx].pub.name : NULL;
}

SECMAP_EXPORT uint64_t secmap_perf_data_offset(const struct secmap_perf_data *pd)
{
	return pd ? pd->offset : 0;
}

SECMAP_EXPORT uint64_t secmap_perf_data_unknown_ids(const struct secmap_perf_data *pd)
{
	return pd ? pd->unknown_ids : 0;
}

/*
 * What the data section read so far (up to pd->pos, the compressed record
 * being read included) may decompress to: see DECOMP_RATIO.
 */
static uint64_t decomp_budget(const struct secmap_perf_data *pd)
{
	uint64_t read = pd->pos - pd->data_start;

	if (read > (UINT64_MAX - DECOMP_MAX) / DECOMP_RATIO)
		return UINT64_MAX;
	return DECOMP_MAX + read * DECOMP_RATIO;
}

/*
 * Append the zstd payload of the compressed record at @in (@len bytes) to
 * pd->dbuf. -EFBIG past DECOMP_MAX held at once, or past decomp_budget()
 * in all: output is stopped one byte past the budget, not at the end of
 * the batch.
 */
static int decompress(struct secmap_perf_data *pd, const uint8_t *in, size_t len)
{
	ZSTD_inBuffer zin = { .src = in, .size = len };
	ZSTD_outBuffer zout;
	uint64_t budget = decomp_budget(pd), left;
	size_t ret, cap, end;
	uint8_t *buf;

	if (!pd->zds) {
		pd->zds = ZSTD_createDStream();
		if (!pd->zds || ZSTD_isError(ZSTD_initDStream(pd->zds)))
			return -ENOMEM;
	}
	/* Keep what is left of the last batch (the start of a record) at the front. */
	if (pd->dhead) {
		memmove(pd->dbuf, pd->dbuf + pd->dhead, pd->dlen - pd->dhead);
		pd->dlen -= pd->dhead;
		pd->dhead = 0;
	}
	for (;;) {
		if (pd->dlen == pd->dcap) {
			if (pd->dcap >= DECOMP_MAX)
				return -EFBIG;
			cap = pd->dcap ? pd->dcap * 2 : DECOMP_START;
			buf = realloc(pd->dbuf, cap);
			if (!buf)
				return -ENOMEM;
			pd->dbuf = buf;
			pd->dcap = cap;
		}
		/* Room for one byte more than the budget: that byte is the proof. */
		end = pd->dcap;
		left = budget - pd->dtotal;
		if (left < end - pd->dlen)
			end = pd->dlen + (size_t)left + 1;
		zout = (ZSTD_outBuffer){ .dst = pd->dbuf, .size = end, .pos = pd->dlen };
		ret = ZSTD_decompressStream(pd->zds, &zout, &zin);
		pd->dtotal += zout.pos - pd->dlen;
		pd->dlen = zout.pos;
		if (ZSTD_isError(ret))
			return -EBADMSG;
		if (pd->dtotal > budget)
			return -EFBIG;
		/* Done when the input is used up and zstd had room to spare. */
		if (zin.pos == zin.size && zout.pos < zout.size)
			return 0;
	}
}

/*
 * The window moved to start at @pos (before data_end): the bytes it held
 * from @pos on kept, the rest read. Its first @need bytes, or NULL if the
 * file ends early (it shrank) or cannot be read.
 */
static const uint8_t *__attribute__((noinline)) data_read(struct secmap_perf_data *pd,
							   uint64_t pos, size_t need)
{
	size_t keep = 0, want;
	ssize_t n;

	if (pos >= pd->win_off && pos - pd->win_off < pd->win_len) {
		keep = pd->win_len - (size_t)(pos - pd->win_off);
		memmove(pd->win, pd->win + (pos - pd->win_off), keep);
	}
	pd->win_off = pos;
	pd->win_len = keep;
	want = WINDOW + REC_MAX;
	if (want > pd->data_end - pos)
		want = (size_t)(pd->data_end - pos);
	while (pd->win_len < want) {
		n = pread(pd->fd, pd->win + pd->win_len, want - pd->win_len,
			  (off_t)(pos + pd->win_len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		pd->win_len += (size_t)n;
	}
	return need <= pd->win_len ? pd->win : NULL;
}

/*
 * The @need bytes of the data section at @pos, in the window: valid until
 * the next call. Inlined, as what the window holds is a few instructions.
 */
static inline const uint8_t *data_at(struct secmap_perf_data *pd, uint64_t pos, size_t need)
{
	if (__builtin_expect(pos >= pd->win_off && pos - pd->win_off + need <= pd->win_len, 1))
		return pd->win + (pos - pd->win_off);
	return data_read(pd, pos, need);
}

/*
 * Step over the samples that come next in the file, as far as the window
 * holds them: a pass that wants only the other records then costs a few
 * instructions a sample. What is not a well-formed sample is left to
 * next_raw(), to return or refuse.
 */
static void step_over_samples(struct secmap_perf_data *pd)
{
	uint64_t pos = pd->pos, end = pd->win_off + pd->win_len, size;
	const uint8_t *p;

	if (pos < pd->win_off)
		return;
	while (pos < end && end - pos >= 8) {
		p = pd->win + (pos - pd->win_off);
		size = get16(p + 6);
		if (get32(p) != PERF_RECORD_SAMPLE || size < 8 || size > pd->data_end - pos)
			break;
		pos += size;
	}
	pd->pos = pos;
}

static int next_raw(struct secmap_perf_data *pd, uint64_t *sizep)
{
	const uint8_t *p;
	uint64_t size, extra, payload;
	uint32_t type;
	size_t avail;
	int err;

	for (;;) {
		avail = pd->dlen - pd->dhead;
		if (avail >= 8) {
			p = pd->dbuf + pd->dhead;
			size = get16(p + 6);
			type = get32(p);
			if (size < 8 || type == PERF_RECORD_COMPRESSED ||
			    type == PERF_RECORD_COMPRESSED2 || type == PERF_RECORD_AUXTRACE) {
				pd->offset = pd->doffset;
				return -EBADMSG;
			}
			if (avail >= size) {
				pd->dhead += size;
				pd->offset = pd->doffset;
				/* Only their size was needed to step over them. */
				if (pd->skip_samples && type == PERF_RECORD_SAMPLE)
					continue;
				pd->rec = p;
				pd->in_batch = true;
				*sizep = size;
				return 1;
			}
			/* The rest of this record comes with the next compressed one. */
		}

		if (pd->pos == pd->data_end) {
			/*
			 * A record cut in the middle of the decompressed stream.
			 * An unfinished zstd frame is no sign of a cut: perf
			 * flushes its one frame per batch but never ends it.
			 */
			return avail ? -EBADMSG : 0;
		}
		if (pd->skip_samples) {
			step_over_samples(pd);
			/* The data may end in samples. */
			if (pd->pos == pd->data_end)
				continue;
		}
		pd->offset = pd->pos;
		if (pd->data_end - pd->pos < 8)
			return -EBADMSG;
		p = data_at(pd, pd->pos, 8);
		if (!p)
			return -EBADMSG;
		size = get16(p + 6);
		type = get32(p);
		if (size < 8 || size > pd->data_end - pd->pos)
			return -EBADMSG;
		p = data_at(pd, pd->pos, (size_t)size);
		if (!p)
			return -EBADMSG;
		pd->pos += size;
		switch (type) {
		case PERF_RECORD_COMPRESSED:
			err = decompress(pd, p + 8, (size_t)size - 8);
			break;
		case PERF_RECORD_COMPRESSED2:
			/* The payload's size, then padding to 8 bytes. */
			if (size < 16)
				return -EBADMSG;
			payload = get64(p + 8);
			if (payload > size - 16)
				return -EBADMSG;
			err = decompress(pd, p + 16, (size_t)payload);
			break;
		case PERF_RECORD_AUXTRACE:
			/* AUX area data follows the record; header.size leaves it out. */
			if (size < 16)
				return -EBADMSG;
			extra = get64(p + 8);
			if (extra > pd->data_end - pd->pos)
				return -EBADMSG;
			pd->pos += extra;
			/* fall through */
		default:
			if (pd->skip_samples && type == PERF_RECORD_SAMPLE)
				continue;
			pd->rec = p;
			pd->in_batch = false;
			*sizep = size;
			return 1;
		}
		if (err)
			return err;
		pd->doffset = pd->offset;
	}
}

static inline int data_next(struct secmap_perf_data *pd, struct secmap_perf_record *rec)
{
	uint64_t size = 0;
	int ret;

	for (;;) {
		ret = next_raw(pd, &size);
		if (!ret)
			return 0;
		if (ret > 0)
			ret = pd_decode(pd, size, rec);
		if (ret < 0) {
			pd->err = ret;
			return libsecmap_err(ret);
		}
		/* A sample of no known event is dropped, as perf does (and counted). */
		if (rec->type != PERF_RECORD_SAMPLE || rec->kind != SECMAP_PERF_REC_OTHER)
			break;
	}
	return 1;
}

/*
 * For a caller built against an older or newer header than this library:
 * through a record of this library's size, so that the walk above is
 * inlined once (twice, gcc kept next_raw() out of line: 20% on a report).
 */
static int __attribute__((noinline, cold)) data_next_sized(struct secmap_perf_data *pd,
							   struct secmap_perf_record *rec)
{
	struct secmap_perf_record r = { .sz = sizeof(r) };
	int ret = secmap_perf_data_next(pd, &r);

	if (ret == 1) {
		/* A kind the caller's struct has no fields for is one it cannot know. */
		if (r.kind == SECMAP_PERF_REC_KSYMBOL &&
		    rec->sz < offsetofend(struct secmap_perf_record, ksym_name))
			r.kind = SECMAP_PERF_REC_OTHER;
		libsecmap_struct_out(rec, 0, &r, sizeof(r));
	}
	return ret;
}

SECMAP_EXPORT int secmap_perf_data_next(struct secmap_perf_data *pd,
					struct secmap_perf_record *rec)
{
	if (!pd || !rec || rec->sz < offsetofend(struct secmap_perf_record, ptid))
		return libsecmap_err(-EINVAL);
	if (pd->err)
		return libsecmap_err(pd->err);
	if (__builtin_expect(rec->sz != sizeof(*rec), 0))
		return data_next_sized(pd, rec);
	return data_next(pd, rec);
}

SECMAP_EXPORT void secmap_perf_data_skip_samples(struct secmap_perf_data *pd, bool skip)
{
	if (pd)
		pd->skip_samples = skip;
}
