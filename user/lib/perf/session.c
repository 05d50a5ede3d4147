// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Walk a perf.data's samples and resolve every frame: kernel addresses
 * through the recording (libsecmap's resolver), user ones to the file
 * mapped there. perf.data's own MMAP records are used for user space only:
 * for modules they hold one map per module at its base, which is what
 * secmap replaces.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "perf_data.h"
#include "session.h"

/* Into @f: the file @m maps, and the function at @ip in it; 0 or -ENOMEM. */
static int user_frame(struct secmap_session *w, const struct user_map *m, uint64_t ip,
		      struct secmap_frame *f)
{
	f->module = m->path;
	f->dso = m->path;
	f->map_start = m->start;
	f->map_end = m->end;
	f->file_offset = m->identity ? ip : ip - m->start + m->pgoff;
	return libsecmap_user_symbol(&w->user_syms, m->path, f->file_offset, f);
}

/*
 * Into @f, which the caller has zeroed: the file mapped at @ip in @t at
 * @time (walk_find_map()), and the function there. 0 or -ENOMEM.
 */
static int resolve_user(struct secmap_session *w, struct task *t, uint64_t ip, uint64_t time,
			struct secmap_frame *f)
{
	const struct user_map *m;

	f->ip = ip;
	f->user = true;
	f->dso = "[unknown]";
	m = t ? walk_find_map(t, ip, time) : NULL;
	return m ? user_frame(w, m, ip, f) : 0;
}

/*
 * A kernel frame at @time from the resolver's answer @r, or its error
 * @err: then perf's kernel maps may know it.
 */
static int kernel_frame(struct secmap_session *w, int err, const struct secmap_resolution *r,
			uint64_t time, struct secmap_frame *f)
{
	char buf[300];

	if (err) {
		f->dso = "[unknown]";
		return w->kernel.nr ? walk_kernel_fallback(w, f->ip, time, f) : 0;
	}
	f->module = r->module;
	f->symbol = r->symbol;
	f->symbol_offset = r->symbol_offset;
	if (r->kind == SECMAP_RESOLVED_KERNEL) {
		f->dso = "[kernel.kallsyms]";
		return 0;
	}
	f->section = r->section;
	f->section_offset = r->section_offset;
	f->map_start = r->map_start;
	f->file_offset = r->file_offset;
	f->build_id = r->build_id;
	f->build_id_len = r->build_id_len;
	/*
	 * The resolver's names stay put, so one pointer is one module, and a
	 * module's samples come in runs: its dso is formatted and hashed once
	 * a run, not once a sample.
	 */
	if (r->module != w->last_module) {
		snprintf(buf, sizeof(buf), "[%s]", r->module);
		w->last_module_dso = walk_intern(&w->strings, buf);
		if (!w->last_module_dso)
			return -ENOMEM;
		w->last_module = r->module;
	}
	f->dso = w->last_module_dso;
	return 0;
}

static size_t core_slot(uint64_t ip)
{
	return (size_t)((ip ^ ip >> 12) & (CORE_ANSWERS - 1));
}

/* Resolve the kernel frames waiting in the batch; remember the core's answers. */
static int flush_kernel_frames(struct secmap_session *w)
{
	size_t i, n = w->nr_kernel;

	w->nr_kernel = 0;
	w->kernel_res[0].sz = sizeof(w->kernel_res[0]);
	secmap_resolve_many(w->res, w->kernel_ips, w->kernel_times, n, w->kernel_res,
			    w->kernel_ret);
	for (i = 0; i < n; i++) {
		struct secmap_frame *f = w->kernel_frames[i];

		if (kernel_frame(w, w->kernel_ret[i], &w->kernel_res[i], w->kernel_times[i], f))
			return -ENOMEM;
		if (!w->kernel_ret[i] && w->kernel_res[i].kind == SECMAP_RESOLVED_KERNEL &&
		    f->ip - w->core_lo < w->core_len)
			w->core_answers[core_slot(f->ip)] = (struct core_answer){
				.ip = f->ip, .module = f->module, .dso = f->dso, .symbol = f->symbol,
				.symbol_offset = f->symbol_offset,
			};
	}
	return 0;
}

/*
 * @f, a kernel frame at @ip, into the batch, which read_sample() keeps room
 * in. @f must stay where it is until the batch is resolved: a sample read
 * ahead, or the chain buffer that fill_ahead() hands to it. A core
 * kernel address answered before is answered at once.
 */
static void add_kernel_frame(struct secmap_session *w, uint64_t ip, uint64_t time, struct secmap_frame *f)
{
	const struct core_answer *a;

	f->ip = ip;
	if (ip - w->core_lo < w->core_len) {
		a = &w->core_answers[core_slot(ip)];
		if (a->ip == ip && a->dso) {
			/* What kernel_frame() made of the resolver's answer. */
			f->module = a->module;
			f->dso = a->dso;
			f->symbol = a->symbol;
			f->symbol_offset = a->symbol_offset;
			return;
		}
	}
	w->kernel_frames[w->nr_kernel] = f;
	w->kernel_ips[w->nr_kernel] = ip;
	w->kernel_times[w->nr_kernel++] = time;
}

/* The clock of the samples' times, from the events; -1 if it is none a recording has. */
static int samples_clock(const struct secmap_perf_data *pd, enum secmap_clock *clock)
{
	size_t i, n = secmap_perf_data_nr_events(pd);
	int mono = -1;

	for (i = 0; i < n; i++) {
		const struct secmap_perf_event *e = secmap_perf_data_event(pd, i);
		int this = e->use_clockid ? (e->clockid == CLOCK_MONOTONIC_ID ? 1 : 2) : 0;

		if (this == 2 || (mono >= 0 && this != mono))
			return -1;
		mono = this;
	}
	*clock = mono == 1 ? SECMAP_CLOCK_MONO : SECMAP_CLOCK_LOCAL;
	return 0;
}

static int events_info(struct secmap_session *w)
{
	size_t i;

	w->nr_events = secmap_perf_data_nr_events(w->pd);
	w->events = calloc(w->nr_events ? w->nr_events : 1, sizeof(*w->events));
	if (!w->events)
		return -ENOMEM;
	for (i = 0; i < w->nr_events; i++) {
		const struct secmap_perf_event *e = secmap_perf_data_event(w->pd, i);

		/* Without PERIOD in the samples, perf takes the event's fixed one (-c). */
		w->events[i].period = !e->freq && e->sample_period ? e->sample_period : 1;
		w->events[i].callchain = e->sample_type & PERF_SAMPLE_CALLCHAIN;
	}
	return 0;
}

/*
 * The build-ids perf recorded for user files (its build-id table), so
 * that their functions come from that build. A corrupt table ends the
 * list where it goes wrong: the files' own symbols serve for the rest.
 */
static int recorded_build_ids(struct secmap_session *w)
{
	struct pd_build_id e;
	uint64_t pos = 0;
	const char *path;

	while (pd_next_build_id(w->pd, &pos, &e) == 1) {
		if ((e.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER || e.pid != -1)
			continue;
		path = walk_intern(&w->strings, e.filename);
		if (!path || libsecmap_user_syms_recorded(&w->user_syms, path, e.id, e.id_len))
			return -ENOMEM;
	}
	libsecmap_reason_clear();
	return 0;
}

SECMAP_EXPORT int secmap_session_open(const char *path, const struct secmap_session_opts *opts,
				      struct secmap_session **sp)
{
	SECMAP_OPTS(secmap_session_opts, o);
	struct secmap_session *w;
	int err;

	if (!sp)
		return libsecmap_err(-EINVAL);
	*sp = NULL;
	libsecmap_reason_clear();
	err = opts ? libsecmap_struct_in(opts, offsetofend(struct secmap_session_opts, flags), &o,
					 sizeof(o)) : 0;
	if (err)
		return libsecmap_err(err);
	w = calloc(1, sizeof(*w));
	if (!w)
		return libsecmap_err(-ENOMEM);
	libsecmap_hashmap_init(&w->strings.map);
	libsecmap_hashmap_init(&w->processes.by_id);
	libsecmap_user_syms_init(&w->user_syms);
	libsecmap_hashmap_init(&w->threads.by_id);
	libsecmap_hashmap_init(&w->kernel.by_id);
	w->input = strdup(path ? path : "perf.data");
	w->want_chain = o.flags & SECMAP_SESSION_CHAIN;
	w->ordered = o.flags & SECMAP_SESSION_ORDERED;
	err = w->input ? secmap_perf_data_open(w->input, &w->pd) : -ENOMEM;
	if (!err) {
		w->ahead = calloc(AHEAD, sizeof(*w->ahead));
		err = w->ahead ? events_info(w) : -ENOMEM;
	}
	if (!err)
		err = recorded_build_ids(w);
	if (!err)
		err = walk_prescan(w);
	if (err) {
		secmap_session_close(w);
		return libsecmap_err(err);
	}
	*sp = w;
	return 0;
}

SECMAP_EXPORT int secmap_session_clock(const struct secmap_session *s, enum secmap_clock *clock)
{
	if (!s || !clock)
		return libsecmap_err(-EINVAL);
	return samples_clock(s->pd, clock) ? libsecmap_err(-EINVAL) : 0;
}

SECMAP_EXPORT int secmap_session_set_resolver(struct secmap_session *s,
					      const struct secmap_resolver *res)
{
	uint64_t lo, len;

	if (!s || !res || s->read_ended || s->nr_ahead)
		return libsecmap_err(-EINVAL);
	s->res = res;
	s->core_len = 0;
	free(s->core_answers);
	s->core_answers = NULL;
	if (libsecmap_resolver_core_span(res, &lo, &len))
		return 0;
	/* Without the memory, every frame goes through the resolver. */
	s->core_answers = calloc(CORE_ANSWERS, sizeof(*s->core_answers));
	if (s->core_answers) {
		s->core_lo = lo;
		s->core_len = len;
	}
	return 0;
}

/*
 * A frame cleared for filling: one a sample, and one a callchain entry.
 * In two parts: gcc clears the whole (112 bytes) with a rep stos, whose
 * start-up cost was 7% of a kernel-only report; parts of at most 64
 * bytes are a few vector stores.
 */
static inline void clear_frame(struct secmap_frame *f)
{
	_Static_assert(sizeof(*f) > 64 && sizeof(*f) <= 128, "a frame in two parts of 64 bytes");
	memset(f, 0, 64);
	memset((char *)f + 64, 0, sizeof(*f) - 64);
	f->sz = sizeof(*f);
}

/*
 * 1 and *@s, 2 at a FINISHED_ROUND, 0 at the end, or an exit code's
 * negation (the error said in w->read_error, not yet printed). Its kernel
 * frames are left in the batch, to resolve (add_kernel_frame()).
 */
/* The sample's callchain, resolved into w->chain: 0 or -ENOMEM. */
static int read_chain(struct secmap_session *w, const struct secmap_perf_record *rec, struct task *t,
		      uint64_t time, struct secmap_sample *s)
{
	enum { CHAIN_USER, CHAIN_KERNEL, CHAIN_HV } mode;
	size_t i, n, batched;

	if (rec->nr_callchain > w->chain_cap) {
		struct secmap_frame *c = realloc(w->chain, rec->nr_callchain * sizeof(*c));

		if (!c)
			return -ENOMEM;
		w->chain = c;
		w->chain_cap = rec->nr_callchain;
	}
	/*
	 * Read as perf reads a chain: addresses are the user's until a
	 * marker says otherwise; the hypervisor's are nobody's to name;
	 * any other marker (a guest's, or a word of a broken user stack
	 * that falls in the markers' range) makes the whole chain
	 * corrupt, and perf drops it, keeping the sample.
	 */
	mode = CHAIN_USER;
	batched = w->nr_kernel;
	for (i = 0, n = 0; i < rec->nr_callchain && n < MAX_STACK; i++) {
		uint64_t ip = rec->callchain[i];

		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL)
				mode = CHAIN_KERNEL;
			else if (ip == PERF_CONTEXT_USER)
				mode = CHAIN_USER;
			else if (ip == PERF_CONTEXT_HV)
				mode = CHAIN_HV;
			else {
				w->nr_kernel = batched;	/* its kernel frames too */
				n = 0;
				break;
			}
			continue;
		}
		clear_frame(&w->chain[n]);
		if (mode == CHAIN_HV) {
			w->chain[n].ip = ip;
			w->chain[n].dso = "[unknown]";
		} else if (mode == CHAIN_KERNEL) {
			add_kernel_frame(w, ip, time, &w->chain[n]);
		} else if (resolve_user(w, t, ip, time, &w->chain[n])) {
			return -ENOMEM;
		}
		n++;
	}
	s->chain = w->chain;
	s->nr_chain = n;
	return 0;
}

