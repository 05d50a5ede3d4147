// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * perf.data records decoded where they lie, for the reader of
 * perf_data.c: every read checked against the record's size, samples by
 * the fixed-field offsets worked out per event, callchains copied only
 * when not aligned or not in host byte order.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "perf_data.h"

/* A cursor over the record at pd->rec: every read is checked against its end. */
struct cur {
	const uint8_t *p;
	uint64_t pos, end;
};

static bool take64(struct cur *c, uint64_t *v)
{
	if (c->end - c->pos < 8)
		return false;
	*v = get64(c->p + c->pos);
	c->pos += 8;
	return true;
}

static bool take32x2(struct cur *c, uint32_t *a, uint32_t *b)
{
	if (c->end - c->pos < 8)
		return false;
	*a = get32(c->p + c->pos);
	*b = get32(c->p + c->pos + 4);
	c->pos += 8;
	return true;
}

/* pid and tid: s32 in perf's eyes, -1 for none. */
static bool take_pid_tid(struct cur *c, int32_t *pid, int32_t *tid)
{
	uint32_t a, b;

	if (!take32x2(c, &a, &b))
		return false;
	*pid = (int32_t)a;
	*tid = (int32_t)b;
	return true;
}

/* Skip @n items of @size bytes. */
static bool skip(struct cur *c, uint64_t n, uint64_t size)
{
	if (size && n > (c->end - c->pos) / size)
		return false;
	c->pos += n * size;
	return true;
}

static bool skip_if(struct cur *c, uint64_t st, uint64_t bit)
{
	return !(st & bit) || skip(c, 1, 8);
}

/* PERF_SAMPLE_READ's values, as @rf (read_format) lays them out. */
static bool skip_read(struct cur *c, uint64_t rf)
{
	uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING), nr, per;

	if (rf & PERF_FORMAT_GROUP) {
		per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		return take64(c, &nr) && skip(c, times, 8) && skip(c, nr, per * 8);
	}
	return skip(c, 1 + times + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST), 8);
}

/* The callchain, where it lies if aligned and in host order, else copied. */
static bool take_callchain(struct secmap_perf_data *pd, struct cur *c,
			   struct secmap_perf_record *rec)
{
	uint64_t nr;
	size_t i;

	if (!take64(c, &nr) || (c->end - c->pos) / 8 < nr)
		return false;
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
	    !((uintptr_t)(c->p + c->pos) % sizeof(uint64_t))) {
		rec->callchain = (const uint64_t *)(const void *)(c->p + c->pos);
	} else {
		for (i = 0; i < nr; i++)
			pd->chain[i] = get64(c->p + c->pos + 8 * i);
		rec->callchain = pd->chain;
	}
	rec->nr_callchain = (size_t)nr;
	c->pos += nr * 8;
	return true;
}

static int decode_sample(struct secmap_perf_data *pd, uint64_t size,
			 struct secmap_perf_record *rec)
{
	struct cur c = { .p = pd->rec, .pos = 8, .end = size };
	const struct sample_head *h;
	const struct pd_event *ev;
	const struct pd_id *id;
	uint64_t st, v, nr;
	uint32_t u;

	if (pd->id_pos < 0) {
		rec->event = 0;
	} else {
		if ((size - 8) / 8 <= (uint64_t)pd->id_pos)
			return -EBADMSG;
		id = pd_find_id(pd, get64(c.p + 8 + 8 * (size_t)pd->id_pos));
		if (!id) {
			/* As perf: a sample of no known event is dropped, and counted. */
			pd->unknown_ids++;
			rec->kind = SECMAP_PERF_REC_OTHER;
			return 0;
		}
		rec->event = id->event;
	}
	ev = &pd->events[rec->event];
	st = ev->pub.sample_type;
	rec->fields = st;

