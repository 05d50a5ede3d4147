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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hashmap.h"
#include "pprof.h"
#include "report.h"

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
 * a row however often it recurs there, its own row (@own) first. With
 * -g, the frame that counts is the first in the graph's order (perf's
 * cursor), and its row gets the chain from there. 0, or -ENOMEM. The
 * rows move as the table grows: t->last is @own's again at the end.
 */
static int add_children(struct table *t, const struct report_opts *o,
			const struct secmap_sample *s, struct row *own)
{
	size_t own_at = (size_t)(own - t->rows), i, at, n = s->nr_chain;
	bool reverse = o->chains && o->graph_caller;
	uint64_t seq = ++t->nr_added;
	struct row *r;

	own->children += s->period;
	own->seen = seq;
	for (i = 0; i < n; i++) {
		at = reverse ? n - 1 - i : i;
		r = table_find(t, &o->keys, s, secmap_frame_at(s->chain, at));
		if (!r)
			return -ENOMEM;
		if (r->seen == seq)
			continue;
		r->seen = seq;
		r->children += s->period;
		if (o->chains && report_graph_add(o->chains, r, s, at))
			return -ENOMEM;
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
		if (o->chains && report_graph_add(o->chains, r, s, SIZE_MAX)) {
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
		o.chains = report_graph_new(o.graph_caller, o.children, o.graph_layout,
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
