/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's sample filters, with its option names and list syntax:
 * --comm NAME[,NAME...], --pid PID[,PID...], --tid TID[,TID...],
 * --cpu CPU[-CPU][,...], --dsos DSO[,DSO...], --symbols SYM[,SYM...]. A
 * sample passes when it matches every filter given (and one entry of each
 * list), and --time START,STOP[ START,STOP...] or A%/N[,...] or
 * A%-B%[,...]. perf report counts a sample its --cpu or --time drops in no
 * total, and one the others drop in the totals still (its "absolute"
 * percentages): the two kinds are matched apart.
 */
#ifndef SECMAP_SAMPLE_FILTER_H
#define SECMAP_SAMPLE_FILTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "secmap_cli.h"

enum {
	FILTER_OPT_COMM = 0x400,
	FILTER_OPT_PID,
	FILTER_OPT_TID,
	FILTER_OPT_CPU,
	FILTER_OPT_DSOS,
	FILTER_OPT_SYMBOLS,
	FILTER_OPT_TIME,
};

#define SAMPLE_FILTER_LONG_OPTIONS \
	{ "comm",	required_argument, NULL, FILTER_OPT_COMM }, \
	{ "pid",	required_argument, NULL, FILTER_OPT_PID }, \
	{ "tid",	required_argument, NULL, FILTER_OPT_TID }, \
	{ "cpu",	required_argument, NULL, FILTER_OPT_CPU }, \
	{ "dsos",	required_argument, NULL, FILTER_OPT_DSOS }, \
	{ "symbols",	required_argument, NULL, FILTER_OPT_SYMBOLS }, \
	{ "time",	required_argument, NULL, FILTER_OPT_TIME }

#define SAMPLE_FILTER_HELP \
	"      --comm COMMS       only samples of these thread names (comma-separated)\n" \
	"      --pid PIDS         only samples of these processes (comma-separated)\n" \
	"      --tid TIDS         only samples of these threads (comma-separated)\n" \
	"      --cpu CPUS         only samples on these CPUs (\"0-2,5\")\n" \
	"      --dsos DSOS        only samples in these files (short or long names)\n" \
	"      --symbols SYMS     only samples in these functions\n" \
	"      --time RANGES      only samples in these times: START,STOP (seconds, either\n" \
	"                         may be empty; several space-separated), or slices of\n" \
	"                         the recording: 10%%/2 (the second tenth), 0%%-25%%,...\n"

/* The most CPUs a --cpu list may name, as perf's own maps go. */
#define SAMPLE_FILTER_MAX_CPU	4096

struct sample_filter {
	char **comms, **dsos, **symbols;	/* sorted */
	size_t nr_comms, nr_dsos, nr_symbols;
	int32_t *pids, *tids;
	size_t nr_pids, nr_tids;
	uint64_t *cpus;		/* a bitmap of SAMPLE_FILTER_MAX_CPU bits, or NULL */
	/* --time: ranges in the samples' clock (ns, both ends in), sorted, none overlapping */
	struct time_range {
		uint64_t start, end;
	} *times;
	size_t nr_times;
	/* --time's slices, as fractions of the recording's span, until it is known */
	struct time_slice {
		double from, to;
	} *slices;
	size_t nr_slices;
	bool has_time;		/* a --time was given */
};

/*
 * 0: @opt was one of SAMPLE_FILTER_LONG_OPTIONS, taken; -1: not one of
 * them; else an exit code, the error reported in one line.
 */
int sample_filter_option(struct sample_filter *f, int opt, const char *arg);
/*
 * --time's slices made ranges of the recording's span, first to last
 * sample (perf's HEADER_SAMPLE_TIME). 0 or -ENOMEM.
 */
int sample_filter_set_span(struct sample_filter *f, uint64_t first, uint64_t last);
struct sample_walk;
/*
 * The same from @walk's perf.data, when --time has slices: an exit code,
 * the error said (a file without HEADER_SAMPLE_TIME has no span).
 */
int sample_filter_walk_span(struct sample_filter *f, struct sample_walk *walk);
/* Every filter */
bool sample_filter_match(const struct sample_filter *f, const struct secmap_sample *s);
/* --cpu and --time (the samples perf skips), and the others */
bool sample_filter_match_skip(const struct sample_filter *f, const struct secmap_sample *s);
bool sample_filter_match_entry(const struct sample_filter *f, const struct secmap_sample *s);
/* perf's short name of a dso: a file's base name, "[JIT] tid PID" for a JIT map. */
const char *dso_short_name(const char *dso, char *buf, size_t size);
void sample_filter_free(struct sample_filter *f);

#endif /* SECMAP_SAMPLE_FILTER_H */
