// SPDX-License-Identifier: GPL-2.0
/*
 * A sample as perf script prints it (util/evsel_fprintf.c and
 * builtin-script.c's layout): comm, pid/tid, [cpu], time, period, event,
 * then the sample's frame on the same line, or its callchain a frame a
 * line; each part only if its field is chosen.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include <linux/perf_event.h>

#include "samples.h"
#include "script_print.h"

/*
 * @v in hex at the end of @buf (@end), right-aligned in @width columns:
 * where it starts. printf's %16lx, without printf: a -g profile prints
 * tens of millions of these, and vfprintf was a fifth of script's time.
 */
static char *hex_right(char *end, uint64_t v, int width)
{
	char *p = end;

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (end - p < width)
		*--p = ' ';
	return p;
}

/*
 * text_safe() of a frame's name, remembered by its address: the
 * session's and the resolver's names stay put and unchanged while it is
 * open, and a profile names the same few thousand functions millions of
 * times.
 */
static const char *name_safe(const char *s)
{
	static const char *known[4096];
	const char **slot = &known[((uintptr_t)s >> 3) % 4096];
	const char *safe;

	if (*slot == s)
		return s;
	safe = text_safe(s);
	if (safe == s)
		*slot = s;
	return safe;
}

/*
 * A frame as perf script prints it: @lead (a tab in a callchain), the
 * address in 16 columns, " sym+0x1f" ("[unknown]" without a symbol) and
 * " (dso)", each as @fields asks, and the line's end.
 */
static void print_frame(FILE *out, char lead, unsigned int fields, const struct secmap_frame *f)
{
	char buf[24], *end = buf + sizeof(buf), *p;

	if (lead)
		fputc_unlocked(lead, out);
	p = hex_right(end, f->ip, 16);
	fwrite_unlocked(p, 1, (size_t)(end - p), out);
	if (fields & FIELD_SYM) {
		fputc_unlocked(' ', out);
		if (f->symbol) {
			fputs_unlocked(name_safe(f->symbol), out);
			if (fields & FIELD_SYMOFF) {
				p = hex_right(end, f->symbol_offset, 0);
				*--p = 'x';
				*--p = '0';
				*--p = '+';
				fwrite_unlocked(p, 1, (size_t)(end - p), out);
			}
		} else {
			fputs_unlocked("[unknown]", out);
		}
	}
	if (fields & FIELD_DSO) {
		fputs_unlocked(" (", out);
		fputs_unlocked(name_safe(f->dso), out);
		fputc_unlocked(')', out);
	}
	fputc_unlocked('\n', out);
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

void script_print_sample(FILE *out, const struct script_print *p, const struct secmap_sample *s,
			 const char *event)
{
	unsigned int f = p->fields;
	bool chain = (f & FIELD_IP) && s->event_callchain;
	size_t i;

	/*
	 * The comm unpadded when a callchain follows (stackcollapse-perf.pl
	 * and speedscope want it at the line's start), else in 16 columns.
	 */
	if (f & FIELD_COMM)
		fprintf(out, chain ? "%s " : "%16s ", text_safe(s->comm));
	if ((f & FIELD_PID) && (f & FIELD_TID))
		fprintf(out, "%5d/%-5d ", s->pid, s->tid);
	else if (f & (FIELD_PID | FIELD_TID))
		fprintf(out, "%5d ", f & FIELD_PID ? s->pid : s->tid);
	if ((f & FIELD_CPU) && s->has_cpu)
		fprintf(out, "[%03u] ", s->cpu);
	if ((f & FIELD_TIME) && s->has_time) {
		if (p->ns)
			fprintf(out, "%5" PRIu64 ".%09" PRIu64 ": ", s->time / 1000000000,
				s->time % 1000000000);
		else
			fprintf(out, "%5" PRIu64 ".%06" PRIu64 ": ", s->time / 1000000000,
				s->time % 1000000000 / 1000);
	}
	if (f & FIELD_PERIOD)
		fprintf(out, "%10" PRIu64 " ", s->period);
	if (f & FIELD_EVENT)
		fprintf(out, "%*s: ", p->name_width, text_safe(event));
	if (!(f & FIELD_IP)) {
		fputc_unlocked('\n', out);
		return;
	}
	/* A chain perf found corrupt, or empty, is still a chain: no frame. */
	if (!chain) {
		print_frame(out, ' ', f, s->frame);
		return;
	}
	fputc_unlocked('\n', out);
	for (i = 0; i < s->nr_chain; i++)
		print_frame(out, '\t', f, secmap_frame_at(s->chain, i));
	fputc_unlocked('\n', out);
}
