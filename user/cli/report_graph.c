// SPDX-License-Identifier: GPL-2.0
/*
 * report -g: each row's call chains, as perf report prints them: as a
 * tree (perf's default graph layout: each branch with the share of the
 * event's period below it; fractal: of its parent's), flat (every distinct
 * chain, a frame a line, with the share that went through its end) or
 * folded (every distinct chain on a line, with the share that ended in
 * it), from the sampled function out to its callers (callee order) or the
 * other way (caller order); branches and chains under the threshold left
 * out.
 *
 * The chains of all rows are one trie: a node is its parent and a
 * frame's key, the key perf compares frames by (the file and function,
 * or the file and address of an unknown one), found through one hash
 * map. A sample adds its period to the node its chain ends in. Memory is
 * the distinct chain prefixes, at most the frames read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_codes.h"
#include "../lib/hashmap.h"
#include "secmap_cli.h"
#include "report.h"
#include "text.h"

#define NO_NODE		UINT32_MAX
#define MAX_DEPTH	512

struct graph_node {
	uint32_t parent;	/* NO_NODE: a row's root */
	uint32_t row;		/* the row's id */
	uint64_t key[3];	/* the frame's file, function, address; the root's: the row */
	const char *name;	/* the function, or NULL: @addr */
	uint64_t addr;		/* an unknown function's address */
	uint64_t hits;		/* the period of the samples whose chain ends here */
};

struct report_graph {
	bool caller;
	enum graph_layout layout;
	bool skip_first;	/* perf's graph leaves out the row's own function when sorted by sym first */
	bool children;		/* --children: rows' chains from their frames on */
	double min_percent;
	size_t limit;		/* chains a row at most; 0: all */
	struct graph_node *nodes;
	size_t nr, cap;
	struct libsecmap_hashmap by_key;
	/* For printing: the nodes with hits, by row, the most hits first. */
	uint32_t *ends;
	size_t nr_ends;
	size_t *first_end;	/* per row id: where its nodes start in @ends */
	size_t nr_rows;
	/* The graph layout: per node its cumulative hits and its children; per row its root. */
	uint64_t *cumul;
	uint32_t *kids, *first_kid;	/* node n's children: kids[first_kid[n]..first_kid[n + 1]) */
	uint32_t *root_of;		/* per row id, or NO_NODE */
};

struct report_graph *report_graph_new(bool caller, bool children, enum graph_layout layout,
				      bool skip_first, double min_percent, size_t limit)
{
	struct report_graph *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->caller = caller;
	g->children = children;
	g->layout = layout;
	g->skip_first = skip_first;
	g->min_percent = min_percent;
	g->limit = limit;
	libsecmap_hashmap_init(&g->by_key);
	return g;
}

void report_graph_free(struct report_graph *g)
{
	if (!g)
		return;
	libsecmap_hashmap_free(&g->by_key);
	free(g->nodes);
	free(g->ends);
	free(g->first_end);
	free(g->cumul);
	free(g->kids);
	free(g->first_kid);
	free(g->root_of);
	free(g);
}

/* The child of @parent with key @key (made if none); NO_NODE when out of memory. */
static uint32_t child(struct report_graph *g, uint32_t parent, uint32_t row, const uint64_t key[3],
		      const char *name, uint64_t addr)
{
	uint64_t k[4] = { parent, key[0], key[1], key[2] };
	struct libsecmap_hashmap_slot *slot;
	struct graph_node *n;
	uint64_t h = libsecmap_hashmap_hash(&g->by_key, k, sizeof(k));

	for (slot = libsecmap_hashmap_probe(&g->by_key, h); slot;
	     slot = libsecmap_hashmap_next(&g->by_key, h, slot)) {
		n = &g->nodes[slot->item];
		if (n->parent == parent && n->key[0] == key[0] && n->key[1] == key[1] &&
		    n->key[2] == key[2] &&
		    (parent != NO_NODE || n->row == row))
			return (uint32_t)slot->item;
	}
	if (g->nr >= NO_NODE)
		return NO_NODE;
	if (g->nr == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 1024;

		n = reallocarray(g->nodes, cap, sizeof(*n));
		if (!n)
			return NO_NODE;
		g->nodes = n;
		g->cap = cap;
	}
	if (libsecmap_hashmap_add(&g->by_key, h, g->nr))
		return NO_NODE;
	g->nodes[g->nr] = (struct graph_node){
		.parent = parent, .row = row, .key = { key[0], key[1], key[2] }, .name = name,
		.addr = addr,
	};
	return (uint32_t)g->nr++;
}

