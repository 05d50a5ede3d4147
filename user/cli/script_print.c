// SPDX-License-Identifier: GPL-2.0
/*
 * A sample as perf script prints it (util/evsel_fprintf.c and
 * builtin-script.c's layout): comm, pid/tid, [cpu], time, period, event,
 * then the sample's frame on the same line, or its callchain a frame a
 * line; each part only if its field is chosen.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "samples.h"
#include "script_print.h"

/*
 * A sample's text, built whole and written with one call: a -g profile
 * prints tens of millions of frames, and vfprintf, then stdio's per-part
 * calls (fputs's strlen, its buffer's bookkeeping), were a third of
 * script's time.
 */
struct line {
	char *buf;
	size_t len, cap;
	bool nomem;
};

/* Room for @n more bytes, out of line; false, and @l->nomem, when out of memory. */
static bool __attribute__((noinline)) line_grow(struct line *l, size_t n)
{
	size_t cap = l->cap ? l->cap : 4096;
	char *buf;

	while (cap < l->len + n && cap <= SIZE_MAX / 2)
		cap *= 2;
	buf = cap >= l->len + n ? realloc(l->buf, cap) : NULL;
	if (!buf) {
		l->nomem = true;
		return false;
	}
	l->buf = buf;
	l->cap = cap;
	return true;
}

static inline bool line_room(struct line *l, size_t n)
{
	return __builtin_expect(l->len + n <= l->cap, 1) || line_grow(l, n);
}

static inline void put_bytes(struct line *l, const char *s, size_t n)
{
	if (line_room(l, n)) {
		memcpy(l->buf + l->len, s, n);
		l->len += n;
	}
}

static inline void put_char(struct line *l, char c)
{
	if (line_room(l, 1))
		l->buf[l->len++] = c;
}

