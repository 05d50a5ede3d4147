// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The resolver's index, built once by finish: the address range cut into
 * buckets, each listing every mapping that ever covered it, latest start
 * of validity first, so that a lookup is a shift and a short scan, time
 * being part of the key. A module's sections are also merged into its
 * footprint (sections less than a page apart), so that an address inside
 * a module but in no recorded section is still named module+offset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "resolver.h"

#define HUGE_PAGE	(2u << 20)

/*
 * Memory for an index's slots, on huge pages where the kernel gives them
 * (transparent huge pages, "madvise" mode): lookups land at random in a
 * few megabytes, and with 4 KiB pages nearly every one also misses the
 * TLB, which costs most under virtualization (a two-level page walk).
 */
static void *alloc_lookup_memory(size_t size)
{
	void *p;

	if (size < HUGE_PAGE)
		return malloc(size);
	if (posix_memalign(&p, HUGE_PAGE, size))
		return NULL;
	madvise(p, size, MADV_HUGEPAGE);	/* advice: no huge pages is fine */
	return p;
}

void rs_index_free(struct rs_index *idx)
{
	size_t i;

	for (i = 0; i < idx->nr_longs; i++)
		span_index_free(idx->longs[i].spans);
	free(idx->longs);
	free(idx->first);
	free(idx->slots);
	free(idx->tail_to);
	free(idx->refs);
	memset(idx, 0, sizeof(*idx));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A module's sections, merged where less than a page apart. */
int rs_add_footprints(struct secmap_resolver *res)
{
	size_t i, j, nr_real = res->nr_maps;
	struct rs_map *sorted = NULL;
	int err = 0;

	for (i = 0; i < res->nr_lives && !err; i++) {
		struct rs_life *life = &res->lives[i];
		size_t n = 0;

		free(sorted);
		sorted = malloc(life->nr_maps * sizeof(*sorted) + 1);
		if (!sorted)
			return -ENOMEM;
		/*
		 * Not init sections: once freed, their range is nobody's. Not
		 * the per-CPU template: its "address" is an offset.
		 */
		for (j = 0; j < life->nr_maps; j++)
			if (life->maps[j] < nr_real &&
			    !(res->maps[life->maps[j]].flags &
			      (SECMAP_MAP_F_INIT | SECMAP_MAP_F_PERCPU)))
				sorted[n++] = res->maps[life->maps[j]];
		qsort(sorted, n, sizeof(*sorted), cmp_u64);	/* start is the first field */
		for (j = 0; j < n && !err;) {
			struct rs_map fp = sorted[j], *m;
			size_t k;

			fp.section = RS_FOOTPRINT;
			fp.flags = 0;
			for (k = j + 1; k < n && sorted[k].start <= fp.end + RS_FOOTPRINT_GAP; k++) {
				if (sorted[k].end > fp.end)
					fp.end = sorted[k].end;
				/* Valid while any of its sections is. */
				if (sorted[k].to[0] > fp.to[0] || sorted[k].to[0] == RS_OPEN) {
					fp.to[0] = sorted[k].to[0];
					fp.to[1] = sorted[k].to[1];
				}
			}
			m = libsecmap_grow(res->maps, &res->cap_maps, res->nr_maps, sizeof(*m), 1024);
			if (!m) {
				err = -ENOMEM;
				break;
			}
			res->maps = m;
			res->maps[res->nr_maps++] = fp;
			j = k;
		}
	}
	free(sorted);
	return err;
}

/* A slot and its mapping, while sorting. */
struct rs_sort_slot {
	struct rs_slot slot;
	uint32_t map;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct rs_sort_slot *x = a, *y = b;

	/* Latest start of validity first; then the later record. */
	if (x->slot.from != y->slot.from)
		return x->slot.from > y->slot.from ? -1 : 1;
	return x->map > y->map ? -1 : x->map < y->map;
}

/* Mappings by (build, section, flags), to share one rs_ref among them. */
static int cmp_ref_of(const void *a, const void *b, void *arg)
{
	const struct rs_map *maps = arg;
	const struct rs_map *x = &maps[*(const uint32_t *)a], *y = &maps[*(const uint32_t *)b];

	if (x->build != y->build)
		return x->build < y->build ? -1 : 1;
	if (x->section != y->section)
		return x->section < y->section ? -1 : 1;
	return x->flags < y->flags ? -1 : x->flags > y->flags;
}

/* .data..percpu's "address" is an offset in each CPU's area: no code lies there. */
static bool in_index(const struct rs_map *m, bool footprint)
{
	return (m->section == RS_FOOTPRINT) == footprint && m->end > m->start &&
	       !(m->flags & SECMAP_MAP_F_PERCPU);
}

/* How many bucket copies the indexed mappings take with buckets of 2^shift. */
static size_t count_slots(const struct secmap_resolver *res, bool footprint, uint64_t base,
			  unsigned int shift)
{
	size_t i, n = 0;

	for (i = 0; i < res->nr_maps; i++) {
		const struct rs_map *m = &res->maps[i];

		if (in_index(m, footprint))
			n += ((m->end - 1 - base) >> shift) - ((m->start - base) >> shift) + 1;
	}
	return n;
}

/*
 * The bucket size: a page, or larger while that keeps fewer than 2^20
 * buckets, or while doubling it saves a quarter of the copies (sections
 * that each span several pages): fewer bytes to keep in the cache, for a
 * scan that grows less than the copies shrink.
 */
static unsigned int choose_shift(const struct secmap_resolver *res, bool footprint,
				 uint64_t lo, uint64_t hi)
{
	unsigned int shift = 12;
	size_t n;

	while (shift < 63 && ((hi - lo) >> shift) >= (1u << 20))
		shift++;
	n = count_slots(res, footprint, lo & ~((1ull << shift) - 1), shift);
	while (shift < 63) {
		size_t wider = count_slots(res, footprint, lo & ~((1ull << (shift + 1)) - 1),
					   shift + 1);

		if (wider > n / 4 * 3)
			break;
		n = wider;
		shift++;
	}
	return shift;
}

static const char *build_reason(int err)
{
	switch (err) {
	case -ENOENT:
		return "no .ko found";
	case -ESTALE:
		return ".ko has another build-id";
	case -EDQUOT:
		return ".ko not read: decompression budget spent";
	default:
		return ".ko unreadable";
	}
}

static struct rs_ref make_ref(const struct secmap_resolver *res, const struct rs_map *m)
{
	const struct rs_build *b = &res->builds[m->build];
	struct rs_ref ref = {
		.module = b->name, .build = b, .flags = m->flags,
		.build_id_len = (uint32_t)b->id_len,
	};

	if (m->section == RS_FOOTPRINT) {
		ref.reason = "in the module, in no recorded section";
		return ref;
	}
	ref.sec = &b->secs[m->section];
	ref.section = ref.sec->name;
	/* The .ko's word, else the recorder's (which read the same .ko). */
	ref.file_offset = ref.sec->offset ? ref.sec->offset : m->pgoff;
	if (b->err)
		ref.reason = build_reason(b->err);
	else if (ref.sec->err)
		ref.reason = ref.sec->err == -ENOENT ? "section not in the .ko" :
						       "no symbols in the section";
	return ref;
}

/* Give every indexed mapping its rs_ref, in @ref_of. */
static int build_refs(struct secmap_resolver *res, struct rs_index *idx, bool footprint,
		      uint32_t *ref_of)
{
	uint32_t *order = malloc((res->nr_maps + 1) * sizeof(*order));
	size_t i, n = 0, nr_refs = 0;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < res->nr_maps; i++)
		if (in_index(&res->maps[i], footprint))
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_ref_of, res->maps);
	idx->refs = aligned_alloc(64, (n + 1) * sizeof(*idx->refs));
	if (!idx->refs) {
		free(order);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct rs_map *m = &res->maps[order[i]];

		if (!i || cmp_ref_of(&order[i - 1], &order[i], res->maps))
			idx->refs[nr_refs++] = make_ref(res, m);
		ref_of[order[i]] = (uint32_t)(nr_refs - 1);
	}
	free(order);
	return 0;
}