/*
 * What perf tells frames apart by: the file and where the function starts
 * in it (two C++ functions may have one demangled name), or the file and
 * the address, which perf prints as it is (not as its file offset, as in
 * a row of an unknown function).
 */
static void frame_key(const struct secmap_frame *f, uint64_t key[3])
{
	key[0] = (uintptr_t)f->dso;
	key[1] = (uintptr_t)f->symbol;
	if (!f->symbol)
		key[2] = f->ip;
	else
		key[2] = (f->user ? f->file_offset : f->ip) - f->symbol_offset;
}

/*
 * A sample without a chain adds nothing: perf drops a chain it finds
 * corrupt (a marker no context has), keeping the sample in its row.
 * --children: a row of a frame in the chain gets the chain from that
 * frame on, in the graph's order: its callers (callee order), or what it
 * called (caller order), as perf's cursor goes on from there.
 */
int report_graph_add(struct report_graph *g, const struct row *r, const struct secmap_sample *s,
		     size_t at)
{
	uint64_t key[3] = { r->id, 0, 0 };
	size_t i, n = s->nr_chain;
	uint32_t node;

	if (!n)
		return 0;
	if (r->id >= NO_NODE)
		return -ENOMEM;
	/* i counts in the graph's order: where @at is in it, or from the start. */
	i = at >= n ? 0 : g->caller ? n - 1 - at : at;
	node = child(g, NO_NODE, (uint32_t)r->id, key, NULL, 0);
	for (; node != NO_NODE && i < n; i++) {
		const struct secmap_frame *f = secmap_frame_at(s->chain, g->caller ? n - 1 - i : i);

		frame_key(f, key);
		node = child(g, node, (uint32_t)r->id, key, f->symbol, f->ip);
	}
	if (node == NO_NODE)
		return -ENOMEM;
	g->nodes[node].hits += s->period;
	return 0;
}

static int cmp_end(const void *a, const void *b, void *arg)
{
	const struct graph_node *nodes = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (nodes[i].row != nodes[j].row)
		return nodes[i].row < nodes[j].row ? -1 : 1;
	if (nodes[i].hits != nodes[j].hits)
		return nodes[i].hits > nodes[j].hits ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * For the tree: each node's cumulative hits (a parent is made before its
 * children, so one pass from the last node up), its children, and each
 * row's root.
 */
static int graph_finish(struct report_graph *g, size_t nr_rows)
{
	size_t i, n = g->nr;

	g->cumul = calloc(n ? n : 1, sizeof(*g->cumul));
	g->kids = malloc((n ? n : 1) * sizeof(*g->kids));
	g->first_kid = calloc(n + 2, sizeof(*g->first_kid));
	g->root_of = malloc((nr_rows ? nr_rows : 1) * sizeof(*g->root_of));
	if (!g->cumul || !g->kids || !g->first_kid || !g->root_of)
		return -ENOMEM;
	for (i = 0; i < nr_rows; i++)
		g->root_of[i] = NO_NODE;
	for (i = n; i-- > 0;) {
		const struct graph_node *node = &g->nodes[i];

		g->cumul[i] += node->hits;
		if (node->parent == NO_NODE) {
			g->root_of[node->row] = (uint32_t)i;
		} else {
			g->cumul[node->parent] += g->cumul[i];
			g->first_kid[node->parent + 2]++;
		}
	}
	for (i = 2; i < n + 2; i++)
		g->first_kid[i] += g->first_kid[i - 1];
	for (i = 0; i < n; i++)
		if (g->nodes[i].parent != NO_NODE)
			g->kids[g->first_kid[g->nodes[i].parent + 1]++] = (uint32_t)i;
	return 0;
}

int report_graph_finish(struct report_graph *g, size_t nr_rows)
{
	size_t i;

	g->ends = malloc((g->nr ? g->nr : 1) * sizeof(*g->ends));
	g->first_end = malloc((nr_rows + 1) * sizeof(*g->first_end));
	if (!g->ends || !g->first_end)
		return -ENOMEM;
	for (i = 0; i < g->nr; i++)
		if (g->nodes[i].hits && g->nodes[i].parent != NO_NODE)
			g->ends[g->nr_ends++] = (uint32_t)i;
	qsort_r(g->ends, g->nr_ends, sizeof(*g->ends), cmp_end, g->nodes);
	g->nr_rows = nr_rows;
	for (i = 0; i <= nr_rows; i++)
		g->first_end[i] = 0;
	for (i = 0; i < g->nr_ends; i++)
		g->first_end[g->nodes[g->ends[i]].row + 1] = i + 1;
	for (i = 1; i <= nr_rows; i++)
		if (g->first_end[i] < g->first_end[i - 1])
			g->first_end[i] = g->first_end[i - 1];
	return g->layout == GRAPH_FOLDED ? 0 : graph_finish(g, nr_rows);
}