static int read_sample(struct secmap_session *w, struct secmap_sample *s, struct secmap_frame *own)
{
	static const struct event_info no_event = { .period = 1 };
	struct secmap_perf_record rec;
	const struct event_info *ev;
	struct task *t;
	uint64_t time;
	int ret;

	/* Not zeroed per sample: the reader sets every field (reset_record(), perf_decode.c). */
	rec.sz = sizeof(rec);

	while ((ret = secmap_perf_data_next(w->pd, &rec)) == 1) {
		switch (rec.kind) {
		case SECMAP_PERF_REC_SAMPLE:
			break;
		case SECMAP_PERF_REC_FINISHED_ROUND:
			return 2;
		default:
			continue;
		}
		/* The sample's fields are set one by one below: see reset_record(), perf_decode.c. */
		clear_frame(own);
		s->sz = sizeof(*s);
		s->frame = own;
		s->chain = NULL;
		s->nr_chain = 0;
		/* Room in the batch for this sample's ip and a whole chain. */
		if (w->nr_kernel > KERNEL_BATCH - 1 - MAX_STACK && flush_kernel_frames(w))
			goto nomem;
		s->event = rec.event;
		s->pid = rec.pid;
		s->tid = rec.tid;
		s->cpu = rec.cpu;
		s->has_cpu = rec.fields & PERF_SAMPLE_CPU;
		s->has_time = rec.fields & PERF_SAMPLE_TIME;
		s->time = rec.time;
		ev = rec.event < w->nr_events ? &w->events[rec.event] : &no_event;
		s->period = rec.fields & PERF_SAMPLE_PERIOD ? rec.period : ev->period;
		s->event_callchain = ev->callchain;
		time = s->has_time ? rec.time : SECMAP_TIME_ANY;
		/* The tables are complete after walk_prescan(): a task's samples come in runs. */
		if (!w->last_task_set || rec.pid != w->last_pid) {
			w->last_task = walk_find_task(&w->processes, rec.pid, false);
			w->last_pid = rec.pid;
			w->last_task_set = true;
		}
		if (!w->last_thread_set || rec.tid != w->last_tid) {
			w->last_thread = walk_find_task(&w->threads, rec.tid, false);
			w->last_tid = rec.tid;
			w->last_thread_set = true;
			w->comm_from = w->comm_until = 0;
		}
		t = w->last_task;
		s->comm = NULL;
		if (w->last_thread && (rec.fields & PERF_SAMPLE_TID)) {
			if (time < w->comm_from || time >= w->comm_until)
				w->last_comm = walk_comm_span(w->last_thread, time, &w->comm_from,
							      &w->comm_until);
			s->comm = w->last_comm;
		}
		/* The idle task never has a COMM record; perf calls it swapper. */
		if (!s->comm && rec.pid == 0)
			s->comm = "swapper";
		else if (!s->comm && !(s->comm = walk_unnamed_comm(w, rec.tid)))
			goto nomem;
		/* @own was zeroed above: filled once, not cleared twice. */
		if (rec.cpumode == PERF_RECORD_MISC_KERNEL) {
			add_kernel_frame(w, rec.ip, time, own);
		} else if (rec.cpumode == PERF_RECORD_MISC_USER) {
			if (resolve_user(w, t, rec.ip, time, own))
				goto nomem;
		} else {
			own->ip = rec.ip;
			own->dso = "[unknown]";
		}
		if (!w->want_chain || !rec.nr_callchain)
			return 1;
		if (read_chain(w, &rec, t, time, s))
			goto nomem;
		return 1;
	}
	if (ret < 0) {
		snprintf(w->read_error, sizeof(w->read_error), "record at offset %llu: %s",
			 (unsigned long long)secmap_perf_data_offset(w->pd),
			 ret == -EFBIG ? "compressed records decompress to more than 64 MiB a "
					 "batch, or 4096 times the data read so far" :
			 "truncated or corrupt");
		return ret == -EFBIG ? -EFBIG : -EBADMSG;
	}
	return 0;
nomem:
	snprintf(w->read_error, sizeof(w->read_error), "out of memory");
	return -ENOMEM;
}

