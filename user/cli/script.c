// SPDX-License-Identifier: GPL-2.0
/*
 * secmap script: the samples one by one, in perf script's default layout,
 * with module frames named by their section maps; or folded stacks.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hashmap.h"
#include "sample_filter.h"
#include "samples.h"

static void script_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s script [-i PERF_DATA] [-m SECMAP_DATA] [--ns] [--folded] [OPTIONS]\n"
		"\n"
		"Print each sample as perf script does by default (callchain frames too when\n"
		"recorded), with module frames named by the recording: the function that ran at\n"
		"the sample's time, whatever section it is in. Tools that read perf script's\n"
		"output (FlameGraph's stackcollapse-perf.pl, speedscope, the Firefox Profiler)\n"
		"take it as it is. --folded prints folded stacks for flame graphs instead.\n"
		"\n"
		"Options:\n"
		"  -i, --input PERF_DATA  the samples (default perf.data)\n"
		"  -m, --map SECMAP_DATA  the recording, if not inside PERF_DATA\n"
		"      --ns               times with nanoseconds (default microseconds)\n"
		"  -F, --folded           \"comm;outermost;...;innermost count\" per distinct stack\n"
		"      --clock CLOCK      override the samples' clock: local or monotonic\n"
		"      --ko-path PATH     look for .ko files in PATH first (repeatable)\n"
		"      --force            use a .ko whose build-id differs from the recorded one\n"
		"      --no-ko            sections only: read no .ko\n"
		SAMPLE_FILTER_HELP
		"  -q, --quiet            no warnings about missing .ko files\n"
		"  -h, --help             show this help\n",
		bin_name);
}

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

/* "sym+0x1f (dso)" as perf script prints a frame; "[unknown]" without a symbol. */
static void print_frame_tail(FILE *out, const struct secmap_frame *f)
{
	char buf[24], *end = buf + sizeof(buf), *p;

	if (f->symbol) {
		fputs_unlocked(name_safe(f->symbol), out);
		p = hex_right(end, f->symbol_offset, 0);
		*--p = 'x';
		*--p = '0';
		*--p = '+';
		fwrite_unlocked(p, 1, (size_t)(end - p), out);
	} else {
		fputs_unlocked("[unknown]", out);
	}
	fputs_unlocked(" (", out);
	fputs_unlocked(name_safe(f->dso), out);
	fputs_unlocked(")\n", out);
}

/* @lead, the address in 16 columns, a space, then the frame's function and file. */
static void print_frame(FILE *out, char lead, const struct secmap_frame *f)
{
	char buf[24], *end = buf + sizeof(buf) - 1, *p;

	*end = ' ';
	p = hex_right(end, f->ip, 16);
	*--p = lead;
	fwrite_unlocked(p, 1, (size_t)(end + 1 - p), out);
	print_frame_tail(out, f);
}

static void print_sample(FILE *out, const struct secmap_sample *s, const char *event, bool ns)
{
	size_t i;

	/*
	 * As perf script: the comm unpadded when the event has callchains
	 * (stackcollapse-perf.pl and speedscope want it at the line's start),
	 * right-aligned in 16 columns otherwise.
	 */
	fprintf(out, s->event_callchain ? "%s %5d" : "%16s %5d", text_safe(s->comm), s->tid);
	if (s->has_cpu)
		fprintf(out, " [%03u]", s->cpu);
	if (s->has_time) {
		if (ns)
			fprintf(out, " %5" PRIu64 ".%09" PRIu64 ":", s->time / 1000000000,
				s->time % 1000000000);
		else
			fprintf(out, " %5" PRIu64 ".%06" PRIu64 ":", s->time / 1000000000,
				s->time % 1000000000 / 1000);
	}
	fprintf(out, " %10" PRIu64 " %s: ", s->period, text_safe(event));
	/* A chain perf found corrupt, or empty, is still a chain: no frame. */
	if (!s->event_callchain) {
		print_frame(out, ' ', s->frame);
		return;
	}
	fputc_unlocked('\n', out);
	for (i = 0; i < s->nr_chain; i++)
		print_frame(out, '\t', secmap_frame_at(s->chain, i));
	fputc_unlocked('\n', out);
}

/* Folded stacks: counted by the whole line; the map's items index @stacks. */
struct stack_count {
	char *line;
	uint64_t count;
};

struct folded {
	struct stack_count *stacks;
	size_t nr, cap;
	struct libsecmap_hashmap by_line;
};

static int folded_add(struct folded *t, const char *line, size_t len)
{
	uint64_t h = libsecmap_hashmap_hash(&t->by_line, line, len);
	struct libsecmap_hashmap_slot *slot;
	struct stack_count *sc;

	for (slot = libsecmap_hashmap_probe(&t->by_line, h); slot;
	     slot = libsecmap_hashmap_next(&t->by_line, h, slot)) {
		sc = &t->stacks[slot->item];
		if (!strncmp(sc->line, line, len) && !sc->line[len]) {
			sc->count++;
			return 0;
		}
	}
	if (t->nr == t->cap) {
		size_t n = t->cap ? 2 * t->cap : 1024;

		sc = reallocarray(t->stacks, n, sizeof(*sc));
		if (!sc)
			return -ENOMEM;
		t->stacks = sc;
		t->cap = n;
	}
	sc = &t->stacks[t->nr];
	sc->line = strndup(line, len);
	sc->count = 1;
	if (!sc->line || libsecmap_hashmap_add(&t->by_line, h, t->nr)) {
		free(sc->line);
		return -ENOMEM;
	}
	t->nr++;
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	return strcmp(((const struct stack_count *)a)->line, ((const struct stack_count *)b)->line);
}

