// SPDX-License-Identifier: GPL-2.0
/*
 * secmap report: perf report's table, with every module sample on the
 * section and function that really ran at its time. The rows are made by
 * perf's sort keys (comm, pid, cpu, dso, sym, with perf's columns) and
 * secmap's own (module, section, symbol: a function by its section, the
 * unknown ones as one row), in the order given; the filters and the
 * percentages are perf's.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hashmap.h"
#include "pprof.h"
#include "report.h"

/* --sort's names, the columns' titles and the JSON members. */
const struct report_key_info key_info[NR_KEYS] = {
	[KEY_COMM] = { "comm", "Command" },
	[KEY_PID] = { "pid", "Pid:Command" },		/* perf's pid key is the thread */
	[KEY_TID] = { "tid", "Tid:Command" },
	[KEY_CPU] = { "cpu", "CPU" },
	[KEY_DSO] = { "dso", "Shared Object" },
	[KEY_MODULE] = { "module", "Module" },
	[KEY_SECTION] = { "section", "Section" },
	[KEY_SYMBOL] = { "symbol", "Symbol" },
	[KEY_SYM] = { "sym", "Symbol" },
};

/* The rows, found by their key: the map's items index @rows and @keys. */
struct table {
	struct row *rows;
	/*
	 * Each row's key, apart from the row: its event, then key_words
	 * words. A lookup reads the keys of a few hundred KiB (cache) rather
	 * than rows of a few MiB.
	 */
	uint64_t *keys;
	size_t nr, cap;
	size_t key_words;
	struct libsecmap_hashmap by_key;
	struct row *last;	/* the row found last: a run of samples hits one row */
	uint64_t nr_added;	/* samples added: each frame's row counts a sample once */
	/*
	 * perf tells files apart by their short names (-v: whole paths): two
	 * files named cc1 are one row. A file's key is the first file seen
	 * with its short name (dso_by_name's items); each file's key, once
	 * found, is kept by the file's (interned) name: samples alternate
	 * between files, and a short name takes a sscanf().
	 */
	bool verbose;
	struct libsecmap_hashmap dso_by_name;
	struct libsecmap_hashmap key_by_dso;	/* items index @dso_keys */
	struct dso_key {
		const char *dso, *key;
	} *dso_keys;
	size_t nr_dso_keys, cap_dso_keys;
	const char *last_dso, *last_dso_key;
};

/* The first file seen with @dso's short name. */
static const char *dso_by_short_name(struct table *t, const char *dso)
{
	char buf[64], other_buf[64];
	struct libsecmap_hashmap_slot *slot;
	const char *name = dso_short_name(dso, buf, sizeof(buf));
	uint64_t h = libsecmap_hashmap_hash(&t->dso_by_name, name, strlen(name));

	for (slot = libsecmap_hashmap_probe(&t->dso_by_name, h); slot;
	     slot = libsecmap_hashmap_next(&t->dso_by_name, h, slot)) {
		const char *other = (const char *)slot->item;

		if (!strcmp(dso_short_name(other, other_buf, sizeof(other_buf)), name))
			return other;
	}
	/* Out of memory: this file keeps a row of its own, no worse. */
	libsecmap_hashmap_add(&t->dso_by_name, h, (uintptr_t)dso);
	return dso;
}

/* @key as @dso's, under @dso's hash @h: 0 or -ENOMEM. */
static int remember_dso_key(struct table *t, uint64_t h, const char *dso, const char *key)
{
	if (t->nr_dso_keys == t->cap_dso_keys) {
		size_t n = t->cap_dso_keys ? 2 * t->cap_dso_keys : 64;
		struct dso_key *keys = reallocarray(t->dso_keys, n, sizeof(*keys));

		if (!keys)
			return -ENOMEM;
		t->dso_keys = keys;
		t->cap_dso_keys = n;
	}
	if (libsecmap_hashmap_add(&t->key_by_dso, h, t->nr_dso_keys))
		return -ENOMEM;
	t->dso_keys[t->nr_dso_keys++] = (struct dso_key){ .dso = dso, .key = key };
	return 0;
}