/*
 * @r's chains, the one with most hits first, as perf prints them: folded,
 * a line each, the share of @total (the event's period) that ended in it,
 * "%.2f%%", and its frames joined by ';'; flat, the share that went
 * through its end, then a frame a line and a blank line. perf leaves out
 * a chain under min_percent of @total.
 */
static void print_chains(const struct report_graph *g, const struct row *r, uint64_t total)
{
	const struct graph_node *path[MAX_DEPTH];
	bool flat = g->layout == GRAPH_FLAT;
	size_t i, end, depth;
	const char *name;
	char buf[32];
	uint32_t e;

	if (r->id >= g->nr_rows)
		return;
	end = g->first_end[r->id + 1];
	for (i = g->first_end[r->id]; i < end; i++) {
		const struct graph_node *n = &g->nodes[g->ends[i]];

		if (!total || n->hits * 100.0 < g->min_percent * total ||
		    (g->limit && i - g->first_end[r->id] >= g->limit))
			break;
		for (depth = 0; n->parent != NO_NODE && depth < MAX_DEPTH; n = &g->nodes[n->parent])
			path[depth++] = n;
		e = g->ends[i];
		if (flat)
			printf("           %.2f%%\n", g->cumul[e] * 100.0 / total);
		else
			printf("%.2f%% ", g->nodes[e].hits * 100.0 / total);
		while (depth--) {
			name = path[depth]->name;
			if (!name) {
				snprintf(buf, sizeof(buf), "%#" PRIx64, path[depth]->addr);
				name = buf;
			}
			if (flat)
				printf("                %s\n", text_safe(name));
			else
				printf("%s%s", text_safe(name), depth ? ";" : "\n");
		}
		if (flat)
			putchar('\n');
	}
}

/* A frame's name as perf prints it in a chain: the function, or the address. */
static const char *frame_name(const struct graph_node *n, char *buf, size_t size)
{
	if (n->name)
		return text_safe(n->name);
	snprintf(buf, size, "%#" PRIx64, n->addr);
	return buf;
}

/*
 * perf's tree is a radix tree: a node of it is a run of frames that
 * every chain through its first goes through alike, ending where a
 * chain ends or where they part. The run from @n: its last frame.
 */
static uint32_t run_end(const struct report_graph *g, uint32_t n)
{
	while (!g->nodes[n].hits && g->first_kid[n + 1] - g->first_kid[n] == 1)
		n = g->kids[g->first_kid[n]];
	return n;
}

struct graph_print {
	const struct report_graph *g;
	bool fractal;		/* shares of the parent's, the threshold too */
	uint64_t min_hits;	/* not fractal: branches under it left out */
};

/* What a branch's run passes on to its children: its cumulative hits but its own. */
static uint64_t children_hits(const struct report_graph *g, uint32_t last)
{
	return g->cumul[last] - g->nodes[last].hits;
}

static int cmp_branch(const void *a, const void *b, void *arg)
{
	const struct report_graph *g = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct graph_node *nx = &g->nodes[x], *ny = &g->nodes[y];
	int c;

	if (g->cumul[x] != g->cumul[y])
		return g->cumul[x] > g->cumul[y] ? -1 : 1;
	/* perf breaks ties by its dso objects' addresses: a fixed order instead. */
	if (nx->name && ny->name && (c = strcmp(nx->name, ny->name)))
		return c;
	if (!nx->name != !ny->name)
		return nx->name ? -1 : 1;
	return nx->addr < ny->addr ? -1 : nx->addr > ny->addr;
}

/*
 * @n's branches over the threshold, the heaviest first, into a malloc()ed
 * array. Fractal: the threshold is of @n's children's hits, rounded up.
 */
static uint32_t *branches(const struct graph_print *p, uint32_t n, size_t *nr)
{
	const struct report_graph *g = p->g;
	size_t i, k = 0, from = g->first_kid[n], to = g->first_kid[n + 1];
	uint32_t *out = malloc((to - from + 1) * sizeof(*out));
	double least = (double)children_hits(g, n) * (g->min_percent / 100);
	uint64_t min_hits = p->min_hits;

	if (p->fractal) {
		min_hits = (uint64_t)least;
		min_hits += min_hits < least;	/* perf's ceil() */
	}
	*nr = 0;
	if (!out)
		return NULL;
	for (i = from; i < to; i++)
		if (g->cumul[g->kids[i]] >= min_hits)
			out[k++] = g->kids[i];
	qsort_r(out, k, sizeof(*out), cmp_branch, (void *)g);
	*nr = k;
	return out;
}