/*
 * Read up to AHEAD samples (FINISHED_ROUNDs among them), stopping after
 * the end or an error, and resolve their kernel frames in one batch.
 */
static int __attribute__((noinline)) fill_ahead(struct secmap_session *w)
{
	struct secmap_frame *chain;
	struct ahead *a;
	size_t n = 0, cap;

	w->nr_ahead = w->ahead_pos = 0;
	while (n < AHEAD) {
		a = &w->ahead[n++];
		a->ret = read_sample(w, &a->s, &a->frame);
		if (a->ret != 1 && a->ret != 2)
			break;
		/*
		 * The chain was read into the walk's buffer: the sample keeps
		 * it (its kernel frames wait there), and the walk takes the
		 * one this item had, whose sample was handed out already.
		 */
		if (a->ret == 1 && a->s.nr_chain) {
			chain = a->chain;
			cap = a->chain_cap;
			a->chain = w->chain;
			a->chain_cap = w->chain_cap;
			w->chain = chain;
			w->chain_cap = cap;
		}
	}
	w->nr_ahead = n;
	return flush_kernel_frames(w);
}

/*
 * The end, or an error, when the caller reaches the item that says so:
 * said once, answered from then on.
 */
static int __attribute__((noinline)) read_end(struct secmap_session *w, int ret)
{
	w->read_ended = true;
	w->read_end = ret;
	if (ret < 0 && w->read_error[0])
		libsecmap_reason(ret, "%s", w->read_error);
	return ret;
}

