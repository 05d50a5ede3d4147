// SPDX-License-Identifier: GPL-2.0
/*
 * secmap report: perf report's table, with every module sample on the
 * section and function that really ran at its time.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hashmap.h"
#include "json_out.h"
#include "samples.h"

enum sort_key { SORT_MODULE = 1, SORT_SECTION = 2, SORT_SYMBOL = 4 };

static void report_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s report [-i PERF_DATA] [-m SECMAP_DATA] [--sort KEYS] [--stdio|-j] [OPTIONS]\n"
		"\n"
		"perf report's overhead table, per event, with module samples on the section\n"
		"and function that ran at their time, from the recording in PERF_DATA (put\n"
		"there by secmap record or inject) or SECMAP_DATA. Kernel core samples from the\n"
		"recorded kallsyms, user samples to the function in their mapped file.\n"
		"\n"
		"Options:\n"
		"  -i, --input PERF_DATA  the samples (default perf.data)\n"
		"  -m, --map SECMAP_DATA  the recording, if not inside PERF_DATA\n"
		"  -s, --sort KEYS        comma-separated: module, section, symbol (default all)\n"
		"      --stdio            a text table (the default)\n"
		"      --clock CLOCK      override the samples' clock: local or monotonic\n"
		"      --ko-path PATH     look for .ko files in PATH first (repeatable)\n"
		"      --force            use a .ko whose build-id differs from the recorded one\n"
		"      --no-ko            sections only: read no .ko\n"
		"  -q, --quiet            no warnings about missing .ko files\n"
		"  -j, --json             {\"events\": [{\"event\", \"samples\", \"rows\": [...]}]}\n"
		"  -h, --help             show this help\n",
		bin_name);
}

struct row {
	size_t event;
	const char *module, *section, *symbol;	/* interned or the resolver's: compared by pointer */
	uint64_t samples, period;
};

/* The rows, found by their key: the map's items index @rows. */
struct table {
	struct row *rows;
	size_t nr, cap;
	struct libsecmap_hashmap by_key;
	struct row *last;	/* the row found last: a run of samples hits one row */
};

static uint64_t row_hash(const struct libsecmap_hashmap *m, size_t event, const char *a,
			 const char *b, const char *c)
{
	const uintptr_t key[4] = { event, (uintptr_t)a, (uintptr_t)b, (uintptr_t)c };

	return libsecmap_hashmap_hash(m, key, sizeof(key));
}

static struct row *table_find(struct table *t, size_t event, const char *mod, const char *sec,
			      const char *sym)
{
	struct row *r = t->last;
	struct libsecmap_hashmap_slot *slot;
	uint64_t h;

	if (r && r->event == event && r->module == mod && r->section == sec && r->symbol == sym)
		return r;
	h = row_hash(&t->by_key, event, mod, sec, sym);
	for (slot = libsecmap_hashmap_probe(&t->by_key, h); slot;
	     slot = libsecmap_hashmap_next(&t->by_key, h, slot)) {
		r = &t->rows[slot->item];
		if (r->event == event && r->module == mod && r->section == sec && r->symbol == sym)
			return t->last = r;
	}
	if (t->nr == t->cap) {
		size_t n = t->cap ? 2 * t->cap : 1024;

		r = reallocarray(t->rows, n, sizeof(*r));
		if (!r)
			return NULL;
		t->rows = r;
		t->cap = n;
	}
	if (libsecmap_hashmap_add(&t->by_key, h, t->nr))
		return NULL;
	r = &t->rows[t->nr++];
	*r = (struct row){ .event = event, .module = mod, .section = sec, .symbol = sym };
	return t->last = r;
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	/* Stable output for equal counts: by names. */
	return strcmp(x->module ? x->module : "", y->module ? y->module : "") ?:
	       strcmp(x->section ? x->section : "", y->section ? y->section : "") ?:
	       strcmp(x->symbol ? x->symbol : "", y->symbol ? y->symbol : "");
}

