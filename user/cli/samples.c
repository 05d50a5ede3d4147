// SPDX-License-Identifier: GPL-2.0
/*
 * report's and script's samples: libsecmap's session over the perf.data,
 * with the resolver resolver_open() makes from the command line, in the
 * samples' clock; what goes wrong said in the tool's words.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "samples.h"

struct sample_walk {
	const char *input;
	struct secmap_session *session;
	struct secmap_resolver *res;
	struct secmap_perf_data *pd;	/* for the header, opened when asked */
	int status;			/* resolver_open()'s, returned at the end */
	bool warned_order;
	struct sample_walk_lost lost;
};

int sample_walk_open(const struct resolver_args *args, unsigned int flags,
		     struct sample_walk **wp)
{
	SECMAP_OPTS(secmap_session_opts, opts, .flags = flags);
	struct secmap_session_stats st = { .sz = sizeof(st) };
	struct resolver_args a = *args;
	struct sample_walk *w;
	int err;

	*wp = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		p_err("out of memory");
		return SECMAP_EXIT_FAILURE;
	}
	w->input = args->input ? args->input : "perf.data";
	err = secmap_session_open(w->input, &opts, &w->session);
	if (err) {
		if (err == -ENOMEM)
			p_err("out of memory");
		else
			p_err("%s: %s", w->input, recording_strerror(err));
		free(w);
		return err == -ENOMEM ? SECMAP_EXIT_FAILURE : recording_exit_code(err);
	}
	if (!a.clock_set && secmap_session_clock(w->session, &a.clock)) {
		p_err("%s: samples use a clock other than perf's default and CLOCK_MONOTONIC "
		      "(perf record -k), or events disagree: a recording has times in those two "
		      "only; --clock overrides", w->input);
		sample_walk_close(w);
		return SECMAP_EXIT_BAD_INPUT;
	}
	if (!secmap_session_stats(w->session, &st) && st.forks_capped)
		fprintf(stderr, "Warning: %s: FORK records would copy more than %zu maps; the "
			"tasks forked after that do not see their parents' (user frames [unknown])\n",
			w->input, st.forks_capped);
	if (!a.map)
		a.map = w->input;
	w->status = resolver_open(&a, &w->res);
	if (!w->res) {
		err = w->status;
		sample_walk_close(w);
		return err;
	}
	secmap_session_set_resolver(w->session, w->res);
	*wp = w;
	return SECMAP_EXIT_OK;
}

/* Said once, when the session first gives samples early. */
static void warn_order(struct sample_walk *w)
{
	struct secmap_session_stats st = { .sz = sizeof(st) };

	if (w->warned_order || secmap_session_stats(w->session, &st) || !st.order_relaxed)
		return;
	w->warned_order = true;
	fprintf(stderr, "Warning: %s: more than %zu MiB of samples between two of perf's rounds "
		"(FINISHED_ROUND): the older half is given first, and samples may come out of "
		"time order\n", w->input, st.order_relaxed >> 20);
}

int sample_walk_next(struct sample_walk *w, const struct secmap_sample **s)
{
	const char *why;
	int ret = secmap_session_next(w->session, s);

	if (ret == 1)
		return 1;
	warn_order(w);
	if (!ret)
		return 0;
	fflush(stdout);
	if (ret == -ENOMEM) {
		p_err("out of memory");
		return -SECMAP_EXIT_FAILURE;
	}
	why = secmap_error_reason(ret);
	p_err("%s: %s", w->input, why ? why : secmap_strerror(ret));
	return -SECMAP_EXIT_BAD_INPUT;
}

size_t sample_walk_nr_events(const struct sample_walk *w)
{
	return secmap_session_nr_events(w->session);
}

const char *sample_walk_event_name(const struct sample_walk *w, size_t idx)
{
	return secmap_session_event_name(w->session, idx);
}

const struct sample_walk_lost *sample_walk_lost(struct sample_walk *w)
{
	struct secmap_session_stats st = { .sz = sizeof(st) };

	if (!secmap_session_stats(w->session, &st))
		w->lost = (struct sample_walk_lost){ st.lost_chunks, st.lost_events,
						     st.lost_samples };
	return &w->lost;
}

const char *sample_walk_input(const struct sample_walk *w)
{
	return w->input;
}

int sample_walk_header(struct sample_walk *w, struct secmap_perf_header *h)
{
	const char *why;
	int err = w->pd ? 0 : secmap_perf_data_open(w->input, &w->pd);

	if (!err)
		err = secmap_perf_data_header(w->pd, h);
	if (!err)
		return SECMAP_EXIT_OK;
	if (err == -ENOMEM) {
		p_err("out of memory");
		return SECMAP_EXIT_FAILURE;
	}
	why = secmap_error_reason(err);
	p_err("%s: %s", w->input, why ? why : recording_strerror(err));
	return recording_exit_code(err);
}

const struct secmap_perf_event *sample_walk_event(struct sample_walk *w, size_t idx)
{
	if (!w->pd && secmap_perf_data_open(w->input, &w->pd))
		return NULL;
	return secmap_perf_data_event(w->pd, idx);
}

const struct secmap_resolver *sample_walk_resolver(const struct sample_walk *w)
{
	return w->res;
}

int sample_walk_status(const struct sample_walk *w)
{
	return w->status;
}

void sample_walk_close(struct sample_walk *w)
{
	if (!w)
		return;
	secmap_session_close(w->session);
	secmap_resolver_free(w->res);
	secmap_perf_data_close(w->pd);
	free(w);
}
