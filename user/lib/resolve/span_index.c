// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A tree over the spans' positions: level L splits them into blocks of 2^L
 * and keeps, for each block, the union of its spans as sorted disjoint
 * ranges. Whether a block holds an address is one binary search, so a
 * question walks down from the top, skipping every block that cannot
 * answer: O(log n) blocks, each a binary search.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "span_index.h"

#define MAX_LEVELS	65	/* 2^64 spans */

struct level {
	size_t *first;		/* block b's ranges: ranges[first[b] .. first[b + 1]) */
	struct span *ranges;
};

struct span_index {
	size_t n;
	unsigned int nr_levels;	/* the top one is a single block */
	struct level levels[MAX_LEVELS];
	/*
	 * The last span of all over each stretch between two span ends: from
	 * cuts[k] to cuts[k + 1], last[k] (-1: none). Most questions are of
	 * an address no later span covers (a process maps its files at the
	 * start): one binary search in a flat array answers them.
	 */
	uint64_t *cuts;
	ssize_t *last;
	size_t nr_cuts;
};

void span_index_free(struct span_index *idx)
{
	unsigned int i;

	if (!idx)
		return;
	for (i = 0; i < idx->nr_levels; i++) {
		free(idx->levels[i].first);
		free(idx->levels[i].ranges);
	}
	free(idx->cuts);
	free(idx->last);
	free(idx);
}

/* The union of the sorted disjoint ranges @a and @b into @out; how many. */
static size_t merge(const struct span *a, size_t na, const struct span *b, size_t nb,
		    struct span *out)
{
	size_t i = 0, j = 0, n = 0;

	while (i < na || j < nb) {
		struct span s = j >= nb || (i < na && a[i].start <= b[j].start) ? a[i++] : b[j++];

		if (n && s.start <= out[n - 1].end) {
			if (s.end > out[n - 1].end)
				out[n - 1].end = s.end;
		} else {
			out[n++] = s;
		}
	}
	return n;
}

/* Blocks of level @l: ceil(n / 2^l). */
static size_t nr_blocks(const struct span_index *idx, unsigned int l)
{
	return l >= 64 ? 1 : (size_t)((idx->n + (1ull << l) - 1) >> l);
}

static int build_level(struct span_index *idx, unsigned int l)
{
	const struct level *below = &idx->levels[l - 1];
	struct level *lv = &idx->levels[l];
	size_t b, n = nr_blocks(idx, l), n_below = nr_blocks(idx, l - 1);
	size_t total = below->first[n_below];

	lv->first = malloc((n + 1) * sizeof(*lv->first));
	lv->ranges = malloc((total ? total : 1) * sizeof(*lv->ranges));
	if (!lv->first || !lv->ranges)
		return -1;
	lv->first[0] = 0;
	for (b = 0; b < n; b++) {
		size_t left = 2 * b, right = 2 * b + 1, nb = 0;
		const struct span *a = below->ranges + below->first[left], *c = NULL;
		size_t na = below->first[left + 1] - below->first[left];

		if (right < n_below) {
			c = below->ranges + below->first[right];
			nb = below->first[right + 1] - below->first[right];
		}
		lv->first[b + 1] = lv->first[b] + merge(a, na, c, nb, lv->ranges + lv->first[b]);
	}
	return 0;
}

static ssize_t find_last(const struct span_index *idx, unsigned int l, size_t b, size_t before,
			 uint64_t addr, bool known);

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int build_cuts(struct span_index *idx, const struct span *spans)
{
	size_t i, n = 0;

	idx->cuts = malloc((2 * idx->n + 1) * sizeof(*idx->cuts));
	if (!idx->cuts)
		return -1;
	for (i = 0; i < idx->n; i++) {
		if (spans[i].start < spans[i].end) {
			idx->cuts[n++] = spans[i].start;
			idx->cuts[n++] = spans[i].end;
		}
	}
	qsort(idx->cuts, n, sizeof(*idx->cuts), cmp_u64);
	for (i = 0, idx->nr_cuts = 0; i < n; i++)
		if (!idx->nr_cuts || idx->cuts[idx->nr_cuts - 1] != idx->cuts[i])
			idx->cuts[idx->nr_cuts++] = idx->cuts[i];
	idx->last = malloc((idx->nr_cuts + 1) * sizeof(*idx->last));
	if (!idx->last)
		return -1;
	for (i = 0; i < idx->nr_cuts; i++)
		idx->last[i] = find_last(idx, idx->nr_levels - 1, 0, idx->n, idx->cuts[i], false);
	return 0;
}

struct span_index *span_index_new(const struct span *spans, size_t n)
{
	struct span_index *idx = calloc(1, sizeof(*idx));
	struct level *lv;
	size_t i;

