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
#include "samples.h"

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

/*
 * A time as perf takes it, "SECONDS[.FRACTION]" (up to nanoseconds), from
 * @s to @end; false if it is not one.
 */
static bool parse_time(const char *s, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000;
	const char *p = s;

	if (p == end)
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (sec > (UINT64_MAX / 1000000000 - 9) / 10)
			return false;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9' && scale > 1; p++) {
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
		}
	}
	if (p != end || p == s)
		return false;
	*ns = sec * 1000000000 + frac;
	return true;
}

static int add_range(struct sample_filter *f, uint64_t start, uint64_t end)
{
	struct time_range *r = realloc(f->times, (f->nr_times + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	f->times = r;
	f->times[f->nr_times++] = (struct time_range){ start, end };
	return 0;
}

/* A slice "A%/N" (the Nth A%) or "A%-B%", from @s to @end. */
static int add_slice(struct sample_filter *f, const char *s, const char *end)
{
	struct time_slice *sl;
	double a, b;
	char *e;
	long n;

	errno = 0;
	a = strtod(s, &e);
	if (errno || e == s || e >= end || *e != '%' || a < 0 || a > 100)
		return -EINVAL;
	if (e + 1 < end && e[1] == '/') {
		n = strtol(e + 2, &e, 10);
		if (errno || e != end || n < 1 || a <= 0 || (double)n * a > 100 + 1e-9)
			return -EINVAL;
		b = a * (double)n;
		a = b - a;
	} else if (e + 1 < end && e[1] == '-') {
		s = e + 2;
		b = strtod(s, &e);
		if (errno || e == s || e + 1 != end || *e != '%' || b < a || b > 100)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	sl = realloc(f->slices, (f->nr_slices + 1) * sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	f->slices = sl;
	f->slices[f->nr_slices++] = (struct time_slice){ a / 100, b / 100 };
	return 0;
}

/*
 * --time: ranges "START,STOP" (either end may be left out), space-
 * separated, or slices of the recording, comma-separated: perf's forms.
 */
static int add_times(struct sample_filter *f, const char *arg)
{
	const char *p = arg, *item, *comma;
	uint64_t start, stop;
	int err = 0;

	f->has_time = true;
	if (strchr(arg, '%')) {
		while (!err) {
			comma = strchr(p, ',');
			err = add_slice(f, p, comma ? comma : p + strlen(p));
			if (!comma)
				break;
			p = comma + 1;
		}
		return err;
	}
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			return f->nr_times ? 0 : -EINVAL;
		item = p;
		p += strcspn(p, " ");
		comma = memchr(item, ',', (size_t)(p - item));
		if (!comma)
			return -EINVAL;
		start = 0;
		stop = UINT64_MAX;
		if ((comma > item && !parse_time(item, comma, &start)) ||
		    (comma + 1 < p && !parse_time(comma + 1, p, &stop)) || start > stop)
			return -EINVAL;
		/* perf's rule: each range after the one before it, not touching it. */
		if (f->nr_times && f->times[f->nr_times - 1].end != UINT64_MAX &&
		    f->times[f->nr_times - 1].end >= start)
			return -EINVAL;
		err = add_range(f, start, stop);
		if (err)
			return err;
	}
}

static int cmp_range(const void *a, const void *b)
{
	const struct time_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorted, overlapping ones merged: a sample's time is found in log time. */
static void merge_ranges(struct sample_filter *f)
{
	size_t i, n = 0;

	if (!f->nr_times)
		return;
	qsort(f->times, f->nr_times, sizeof(*f->times), cmp_range);
	for (i = 1; i < f->nr_times; i++) {
		if (f->times[i].start <= f->times[n].end) {
			if (f->times[i].end > f->times[n].end)
				f->times[n].end = f->times[i].end;
		} else {
			f->times[++n] = f->times[i];
		}
	}
	f->nr_times = n + 1;
}

int sample_filter_set_span(struct sample_filter *f, uint64_t first, uint64_t last)
{
	double span = (double)(last - first);
	size_t i;
	int err;

	/* perf's arithmetic: rounded (half away from 0), and a slice's end 1 ns short unless it is the last sample's. */
	for (i = 0; i < f->nr_slices; i++) {
		uint64_t start = first + (uint64_t)(f->slices[i].from * span + 0.5);
		uint64_t end = first + (uint64_t)(f->slices[i].to * span + 0.5);

		if (end > start && end != last)
			end--;
		err = add_range(f, start, end);
		if (err)
			return err;
	}
	f->nr_slices = 0;
	merge_ranges(f);
	return 0;
}

int sample_filter_walk_span(struct sample_filter *f, struct sample_walk *walk)
{
	struct secmap_perf_header h = { .sz = sizeof(h) };
	int ret;

	if (!f->nr_slices)
		return SECMAP_EXIT_OK;
	ret = sample_walk_header(walk, &h);
	if (ret)
		return ret;
	if (!h.has_sample_time || h.last_sample_time < h.first_sample_time) {
		p_err("%s: --time in percent needs the first and last sample times, which this "
		      "perf.data does not have (perf record 4.17 and later write them)",
		      sample_walk_input(walk));
		return SECMAP_EXIT_BAD_INPUT;
	}
	if (!sample_filter_set_span(f, h.first_sample_time, h.last_sample_time))
		return SECMAP_EXIT_OK;
	p_err("out of memory");
	return SECMAP_EXIT_FAILURE;
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
	case FILTER_OPT_TIME:
		what = "--time: START,STOP in seconds (several space-separated), or 10%/2, 0%-10%,...";
		err = add_times(f, arg);
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
		merge_ranges(f);
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

/* Whether @time is in one of @f's ranges. */
static bool in_times(const struct sample_filter *f, uint64_t time)
{
	size_t lo = 0, hi = f->nr_times;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->times[mid].start <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && time <= f->times[lo - 1].end;
}

bool sample_filter_match_skip(const struct sample_filter *f, const struct secmap_sample *s)
{
	/* A sample without a CPU is on none of them; one without a time in no range. */
	if (f->cpus && (!s->has_cpu || s->cpu >= SAMPLE_FILTER_MAX_CPU ||
			!(f->cpus[s->cpu / 64] & (1ULL << (s->cpu % 64)))))
		return false;
	/* One without a time (or at 0) perf keeps, whatever the ranges. */
	return !f->has_time || !s->has_time || !s->time || in_times(f, s->time);
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
	return sample_filter_match_skip(f, s) && sample_filter_match_entry(f, s);
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
	free(f->times);
	free(f->slices);
	free(f->pids);
	free(f->tids);
	free(f->cpus);
	memset(f, 0, sizeof(*f));
}