static void margin(int left)
{
	printf("            %*s", left, "");
}

static bool masked(uint64_t mask, int i)
{
	return i < 64 && (mask >> i) & 1;
}

/* A frame line of a branch: the levels' pipes, "--share--" before @name if @share >= 0. */
static void branch_line(uint64_t mask, int depth, int left, double share, const char *name)
{
	int d;

	margin(left);
	for (d = 0; d < depth; d++) {
		putchar(masked(mask, d) ? '|' : ' ');
		if (share >= 0 && d == depth - 1)
			printf("--%.2f%%--", share);
		else
			printf("          ");
	}
	printf("%s\n", name);
}

/*
 * perf's graph lines (ui/stdio/hist.c): a separator line of the levels'
 * pipes, then each frame of a branch's run, its first with "--share--"
 * of @total. Fractal: the shares of a branch's children are of its
 * children's hits, and what the branches shown leave of @total is a last
 * branch, "[...]".
 */
static bool print_branches(const struct graph_print *p, uint32_t n, uint64_t total, int depth,
			   uint64_t mask, int left)
{
	const struct report_graph *g = p->g;
	uint64_t new_mask = mask, left_over = total;
	size_t i, nr, limit = g->limit;
	uint32_t *kids = branches(p, n, &nr);
	char buf[32];
	int d;

	for (i = 0; kids && i < nr && (!limit || i < limit); i++) {
		uint32_t first = kids[i], last = run_end(g, first), f = first;
		double share = total ? g->cumul[first] * 100.0 / total : 0;

		left_over -= g->cumul[first] < left_over ? g->cumul[first] : left_over;
		/* The last keeps its pipe when "[...]" comes after it. */
		if (i + 1 == nr && (!p->fractal || !left_over) && depth - 1 < 64)
			new_mask &= ~(1ull << (depth - 1));
		margin(left);
		for (d = 0; d < depth; d++)
			printf(masked(mask, d) ? "|          " : "           ");
		printf("\n");
		for (;;) {
			branch_line(new_mask, depth, left, f == first ? share : -1,
				    frame_name(&g->nodes[f], buf, sizeof(buf)));
			if (f == last)
				break;
			f = g->kids[g->first_kid[f]];
		}
		print_branches(p, last, p->fractal ? children_hits(g, last) : total, depth + 1,
			       new_mask | (depth < 64 ? 1ull << depth : 0), left);
	}
	free(kids);
	if (p->fractal && left_over && left_over != total) {
		if (depth - 1 < 64)
			new_mask &= ~(1ull << (depth - 1));
		branch_line(new_mask, depth, left, left_over * 100.0 / total, "[...]");
	}
	return i > 0;
}

/*
 * perf's graph of @r's chains: when one branch holds all of the row's
 * period, its run is printed at the top ("---") without a share, and
 * the tree goes on from its end; a blank line after, if anything printed.
 */
static void print_graph(const struct report_graph *g, const struct row *r, uint64_t total)
{
	struct graph_print p = { .g = g, .fractal = g->layout == GRAPH_FRACTAL,
				 .min_hits = (uint64_t)(total * (g->min_percent / 100)) };
	uint32_t root = r->id < g->nr_rows ? g->root_of[r->id] : NO_NODE;
	/* What the row's chains add up to: its children's period with --children. */
	uint64_t row_total = g->children ? r->children : r->period;
	uint32_t *top, n;
	size_t nr;
	bool printed = false;
	char buf[32];
	int left = 0;

	if (root == NO_NODE || !total)
		return;
	top = branches(&p, root, &nr);
	if (!top)
		return;
	if (nr == 1 && g->cumul[top[0]] == row_total) {
		uint32_t last = run_end(g, top[0]);
		size_t i = 0;

		for (n = top[0];; n = g->kids[g->first_kid[n]], i++) {
			if (i || !g->skip_first) {
				margin(left);
				if (!printed) {
					printf("|\n");
					margin(left);
					printf("---");
					left += 3;
					printed = true;
				}
				printf("%s\n", frame_name(&g->nodes[n], buf, sizeof(buf)));
			}
			if (n == last)
				break;
		}
		root = last;
	}
	free(top);
	/* Fractal: the first level's shares are of the row's (its Children with --children). */
	if (print_branches(&p, root, p.fractal ? row_total : total, 1, 1, left) || printed)
		printf("\n");
}

