/* SPDX-License-Identifier: GPL-2.0 */
/*
 * secmap report's parts: the table made of the samples (cli/report.c)
 * and its printing, as perf's text or as JSON (cli/report_print.c).
 */
#ifndef SECMAP_REPORT_H
#define SECMAP_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "sample_filter.h"
#include "samples.h"

enum sort_key {
	KEY_COMM, KEY_PID, KEY_TID, KEY_CPU, KEY_DSO, KEY_MODULE, KEY_SECTION, KEY_SYMBOL, KEY_SYM,
	NR_KEYS
};

/* --sort's names, the columns' titles and the JSON members (report.c). */
extern const struct report_key_info {
	const char *name, *title;
} key_info[NR_KEYS];

struct sort_keys {
	enum sort_key key[NR_KEYS];
	size_t nr;
	bool has[NR_KEYS];
};

struct row {
	size_t id;		/* the order it was made in: report_graph's name for it */
	size_t event;
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

/* -F/--fields: perf's output fields, each a column in the order given. */
enum report_field { FIELD_KEY, FIELD_OVERHEAD, FIELD_CHILDREN, FIELD_SAMPLE, FIELD_PERIOD };
struct report_column {
	enum report_field field;
	enum sort_key key;	/* FIELD_KEY's */
};
#define MAX_FIELDS	(NR_KEYS + 4)

/* perf's -g layouts (ui/stdio/hist.c). */
enum graph_layout {
	GRAPH_ABSOLUTE,		/* graph: a tree, shares of the event's period */
	GRAPH_FRACTAL,		/* the tree, each share of its parent's */
	GRAPH_FLAT,		/* each chain whole, its frames a line each */
	GRAPH_FOLDED,		/* each chain on one line, frames joined by ';' */
};

struct report_opts {
	struct sort_keys keys;
	bool sort_given;	/* --sort */
	struct report_column fields[MAX_FIELDS];	/* -F; nr_fields 0: perf's default layout */
	size_t nr_fields;
	/* The keys the text table shows: perf leaves out one its filter fixes to one value. */
	enum sort_key column[NR_KEYS];
	size_t nr_columns;
	struct sample_filter filter;
	double percent_limit;
	bool relative;		/* --percentage relative */
	bool verbose;		/* long dso names */
	bool header, header_only;	/* --header, --header-only */
	bool children;		/* --children: rows for every frame of the callchains */
	/* -g: each row's chains, in a layout; in caller order; threshold (%), a limit */
	bool graph, graph_caller, graph_order_given;
	enum graph_layout graph_layout;
	double graph_min_percent;
	size_t graph_limit;
	struct report_graph *chains;
	const char *pprof_path;	/* --pprof: the samples kept go there, not to a table */
	struct pprof *pprof;
	const char **names;	/* its events' */
};

struct totals {
	uint64_t *samples, *period;		/* per event: what the header says */
	uint64_t *base;				/* what the percentages are of */
};

/*
 * perf's address of a frame whose function is unknown: in a user file
 * the offset perf maps it to (its map's pgoff plus the distance into it),
 * else the address itself.
 */
static inline uint64_t unknown_addr(const struct secmap_frame *f)
{
	return f->user && f->map_end ? f->file_offset : f->ip;
}

/* The command line into @o and @args (report_options.c): an exit code, or -1 to go on. */
int report_args(int argc, char **argv, struct report_opts *o, struct resolver_args *args);

/* -g (report_graph.c) */
struct report_graph;
/*
 * @children: rows of every frame in the chains (--children), with the
 * chains from there on. @skip_first: perf's graph leaves out the first
 * frame (the row's own function) when the table is sorted by sym first.
 */
struct report_graph *report_graph_new(bool caller, bool children, enum graph_layout layout,
				      bool skip_first, double min_percent, size_t limit);
void report_graph_free(struct report_graph *g);
/*
 * @s's chain under row @r, of the frame at @at in it (--children), or of
 * the sample's own (SIZE_MAX): the whole chain. 0 or -ENOMEM.
 */
int report_graph_add(struct report_graph *g, const struct row *r, const struct secmap_sample *s,
		     size_t at);
/* Every sample added, @nr_rows rows: ready to print; 0 or -ENOMEM. */
int report_graph_finish(struct report_graph *g, size_t nr_rows);
void report_graph_print(const struct report_graph *g, const struct row *r, uint64_t total);
/* -g's argument, perf's words: 0, or an exit code (said). */
int report_graph_option(struct report_opts *o, const char *arg);
/* Whether @word, the word after a bare -g, is its argument. */
bool report_graph_word(const char *word);

/* The columns the text table shows (perf leaves out one a filter fixes). */
void report_set_columns(struct report_opts *o);
void report_print_stdio(struct sample_walk *w, const struct report_opts *o,
			const struct row *rows, size_t nr, const struct totals *tot);
int report_print_json(struct sample_walk *w, const struct report_opts *o,
		      const struct row *rows, size_t nr, const struct totals *tot);
/* --header: perf's header lines and the recording's counts; an exit code. */
int report_print_header(struct sample_walk *w);

#endif /* SECMAP_REPORT_H */