/*
 * read_sample()'s answers, in its order, by way of the samples read ahead:
 * *@s points to the item. Inlined, and the rest kept out of line: handing
 * out a sample read ahead is then a few instructions.
 */
static inline __attribute__((always_inline)) int
next_sample(struct secmap_session *w, const struct secmap_sample **s)
{
	const struct ahead *a;

	if (__builtin_expect(w->ahead_pos == w->nr_ahead, 0)) {
		if (w->read_ended)
			return w->read_end;
		if (fill_ahead(w)) {
			/* Their kernel frames are not resolved: none is handed out. */
			w->nr_ahead = w->ahead_pos;
			return read_end(w, -ENOMEM);
		}
	}
	a = &w->ahead[w->ahead_pos++];
	*s = &a->s;
	if (__builtin_expect(a->ret == 1 || a->ret == 2, 1))
		return a->ret;
	return read_end(w, a->ret);
}

static int cmp_queued(const void *a, const void *b)
{
	const struct queued *x = a, *y = b;

	if (x->s.time != y->s.time)
		return x->s.time < y->s.time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void free_queued(struct queued *q, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(q[i].chain);
}

static size_t queued_bytes(const struct queued *q)
{
	return sizeof(*q) + q->s.nr_chain * sizeof(*q->chain);
}

static void heap_up(struct queued *h, size_t i)
{
	struct queued q = h[i];

	for (; i && cmp_queued(&q, &h[(i - 1) / 2]) < 0; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = q;
}

/* Take the oldest off the heap @h of @n. */
static struct queued heap_pop(struct queued *h, size_t n)
{
	struct queued top = h[0], last = h[n - 1];
	size_t i = 0, c;

	n--;
	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && cmp_queued(&h[c + 1], &h[c]) < 0)
			c++;
		if (cmp_queued(&last, &h[c]) <= 0)
			break;
		h[i] = h[c];
		i = c;
	}
	if (n)
		h[i] = last;
	return top;
}

