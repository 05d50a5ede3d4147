/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The samples of a perf.data, each frame resolved, for report and script:
 * libsecmap's session (lib/perf/session.c) opened with the resolver the
 * command line asks for, its errors and warnings said as the tool says
 * them.
 */
#ifndef SECMAP_SAMPLES_H
#define SECMAP_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>

#include "secmap_cli.h"

/* sample_walk_open() flags */
#define SAMPLE_WALK_CHAIN	SECMAP_SESSION_CHAIN
#define SAMPLE_WALK_ORDERED	SECMAP_SESSION_ORDERED

struct sample_walk;

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
int sample_walk_next(struct sample_walk *walk, const struct secmap_sample **s);
size_t sample_walk_nr_events(const struct sample_walk *walk);
const char *sample_walk_event_name(const struct sample_walk *walk, size_t idx);
const char *sample_walk_input(const struct sample_walk *walk);
/* What perf's file says was lost: PERF_RECORD_LOST (chunks, events) and LOST_SAMPLES. */
struct sample_walk_lost {
	uint64_t chunks, events, samples;
};
const struct sample_walk_lost *sample_walk_lost(struct sample_walk *walk);
/*
 * The perf.data's header (secmap_perf_data_header()), its strings valid
 * until sample_walk_close(): an exit code, the error said.
 */
int sample_walk_header(struct sample_walk *walk, struct secmap_perf_header *header);
/* Event @idx's attributes, from the perf.data (opened when asked); NULL if it cannot be read. */
const struct secmap_perf_event *sample_walk_event(struct sample_walk *walk, size_t idx);
/* The resolver of the recording, for its counts. */
const struct secmap_resolver *sample_walk_resolver(const struct sample_walk *walk);
/* The exit code resolver_open() gave (SECMAP_EXIT_KO_MISMATCH), to return at the end. */
int sample_walk_status(const struct sample_walk *walk);
void sample_walk_close(struct sample_walk *walk);

#endif /* SECMAP_SAMPLES_H */