static const char *dso_key(struct table *t, const char *dso)
{
	struct libsecmap_hashmap_slot *slot;
	const char *key = NULL;
	uint64_t h;

	if (dso == t->last_dso)
		return t->last_dso_key;
	if (!dso || t->verbose)
		return dso;
	h = libsecmap_hashmap_hash_u64(&t->key_by_dso, (uintptr_t)dso);
	for (slot = libsecmap_hashmap_probe(&t->key_by_dso, h); slot && !key;
	     slot = libsecmap_hashmap_next(&t->key_by_dso, h, slot))
		if (t->dso_keys[slot->item].dso == dso)
			key = t->dso_keys[slot->item].key;
	if (!key) {
		key = dso_by_short_name(t, dso);
		/* Out of memory: found again next time, the same. */
		if (remember_dso_key(t, h, dso, key))
			return key;
	}
	t->last_dso = dso;
	t->last_dso_key = key;
	return key;
}

/* The words of key @k for frame @f of sample @s. */
static void key_words(struct table *t, enum sort_key k, const struct secmap_sample *s,
		      const struct secmap_frame *f, uint64_t *w)
{
	/* Names are interned by the library: one pointer, one name. */
	w[1] = 0;
	switch (k) {
	case KEY_COMM:
		w[0] = (uintptr_t)s->comm;
		break;
	case KEY_PID:
	case KEY_TID:
		/* perf's rows are threads, named by their last name (row_update()). */
		w[0] = (uint32_t)s->tid;
		break;
	case KEY_CPU:
		w[0] = s->has_cpu ? s->cpu : UINT64_MAX;
		break;
	case KEY_DSO:
		w[0] = (uintptr_t)dso_key(t, f->dso);
		break;
	case KEY_MODULE:
		w[0] = (uintptr_t)f->module;
		break;
	case KEY_SECTION:
		w[0] = (uintptr_t)f->section;
		break;
	case KEY_SYMBOL:
		w[0] = (uintptr_t)f->symbol;
		break;
	case KEY_SYM:
		/* perf: one row per function, and one per address where none is known. */
		w[0] = f->symbol ? (uintptr_t)f->symbol : f->user ? 1 : 2;
		w[1] = f->symbol ? 0 : unknown_addr(f);
		break;
	case NR_KEYS:
		break;
	}
}