static int parse_sort(const char *arg, unsigned int *keys)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	*keys = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "module") || !strcmp(tok, "dso"))
			*keys |= SORT_MODULE;
		else if (!strcmp(tok, "section"))
			*keys |= SORT_SECTION;
		else if (!strcmp(tok, "symbol") || !strcmp(tok, "sym"))
			*keys |= SORT_SYMBOL;
		else
			ret = -EINVAL;
	}
	free(copy);
	return ret ? ret : (*keys ? 0 : -EINVAL);
}

static const char *or_dash(const char *s)
{
	return s ? s : "[unknown]";
}

static void report_print_stdio(struct sample_walk *w, const struct row *rows, size_t nr,
			const uint64_t *ev_samples, const uint64_t *ev_period, unsigned int keys)
{
	size_t i, ev = SIZE_MAX;

	const struct sample_walk_lost *lost = sample_walk_lost(w);

	printf("# secmap report of %s: module samples placed by their section maps\n#\n",
	       sample_walk_input(w));
	if (lost->chunks || lost->samples)
		printf("# Lost: %" PRIu64 " events in %" PRIu64 " chunks, %" PRIu64
		       " samples (perf's buffers were full)\n#\n", lost->events, lost->chunks,
		       lost->samples);
	for (i = 0; i < nr; i++) {
		const struct row *r = &rows[i];

		if (r->event != ev) {
			ev = r->event;
			printf("%s# Samples: %" PRIu64 " of event '%s'\n#\n", i ? "\n\n" : "",
			       ev_samples[ev], text_safe(sample_walk_event_name(w, ev)));
			printf("# Overhead   Samples");
			if (keys & SORT_MODULE)
				printf("  %-24s", "Module");
			if (keys & SORT_SECTION)
				printf("  %-16s", "Section");
			if (keys & SORT_SYMBOL)
				printf("  Symbol");
			printf("\n# ........  ........");
			if (keys & SORT_MODULE)
				printf("  ........................");
			if (keys & SORT_SECTION)
				printf("  ................");
			if (keys & SORT_SYMBOL)
				printf("  ......");
			printf("\n#\n");
		}
		printf("%9.2f%%  %8" PRIu64, ev_period[ev] ? 100.0 * r->period / ev_period[ev] : 0.0,
		       r->samples);
		if (keys & SORT_MODULE)
			printf("  %-24s", text_safe(or_dash(r->module)));
		if (keys & SORT_SECTION)
			printf("  %-16s", r->section ? text_safe(r->section) : "-");
		if (keys & SORT_SYMBOL)
			printf("  %s", text_safe(or_dash(r->symbol)));
		printf("\n");
	}
}

static int report_print_json(struct sample_walk *w, const struct row *rows, size_t nr,
		      const uint64_t *ev_samples, const uint64_t *ev_period, unsigned int keys)
{
	struct json_out *o = json_out_stream(stdout, pretty_output);
	size_t i = 0, ev, nr_events = sample_walk_nr_events(w);
	const struct sample_walk_lost *lost = sample_walk_lost(w);

	if (!o)
		return -ENOMEM;
	json_out_object_begin(o, NULL);
	json_out_object_begin(o, "lost");
	json_out_u64(o, "chunks", lost->chunks);
	json_out_u64(o, "events", lost->events);
	json_out_u64(o, "samples", lost->samples);
	json_out_object_end(o);
	json_out_array_begin(o, "events");
	for (ev = 0; ev < nr_events; ev++) {
		json_out_object_begin(o, NULL);
		json_out_str(o, "event", sample_walk_event_name(w, ev));
		json_out_u64(o, "samples", ev_samples[ev]);
		json_out_u64(o, "period", ev_period[ev]);
		json_out_array_begin(o, "rows");
		for (; i < nr && rows[i].event == ev; i++) {
			const struct row *r = &rows[i];

			json_out_object_begin(o, NULL);
			json_out_u64(o, "samples", r->samples);
			json_out_u64(o, "period", r->period);
			if (keys & SORT_MODULE)
				json_out_str(o, "module", r->module);
			if (keys & SORT_SECTION)
				json_out_str(o, "section", r->section);
			if (keys & SORT_SYMBOL)
				json_out_str(o, "symbol", r->symbol);
			json_out_object_end(o);
		}
		json_out_array_end(o);
		json_out_object_end(o);
	}
	json_out_array_end(o);
	json_out_object_end(o);
	return json_out_finish(o);
}