	h = &ev->head;
	if (size < h->size)
		return -EBADMSG;
	if (h->id)
		rec->id = get64(c.p + h->id);
	if (h->ip)
		rec->ip = get64(c.p + h->ip);
	if (h->tid) {
		rec->pid = (int32_t)get32(c.p + h->tid);
		rec->tid = (int32_t)get32(c.p + h->tid + 4);
	}
	if (h->time)
		rec->time = get64(c.p + h->time);
	if (h->addr)
		rec->addr = get64(c.p + h->addr);
	if (h->stream_id)
		rec->stream_id = get64(c.p + h->stream_id);
	if (h->cpu)
		rec->cpu = get32(c.p + h->cpu);
	if (h->period)
		rec->period = get64(c.p + h->period);
	if (!(st & SAMPLE_TAIL))
		return 0;
	c.pos = h->size;

	if ((st & PERF_SAMPLE_READ) && !skip_read(&c, ev->pub.read_format))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_CALLCHAIN) && !take_callchain(pd, &c, rec))
		return -EBADMSG;
	if (st & PERF_SAMPLE_RAW) {
		if (c.end - c.pos < 4)
			return -EBADMSG;
		u = get32(c.p + c.pos);
		c.pos += 4;
		if (!skip(&c, u, 1))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t bt = ev->pub.branch_sample_type;

		/* {from, to, flags} per branch; a counter each with PERF_SAMPLE_BRANCH_COUNTERS. */
		if (!take64(&c, &nr) || ((bt & PERF_SAMPLE_BRANCH_HW_INDEX) && !skip(&c, 1, 8)) ||
		    !skip(&c, nr, (bt & PERF_SAMPLE_BRANCH_COUNTERS) ? 32 : 24))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (!take64(&c, &v) || (v && !skip(&c, ev->nr_regs_user, 8)))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		/* size bytes of stack, then how many of them were filled (if any). */
		if (!take64(&c, &v) || !skip(&c, v, 1) || (v && !skip(&c, 1, 8)))
			return -EBADMSG;
	}
	/* WEIGHT and WEIGHT_STRUCT share one u64. */
	if (!skip_if(&c, st, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) ||
	    !skip_if(&c, st, PERF_SAMPLE_DATA_SRC) || !skip_if(&c, st, PERF_SAMPLE_TRANSACTION))
		return -EBADMSG;
	if (st & PERF_SAMPLE_REGS_INTR) {
		if (!take64(&c, &v) || (v && !skip(&c, ev->nr_regs_intr, 8)))
			return -EBADMSG;
	}
	if (!skip_if(&c, st, PERF_SAMPLE_PHYS_ADDR) || !skip_if(&c, st, PERF_SAMPLE_CGROUP) ||
	    !skip_if(&c, st, PERF_SAMPLE_DATA_PAGE_SIZE) ||
	    !skip_if(&c, st, PERF_SAMPLE_CODE_PAGE_SIZE))
		return -EBADMSG;
	if (st & PERF_SAMPLE_AUX) {
		if (!take64(&c, &v) || !skip(&c, v, 1))
			return -EBADMSG;
	}
	return 0;
}

/*
 * The sample_id_all trailer of a non-sample record: its event, fields and
 * where the record's body ends. An id no event has leaves the trailer
 * undecoded (body up to the record's end), counted in unknown_ids.
 */
static int decode_trailer(struct secmap_perf_data *pd, uint64_t size,
			  struct secmap_perf_record *rec, uint64_t *body_end)
{
	struct cur c = { .p = pd->rec, .end = size };
	const struct pd_id *id;
	uint64_t st, tsize, v;
	uint32_t res;