/* A few words: inline compares, not a memcmp() call a sample. */
static inline bool same_key(const uint64_t *a, const uint64_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Row @i's key, the event first. */
static inline uint64_t *row_key(const struct table *t, size_t i)
{
	return t->keys + i * (1 + t->key_words);
}

/* Room for one more row: 0 or -ENOMEM. */
static int table_grow(struct table *t)
{
	size_t n = t->cap ? 2 * t->cap : 1024;
	uint64_t *keys;
	struct row *r;

	if (t->nr < t->cap)
		return 0;
	keys = reallocarray(t->keys, n, (1 + t->key_words) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	t->keys = keys;
	r = reallocarray(t->rows, n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	t->rows = r;
	t->cap = n;
	return 0;
}

/* The row of frame @f of sample @s (its own frame, or one of its callchain's). */
static struct row *table_find(struct table *t, const struct sort_keys *keys,
			      const struct secmap_sample *s, const struct secmap_frame *f)
{
	uint64_t key[1 + 2 * NR_KEYS];
	size_t i, words = 1 + t->key_words;
	struct libsecmap_hashmap_slot *slot;
	struct row *r = t->last;
	uint64_t h;

	key[0] = s->event;
	for (i = 0; i < keys->nr; i++)
		key_words(t, keys->key[i], s, f, &key[1 + 2 * i]);
	if (r && same_key(row_key(t, (size_t)(r - t->rows)), key, words))
		return r;
	h = libsecmap_hashmap_hash(&t->by_key, key, words * sizeof(key[0]));
	for (slot = libsecmap_hashmap_probe(&t->by_key, h); slot;
	     slot = libsecmap_hashmap_next(&t->by_key, h, slot))
		if (same_key(row_key(t, slot->item), key, words))
			return t->last = &t->rows[slot->item];
	if (table_grow(t) || libsecmap_hashmap_add(&t->by_key, h, t->nr))
		return NULL;
	memcpy(row_key(t, t->nr), key, words * sizeof(key[0]));
	r = &t->rows[t->nr++];
	*r = (struct row){
		.id = t->nr - 1, .event = s->event, .comm = s->comm, .dso = f->dso, .module = f->module,
		.section = f->section, .symbol = f->symbol, .tid = s->tid, .cpu = s->cpu,
		.has_cpu = s->has_cpu, .user = f->user, .addr = unknown_addr(f),
	};
	return t->last = r;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_num(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_key(enum sort_key k, const struct row *x, const struct row *y)
{
	switch (k) {
	case KEY_COMM:
		return cmp_str(x->comm, y->comm);
	case KEY_PID:
	case KEY_TID:
		return cmp_num((uint32_t)x->tid, (uint32_t)y->tid) ?: cmp_str(x->comm, y->comm);
	case KEY_CPU:
		return cmp_num(x->has_cpu ? x->cpu : UINT64_MAX, y->has_cpu ? y->cpu : UINT64_MAX);
	case KEY_DSO:
		return cmp_str(x->dso, y->dso);
	case KEY_MODULE:
		return cmp_str(x->module, y->module);
	case KEY_SECTION:
		return cmp_str(x->section, y->section);
	case KEY_SYMBOL:
		return cmp_str(x->symbol, y->symbol);
	case KEY_SYM:
		if (!x->symbol != !y->symbol)
			return x->symbol ? -1 : 1;
		return x->symbol ? cmp_str(x->symbol, y->symbol) : cmp_num(x->addr, y->addr);
	case NR_KEYS:
		break;
	}
	return 0;
}

/*
 * By event, heaviest first (by children with --children), then by the
 * keys in their order: the same table every run.
 */
static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct sort_keys *keys = arg;
	const struct row *x = a, *y = b;
	size_t i;
	int c;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	for (i = 0; i < keys->nr; i++) {
		c = cmp_key(keys->key[i], x, y);
		if (c)
			return c;
	}
	return 0;
}

static int parse_sort(const char *arg, struct sort_keys *keys)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	size_t k;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	memset(keys, 0, sizeof(*keys));
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < NR_KEYS; k++)
			if (!strcmp(tok, key_info[k].name))
				break;
		if (k == NR_KEYS || keys->has[k]) {
			ret = -EINVAL;
			break;
		}
		keys->has[k] = true;
		keys->key[keys->nr++] = k;
	}
	free(copy);
	return ret ? ret : (keys->nr ? 0 : -EINVAL);
}

/* -F: perf's overhead, overhead_children, sample, period and the sort keys, each once. */
static int parse_fields(const char *arg, struct report_opts *o)
{
	static const char *const names[] = {
		[FIELD_OVERHEAD] = "overhead", [FIELD_CHILDREN] = "overhead_children",
		[FIELD_SAMPLE] = "sample", [FIELD_PERIOD] = "period",
	};
	char *copy = strdup(arg), *tok, *save = NULL;
	struct report_column c;
	size_t i, k;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	o->nr_fields = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		c = (struct report_column){ .field = FIELD_KEY, .key = NR_KEYS };
		for (i = FIELD_OVERHEAD; i <= FIELD_PERIOD; i++)
			if (!strcmp(tok, names[i]))
				c.field = i;
		for (k = 0; c.field == FIELD_KEY && k < NR_KEYS; k++)
			if (!strcmp(tok, key_info[k].name))
				c.key = k;
		for (i = 0; i < o->nr_fields; i++)
			if (o->fields[i].field == c.field && o->fields[i].key == c.key)
				break;
		if ((c.field == FIELD_KEY && c.key == NR_KEYS) || i < o->nr_fields ||
		    o->nr_fields == MAX_FIELDS)
			ret = -EINVAL;
		else
			o->fields[o->nr_fields++] = c;
	}
	free(copy);
	return ret ? ret : (o->nr_fields ? 0 : -EINVAL);
}

/*
 * With -F, the rows are told apart by its keys, then by --sort's others,
 * which are columns too, after -F's (as perf appends them); with neither
 * a key, by the default keys.
 */
