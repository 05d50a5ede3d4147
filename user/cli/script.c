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
#include "script_print.h"

static void script_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s script [-i PERF_DATA] [-m SECMAP_DATA] [-F FIELDS] [--ns] [--folded] [OPTIONS]\n"
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
		"  -F, --fields FIELDS    perf script's: comm,tid,pid,time,cpu,event,period,ip,sym,\n"
		"                         symoff,dso (those alone), or +field,-field (the default's)\n"
		"      --folded           \"comm;outermost;...;innermost count\" per distinct stack\n"
		"      --clock CLOCK      override the samples' clock: local or monotonic\n"
		"      --ko-path PATH     look for .ko files in PATH first (repeatable)\n"
		"      --force            use a .ko whose build-id differs from the recorded one\n"
		"      --no-ko            sections only: read no .ko\n"
		SAMPLE_FILTER_HELP
		"  -q, --quiet            no warnings about missing .ko files\n"
		"  -h, --help             show this help\n",
		bin_name);
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
	enum { OPT_NS = 0x300, OPT_FOLDED };
	static const struct option opts[] = {
		RESOLVER_LONG_OPTIONS,
		SAMPLE_FILTER_LONG_OPTIONS,
		{ "ns",		no_argument, NULL, OPT_NS },
		{ "fields",	required_argument, NULL, 'F' },
		{ "folded",	no_argument, NULL, OPT_FOLDED },
		{ "quiet",	no_argument, NULL, 'q' },
		{ "help",	no_argument, NULL, 'h' },
		{ 0 }
	};
	struct resolver_args args = { 0 };
	struct sample_filter filter = { 0 };
	struct sample_walk *w = NULL;
	struct folded fold = { 0 };
	struct script_print print = { .fields = SCRIPT_DEFAULT_FIELDS };
	bool folded = false;
	char *line = NULL;
	size_t line_len = 0, i;
	const struct secmap_sample *s;
	int opt, ret, err;

	libsecmap_hashmap_init(&fold.by_line);
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" RESOLVER_SHORT_OPTIONS "F:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			script_usage(stdout);
			return SECMAP_EXIT_OK;
		case OPT_NS:
			print.ns = true;
			continue;
		case 'F':
			ret = script_fields(optarg, &print);
			if (ret)
				goto out;
			continue;
		case OPT_FOLDED:
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
			ret = optopt == 'F' ? (p_err("script: option '-F' needs a value"),
					       SECMAP_EXIT_USAGE) :
			      resolver_option_error("script", argv, script_usage);
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
	ret = sample_filter_walk_span(&filter, w);
	if (ret)
		goto out;
	ret = folded ? SECMAP_EXIT_OK : script_print_begin(&print, w);
	if (ret)
		goto out;
	while ((err = sample_walk_next(w, &s)) == 1) {
		if (!sample_filter_match(&filter, s))
			continue;
		if (!folded) {
			if (script_print_sample(stdout, &print, s,
						sample_walk_event_name(w, s->event)))
				goto nomem;
		} else if (fold_sample(&fold, s, &line, &line_len)) {
			goto nomem;
		}
	}
	script_print_flush(&print, stdout);
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
	script_print_end(&print, stdout);
	resolver_args_free(&args);
	sample_filter_free(&filter);
	return ret;
nomem:
	p_err("script: out of memory");
	ret = SECMAP_EXIT_FAILURE;
	goto out;
}