/* @s in @width columns: right-aligned when @width > 0, left-aligned when < 0. */
static void put_padded(struct line *l, const char *s, size_t n, int width)
{
	size_t pad = (size_t)(width < 0 ? -width : width);

	pad = pad > n ? pad - n : 0;
	if (!line_room(l, n + pad))
		return;
	if (width > 0) {
		memset(l->buf + l->len, ' ', pad);
		l->len += pad;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	if (width < 0) {
		memset(l->buf + l->len, ' ', pad);
		l->len += pad;
	}
}

/* @v in @base at the end of @end: where it starts; at least @digits digits, zero-padded. */
static char *digits_of(char *end, uint64_t v, unsigned int base, int digits)
{
	char *p = end;

	do {
		*--p = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (end - p < digits)
		*--p = '0';
	return p;
}

/* printf's %*d (%-*d for a negative @width), %0*u with @zeros. */
static void put_int(struct line *l, int64_t v, int width, int zeros)
{
	char buf[24], *end = buf + sizeof(buf), *p;
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;

	p = digits_of(end, mag, 10, zeros);
	if (v < 0)
		*--p = '-';
	put_padded(l, p, (size_t)(end - p), width);
}

/*
 * text_safe() of a frame's name and its length, remembered by its
 * address: the session's and the resolver's names stay put and unchanged
 * while it is open, and a profile names the same few thousand functions
 * millions of times.
 */
static void put_name(struct line *l, const char *s)
{
	static struct {
		const char *name;
		size_t len;
	} known[4096];
	size_t slot = ((uintptr_t)s >> 3) % 4096;
	const char *safe;

	if (known[slot].name != s) {
		safe = text_safe(s);
		if (safe != s) {
			put_bytes(l, safe, strlen(safe));
			return;
		}
		known[slot].name = s;
		known[slot].len = strlen(s);
	}
	put_bytes(l, s, known[slot].len);
}

/*
 * A frame as perf script prints it: @lead (a tab in a callchain), the
 * address in 16 columns, " sym+0x1f" ("[unknown]" without a symbol) and
 * " (dso)", each as @fields asks, and the line's end.
 */
static void put_frame(struct line *l, char lead, unsigned int fields, const struct secmap_frame *f)
{
	char buf[24], *end = buf + sizeof(buf), *p;

	if (lead)
		put_char(l, lead);
	p = digits_of(end, f->ip, 16, 0);
	put_padded(l, p, (size_t)(end - p), 16);
	if (fields & FIELD_SYM) {
		put_char(l, ' ');
		if (f->symbol) {
			put_name(l, f->symbol);
			if (fields & FIELD_SYMOFF) {
				p = digits_of(end, f->symbol_offset, 16, 0);
				put_bytes(l, "+0x", 3);
				put_bytes(l, p, (size_t)(end - p));
			}
		} else {
			put_bytes(l, "[unknown]", 9);
		}
	}
	if (fields & FIELD_DSO) {
		put_bytes(l, " (", 2);
		put_name(l, f->dso);
		put_char(l, ')');
	}
	put_char(l, '\n');
}

static const struct {
	const char *name;
	unsigned int field;
} field_names[] = {
	{ "comm", FIELD_COMM }, { "tid", FIELD_TID }, { "pid", FIELD_PID },
	{ "time", FIELD_TIME }, { "cpu", FIELD_CPU }, { "event", FIELD_EVENT },
	{ "period", FIELD_PERIOD }, { "ip", FIELD_IP }, { "sym", FIELD_SYM },
	{ "symoff", FIELD_SYMOFF }, { "dso", FIELD_DSO },
};

static unsigned int field_named(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (strlen(field_names[i].name) == len && !strncmp(field_names[i].name, name, len))
			return field_names[i].field;
	return 0;
}

int script_fields(const char *arg, struct script_print *print)
{
	const char *p = arg, *end;
	bool change = *arg == '+' || *arg == '-';
	unsigned int f, out = change ? SCRIPT_DEFAULT_FIELDS : 0;
	char sign;

	for (;;) {
		sign = *p == '+' || *p == '-' ? *p++ : 0;
		end = p + strcspn(p, ",");
		f = field_named(p, (size_t)(end - p));
		if (!f || (!change && sign) || (change && !sign)) {
			p_err("script: -F takes a list of comm, tid, pid, time, cpu, event, period, "
			      "ip, sym, symoff and dso, or one of +field and -field, not '%s'",
			      text_safe(arg));
			return SECMAP_EXIT_USAGE;
		}
		out = sign == '-' ? out & ~f : out | f;
		if (!*end)
			break;
		p = end + 1;
	}
	/* perf's rules: a function or file is found from the address. */
	if ((out & (FIELD_SYM | FIELD_DSO)) && !(out & FIELD_IP)) {
		p_err("script: -F sym and dso need ip: the function and file are the address's");
		return SECMAP_EXIT_USAGE;
	}
	print->fields = out;
	print->fields_set = !change;
	return SECMAP_EXIT_OK;
}

int script_print_begin(struct script_print *p, struct sample_walk *walk)
{
	static const struct {
		unsigned int field;
		uint64_t bit;
		const char *name;
	} need[] = { { FIELD_CPU, PERF_SAMPLE_CPU, "cpu" }, { FIELD_TIME, PERF_SAMPLE_TIME, "time" } };
	const struct secmap_perf_event *e;
	size_t i, j;

	/* perf right-aligns event names in the width of the longest. */
	for (i = 0; i < sample_walk_nr_events(walk); i++)
		if (strlen(sample_walk_event_name(walk, i)) > (size_t)p->name_width)
			p->name_width = (int)strlen(sample_walk_event_name(walk, i));
	if (!p->fields_set)
		return SECMAP_EXIT_OK;
	for (i = 0; i < sample_walk_nr_events(walk); i++) {
		e = sample_walk_event(walk, i);
		for (j = 0; e && j < sizeof(need) / sizeof(need[0]); j++) {
			if (!(p->fields & need[j].field) || (e->sample_type & need[j].bit))
				continue;
			p_err("script: samples of '%s' do not have the %s attribute: cannot print "
			      "the '%s' field", text_safe(e->name), need[j].name, need[j].name);
			return SECMAP_EXIT_USAGE;
		}
	}
	return SECMAP_EXIT_OK;
}

/* perf script's sample header: the fields chosen before the frames. */
static void put_head(struct line *l, const struct script_print *p, const struct secmap_sample *s,
		     const char *event, bool chain)
{
	unsigned int f = p->fields;
	const char *text;

	/*
	 * The comm unpadded when a callchain follows (stackcollapse-perf.pl
	 * and speedscope want it at the line's start), else in 16 columns.
	 */
	if (f & FIELD_COMM) {
		text = text_safe(s->comm);
		put_padded(l, text, strlen(text), chain ? 0 : 16);
		put_char(l, ' ');
	}
	if ((f & FIELD_PID) && (f & FIELD_TID)) {
		put_int(l, s->pid, 5, 0);
		put_char(l, '/');
		put_int(l, s->tid, -5, 0);
		put_char(l, ' ');
	} else if (f & (FIELD_PID | FIELD_TID)) {
		put_int(l, f & FIELD_PID ? s->pid : s->tid, 5, 0);
		put_char(l, ' ');
	}
	if ((f & FIELD_CPU) && s->has_cpu) {
		put_char(l, '[');
		put_int(l, s->cpu, 0, 3);
		put_bytes(l, "] ", 2);
	}
	if ((f & FIELD_TIME) && s->has_time) {
		put_int(l, (int64_t)(s->time / 1000000000), 5, 0);
		put_char(l, '.');
		if (p->ns)
			put_int(l, (int64_t)(s->time % 1000000000), 0, 9);
		else
			put_int(l, (int64_t)(s->time % 1000000000 / 1000), 0, 6);
		put_bytes(l, ": ", 2);
	}
	if (f & FIELD_PERIOD) {
		put_int(l, (int64_t)s->period, 10, 0);
		put_char(l, ' ');
	}
	if (f & FIELD_EVENT) {
		text = text_safe(event);
		put_padded(l, text, strlen(text), p->name_width);
		put_bytes(l, ": ", 2);
	}
}

/* Written out once this much is waiting: stdio's buffer would copy it once more. */
#define PRINT_FLUSH_AT	(64 << 10)

int script_print_sample(FILE *out, struct script_print *p, const struct secmap_sample *s,
			const char *event)
{
	struct line l = { .buf = p->line, .len = p->line_len, .cap = p->line_cap };
	unsigned int f = p->fields;
	bool chain = (f & FIELD_IP) && s->event_callchain;
	size_t i;

	put_head(&l, p, s, event, chain);
	if (!(f & FIELD_IP)) {
		put_char(&l, '\n');
	} else if (!chain) {
		/* A chain perf found corrupt, or empty, is still a chain: no frame. */
		put_frame(&l, ' ', f, s->frame);
	} else {
		put_char(&l, '\n');
		for (i = 0; i < s->nr_chain; i++)
			put_frame(&l, '\t', f, secmap_frame_at(s->chain, i));
		put_char(&l, '\n');
	}
	p->line = l.buf;
	p->line_cap = l.cap;
	if (l.nomem)
		return -ENOMEM;	/* this sample's part dropped */
	p->line_len = l.len;
	if (p->line_len >= PRINT_FLUSH_AT)
		script_print_flush(p, out);
	return 0;
}

void script_print_flush(struct script_print *p, FILE *out)
{
	if (p->line_len)
		fwrite_unlocked(p->line, 1, p->line_len, out);
	p->line_len = 0;
}

void script_print_end(struct script_print *p, FILE *out)
{
	script_print_flush(p, out);
	free(p->line);
	p->line = NULL;
	p->line_cap = 0;
}