static int fields_keys(struct report_opts *o)
{
	struct sort_keys keys = { 0 };
	size_t i;

	for (i = 0; i < o->nr_fields; i++) {
		if (o->fields[i].field == FIELD_CHILDREN && !o->children) {
			p_err("report: -F overhead_children needs --children");
			return SECMAP_EXIT_USAGE;
		}
		if (o->fields[i].field == FIELD_KEY) {
			keys.has[o->fields[i].key] = true;
			keys.key[keys.nr++] = o->fields[i].key;
		}
	}
	for (i = 0; i < o->keys.nr; i++) {
		if ((keys.nr && !o->sort_given) || keys.has[o->keys.key[i]])
			continue;
		keys.has[o->keys.key[i]] = true;
		keys.key[keys.nr++] = o->keys.key[i];
		o->fields[o->nr_fields++] = (struct report_column){ FIELD_KEY, o->keys.key[i] };
	}
	o->keys = keys;
	return -1;
}

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
		"  -s, --sort KEYS        comma-separated, in this order: perf's comm, pid (the\n"
		"                         thread), tid, cpu, dso, sym; secmap's module, section,\n"
		"                         symbol (default module,section,symbol)\n"
		"      --stdio            a text table (the default)\n"
		SAMPLE_FILTER_HELP
		"      --percentage HOW   of a filtered table: absolute (of all samples, the\n"
		"                         default) or relative (of those shown)\n"
		"      --percent-limit P  leave out rows under P percent\n"
		"  -v, --verbose          dso: the file's whole path\n"
		"      --children         a row for every function in the samples' callchains too,\n"
		"                         with the period of the samples it is in (Children)\n"
		"      --no-children      the samples' own functions only (the default)\n"
		"  -F, --fields FIELDS    the columns, in this order: overhead,\n"
		"                         overhead_children, sample, period and --sort's keys\n"
		"                         (perf's -F; --sort's other keys follow)\n"
		"  -g, --call-graph [ARGS] under each row its call chains, as perf's tree;\n"
		"                         ARGS, comma-separated: graph (the default), fractal,\n"
		"                         flat or folded,\n"
		"                         caller or callee (the default), a threshold in percent\n"
		"                         (0.5), a limit of branches a level; none: no chains\n"
		"      --header           the perf.data's header and the recording's, then the table\n"
		"      --header-only      the headers alone\n"
		"      --pprof FILE       write the samples kept as a pprof profile (gzipped\n"
		"                         profile.proto, with callchains), not a table\n"
		"      --clock CLOCK      override the samples' clock: local or monotonic\n"
		"      --ko-path PATH     look for .ko files in PATH first (repeatable)\n"
		"      --force            use a .ko whose build-id differs from the recorded one\n"
		"      --no-ko            sections only: read no .ko\n"
		"  -q, --quiet            no warnings about missing .ko files\n"
		"  -j, --json             {\"events\": [{\"event\", \"samples\", \"rows\": [...]}]}\n"
		"  -h, --help             show this help\n",
		bin_name);
}

enum {
	OPT_STDIO = 0x300, OPT_PERCENTAGE, OPT_PERCENT_LIMIT, OPT_PPROF, OPT_HEADER,
	OPT_HEADER_ONLY, OPT_CHILDREN, OPT_NO_CHILDREN,
};