/*
 * Text from the recording in a folded stack: no ';', which separates
 * frames, and no control byte, which could end the line early.
 */
static void fold_text(FILE *m, const char *text)
{
	const char *p;

	for (p = text_safe(text); *p; p++)
		fputc(*p == ';' ? ':' : *p, m);
}

static void fold_frame(FILE *m, const struct secmap_frame *f)
{
	if (f->symbol) {
		fold_text(m, f->symbol);
	} else if (f->module && f->section) {
		fold_text(m, f->section);
		fprintf(m, "+0x%" PRIx64, f->section_offset);
	} else {
		fputs("[unknown]", m);
	}
	/* Kernel frames marked as stackcollapse-perf.pl --kernel does. */
	if (!f->user && f->module)
		fputs("_[k]", m);
}

/*
 * @s's stack, "comm;outermost;...;innermost", counted in @fold. @line
 * is a buffer kept from one sample to the next. 0 or -ENOMEM.
 */
static int fold_sample(struct folded *fold, const struct secmap_sample *s, char **line,
		       size_t *line_len)
{
	size_t i;
	FILE *m;

	/* Each open_memstream() makes a new buffer: the last one's is ours to free. */
	free(*line);
	*line = NULL;
	m = open_memstream(line, line_len);
	if (!m)
		return -ENOMEM;
	fold_text(m, s->comm);
	/* Outermost first. */
	if (s->nr_chain) {
		for (i = s->nr_chain; i-- > 0;) {
			fputc(';', m);
			fold_frame(m, secmap_frame_at(s->chain, i));
		}
	} else {
		fputc(';', m);
		fold_frame(m, s->frame);
	}
	if (fclose(m) || folded_add(fold, *line, *line_len))
		return -ENOMEM;
	return 0;
}

int do_script(int argc, char **argv)
{
	enum { OPT_NS = 0x300 };
	static const struct option opts[] = {
		RESOLVER_LONG_OPTIONS,
		SAMPLE_FILTER_LONG_OPTIONS,
		{ "ns",		no_argument, NULL, OPT_NS },
		{ "folded",	no_argument, NULL, 'F' },
		{ "quiet",	no_argument, NULL, 'q' },
		{ "help",	no_argument, NULL, 'h' },
		{ 0 }
	};
	struct resolver_args args = { 0 };
	struct sample_filter filter = { 0 };
	struct sample_walk *w = NULL;
	struct folded fold = { 0 };
	bool ns = false, folded = false;
	char *line = NULL;
	size_t line_len = 0, i;
	const struct secmap_sample *s;
	int opt, ret, err;

	libsecmap_hashmap_init(&fold.by_line);
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" RESOLVER_SHORT_OPTIONS "Fqh", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			script_usage(stdout);
			return SECMAP_EXIT_OK;
		case OPT_NS:
			ns = true;
			continue;
		case 'F':
			folded = true;
			continue;
		case 'q':
			args.quiet = true;
			continue;
		}
		ret = sample_filter_option(&filter, opt, optarg);
		if (ret > 0)
			goto out;
		if (!ret)
			continue;
		ret = resolver_option(&args, opt, optarg);
		if (ret > 0)
			goto out;
		if (ret < 0) {
			ret = resolver_option_error("script", argv, script_usage);
			goto out;
		}
	}
	if (optind < argc) {
		ret = unexpected_argument("script", argv[optind], script_usage);
		goto out;
	}
	/* Folded stacks are counts: no need to wait for time order. */
	ret = sample_walk_open(&args, SAMPLE_WALK_CHAIN | (folded ? 0 : SAMPLE_WALK_ORDERED), &w);
	if (!w)
		goto out;
	while ((err = sample_walk_next(w, &s)) == 1) {
		if (!sample_filter_match(&filter, s))
			continue;
		if (!folded)
			print_sample(stdout, s, sample_walk_event_name(w, s->event), ns);
		else if (fold_sample(&fold, s, &line, &line_len))
			goto nomem;
	}
	if (err < 0) {
		ret = -err;
		goto out;
	}
	if (!args.quiet && (sample_walk_lost(w)->chunks || sample_walk_lost(w)->samples))
		fprintf(stderr, "Warning: %s: perf lost %" PRIu64 " events in %" PRIu64
			" chunks and %" PRIu64 " samples while recording\n",
			text_safe(sample_walk_input(w)), sample_walk_lost(w)->events,
			sample_walk_lost(w)->chunks, sample_walk_lost(w)->samples);
	if (folded) {
		/* Sorted, as flamegraph.pl likes. */
		qsort(fold.stacks, fold.nr, sizeof(*fold.stacks), cmp_stack);
		for (i = 0; i < fold.nr; i++)
			printf("%s %" PRIu64 "\n", fold.stacks[i].line, fold.stacks[i].count);
	}
	if (flush_output(stdout)) {
		p_err("cannot write output: %s", strerror(errno ? errno : EIO));
		ret = SECMAP_EXIT_FAILURE;
		goto out;
	}
	ret = sample_walk_status(w);
out:
	sample_walk_close(w);
	for (i = 0; i < fold.nr; i++)
		free(fold.stacks[i].line);
	free(fold.stacks);
	libsecmap_hashmap_free(&fold.by_line);
	free(line);
	resolver_args_free(&args);
	sample_filter_free(&filter);
	return ret;
nomem:
	p_err("script: out of memory");
	ret = SECMAP_EXIT_FAILURE;
	goto out;
}