	if (!idx)
		return NULL;
	idx->n = n;
	idx->nr_levels = 1;
	lv = &idx->levels[0];
	lv->first = malloc((n + 1) * sizeof(*lv->first));
	lv->ranges = malloc((n ? n : 1) * sizeof(*lv->ranges));
	if (!lv->first || !lv->ranges)
		goto fail;
	lv->first[0] = 0;
	for (i = 0; i < n; i++) {
		lv->first[i + 1] = lv->first[i];
		if (spans[i].start < spans[i].end)
			lv->ranges[lv->first[i + 1]++] = spans[i];
	}
	while (nr_blocks(idx, idx->nr_levels - 1) > 1) {
		if (build_level(idx, idx->nr_levels++))
			goto fail;	/* span_index_free() frees what it got */
	}
	if (n && build_cuts(idx, spans))
		goto fail;
	return idx;
fail:
	span_index_free(idx);
	return NULL;
}

/* The last of block @b's ranges at level @l that starts before @addr + 1 (or @addr with @strict). */
static const struct span *last_from(const struct span_index *idx, unsigned int l, size_t b,
				    uint64_t addr, int strict)
{
	const struct level *lv = &idx->levels[l];
	size_t lo = lv->first[b], hi = lv->first[b + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strict ? lv->ranges[mid].start < addr : lv->ranges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > lv->first[b] ? &lv->ranges[lo - 1] : NULL;
}

static int holds(const struct span_index *idx, unsigned int l, size_t b, uint64_t addr)
{
	const struct span *s = last_from(idx, l, b, addr, 0);

	return s && addr < s->end;
}

static int overlaps(const struct span_index *idx, unsigned int l, size_t b, uint64_t start,
		    uint64_t end)
{
	const struct span *s = last_from(idx, l, b, end, 1);

	return start < end && s && s->end > start;
}

/*
 * @known: block @b holds @addr, and all its spans are before @before: one
 * of its halves holds it, so the second need not be asked.
 */
static ssize_t find_last(const struct span_index *idx, unsigned int l, size_t b, size_t before,
			 uint64_t addr, bool known)
{
	size_t end = (b + 1) << l;
	ssize_t r;

	if (!known && (b >= nr_blocks(idx, l) || (b << l) >= before || !holds(idx, l, b, addr)))
		return -1;
	if (!l)
		return (ssize_t)b;
	known = end <= before && end <= idx->n;
	r = find_last(idx, l - 1, 2 * b + 1, before, addr, false);
	return r >= 0 ? r : find_last(idx, l - 1, 2 * b, before, addr, known);
}

static ssize_t find_first(const struct span_index *idx, unsigned int l, size_t b, uint64_t addr,
			  bool known)
{
	ssize_t r;

	if (!known && (b >= nr_blocks(idx, l) || !holds(idx, l, b, addr)))
		return -1;
	if (!l)
		return (ssize_t)b;
	r = find_first(idx, l - 1, 2 * b, addr, false);
	return r >= 0 ? r : find_first(idx, l - 1, 2 * b + 1, addr, true);
}

static ssize_t find_next(const struct span_index *idx, unsigned int l, size_t b, size_t after,
			 uint64_t start, uint64_t end)
{
	ssize_t r;

	if (b >= nr_blocks(idx, l) || ((b + 1) << l) <= after + 1 ||
	    !overlaps(idx, l, b, start, end))
		return -1;
	if (!l)
		return (ssize_t)b;
	r = find_next(idx, l - 1, 2 * b, after, start, end);
	return r >= 0 ? r : find_next(idx, l - 1, 2 * b + 1, after, start, end);
}

ssize_t span_index_last(const struct span_index *idx, size_t before, uint64_t addr)
{
	size_t lo = 0, hi = idx->nr_cuts;

	if (!idx->n)
		return -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->cuts[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Before the first cut or past the last, no span holds it. */
	if (!lo || lo == idx->nr_cuts || idx->last[lo - 1] < 0)
		return -1;
	if ((size_t)idx->last[lo - 1] < before)
		return idx->last[lo - 1];
	return find_last(idx, idx->nr_levels - 1, 0, before, addr, false);
}

ssize_t span_index_first(const struct span_index *idx, uint64_t addr)
{
	return idx->n ? find_first(idx, idx->nr_levels - 1, 0, addr, false) : -1;
}

ssize_t span_index_next_overlap(const struct span_index *idx, size_t after, uint64_t start,
				uint64_t end)
{
	return idx->n ? find_next(idx, idx->nr_levels - 1, 0, after, start, end) : -1;
}