/* One report option: 0 taken, -1 not ours, else an exit code. */
static int report_option(struct report_opts *o, struct resolver_args *args, int opt,
			 const char *arg)
{
	char *end;

	switch (opt) {
	case 's':
		o->sort_given = true;
		if (!parse_sort(arg, &o->keys))
			return 0;
		p_err("report: --sort takes comm, pid, tid, cpu, dso, sym, module, section and "
		      "symbol, comma-separated, each once, not '%s'", text_safe(arg));
		return SECMAP_EXIT_USAGE;
	case 'F':
		if (!parse_fields(arg, o))
			return 0;
		p_err("report: -F takes overhead, overhead_children, sample, period and the "
		      "--sort keys, comma-separated, each once, not '%s'", text_safe(arg));
		return SECMAP_EXIT_USAGE;
	case OPT_STDIO:
		return 0;
	case 'q':
		args->quiet = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case OPT_PPROF:
		o->pprof_path = arg;
		return 0;
	case OPT_HEADER:
		o->header = true;
		return 0;
	case OPT_HEADER_ONLY:
		o->header = o->header_only = true;
		return 0;
	case OPT_CHILDREN:
	case OPT_NO_CHILDREN:
		o->children = opt == OPT_CHILDREN;
		return 0;
	case OPT_PERCENTAGE:
		if (!strcmp(arg, "relative") || !strcmp(arg, "absolute")) {
			o->relative = arg[0] == 'r';
			return 0;
		}
		p_err("report: --percentage takes absolute or relative, not '%s'", text_safe(arg));
		return SECMAP_EXIT_USAGE;
	case OPT_PERCENT_LIMIT:
		errno = 0;
		o->percent_limit = strtod(arg, &end);
		if (!errno && end != arg && !*end && o->percent_limit >= 0 &&
		    o->percent_limit <= 100)
			return 0;
		p_err("report: --percent-limit takes a percentage from 0 to 100, not '%s'",
		      text_safe(arg));
		return SECMAP_EXIT_USAGE;
	}
	return sample_filter_option(&o->filter, opt, arg);
}

static int cmp_row_thread(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return cmp_num(y->comm_time, x->comm_time);	/* the latest first */
}

/*
 * perf names a thread's rows by the thread's name at the end, not the
 * sample's: each row gets its thread's latest sample's name. 0 or -ENOMEM.
 */
static int name_threads(struct table *t)
{
	struct row **by_thread = calloc(t->nr ? t->nr : 1, sizeof(*by_thread));
	size_t i, first = 0;

	if (!by_thread)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++)
		by_thread[i] = &t->rows[i];
	if (t->nr)
		qsort(by_thread, t->nr, sizeof(*by_thread), cmp_row_thread);
	for (i = 0; i < t->nr; i++) {
		if (by_thread[i]->tid != by_thread[first]->tid)
			first = i;
		by_thread[i]->comm = by_thread[first]->comm;
	}
	free(by_thread);
	return 0;
}

/*
 * --children: @s's period to the row of every frame in its stack, once
 * a row however often it recurs there, its own row (@own) first. 0, or
 * -ENOMEM. The rows move as the table grows: t->last is @own's again at
 * the end.
 */
static int add_children(struct table *t, const struct report_opts *o,
			const struct secmap_sample *s, struct row *own)
{
	size_t own_at = (size_t)(own - t->rows), i;
	uint64_t seq = ++t->nr_added;
	struct row *r;

	own->children += s->period;
	own->seen = seq;
	for (i = 0; i < s->nr_chain; i++) {
		r = table_find(t, &o->keys, s, secmap_frame_at(s->chain, i));
		if (!r)
			return -ENOMEM;
		if (r->seen != seq) {
			r->seen = seq;
			r->children += s->period;
		}
	}
	t->last = &t->rows[own_at];
	return 0;
}

/*
 * Every sample into its row: perf's totals, --cpu's filter and the
 * others'. What sample_walk_next() said last; *@nomem when out of memory.
 */
static int fill_table(struct sample_walk *w, const struct report_opts *o, struct table *t,
		      struct totals *tot, bool *nomem)
{
	size_t nr_events = sample_walk_nr_events(w);
	uint64_t *kept = tot->base;
	const struct secmap_sample *s;
	struct row *r;
	int err;

	while ((err = sample_walk_next(w, &s)) == 1) {
		if (s->event >= nr_events || !sample_filter_match_skip(&o->filter, s))
			continue;
		tot->samples[s->event]++;
		tot->period[s->event] += s->period;
		if (!sample_filter_match_entry(&o->filter, s))
			continue;
		kept[s->event] += s->period;
		if (o->pprof) {
			if (pprof_add(o->pprof, s)) {
				*nomem = true;
				return 0;
			}
			continue;
		}
		r = table_find(t, &o->keys, s, s->frame);
		if (!r || (o->children && add_children(t, o, s, r))) {
			*nomem = true;
			return 0;
		}
		r = t->last;
		if (o->chains && report_graph_add(o->chains, r, s)) {
			*nomem = true;
			return 0;
		}
		r->samples++;
		r->period += s->period;
		if (s->time >= r->comm_time) {
			r->comm = s->comm;
			r->comm_time = s->time;
		}
	}
	if (!o->relative)
		memcpy(tot->base, tot->period, nr_events * sizeof(*tot->base));
	if ((o->keys.has[KEY_PID] || o->keys.has[KEY_TID]) && name_threads(t))
		*nomem = true;
	return err;
}