/*
 * Samples held back for time order, at most: a round of perf's (one pass
 * over every CPU's buffer) is far less. A file with no FINISHED_ROUND (a
 * tool that writes none, or a crafted one) held all: 1.1 GB for a 150 MB
 * file. Past it the older half is handed out, as perf's ordered events do
 * when they reach their own limit (--queue-size).
 */
#define QUEUE_BYTES_MAX	(128u << 20)

/* Hold @s back, with a copy of its callchain (the walk reuses its own). */
static int queue_sample(struct secmap_session *w, const struct secmap_sample *s)
{
	struct queued *q;

	if (libsecmap_grow_in(&w->pending, &w->cap_pending, w->nr_pending, sizeof(*q), 1024))
		return -ENOMEM;
	q = &w->pending[w->nr_pending];
	q->s = *s;
	q->frame = *s->frame;
	q->seq = w->seq++;
	q->chain = NULL;
	if (s->nr_chain) {
		q->chain = malloc(s->nr_chain * sizeof(*q->chain));
		if (!q->chain)
			return -ENOMEM;
		memcpy(q->chain, s->chain, s->nr_chain * sizeof(*q->chain));
	}
	q->s.chain = q->chain;
	w->pending_bytes += queued_bytes(q);
	heap_up(w->pending, w->nr_pending++);
	if (s->time > w->seen_max)
		w->seen_max = s->time;
	return 0;
}