void report_graph_print(const struct report_graph *g, const struct row *r, uint64_t total)
{
	if (g->layout == GRAPH_FOLDED || g->layout == GRAPH_FLAT)
		print_chains(g, r, total);
	else
		print_graph(g, r, total);
}

/* perf's -g words, and what each does here. */
enum graph_word_kind {
	GRAPH_WORD_LAYOUT,	/* graph, fractal, flat or folded */
	GRAPH_WORD_NONE,	/* -g off */
	GRAPH_WORD_ORDER,	/* caller or callee */
	GRAPH_WORD_SAME,	/* what secmap does anyway: function, percent */
	GRAPH_WORD_PERF_ONLY,	/* perf's layouts and keys secmap has not */
};

static const struct {
	const char *word;
	enum graph_word_kind kind;
} graph_words[] = {
	{ "graph", GRAPH_WORD_LAYOUT },	   { "folded", GRAPH_WORD_LAYOUT },
	{ "none", GRAPH_WORD_NONE },	   { "caller", GRAPH_WORD_ORDER },
	{ "callee", GRAPH_WORD_ORDER },	   { "function", GRAPH_WORD_SAME },
	{ "percent", GRAPH_WORD_SAME },	   { "flat", GRAPH_WORD_LAYOUT },
	{ "fractal", GRAPH_WORD_LAYOUT },  { "address", GRAPH_WORD_PERF_ONLY },
	{ "branch", GRAPH_WORD_PERF_ONLY },  { "period", GRAPH_WORD_PERF_ONLY },
	{ "count", GRAPH_WORD_PERF_ONLY },
};

/* The entry of the @n bytes at @word, or -1. */
static int graph_word(const char *word, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(graph_words) / sizeof(graph_words[0]); i++)
		if (n == strlen(graph_words[i].word) && !strncmp(word, graph_words[i].word, n))
			return (int)i;
	return -1;
}

/*
 * perf's -g words, comma-separated, in any order: the layout (graph,
 * fractal, flat, folded; none turns -g off), caller or callee, function
 * (what tells frames apart), percent (what the lines show), a threshold
 * in percent and then a limit of chains a row.
 */
int report_graph_option(struct report_opts *o, const char *arg)
{
	char *copy = strdup(arg ? arg : ""), *word, *save = NULL, *end;
	int numbers = 0, ret = 0, i;

	if (!copy) {
		p_err("report: out of memory");
		return SECMAP_EXIT_FAILURE;
	}
	o->graph = true;
	for (word = strtok_r(copy, ",", &save); word && !ret; word = strtok_r(NULL, ",", &save)) {
		i = graph_word(word, strlen(word));
		switch (i < 0 ? -1 : (int)graph_words[i].kind) {
		case GRAPH_WORD_LAYOUT:
			o->graph_layout = !strcmp(word, "graph") ? GRAPH_ABSOLUTE :
					  !strcmp(word, "fractal") ? GRAPH_FRACTAL :
					  !strcmp(word, "flat") ? GRAPH_FLAT : GRAPH_FOLDED;
			continue;
		case GRAPH_WORD_NONE:
			o->graph = false;
			continue;
		case GRAPH_WORD_ORDER:
			o->graph_caller = !strcmp(word, "caller");
			o->graph_order_given = true;
			continue;
		case GRAPH_WORD_SAME:
			continue;
		case GRAPH_WORD_PERF_ONLY:
			p_err("report: -g %s: perf's, not secmap's yet: secmap prints perf's graph, "
			      "fractal, flat and folded layouts, by function, in percent", word);
			ret = SECMAP_EXIT_USAGE;
			continue;
		}
		if (numbers == 0 && (errno = 0, o->graph_min_percent = strtod(word, &end),
				     !errno && end != word && !*end && o->graph_min_percent >= 0 &&
				     o->graph_min_percent <= 100)) {
			numbers++;
		} else if (numbers == 1 && word[0] >= '0' && word[0] <= '9' &&
			   (errno = 0, o->graph_limit = strtoul(word, &end, 10), !errno && !*end)) {
			numbers++;
		} else {
			p_err("report: -g takes perf's graph, fractal, flat, folded, none, caller, "
			      "callee, a threshold in percent and a limit of chains, comma-separated, "
			      "not '%s'",
			      text_safe(word));
			ret = SECMAP_EXIT_USAGE;
		}
	}
	free(copy);
	return ret;
}

/* Whether @word is -g's argument, when it comes as the next word. */
bool report_graph_word(const char *word)
{
	if (word[0] >= '0' && word[0] <= '9')
		return true;
	return graph_word(word, strcspn(word, ",")) >= 0;
}