/* --pprof FILE: the output opened (nothing replaced yet) and the profile begun; an exit code. */
static int pprof_open(struct report_opts *o, struct sample_walk *w, struct secmap_output **out)
{
	size_t i, n = sample_walk_nr_events(w);
	int err = secmap_output_open(o->pprof_path, out);

	if (err)
		return output_error("report: ", o->pprof_path, err);
	o->names = calloc(n + 1, sizeof(*o->names));
	if (!o->names)
		goto nomem;
	for (i = 0; i < n; i++)
		o->names[i] = sample_walk_event_name(w, i);
	o->pprof = pprof_new(n, o->names);
	if (o->pprof)
		return SECMAP_EXIT_OK;
nomem:
	p_err("report: out of memory");
	return SECMAP_EXIT_FAILURE;
}

/* The profile written and put in place: @status, or an exit code. */
static int pprof_finish(struct report_opts *o, struct secmap_output *out, int status)
{
	int err = pprof_write(o->pprof, secmap_output_fd(out));

	if (!err)
		err = secmap_output_commit(out, 0);
	if (err == -ENOMEM) {
		p_err("report: out of memory");
		return SECMAP_EXIT_FAILURE;
	}
	return err ? output_error("report: ", o->pprof_path, err) : status;
}

/* The command line into @o and @args: an exit code, or -1 to go on. */
static int report_args(int argc, char **argv, struct report_opts *o, struct resolver_args *args)
{
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		RESOLVER_LONG_OPTIONS,
		SAMPLE_FILTER_LONG_OPTIONS,
		{ "sort",	   required_argument, NULL, 's' },
		{ "stdio",	   no_argument,	      NULL, OPT_STDIO },
		{ "quiet",	   no_argument,	      NULL, 'q' },
		{ "verbose",	   no_argument,	      NULL, 'v' },
		{ "percentage",	   required_argument, NULL, OPT_PERCENTAGE },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "pprof",	   required_argument, NULL, OPT_PPROF },
		{ "header",	   no_argument,	      NULL, OPT_HEADER },
		{ "header-only",   no_argument,	      NULL, OPT_HEADER_ONLY },
		{ "children",	   no_argument,	      NULL, OPT_CHILDREN },
		{ "no-children",   no_argument,	      NULL, OPT_NO_CHILDREN },
		{ "call-graph",	   optional_argument, NULL, 'g' },
		{ "fields",	   required_argument, NULL, 'F' },
		{ 0 }
	};
	int opt, ret;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" RESOLVER_SHORT_OPTIONS "s:qvg::F:" OUTPUT_SHORT_OPTIONS,
				  opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		if (opt == 'h') {
			report_usage(stdout);
			return SECMAP_EXIT_OK;
		}
		if (opt == 'g') {
			/* perf's -g takes its words as the next argument too. */
			if (!optarg && optind < argc && report_graph_word(argv[optind]))
				optarg = argv[optind++];
			ret = report_graph_option(o, optarg);
			if (ret)
				return ret;
			continue;
		}
		ret = report_option(o, args, opt, optarg);
		if (ret > 0)
			return ret;
		if (!ret)
			continue;
		ret = resolver_option(args, opt, optarg);
		if (ret > 0)
			return ret;
		if (ret < 0) {
			ret = optopt == 's' || optopt == 'F' ?
			      (p_err("report: option '%s' needs a value", argv[optind - 1]),
			       SECMAP_EXIT_USAGE) :
			      resolver_option_error("report", argv, report_usage);
			return ret;
		}
	}
	if (optind < argc)
		return unexpected_argument("report", argv[optind], report_usage);
	if (o->graph && (o->children || json_output || o->pprof_path)) {
		p_err("report: -g prints chains in the text table, without --children (not yet)");
		return SECMAP_EXIT_USAGE;
	}
	return o->nr_fields ? fields_keys(o) : -1;
}