	*body_end = size;
	if (!pd->sample_id_all || rec->type >= PERF_RECORD_USER_TYPE_START)
		return 0;
	if (pd->is_pos < 0) {
		rec->event = 0;
	} else {
		if ((size - 8) / 8 < (uint64_t)pd->is_pos)
			return -EBADMSG;
		v = get64(c.p + size - 8 * (uint64_t)pd->is_pos);
		/* perf synthesizes records with id 0: they go to the first event. */
		id = v ? pd_find_id(pd, v) : NULL;
		if (v && !id) {
			pd->unknown_ids++;
			return 0;
		}
		rec->event = id ? id->event : 0;
	}
	st = pd->events[rec->event].pub.sample_type;
	tsize = pd->events[rec->event].trailer_size;
	if (size - 8 < tsize)
		return -EBADMSG;
	c.pos = size - tsize;
	*body_end = c.pos;
	rec->fields = st & LIBSECMAP_TRAILER_FIELDS;
	/* Trailer sizes were counted from these bits: the reads cannot fail. */
	if (st & PERF_SAMPLE_TID)
		take_pid_tid(&c, &rec->pid, &rec->tid);
	if (st & PERF_SAMPLE_TIME)
		take64(&c, &rec->time);
	if (st & PERF_SAMPLE_ID)
		take64(&c, &rec->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		take64(&c, &rec->stream_id);
	if (st & PERF_SAMPLE_CPU)
		take32x2(&c, &rec->cpu, &res);
	if (st & PERF_SAMPLE_IDENTIFIER)
		take64(&c, &rec->id);
	return 0;
}

/* A NUL-terminated string at @pos, before @end. */
static const char *string_at(const struct secmap_perf_data *pd, uint64_t pos, uint64_t end)
{
	const char *s = (const char *)pd->rec + pos;

	if (pos >= end || !memchr(s, 0, end - pos))
		return NULL;
	return s;
}

/*
 * Every field but those decode() sets next: 0, and pid and tid -1 until
 * the record gives them, as perf has them then. One field at a time: gcc
 * turns the copy of a constant record, as it does a memset(), into rep
 * stos, whose start-up was a sixth of secmap report's time; these stores
 * it keeps as (vector) stores.
 */
static inline void reset_record(struct secmap_perf_record *rec)
{
#if __SIZEOF_POINTER__ == 8
	_Static_assert(sizeof(*rec) == 232, "a new field of the record needs its line here");
#endif
	rec->fields = 0;
	rec->pid = -1;
	rec->tid = -1;
	rec->cpu = 0;
	rec->time = 0;
	rec->id = 0;
	rec->stream_id = 0;
	rec->ip = 0;
	rec->addr = 0;
	rec->period = 0;
	rec->callchain = NULL;
	rec->nr_callchain = 0;
	rec->start = 0;
	rec->len = 0;
	rec->pgoff = 0;
	rec->filename = NULL;
	rec->maj = 0;
	rec->min = 0;
	rec->ino = 0;
	rec->ino_generation = 0;
	rec->build_id = NULL;
	rec->build_id_len = 0;
	rec->prot = 0;
	rec->flags = 0;
	rec->comm = NULL;
	rec->ppid = 0;
	rec->ptid = 0;
	rec->ksym_type = 0;
	rec->ksym_flags = 0;
	rec->ksym_name = NULL;
}

/* A KSYMBOL whose trailer starts at @end: addr, len, ksym_type, flags, name. */
static int decode_ksymbol(const struct secmap_perf_data *pd, uint64_t end,
			  struct secmap_perf_record *rec)
{
	const uint8_t *p = pd->rec;