/*
 * Move the pending samples at or before @upto, and at least @least of the
 * oldest, to the due list, by time. O(log n) each: a sample far ahead
 * stays in the heap without being read again at every round.
 */
static int make_due(struct secmap_session *w, uint64_t upto, size_t least)
{
	struct queued *d;

	free_queued(w->due, w->nr_due);
	w->nr_due = 0;
	w->due_pos = 0;
	while (w->nr_pending && (w->nr_due < least || w->pending[0].s.time <= upto)) {
		if (libsecmap_grow_in(&w->due, &w->cap_due, w->nr_due, sizeof(*d), 1024))
			return -ENOMEM;
		d = &w->due[w->nr_due++];
		*d = heap_pop(w->pending, w->nr_pending--);
		d->s.chain = d->chain;
		w->pending_bytes -= queued_bytes(d);
	}
	return 0;
}

/* Past QUEUE_BYTES_MAX, the older half is due now. */
static int queue_full(struct secmap_session *w)
{
	if (w->pending_bytes <= QUEUE_BYTES_MAX)
		return 0;
	if (!w->queue_capped)
		libsecmap_pr(SECMAP_PRINT_WARN, "over %u MiB of samples between two rounds: "
			     "the older half handed out early, maybe out of time order",
			     QUEUE_BYTES_MAX >> 20);
	w->queue_capped = true;
	return make_due(w, 0, w->nr_pending / 2);
}

/*
 * Samples in time order, as perf script gives them, in bounded memory:
 * perf writes each CPU's buffer in turn and marks the end of a pass over
 * them with FINISHED_ROUND. Every sample of a later pass is newer than the
 * newest of the pass before the last one, so those are due at each round
 * (perf's ordered events do the same). Samples without a time stay in
 * file order.
 */