int do_report(int argc, char **argv)
{
	enum { OPT_STDIO = 0x300 };
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		RESOLVER_LONG_OPTIONS,
		{ "sort",	required_argument, NULL, 's' },
		{ "stdio",	no_argument,	   NULL, OPT_STDIO },
		{ "quiet",	no_argument,	   NULL, 'q' },
		{ 0 }
	};
	struct resolver_args args = { 0 };
	unsigned int keys = SORT_MODULE | SORT_SECTION | SORT_SYMBOL;
	uint64_t *ev_samples = NULL, *ev_period = NULL;
	struct sample_walk *w = NULL;
	struct table t = { 0 };
	struct row *r;
	const struct secmap_sample *s;
	size_t nr_events;
	int opt, ret, err;

	libsecmap_hashmap_init(&t.by_key);
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" RESOLVER_SHORT_OPTIONS "s:q" OUTPUT_SHORT_OPTIONS,
				  opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'h':
			report_usage(stdout);
			return SECMAP_EXIT_OK;
		case 's':
			if (parse_sort(optarg, &keys)) {
				p_err("report: --sort takes module, section and symbol, "
				      "comma-separated, not '%s'", optarg);
				ret = SECMAP_EXIT_USAGE;
				goto out;
			}
			continue;
		case OPT_STDIO:
			continue;
		case 'q':
			args.quiet = true;
			continue;
		}
		ret = resolver_option(&args, opt, optarg);
		if (ret > 0)
			goto out;
		if (ret < 0) {
			ret = optopt == 's' ? (p_err("report: option '%s' needs a value",
						     argv[optind - 1]), SECMAP_EXIT_USAGE) :
			      resolver_option_error("report", argv, report_usage);
			goto out;
		}
	}
	if (optind < argc) {
		ret = unexpected_argument("report", argv[optind], report_usage);
		goto out;
	}
	ret = sample_walk_open(&args, 0, &w);
	if (!w)
		goto out;
	nr_events = sample_walk_nr_events(w);
	ev_samples = calloc(nr_events + 1, sizeof(*ev_samples));
	ev_period = calloc(nr_events + 1, sizeof(*ev_period));
	if (!ev_samples || !ev_period)
		goto nomem;
	while ((err = sample_walk_next(w, &s)) == 1) {
		const struct secmap_frame *f = s->frame;

		if (s->event >= nr_events)
			continue;
		r = table_find(&t, s->event, keys & SORT_MODULE ? f->module : NULL,
			       keys & SORT_SECTION ? f->section : NULL,
			       keys & SORT_SYMBOL ? f->symbol : NULL);
		if (!r)
			goto nomem;
		r->samples++;
		r->period += s->period;
		ev_samples[s->event]++;
		ev_period[s->event] += s->period;
	}
	if (err < 0) {
		ret = -err;
		goto out;
	}
	qsort(t.rows, t.nr, sizeof(*t.rows), cmp_row);
	if (json_output)
		err = report_print_json(w, t.rows, t.nr, ev_samples, ev_period, keys);
	else
		report_print_stdio(w, t.rows, t.nr, ev_samples, ev_period, keys);
	if (err || flush_output(stdout)) {
		p_err("cannot write output: %s", strerror(err ? -err : errno ? errno : EIO));
		ret = SECMAP_EXIT_FAILURE;
		goto out;
	}
	ret = sample_walk_status(w);
out:
	sample_walk_close(w);
	free(t.rows);
	libsecmap_hashmap_free(&t.by_key);
	free(ev_samples);
	free(ev_period);
	resolver_args_free(&args);
	return ret;
nomem:
	p_err("report: out of memory");
	ret = SECMAP_EXIT_FAILURE;
	goto out;
}
