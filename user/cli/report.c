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
#include <sys/stat.h>
#include <time.h>

#include "../lib/hashmap.h"
#include "json_out.h"
#include "pprof.h"
#include "sample_filter.h"
#include "samples.h"

enum sort_key {
	KEY_COMM, KEY_PID, KEY_TID, KEY_CPU, KEY_DSO, KEY_MODULE, KEY_SECTION, KEY_SYMBOL, KEY_SYM,
	NR_KEYS
};

/* --sort's names, the columns' titles and the JSON members. */
static const struct {
	const char *name, *title;
} key_info[NR_KEYS] = {
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

struct sort_keys {
	enum sort_key key[NR_KEYS];
	size_t nr;
	bool has[NR_KEYS];
};

struct row {
	size_t event;
	uint64_t key[2 * NR_KEYS];	/* per sort key in order, two words: what tells rows apart */
	/* What the row shows: its first sample's (the same for every sample of it). */
	const char *comm, *dso, *module, *section, *symbol;
	int32_t tid;
	uint32_t cpu;
	bool has_cpu, user;
	uint64_t addr;		/* where an unknown function is, as perf shows it */
	uint64_t comm_time;	/* of the latest sample: its comm is the thread's name */
	uint64_t samples, period;	/* the samples taken in it (self) */
	uint64_t children;	/* --children: the period of the samples with it in their stack */
	uint64_t seen;		/* the last sample that added to @children */
};

/* The rows, found by their key: the map's items index @rows. */
struct table {
	struct row *rows;
	size_t nr, cap;
	size_t key_words;
	struct libsecmap_hashmap by_key;
	struct row *last;	/* the row found last: a run of samples hits one row */
	uint64_t nr_added;	/* samples added: each frame's row counts a sample once */
};

/*
 * perf's address of a frame whose function is unknown: in a user file
 * the offset perf maps it to (its map's pgoff plus the distance into it),
 * else the address itself.
 */
static uint64_t unknown_addr(const struct secmap_frame *f)
{
	return f->user && f->map_end ? f->file_offset : f->ip;
}

/* The words of key @k for frame @f of sample @s. */
static void key_words(enum sort_key k, const struct secmap_sample *s,
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
		w[0] = (uintptr_t)f->dso;
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

/* The row of frame @f of sample @s (its own frame, or one of its callchain's). */
static struct row *table_find(struct table *t, const struct sort_keys *keys,
			      const struct secmap_sample *s, const struct secmap_frame *f)
{
	uint64_t key[1 + 2 * NR_KEYS];
	size_t i, bytes = (1 + t->key_words) * sizeof(key[0]);
	struct libsecmap_hashmap_slot *slot;
	struct row *r = t->last;
	uint64_t h;

	key[0] = s->event;
	for (i = 0; i < keys->nr; i++)
		key_words(keys->key[i], s, f, &key[1 + 2 * i]);
	if (r && r->event == s->event && same_key(r->key, key + 1, t->key_words))
		return r;
	h = libsecmap_hashmap_hash(&t->by_key, key, bytes);
	for (slot = libsecmap_hashmap_probe(&t->by_key, h); slot;
	     slot = libsecmap_hashmap_next(&t->by_key, h, slot)) {
		r = &t->rows[slot->item];
		if (r->event == s->event && same_key(r->key, key + 1, t->key_words))
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
	*r = (struct row){
		.event = s->event, .comm = s->comm, .dso = f->dso, .module = f->module,
		.section = f->section, .symbol = f->symbol, .tid = s->tid, .cpu = s->cpu,
		.has_cpu = s->has_cpu, .user = f->user, .addr = unknown_addr(f),
	};
	memcpy(r->key, key + 1, bytes - sizeof(key[0]));
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

struct report_opts {
	struct sort_keys keys;
	/* The keys the text table shows: perf leaves out one its filter fixes to one value. */
	enum sort_key column[NR_KEYS];
	size_t nr_columns;
	struct sample_filter filter;
	double percent_limit;
	bool relative;		/* --percentage relative */
	bool verbose;		/* long dso names */
	bool header, header_only;	/* --header, --header-only */
	bool children;		/* --children: rows for every frame of the callchains */
	const char *pprof_path;	/* --pprof: the samples kept go there, not to a table */
	struct pprof *pprof;
	const char **names;	/* its events' */
};

/* The text of @r's cell for key @k, safe to print. */
static const char *cell(const struct report_opts *o, enum sort_key k, const struct row *r,
			char *buf, size_t size)
{
	switch (k) {
	case KEY_COMM:
		return text_safe(r->comm ? r->comm : "[unknown]");
	case KEY_PID:
	case KEY_TID:
		snprintf(buf, size, "%7d:%s", (int)r->tid, text_safe(r->comm ? r->comm : ""));
		return buf;
	case KEY_CPU:
		if (!r->has_cpu)
			return "-";
		snprintf(buf, size, "%03u", r->cpu);
		return buf;
	case KEY_DSO:
		if (!r->dso)
			return "[unknown]";
		return text_safe(o->verbose ? r->dso : dso_short_name(r->dso, buf, size));
	case KEY_MODULE:
		return text_safe(r->module ? r->module : "[unknown]");
	case KEY_SECTION:
		return r->section ? text_safe(r->section) : "-";
	case KEY_SYMBOL:
		return text_safe(r->symbol ? r->symbol : "[unknown]");
	case KEY_SYM:
		if (r->symbol)
			snprintf(buf, size, "[%c] %s", r->user ? '.' : 'k', text_safe(r->symbol));
		else
			snprintf(buf, size, "[%c] %#.16" PRIx64, r->user ? '.' : 'k', r->addr);
		return buf;
	case NR_KEYS:
		break;
	}
	return "";
}

/* Characters, not bytes: a UTF-8 name pads as it shows. */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

struct totals {
	uint64_t *samples, *period;		/* per event: what the header says */
	uint64_t *base;				/* what the percentages are of */
};

static double percent_of(const struct totals *tot, const struct row *r, uint64_t period)
{
	uint64_t base = tot->base[r->event];

	return base ? 100.0 * (double)period / (double)base : 0.0;
}

static double percent(const struct totals *tot, const struct row *r)
{
	return percent_of(tot, r, r->period);
}

/* --percent-limit: of the children with --children, as perf's first column. */
static bool shown(const struct report_opts *o, const struct totals *tot, const struct row *r)
{
	return percent_of(tot, r, o->children ? r->children : r->period) >= o->percent_limit;
}

/* What perf says of a column it leaves out: "# comm: NAME". */
static void print_elided(const struct report_opts *o)
{
	static const struct {
		enum sort_key key;
		const char *name;
	} said[] = { { KEY_COMM, "comm" }, { KEY_DSO, "dso" }, { KEY_SYM, "symbol" } };
	char *const *value[NR_KEYS] = {
		[KEY_COMM] = o->filter.comms, [KEY_DSO] = o->filter.dsos,
		[KEY_SYM] = o->filter.symbols,
	};
	size_t i, j;

	for (i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		for (j = 0; j < o->nr_columns && o->column[j] != said[i].key; j++)
			;
		if (o->keys.has[said[i].key] && j == o->nr_columns)
			printf("# %s: %s\n", said[i].name, text_safe(value[said[i].key][0]));
	}
}

/*
 * perf's columns: a comm, dso or sym key that a filter of one name fixes
 * is left out, unless every key would be.
 */
static void set_columns(struct report_opts *o)
{
	bool fixed[NR_KEYS] = {
		[KEY_COMM] = o->filter.nr_comms == 1, [KEY_DSO] = o->filter.nr_dsos == 1,
		[KEY_SYM] = o->filter.nr_symbols == 1,
	};
	size_t i;

	o->nr_columns = 0;
	for (i = 0; i < o->keys.nr; i++)
		if (!fixed[o->keys.key[i]])
			o->column[o->nr_columns++] = o->keys.key[i];
	if (o->nr_columns)
		return;
	memcpy(o->column, o->keys.key, o->keys.nr * sizeof(o->column[0]));
	o->nr_columns = o->keys.nr;
}

static void print_header(const struct report_opts *o, const size_t *width)
{
	size_t i, k;

	printf(o->children ? "#  Children      Self   Samples" : "# Overhead   Samples");
	for (i = 0; i < o->nr_columns; i++) {
		k = o->column[i];
		printf("  %s%*s", key_info[k].title, i + 1 < o->nr_columns ?
		       (int)(width[i] - strlen(key_info[k].title)) : 0, "");
	}
	printf(o->children ? "\n# .........  ........  ........" : "\n# ........  ........");
	for (i = 0; i < o->nr_columns; i++) {
		printf("  ");
		for (k = 0; k < width[i]; k++)
			putchar('.');
	}
	printf("\n#\n");
}

static void report_print_stdio(struct sample_walk *w, const struct report_opts *o,
			       const struct row *rows, size_t nr, const struct totals *tot)
{
	const struct sample_walk_lost *lost = sample_walk_lost(w);
	size_t i, j, ev = SIZE_MAX, width[NR_KEYS];
	char buf[1200];

	printf("# secmap report of %s: module samples placed by their section maps\n#\n",
	       sample_walk_input(w));
	print_elided(o);
	if (lost->chunks || lost->samples)
		printf("# Lost: %" PRIu64 " events in %" PRIu64 " chunks, %" PRIu64
		       " samples (perf's buffers were full)\n#\n", lost->events, lost->chunks,
		       lost->samples);
	for (i = 0; i < nr; i++) {
		const struct row *r = &rows[i];

		if (r->event != ev) {
			size_t end;

			ev = r->event;
			/* The columns as wide as the event's widest cell shown. */
			for (j = 0; j < o->nr_columns; j++)
				width[j] = strlen(key_info[o->column[j]].title);
			for (end = i; end < nr && rows[end].event == ev; end++) {
				if (!shown(o, tot, &rows[end]))
					continue;
				for (j = 0; j < o->nr_columns; j++) {
					size_t n = text_width(cell(o, o->column[j], &rows[end], buf,
								   sizeof(buf)));

					if (n > width[j])
						width[j] = n;
				}
			}
			printf("%s# Samples: %" PRIu64 " of event '%s'\n#\n", i ? "\n\n" : "",
			       tot->samples[ev], text_safe(sample_walk_event_name(w, ev)));
			print_header(o, width);
		}
		if (!shown(o, tot, r))
			continue;
		if (o->children)
			printf("%10.2f%%  ", percent_of(tot, r, r->children));
		printf("%9.2f%%  %8" PRIu64, percent(tot, r), r->samples);
		for (j = 0; j < o->nr_columns; j++) {
			const char *s = cell(o, o->column[j], r, buf, sizeof(buf));

			printf("  %s", s);
			if (j + 1 < o->nr_columns)
				printf("%*s", (int)(width[j] - text_width(s)), "");
		}
		printf("\n");
	}
}

static void json_row_keys(struct json_out *out, const struct report_opts *o, const struct row *r)
{
	char name[64];
	size_t i;

	for (i = 0; i < o->keys.nr; i++) {
		switch (o->keys.key[i]) {
		case KEY_COMM:
			json_out_str(out, "comm", r->comm);
			break;
		case KEY_PID:
		case KEY_TID:
			if (r->tid >= 0)
				json_out_u64(out, "tid", (uint64_t)r->tid);
			else
				json_out_null(out, "tid");
			if (!o->keys.has[KEY_COMM])
				json_out_str(out, "comm", r->comm);
			break;
		case KEY_CPU:
			if (r->has_cpu)
				json_out_u64(out, "cpu", r->cpu);
			else
				json_out_null(out, "cpu");
			break;
		case KEY_DSO:
			json_out_str(out, "dso", r->dso);
			json_out_str(out, "dso_short", r->dso ? dso_short_name(r->dso, name,
									     sizeof(name)) : NULL);
			break;
		case KEY_MODULE:
			json_out_str(out, "module", r->module);
			break;
		case KEY_SECTION:
			json_out_str(out, "section", r->section);
			break;
		case KEY_SYMBOL:
		case KEY_SYM:
			json_out_str(out, "symbol", r->symbol);
			if (o->keys.key[i] == KEY_SYM && !r->symbol)
				json_out_hex(out, "addr", r->addr);
			break;
		case NR_KEYS:
			break;
		}
	}
}

static int report_print_json(struct sample_walk *w, const struct report_opts *o,
			     const struct row *rows, size_t nr, const struct totals *tot)
{
	struct json_out *out = json_out_stream(stdout, pretty_output);
	size_t i = 0, ev, nr_events = sample_walk_nr_events(w);
	const struct sample_walk_lost *lost = sample_walk_lost(w);

	if (!out)
		return -ENOMEM;
	json_out_object_begin(out, NULL);
	json_out_object_begin(out, "lost");
	json_out_u64(out, "chunks", lost->chunks);
	json_out_u64(out, "events", lost->events);
	json_out_u64(out, "samples", lost->samples);
	json_out_object_end(out);
	json_out_array_begin(out, "events");
	for (ev = 0; ev < nr_events; ev++) {
		json_out_object_begin(out, NULL);
		json_out_str(out, "event", sample_walk_event_name(w, ev));
		json_out_u64(out, "samples", tot->samples[ev]);
		json_out_u64(out, "period", tot->period[ev]);
		json_out_array_begin(out, "rows");
		for (; i < nr && rows[i].event == ev; i++) {
			const struct row *r = &rows[i];

			if (!shown(o, tot, r))
				continue;
			json_out_object_begin(out, NULL);
			json_out_u64(out, "samples", r->samples);
			json_out_u64(out, "period", r->period);
			if (o->children)
				json_out_u64(out, "children", r->children);
			json_row_keys(out, o, r);
			json_out_object_end(out);
		}
		json_out_array_end(out);
		json_out_object_end(out);
	}
	json_out_array_end(out);
	json_out_object_end(out);
	return json_out_finish(out);
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

enum { OPT_STDIO = 0x300, OPT_PERCENTAGE, OPT_PERCENT_LIMIT, OPT_PPROF, OPT_HEADER,
       OPT_HEADER_ONLY, OPT_CHILDREN, OPT_NO_CHILDREN };

/* One report option: 0 taken, -1 not ours, else an exit code. */
static int report_option(struct report_opts *o, struct resolver_args *args, int opt,
			 const char *arg)
{
	char *end;

	switch (opt) {
	case 's':
		if (!parse_sort(arg, &o->keys))
			return 0;
		p_err("report: --sort takes comm, pid, tid, cpu, dso, sym, module, section and "
		      "symbol, comma-separated, each once, not '%s'", text_safe(arg));
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

/*
 * --header: what perf report --header says of the perf.data (the same
 * lines, for the features secmap reads), then the recording secmap uses.
 */
static int print_header_info(struct sample_walk *w)
{
	struct secmap_perf_header h = { .sz = sizeof(h) };
	const struct secmap_resolver *res = sample_walk_resolver(w);
	int ret = sample_walk_header(w, &h);
	const struct {
		const char *name, *value;
	} strings[] = {
		{ "hostname", h.hostname }, { "os release", h.os_release },
		{ "perf version", h.perf_version }, { "arch", h.arch },
	};
	struct stat st;
	char when[64];
	size_t i;

	if (ret)
		return ret;
	printf("# ========\n");
	if (!stat(sample_walk_input(w), &st) && ctime_r(&st.st_mtime, when))
		printf("# captured on    : %s", when);
	printf("# header version : 1\n# data offset    : %" PRIu64 "\n# data size      : %" PRIu64
	       "\n# feat offset    : %" PRIu64 "\n", h.data_offset, h.data_size, h.feat_offset);
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (strings[i].value)
			printf("# %s : %s\n", strings[i].name, text_safe(strings[i].value));
	if (h.nr_cpus_avail)
		printf("# nrcpus online : %u\n# nrcpus avail : %u\n", h.nr_cpus_online,
		       h.nr_cpus_avail);
	if (h.cpu_desc)
		printf("# cpudesc : %s\n", text_safe(h.cpu_desc));
	if (h.cpuid)
		printf("# cpuid : %s\n", text_safe(h.cpuid));
	if (h.total_mem_kb)
		printf("# total memory : %" PRIu64 " kB\n", h.total_mem_kb);
	if (h.cmdline)
		printf("# cmdline : %s \n", text_safe(h.cmdline));
	for (i = 0; i < sample_walk_nr_events(w); i++)
		printf("# event : name = %s\n", text_safe(sample_walk_event_name(w, i)));
	if (h.has_sample_time) {
		printf("# time of first sample : %" PRIu64 ".%06" PRIu64 "\n",
		       h.first_sample_time / 1000000000, h.first_sample_time % 1000000000 / 1000);
		printf("# time of last sample : %" PRIu64 ".%06" PRIu64 "\n",
		       h.last_sample_time / 1000000000, h.last_sample_time % 1000000000 / 1000);
		printf("# sample duration : %10.3f ms\n",
		       (double)(h.last_sample_time - h.first_sample_time) / 1e6);
	}
	printf("# secmap recording : %zu module builds, %zu section maps, %zu kernel symbols\n",
	       secmap_resolver_nr_modules(res), secmap_resolver_nr_maps(res),
	       secmap_resolver_nr_kernel_symbols(res));
	printf("# ========\n#\n");
	return SECMAP_EXIT_OK;
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
		{ 0 }
	};
	struct report_opts o = {
		.keys = { .key = { KEY_MODULE, KEY_SECTION, KEY_SYMBOL }, .nr = 3,
			  .has = { [KEY_MODULE] = true, [KEY_SECTION] = true, [KEY_SYMBOL] = true } },
	};
	struct resolver_args args = { 0 };
	struct totals tot = { 0 };
	struct sample_walk *w = NULL;
	struct secmap_output *out_file = NULL;
	struct table t = { 0 };
	size_t nr_events;
	bool nomem = false;
	int opt, ret, err;

	libsecmap_hashmap_init(&t.by_key);
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" RESOLVER_SHORT_OPTIONS "s:qv" OUTPUT_SHORT_OPTIONS,
				  opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		if (opt == 'h') {
			report_usage(stdout);
			return SECMAP_EXIT_OK;
		}
		ret = report_option(&o, &args, opt, optarg);
		if (ret > 0)
			goto out;
		if (!ret)
			continue;
		ret = resolver_option(&args, opt, optarg);
		if (ret > 0)
			goto out;
		if (ret < 0) {
			ret = optopt == 's' ?
			      (p_err("report: option '%s' needs a value", argv[optind - 1]),
			       SECMAP_EXIT_USAGE) :
			      resolver_option_error("report", argv, report_usage);
			goto out;
		}
	}
	if (optind < argc) {
		ret = unexpected_argument("report", argv[optind], report_usage);
		goto out;
	}
	t.key_words = 2 * o.keys.nr;
	set_columns(&o);
	ret = sample_walk_open(&args, o.pprof_path || o.children ? SAMPLE_WALK_CHAIN : 0, &w);
	if (!w)
		goto out;
	ret = sample_filter_walk_span(&o.filter, w);
	if (!ret && o.header && !json_output && !o.pprof_path)
		ret = print_header_info(w);
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
	libsecmap_hashmap_free(&t.by_key);
	free(tot.samples);
	free(tot.period);
	free(tot.base);
	sample_filter_free(&o.filter);
	pprof_free(o.pprof);
	free(o.names);
	secmap_output_close(out_file);
	resolver_args_free(&args);
	return ret;
nomem:
	p_err("report: out of memory");
	ret = SECMAP_EXIT_FAILURE;
	goto out;
}
