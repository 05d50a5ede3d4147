/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Which of n address ranges, kept in a fixed order (a process's mappings by
 * time, the resolver's slots of a bucket), hold an address: the last before
 * a position, or the first after.
 * O(log^2 n) a question and O(n log n) memory, whatever the ranges: a
 * process of 40k mappings, or 20k all over one address, answered by a scan
 * each took seconds.
 */
#ifndef SECMAP_SPAN_INDEX_H
#define SECMAP_SPAN_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct span {
	uint64_t start, end;	/* [start, end); empty if start >= end */
};

struct span_index;

/* An index of @spans[0..@n) (copied), or NULL if out of memory. */
struct span_index *span_index_new(const struct span *spans, size_t n);
void span_index_free(struct span_index *idx);
/* The largest i < @before whose span holds @addr, or -1. */
ssize_t span_index_last(const struct span_index *idx, size_t before, uint64_t addr);
/* The smallest i whose span holds @addr, or -1. */
ssize_t span_index_first(const struct span_index *idx, uint64_t addr);
/* The smallest i > @after whose span overlaps [@start, @end), or -1. */
ssize_t span_index_next_overlap(const struct span_index *idx, size_t after, uint64_t start,
				uint64_t end);

#endif /* SECMAP_SPAN_INDEX_H */