/* A span index for each bucket longer than RS_SCAN_MAX slots. */
static int index_long_buckets(struct rs_index *idx)
{
	struct span *spans = NULL, *grown;
	size_t i, k, n, nr = 0;

	for (i = 0; i < idx->nr_buckets; i++)
		nr += idx->first[i + 1] - idx->first[i] > RS_SCAN_MAX;
	if (!nr)
		return 0;
	idx->longs = calloc(nr, sizeof(*idx->longs));
	if (!idx->longs)
		return -ENOMEM;
	for (i = 0; i < idx->nr_buckets; i++) {
		const struct rs_slot *slot = &idx->slots[idx->first[i]];

		n = idx->first[i + 1] - idx->first[i];
		if (n <= RS_SCAN_MAX)
			continue;
		grown = realloc(spans, n * sizeof(*spans));
		if (!grown)
			goto nomem;
		spans = grown;
		for (k = 0; k < n; k++) {
			spans[k].start = slot[k].start;
			/* The top of the address space: the end clamps, as addr - start < len does. */
			spans[k].end = slot[k].start + slot[k].len < slot[k].start ?
				       UINT64_MAX : slot[k].start + slot[k].len;
		}
		idx->longs[idx->nr_longs].bucket = i;
		idx->longs[idx->nr_longs].spans = span_index_new(spans, n);
		if (!idx->longs[idx->nr_longs].spans)
			goto nomem;
		idx->nr_longs++;
	}
	free(spans);
	return 0;
nomem:
	free(spans);
	return -ENOMEM;
}