	if (end < 24)
		return -EBADMSG;
	rec->start = get64(p + 8);
	rec->len = get32(p + 16);
	rec->ksym_type = get16(p + 20);
	rec->ksym_flags = get16(p + 22);
	rec->ksym_name = string_at(pd, 24, end);
	if (!rec->ksym_name)
		return -EBADMSG;
	rec->kind = SECMAP_PERF_REC_KSYMBOL;
	return 0;
}

/* Decode the record of @size bytes at pd->rec. */
int pd_decode(struct secmap_perf_data *pd, uint64_t size, struct secmap_perf_record *rec)
{
	const uint8_t *p = pd->rec;
	uint64_t end;
	uint32_t pid, tid;
	int err;

	reset_record(rec);
	rec->type = get32(p);
	rec->misc = get16(p + 4);
	rec->cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	rec->size = (uint16_t)size;
	rec->event = SECMAP_PERF_EVENT_NONE;
	rec->kind = SECMAP_PERF_REC_OTHER;

	if (rec->type == PERF_RECORD_SAMPLE) {
		rec->kind = SECMAP_PERF_REC_SAMPLE;
		return decode_sample(pd, size, rec);
	}
	if (rec->type == PERF_RECORD_FINISHED_ROUND) {
		rec->kind = SECMAP_PERF_REC_FINISHED_ROUND;
		return 0;
	}
	err = decode_trailer(pd, size, rec, &end);
	if (err)
		return err;
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		/* pid, tid, start, len, pgoff; MMAP2: 24 bytes of ids, prot, flags. */
		if (end < (rec->type == PERF_RECORD_MMAP ? 40 : 72))
			return -EBADMSG;
		pid = get32(p + 8);
		tid = get32(p + 12);
		rec->start = get64(p + 16);
		rec->len = get64(p + 24);
		rec->pgoff = get64(p + 32);
		if (rec->type == PERF_RECORD_MMAP2) {
			/*
			 * u8 size, 3 reserved bytes, 20 bytes of build-id. A
			 * size no build-id has is the major of the classic
			 * layout: a kernel (6.18 here) leaves the flag set on
			 * the records of every recording while one of them
			 * asks for build-ids (perf 7 does by default).
			 */
			if ((rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && p[40] <= 20) {
				rec->build_id_len = p[40];
				rec->build_id = p + 44;
			} else {
				rec->maj = get32(p + 40);
				rec->min = get32(p + 44);
				rec->ino = get64(p + 48);
				rec->ino_generation = get64(p + 56);
			}
			rec->prot = get32(p + 64);
			rec->flags = get32(p + 68);
		}
		rec->filename = string_at(pd, rec->type == PERF_RECORD_MMAP ? 40 : 72, end);
		if (!rec->filename)
			return -EBADMSG;
		rec->kind = rec->type == PERF_RECORD_MMAP ? SECMAP_PERF_REC_MMAP :
							    SECMAP_PERF_REC_MMAP2;
		break;
	case PERF_RECORD_COMM:
		if (end < 16)
			return -EBADMSG;
		pid = get32(p + 8);
		tid = get32(p + 12);
		rec->comm = string_at(pd, 16, end);
		if (!rec->comm)
			return -EBADMSG;
		rec->kind = SECMAP_PERF_REC_COMM;
		break;
	case PERF_RECORD_FORK:
		/* pid, ppid, tid, ptid, time */
		if (end < 32)
			return -EBADMSG;
		pid = get32(p + 8);
		rec->ppid = (int32_t)get32(p + 12);
		tid = get32(p + 16);
		rec->ptid = (int32_t)get32(p + 20);
		rec->time = get64(p + 24);
		rec->fields |= PERF_SAMPLE_TIME;
		rec->kind = SECMAP_PERF_REC_FORK;
		break;
	case PERF_RECORD_LOST:
		/* id, lost: the kernel's ring buffer was full */
		if (end < 24)
			return -EBADMSG;
		rec->id = get64(p + 8);
		rec->period = get64(p + 16);
		rec->kind = SECMAP_PERF_REC_LOST;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		/* lost: samples the kernel could not write (or perf dropped) */
		if (end < 16)
			return -EBADMSG;
		rec->period = get64(p + 8);
		rec->kind = SECMAP_PERF_REC_LOST_SAMPLES;
		return 0;
	case PERF_RECORD_KSYMBOL:
		return decode_ksymbol(pd, end, rec);
	default:
		return 0;
	}
	/* The record's own pid and tid, not the trailer's (the same, or -1 for perf's own). */
	rec->pid = (int32_t)pid;
	rec->tid = (int32_t)tid;
	rec->fields |= PERF_SAMPLE_TID;
	return 0;
}

