// SPDX-License-Identifier: GPL-2.0
/*
 * perf's sample filters (--comm, --pid, --tid, --cpu, --dsos, --symbols):
 * the lists parsed as perf parses them, each sample matched against them.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_filter.h"

/* @arg's comma-separated names, appended to *@names. */
static int add_names(char ***names, size_t *nr, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		char **c = realloc(*names, (*nr + 1) * sizeof(*c));

		if (!c) {
			err = -ENOMEM;
			break;
		}
		*names = c;
		c[*nr] = strdup(tok);
		if (!c[*nr])
			err = -ENOMEM;
		else
			(*nr)++;
	}
	free(copy);
	return err;
}

/* A whole decimal number in [@min, @max] at @s up to @end (NULL: its end). */
static bool parse_num(const char *s, const char **end, long min, long max, long *out)
{
	char *e;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtol(s, &e, 10);
	if (errno || *out < min || *out > max)
		return false;
	*end = e;
	return true;
}

/* @arg's comma-separated ids, appended to *@ids. */
static int add_ids(int32_t **ids, size_t *nr, const char *arg)
{
	const char *p = arg, *end;
	long v;

	for (;;) {
		int32_t *n;

		if (!parse_num(p, &end, 0, INT32_MAX, &v) || (*end && *end != ','))
			return -EINVAL;
		n = realloc(*ids, (*nr + 1) * sizeof(**ids));
		if (!n)
			return -ENOMEM;
		*ids = n;
		(*ids)[(*nr)++] = (int32_t)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* @arg's CPUs ("0-2,5") into @f->cpus. */
static int add_cpus(struct sample_filter *f, const char *arg)
{
	const char *p = arg, *end;
	long lo, hi, c;

	if (!f->cpus) {
		f->cpus = calloc(SAMPLE_FILTER_MAX_CPU / 64, sizeof(*f->cpus));
		if (!f->cpus)
			return -ENOMEM;
	}
	for (;;) {
		if (!parse_num(p, &end, 0, SAMPLE_FILTER_MAX_CPU - 1, &lo))
			return -EINVAL;
		hi = lo;
		if (*end == '-' &&
		    (!parse_num(end + 1, &end, lo, SAMPLE_FILTER_MAX_CPU - 1, &hi)))
			return -EINVAL;
		if (*end && *end != ',')
			return -EINVAL;
		for (c = lo; c <= hi; c++)
			f->cpus[c / 64] |= 1ULL << (c % 64);
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int cmp_id(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_comm(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sample_filter_option(struct sample_filter *f, int opt, const char *arg)
{
	const char *what;
	int err;

	switch (opt) {
	case FILTER_OPT_COMM:
		what = "--comm: a comma-separated list of thread names";
		err = *arg ? add_names(&f->comms, &f->nr_comms, arg) : -EINVAL;
		break;
	case FILTER_OPT_DSOS:
		what = "--dsos: a comma-separated list of file names";
		err = *arg ? add_names(&f->dsos, &f->nr_dsos, arg) : -EINVAL;
		break;
	case FILTER_OPT_SYMBOLS:
		what = "--symbols: a comma-separated list of function names";
		err = *arg ? add_names(&f->symbols, &f->nr_symbols, arg) : -EINVAL;
		break;
	case FILTER_OPT_PID:
		what = "--pid: a comma-separated list of process ids";
		err = add_ids(&f->pids, &f->nr_pids, arg);
		break;
	case FILTER_OPT_TID:
		what = "--tid: a comma-separated list of thread ids";
		err = add_ids(&f->tids, &f->nr_tids, arg);
		break;
	case FILTER_OPT_CPU:
		what = "--cpu: a list of CPUs and ranges, as 0-2,5";
		err = add_cpus(f, arg);
		break;
	default:
		return -1;
	}
	if (!err) {
		/* Sorted: a sample is looked up in log time, however long the lists. */
		if (f->nr_comms)
			qsort(f->comms, f->nr_comms, sizeof(*f->comms), cmp_comm);
		if (f->nr_dsos)
			qsort(f->dsos, f->nr_dsos, sizeof(*f->dsos), cmp_comm);
		if (f->nr_symbols)
			qsort(f->symbols, f->nr_symbols, sizeof(*f->symbols), cmp_comm);
		if (f->nr_pids)
			qsort(f->pids, f->nr_pids, sizeof(*f->pids), cmp_id);
		if (f->nr_tids)
			qsort(f->tids, f->nr_tids, sizeof(*f->tids), cmp_id);
		return 0;
	}
	if (err == -ENOMEM) {
		p_err("%s", strerror(ENOMEM));
		return SECMAP_EXIT_FAILURE;
	}
	p_err("%s expected, not '%s'", what, text_safe(arg));
	return SECMAP_EXIT_USAGE;
}

static bool has_id(const int32_t *ids, size_t nr, int32_t id)
{
	return bsearch(&id, ids, nr, sizeof(*ids), cmp_id);
}

static bool has_name(char *const *names, size_t nr, const char *name)
{
	return name && bsearch(&name, names, nr, sizeof(*names), cmp_comm);
}

const char *dso_short_name(const char *dso, char *buf, size_t size)
{
	const char *slash;
	int pid, n = 0;

	if (!dso || dso[0] != '/')
		return dso;
	if (sscanf(dso, "/tmp/perf-%d.map%n", &pid, &n) == 1 && n && !dso[n]) {
		snprintf(buf, size, "[JIT] tid %d", pid);
		return buf;
	}
	slash = strrchr(dso, '/');
	return slash[1] ? slash + 1 : dso;
}

bool sample_filter_match_cpu(const struct sample_filter *f, const struct secmap_sample *s)
{
	/* A sample without a CPU is on none of them. */
	return !f->cpus || (s->has_cpu && s->cpu < SAMPLE_FILTER_MAX_CPU &&
			    (f->cpus[s->cpu / 64] & (1ULL << (s->cpu % 64))));
}

bool sample_filter_match_entry(const struct sample_filter *f, const struct secmap_sample *s)
{
	char buf[64];

	if (f->nr_pids && !has_id(f->pids, f->nr_pids, s->pid))
		return false;
	if (f->nr_tids && !has_id(f->tids, f->nr_tids, s->tid))
		return false;
	if (f->nr_comms && !has_name(f->comms, f->nr_comms, s->comm))
		return false;
	if (f->nr_dsos && !has_name(f->dsos, f->nr_dsos, s->frame->dso) &&
	    !has_name(f->dsos, f->nr_dsos, dso_short_name(s->frame->dso, buf, sizeof(buf))))
		return false;
	return !f->nr_symbols || has_name(f->symbols, f->nr_symbols, s->frame->symbol);
}

bool sample_filter_match(const struct sample_filter *f, const struct secmap_sample *s)
{
	return sample_filter_match_cpu(f, s) && sample_filter_match_entry(f, s);
}

void sample_filter_free(struct sample_filter *f)
{
	size_t i;

	for (i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	for (i = 0; i < f->nr_dsos; i++)
		free(f->dsos[i]);
	for (i = 0; i < f->nr_symbols; i++)
		free(f->symbols[i]);
	free(f->comms);
	free(f->dsos);
	free(f->symbols);
	free(f->pids);
	free(f->tids);
	free(f->cpus);
	memset(f, 0, sizeof(*f));
}