/* Index the footprints, or the sections. */
int rs_build_index(struct secmap_resolver *res, struct rs_index *idx, bool footprint)
{
	uint64_t lo = UINT64_MAX, hi = 0, b;
	struct rs_sort_slot *sorted = NULL;
	uint32_t *fill = NULL, *ref_of = NULL;
	size_t i, total = 0;
	int c = res->opts.clock, err = -ENOMEM;

	if (res->nr_maps > UINT32_MAX)
		return -EOVERFLOW;
	for (i = 0; i < res->nr_maps; i++) {
		const struct rs_map *m = &res->maps[i];

		if (!in_index(m, footprint))
			continue;
		if (m->start < lo)
			lo = m->start;
		if (m->end > hi)
			hi = m->end;
	}
	if (lo >= hi)
		return 0;	/* nothing to index */
	idx->shift = choose_shift(res, footprint, lo, hi);
	idx->base = lo & ~((1ull << idx->shift) - 1);
	idx->nr_buckets = ((hi - 1 - idx->base) >> idx->shift) + 1;
	idx->first = calloc(idx->nr_buckets + 1, sizeof(*idx->first));
	fill = calloc(idx->nr_buckets, sizeof(*fill));
	ref_of = malloc((res->nr_maps + 1) * sizeof(*ref_of));
	if (!idx->first || !fill || !ref_of)
		goto fail;
	err = build_refs(res, idx, footprint, ref_of);
	if (err)
		goto fail;
	for (i = 0; i < res->nr_maps; i++) {
		const struct rs_map *m = &res->maps[i];

		if (!in_index(m, footprint))
			continue;
		for (b = (m->start - idx->base) >> idx->shift;
		     b <= (m->end - 1 - idx->base) >> idx->shift; b++)
			idx->first[b + 1]++;
	}
	for (i = 0; i < idx->nr_buckets; i++) {
		total += idx->first[i + 1];
		if (total > UINT32_MAX) {
			err = -EOVERFLOW;
			goto fail;
		}
		idx->first[i + 1] = (uint32_t)total;
	}
	err = -ENOMEM;
	sorted = malloc((total + 1) * sizeof(*sorted));
	idx->slots = alloc_lookup_memory((total + 1) * sizeof(*idx->slots));
	if (!sorted || !idx->slots)
		goto fail;
	for (i = 0; i < res->nr_maps; i++) {
		const struct rs_map *m = &res->maps[i];

		if (!in_index(m, footprint))
			continue;
		for (b = (m->start - idx->base) >> idx->shift;
		     b <= (m->end - 1 - idx->base) >> idx->shift; b++)
			sorted[idx->first[b] + fill[b]++] = (struct rs_sort_slot) {
				.slot = {
					.from = m->from[c], .to = m->to[c],
					.start = m->start, .ref = ref_of[i],
					.len = m->end - m->start > UINT32_MAX ? UINT32_MAX :
						(uint32_t)(m->end - m->start),
				},
				.map = (uint32_t)i,
			};
	}
	for (i = 0; i < idx->nr_buckets; i++)
		if (idx->first[i + 1] - idx->first[i] > 1)
			qsort(sorted + idx->first[i], idx->first[i + 1] - idx->first[i],
			      sizeof(*sorted), cmp_slot);
	idx->tail_to = malloc((total + 1) * sizeof(*idx->tail_to));
	if (!idx->tail_to)
		goto fail;
	for (i = 0; i < total; i++)
		idx->slots[i] = sorted[i].slot;
	for (i = 0; i < idx->nr_buckets; i++) {
		uint64_t latest = 0;

		for (b = idx->first[i + 1]; b-- > idx->first[i];) {
			if (idx->slots[b].to > latest)
				latest = idx->slots[b].to;
			idx->tail_to[b] = latest;
		}
	}
	err = index_long_buckets(idx);
	if (err)
		goto fail;
	free(sorted);
	free(fill);
	free(ref_of);
	return 0;
fail:
	free(sorted);
	free(fill);
	free(ref_of);
	rs_index_free(idx);
	return err;
}

