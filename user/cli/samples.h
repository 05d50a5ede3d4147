/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The samples of a perf.data, each frame resolved: module samples by the
 * recording (module, section, symbol at the sample's time), core kernel
 * ones by its kallsyms, user ones to the file mapped there (MMAP/MMAP2).
 * What report and script share.
 */
#ifndef SECMAP_SAMPLES_H
#define SECMAP_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>

#include "secmap_cli.h"

/* One resolved address. Strings live as long as the sample walk. */
struct frame {
	uint64_t ip;
	const char *module;	/* "[kernel.kallsyms]", a module, a user file's path; NULL: unknown */
	const char *dso;	/* as perf script names it: [kernel.kallsyms], [mod], /path */
	const char *section;	/* module sections only */
	const char *symbol;	/* NULL: unknown */
	uint64_t symbol_offset;
	uint64_t section_offset;
	bool user;
};

struct sample {
	size_t event;
	const char *comm;
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t time;
	bool has_time, has_cpu;
	uint64_t period;
	bool event_callchain;		/* its event records callchains (perf record -g) */
	struct frame frame;		/* the sample's own ip */
	const struct frame *chain;	/* innermost first, markers left out; none if corrupt */
	size_t nr_chain;
};

struct sample_walk;

/* sample_walk_open() flags */
#define SAMPLE_WALK_CHAIN	1	/* resolve callchains too */
#define SAMPLE_WALK_ORDERED	2	/* samples in time order, as perf script has them */

/*
 * Open @args->input (default perf.data) and the recording (@args->map, or
 * the one inside it), check the events' clock. An exit code; *@walk is
 * NULL on failure.
 */
int sample_walk_open(const struct resolver_args *args, unsigned int flags,
		     struct sample_walk **walk);
/*
 * 1 and *@s, a sample valid until the next call, 0 at the end, or an exit
 * code's negation after reporting an error.
 */
int sample_walk_next(struct sample_walk *walk, const struct sample **s);
size_t sample_walk_nr_events(const struct sample_walk *walk);
const char *sample_walk_event_name(const struct sample_walk *walk, size_t idx);
const char *sample_walk_input(const struct sample_walk *walk);
/* What perf's file says was lost: PERF_RECORD_LOST (chunks, events) and LOST_SAMPLES. */
struct sample_walk_lost {
	uint64_t chunks, events, samples;
};
const struct sample_walk_lost *sample_walk_lost(const struct sample_walk *walk);
/* The exit code resolver_open() gave (SECMAP_EXIT_KO_MISMATCH), to return at the end. */
int sample_walk_status(const struct sample_walk *walk);
void sample_walk_close(struct sample_walk *walk);

#endif /* SECMAP_SAMPLES_H */