int do_report(int argc, char **argv)
{
	struct report_opts o = {
		.keys = { .key = { KEY_MODULE, KEY_SECTION, KEY_SYMBOL }, .nr = 3,
			  .has = { [KEY_MODULE] = true, [KEY_SECTION] = true, [KEY_SYMBOL] = true } },
		.graph_min_percent = 0.5,
	};
	struct resolver_args args = { 0 };
	struct totals tot = { 0 };
	struct sample_walk *w = NULL;
	struct secmap_output *out_file = NULL;
	struct table t = { 0 };
	size_t nr_events;
	bool nomem = false;
	int ret, err;

	libsecmap_hashmap_init(&t.by_key);
	libsecmap_hashmap_init(&t.dso_by_name);
	libsecmap_hashmap_init(&t.key_by_dso);
	ret = report_args(argc, argv, &o, &args);
	t.verbose = o.verbose;
	if (ret >= 0)
		goto out;
	t.key_words = 2 * o.keys.nr;
	report_set_columns(&o);
	if (o.graph) {
		o.chains = report_graph_new(o.graph_caller, o.graph_layout,
					    o.sort_given && !o.nr_fields && o.keys.key[0] == KEY_SYM,
					    o.graph_min_percent, o.graph_limit);
		if (!o.chains)
			goto nomem;
	}
	ret = sample_walk_open(&args, o.pprof_path || o.children || o.graph ? SAMPLE_WALK_CHAIN : 0,
			       &w);
	if (!w)
		goto out;
	ret = sample_filter_walk_span(&o.filter, w);
	if (!ret && o.header && !json_output && !o.pprof_path)
		ret = report_print_header(w);
	if (ret)
		goto out;
	if (o.header_only) {
		ret = flush_output(stdout) ? (p_err("cannot write output: %s",
						     strerror(errno ? errno : EIO)),
					      SECMAP_EXIT_FAILURE) : sample_walk_status(w);
		goto out;
	}
	nr_events = sample_walk_nr_events(w);
	if (o.pprof_path) {
		ret = pprof_open(&o, w, &out_file);
		if (ret)
			goto out;
	}
	tot.samples = calloc(nr_events + 1, sizeof(*tot.samples));
	tot.period = calloc(nr_events + 1, sizeof(*tot.period));
	tot.base = calloc(nr_events + 1, sizeof(*tot.base));
	if (!tot.samples || !tot.period || !tot.base)
		goto nomem;
	err = fill_table(w, &o, &t, &tot, &nomem);
	if (nomem)
		goto nomem;
	if (err < 0) {
		ret = -err;
		goto out;
	}
	if (o.pprof) {
		ret = pprof_finish(&o, out_file, sample_walk_status(w));
		goto out;
	}
	if (o.chains && report_graph_finish(o.chains, t.nr))
		goto nomem;
	if (t.nr)
		qsort_r(t.rows, t.nr, sizeof(*t.rows), cmp_row, &o.keys);
	if (json_output)
		err = report_print_json(w, &o, t.rows, t.nr, &tot);
	else
		report_print_stdio(w, &o, t.rows, t.nr, &tot);
	if (err || flush_output(stdout)) {
		p_err("cannot write output: %s", strerror(err ? -err : errno ? errno : EIO));
		ret = SECMAP_EXIT_FAILURE;
		goto out;
	}
	ret = sample_walk_status(w);
out:
	sample_walk_close(w);
	free(t.rows);
	free(t.keys);
	libsecmap_hashmap_free(&t.by_key);
	libsecmap_hashmap_free(&t.dso_by_name);
	libsecmap_hashmap_free(&t.key_by_dso);
	free(t.dso_keys);
	free(tot.samples);
	free(tot.period);
	free(tot.base);
	sample_filter_free(&o.filter);
	pprof_free(o.pprof);
	report_graph_free(o.chains);
	free(o.names);
	secmap_output_close(out_file);
	resolver_args_free(&args);
	return ret;
nomem:
	p_err("report: out of memory");
	ret = SECMAP_EXIT_FAILURE;
	goto out;
}