static int session_next(struct secmap_session *w, const struct secmap_sample **s)
{
	int ret;

	if (!w->ordered) {
		while ((ret = next_sample(w, s)) == 2)
			;
		return ret;
	}
	for (;;) {
		if (w->due_pos < w->nr_due) {
			struct queued *d = &w->due[w->due_pos++];

			/* Here: growing the due list moved the frames. */
			d->s.frame = &d->frame;
			*s = &d->s;
			return 1;
		}
		if (w->eof) {
			if (!w->nr_pending)
				return 0;
			ret = make_due(w, UINT64_MAX, 0);
		} else {
			ret = next_sample(w, s);
			if (ret < 0)
				return ret;
			if (ret == 1 && !(*s)->has_time)
				return 1;
			if (ret == 1) {
				ret = queue_sample(w, *s);
				if (!ret)
					ret = queue_full(w);
			} else if (ret == 2) {
				ret = make_due(w, w->round_max, 0);
				w->round_max = w->seen_max;
			} else {
				w->eof = true;
				continue;
			}
		}
		if (ret)
			return -ENOMEM;
	}
}

SECMAP_EXPORT int secmap_session_next(struct secmap_session *w, const struct secmap_sample **s)
{
	int ret;

	if (!w || !s || !w->res)
		return libsecmap_err(-EINVAL);
	ret = session_next(w, s);
	return ret < 0 ? libsecmap_err(ret) : ret;
}

SECMAP_EXPORT int secmap_session_process(struct secmap_session *s,
					 const struct secmap_session_tool *tool, void *ctx)
{
	SECMAP_OPTS(secmap_session_tool, t);
	const struct secmap_sample *sample;
	int ret;

	if (!s || !tool)
		return libsecmap_err(-EINVAL);
	ret = libsecmap_struct_in(tool, offsetofend(struct secmap_session_tool, sample), &t,
				  sizeof(t));
	if (!ret && !t.sample)
		ret = -EINVAL;
	if (ret)
		return libsecmap_err(ret);
	while ((ret = secmap_session_next(s, &sample)) == 1) {
		ret = t.sample(ctx, sample);
		if (ret)
			return ret;
	}
	return ret;
}

SECMAP_EXPORT size_t secmap_session_nr_events(const struct secmap_session *w)
{
	return w ? secmap_perf_data_nr_events(w->pd) : 0;
}

SECMAP_EXPORT const char *secmap_session_event_name(const struct secmap_session *w, size_t idx)
{
	return w ? secmap_perf_data_event_name(w->pd, idx) : NULL;
}

SECMAP_EXPORT int secmap_session_stats(const struct secmap_session *w,
				       struct secmap_session_stats *stats)
{
	SECMAP_OPTS(secmap_session_stats, st);
	int err;

	if (!w || !stats)
		return libsecmap_err(-EINVAL);
	st.lost_chunks = w->lost.chunks;
	st.lost_events = w->lost.events;
	st.lost_samples = w->lost.samples;
	st.forks_capped = w->inherit_capped ? walk_inherit_budget(w) : 0;
	st.order_relaxed = w->queue_capped ? QUEUE_BYTES_MAX : 0;
	err = libsecmap_struct_out(stats, offsetofend(struct secmap_session_stats, order_relaxed),
				   &st, sizeof(st));
	return err ? libsecmap_err(err) : 0;
}

SECMAP_EXPORT void secmap_session_close(struct secmap_session *w)
{
	size_t i;

	if (!w)
		return;
	secmap_perf_data_close(w->pd);
	free(w->input);
	free(w->events);
	free(w->known_modules);
	libsecmap_user_syms_free(&w->user_syms);
	walk_free_interned(&w->strings);
	walk_free_tasks(&w->processes);
	walk_free_tasks(&w->threads);
	walk_free_tasks(&w->kernel);
	free(w->chain);
	free(w->core_answers);
	for (i = 0; w->ahead && i < AHEAD; i++)
		free(w->ahead[i].chain);
	free(w->ahead);
	free_queued(w->pending, w->nr_pending);
	free(w->pending);
	free_queued(w->due, w->nr_due);
	free(w->due);
	free(w);
}
