// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The resolver: (address, time) -> module build, section, offset in it,
 * symbol and offset, from a recording's section maps and the modules' .ko
 * symbol tables; kernel-core addresses from the recording's kallsyms.
 * Here: finishing (symbols read, index built), lookups one by one and in
 * a pipeline, the getters, and freeing. The model is in resolver.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <search.h>

#include "resolver.h"

SECMAP_EXPORT void secmap_resolver_free(struct secmap_resolver *res)
{
	size_t i, j;

	if (!res)
		return;
	for (i = 0; i < res->nr_builds; i++) {
		struct rs_build *b = &res->builds[i];

		for (j = 0; j < b->nr_secs; j++) {
			free(b->secs[j].name);
			free(b->secs[j].syms);
		}
		tdestroy(b->sec_tree, free);
		free(b->secs);
		free(b->name);
		free(b->path);
	}
	for (i = 0; i < res->nr_lives; i++)
		free(res->lives[i].maps);
	free(res->open_lives);
	free(res->builds);
	libsecmap_hashmap_free(&res->builds_by_id);
	free(res->maps);
	free(res->gaps);
	free(res->lives);
	libsecmap_hashmap_free(&res->open_by_name);
	free(res->partial);
	free(res->kernel_names);
	free(res->ksyms);
	free(res->ksym_first);
	rs_index_free(&res->sections);
	rs_index_free(&res->footprints);
	/* Last: the symbol names point into its images. */
	libsecmap_ko_pool_free(res->own_pool);
	free(res->release);
	free(res->paths);
	free(res);
}

static const struct span_index *long_bucket(const struct rs_index *idx, uint64_t b)
{
	size_t lo = 0, hi = idx->nr_longs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (idx->longs[mid].bucket < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < idx->nr_longs && idx->longs[lo].bucket == b ? idx->longs[lo].spans : NULL;
}

/*
 * index_find() in a long bucket of @slots, from position @lo on (those
 * started by @time; SIZE_MAX: any time), through its span index: only the
 * slots that hold @addr are read, and of them only while one still valid
 * at @time may follow.
 */
static const struct rs_slot *long_find(const struct rs_index *idx, uint64_t b,
				       const struct rs_slot *slots, size_t lo, uint64_t addr,
				       uint64_t time)
{
	const struct span_index *si = long_bucket(idx, b);
	const uint64_t *tail_to = idx->tail_to + (slots - idx->slots);
	ssize_t i;

	if (!si)
		return NULL;
	if (lo == SIZE_MAX) {
		i = span_index_first(si, addr);
		return i >= 0 ? &slots[i] : NULL;
	}
	i = lo ? span_index_next_overlap(si, lo - 1, addr, addr + 1) : span_index_first(si, addr);
	for (; i >= 0; i = span_index_next_overlap(si, (size_t)i, addr, addr + 1)) {
		if (tail_to[i] < time)
			break;	/* none from here on is valid then */
		if (time <= slots[i].to)
			return &slots[i];
	}
	return NULL;
}

/*
 * The mapping holding @addr at @time in @idx: of those valid then, the last
 * to start. NULL if none. @counted: see below; a constant in each caller.
 */
static inline __attribute__((always_inline)) const struct rs_slot *
index_find(const struct rs_index *idx, uint64_t addr, uint64_t time, bool counted)
{
	const struct rs_slot *slot, *end;
	size_t i, n, skip, lo, hi;
	uint64_t b;

	if (addr < idx->base || !idx->nr_buckets)
		return NULL;
	b = (addr - idx->base) >> idx->shift;
	if (b >= idx->nr_buckets)
		return NULL;
	slot = &idx->slots[idx->first[b]];
	end = &idx->slots[idx->first[b + 1]];
	n = (size_t)(end - slot);
	/* (The last byte of the address space has no span index query.) */
	if (n > RS_SCAN_MAX && time == SECMAP_TIME_ANY && addr != UINT64_MAX)
		return long_find(idx, b, slot, SIZE_MAX, addr, time);
	if (time == SECMAP_TIME_ANY) {
		for (; slot < end; slot++)
			if (slot->start <= addr && addr - slot->start < slot->len)
				return slot;
		return NULL;
	}
	/*
	 * Those that started after @time lead the list: a later life, or a
	 * later module here. One by one, a lookup stops at the first that
	 * started before: a branch per slot on a load from memory, whose
	 * mispredicted exit the next lookup's loads (independent of it) ride
	 * out. Where the list was prefetched (secmap_resolve_many()), it is
	 * cheaper to count them in a short list, with no branch on the data.
	 * Measured on the bench's timeline: counting gave batches 20-30% more
	 * lookups a second, and single lookups 20% fewer.
	 */
	if (counted && n <= RS_COUNT_MAX) {
		for (i = 0, skip = 0; i < n; i++)
			skip += slot[i].from > time;
		slot += skip;
	} else if (n > RS_SCAN_MAX) {
		for (lo = 0, hi = n; lo < hi;) {
			i = lo + (hi - lo) / 2;
			if (slot[i].from > time)
				lo = i + 1;
			else
				hi = i;
		}
		if (addr != UINT64_MAX)
			return long_find(idx, b, slot, lo, addr, time);
		slot += lo;
	} else {
		while (slot < end && slot->from > time)
			slot++;
	}
	for (i = 0; slot < end; slot++, i++) {
		if (slot->start <= addr && addr - slot->start < slot->len && time <= slot->to)
			return slot;
		if (i >= RS_COUNT_MAX && idx->tail_to[slot - idx->slots] < time)
			break;
	}
	return NULL;
}

static int cmp_gap(const void *a, const void *b, void *arg)
{
	const struct rs_gap *x = a, *y = b;
	int c = ((const struct secmap_resolver *)arg)->opts.clock;

	return x->from[c] < y->from[c] ? -1 : x->from[c] > y->from[c];
}

/*
 * Whether a mapping valid from @from, found at @time, was opened at the
 * start of a gap that @time is in: the snapshot after the gap showed it,
 * but when in the gap it came is not known.
 */
static bool in_gap(const struct secmap_resolver *res, uint64_t from, uint64_t time)
{
	size_t lo = 0, hi = res->nr_gaps;
	int c = res->opts.clock;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (res->gaps[mid].from[c] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < res->nr_gaps && res->gaps[lo].from[c] == from; lo++)
		if (time < res->gaps[lo].to[c])
			return true;
	return false;
}

SECMAP_EXPORT int secmap_resolver_finish(struct secmap_resolver *res)
{
	size_t i;
	int err;

	if (!res || res->finished)
		return libsecmap_err(-EINVAL);
	if (res->err)
		return libsecmap_err(res->err);
	if (res->snap_left)
		return libsecmap_err(-EBADMSG);	/* a resync's snapshot cut short */
	res->finished = true;
	err = rs_parse_kallsyms(res);
	if (!err && !res->search.release)
		res->search.release = res->release;
	if (!err && !res->ko_pool) {
		err = libsecmap_ko_pool_new(&res->own_pool);
		res->ko_pool = res->own_pool;
	}
	for (i = 0; !err && i < res->nr_builds; i++)
		err = rs_load_build(res, &res->builds[i]);
	/* Maps recorded without a length (no .ko at record time) take the .ko's. */
	for (i = 0; !err && i < res->nr_maps; i++) {
		struct rs_map *m = &res->maps[i];
		uint64_t size = res->builds[m->build].secs[m->section].size;

		if (m->end == m->start && size && m->start + size > m->start)
			m->end = m->start + size;
	}
	if (!err)
		err = rs_add_footprints(res);
	if (!err && res->nr_gaps)
		qsort_r(res->gaps, res->nr_gaps, sizeof(*res->gaps), cmp_gap, res);
	if (!err)
		err = rs_build_index(res, &res->sections, false);
	if (!err)
		err = rs_build_index(res, &res->footprints, true);
	if (err)
		res->err = err;
	return err ? libsecmap_err(err) : 0;
}

void libsecmap_resolver_set_ko_pool(struct secmap_resolver *res, struct libsecmap_ko_pool *pool)
{
	res->ko_pool = pool;
}

SECMAP_EXPORT int secmap_resolver_load(struct secmap_resolver *res, const char *path)
{
	struct secmap_reader *reader;
	SECMAP_RECORD(rec);
	int err;

	if (!res || !path)
		return libsecmap_err(-EINVAL);
	err = secmap_reader_open(path, &reader);
	if (err)
		return err;
	while ((err = secmap_reader_next(reader, &rec)) == 1) {
		err = secmap_resolver_add(res, &rec);
		if (err)
			break;
	}
	secmap_reader_free(reader);
	if (!err)
		err = secmap_resolver_finish(res);
	return err ? libsecmap_err(err) : 0;
}

static void resolve_symbol(const struct rs_section *s, uint64_t off, struct secmap_resolution *out)
{
	size_t lo = 0, hi = s->nr_syms;

	/* The last symbol starting at or before @off. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Nested symbols (aliases): walk back to one that covers @off. */
	while (lo-- > 0) {
		if (off < s->syms[lo].end) {
			out->symbol = s->syms[lo].name;
			out->symbol_offset = off - s->syms[lo].start;
			return;
		}
		if (lo && s->syms[lo - 1].start != s->syms[lo].start)
			break;
	}
	out->reason = "in no symbol of the section";
}

/*
 * The kernel symbol holding @addr (the caller checked it is in the kernel's
 * text), trying *@hint first, an earlier answer: kernel samples come in
 * runs in one function (idle, a spinning lock), and a batch's frames
 * repeat each other's callers. *@hint becomes this answer.
 */
static void resolve_kernel(const struct secmap_resolver *res, uint64_t addr, size_t *hint,
			   struct secmap_resolution *out)
{
	size_t i = *hint, n, half, b;

	if (i >= res->nr_ksyms || res->ksyms[i].addr > addr ||
	    (i + 1 < res->nr_ksyms && addr >= res->ksyms[i + 1].addr)) {
		/*
		 * The last symbol at or below @addr, from ksym_first[b], which
		 * is, to ksym_first[b + 1]. Without a branch on the data: which
		 * half holds it is a coin toss, mispredicted half the time.
		 */
		b = (size_t)((addr - res->ksyms[0].addr) >> res->ksym_shift);
		i = res->ksym_first[b];
		for (n = (size_t)res->ksym_first[b + 1] - i + 1; n > 1; n -= half) {
			half = n / 2;
			i = res->ksyms[i + half].addr <= addr ? i + half : i;
		}
		*hint = i;
	}
	out->kind = SECMAP_RESOLVED_KERNEL;
	out->module = "[kernel.kallsyms]";
	out->symbol = res->kernel_names + res->ksyms[i].name_off;
	out->symbol_offset = addr - res->ksyms[i].addr;
}

/*
 * The answer for @addr at @time, of which the section index gave @slot (or
 * NULL). Inlined in both callers: a lookup is short enough that a call and
 * a copy of an empty answer were a fifth of its instructions.
 */
static inline __attribute__((always_inline)) int
answer(const struct secmap_resolver *res, uint64_t addr, uint64_t time,
       const struct rs_slot *slot, size_t *ksym_hint, struct secmap_resolution *out)
{
	static const struct secmap_resolution empty = { .sz = sizeof(empty) };
	const struct rs_ref *ref;

	if (slot) {
		ref = &res->sections.refs[slot->ref];
	} else if ((slot = index_find(&res->footprints, addr, time, false))) {
		ref = &res->footprints.refs[slot->ref];
	} else {
		*out = empty;	/* not memset(): gcc makes that rep stos, slow to start */
		if (res->nr_ksyms && addr >= res->ksyms[0].addr && addr < res->kernel_end) {
			resolve_kernel(res, addr, ksym_hint, out);
			return 0;
		}
		return -ENOENT;
	}
	/* Every field, each once: a module answer sets them all. */
	out->sz = sizeof(*out);
	out->symbol = NULL;
	out->symbol_offset = 0;
	out->kind = SECMAP_RESOLVED_MODULE;
	out->module = ref->module;
	out->build_id = ref->build->id;
	out->build_id_len = ref->build_id_len;
	out->section = ref->section;
	out->section_offset = addr - slot->start;
	out->map_start = slot->start;
	out->map_flags = ref->flags;
	out->reason = ref->reason;
	/* 0 when the section's offset is not known: no branch on it. */
	out->file_offset = (ref->file_offset + out->section_offset) & -(uint64_t)!!ref->file_offset;
	if (!ref->reason)
		resolve_symbol(ref->sec, out->section_offset, out);
	if (res->nr_gaps && time != SECMAP_TIME_ANY && in_gap(res, slot->from, time)) {
		out->map_flags |= SECMAP_RESOLVED_F_IN_GAP;
		if (!out->reason)
			out->reason = "loaded during a gap in the recording: maybe not yet at this time";
	}
	return 0;
}

/*
 * secmap_resolve() for a caller built against an older or newer header:
 * out of line, and through an answer of this library's size, so that
 * answer() is inlined once and the common case stays as short as it was.
 */
static int __attribute__((noinline, cold))
resolve_sized(const struct secmap_resolver *res, uint64_t addr, uint64_t time,
	      struct secmap_resolution *out)
{
	SECMAP_OPTS(secmap_resolution, r);
	int ret;

	if (out->sz < SECMAP_RESOLUTION_SZ_1_0)
		return libsecmap_err(-EINVAL);
	ret = secmap_resolve(res, addr, time, &r);
	libsecmap_struct_out(out, SECMAP_RESOLUTION_SZ_1_0, &r, sizeof(r));
	return ret;
}

SECMAP_EXPORT int secmap_resolve(const struct secmap_resolver *res, uint64_t addr, uint64_t time,
				 struct secmap_resolution *out)
{
	size_t ksym_hint = SIZE_MAX;

	if (!res || !out || !res->finished || res->err)
		return libsecmap_err(-EINVAL);
	if (__builtin_expect(out->sz != sizeof(*out), 0))
		return resolve_sized(res, addr, time, out);
	return answer(res, addr, time, index_find(&res->sections, addr, time, false), &ksym_hint,
		      out);
}

/* secmap_resolve_many() for a caller whose struct is not this library's. */
static void __attribute__((noinline))
resolve_many_sized(const struct secmap_resolver *res, const uint64_t *addrs,
		   const uint64_t *times, size_t n, struct secmap_resolution *out, int *ret)
{
	size_t i, stride = out->sz;
	struct secmap_resolution *o;

	for (i = 0; i < n; i++) {
		o = (struct secmap_resolution *)((char *)out + i * stride);
		o->sz = stride;
		ret[i] = stride < SECMAP_RESOLUTION_SZ_1_0 ? -EINVAL :
			 secmap_resolve(res, addrs[i], times ? times[i] : SECMAP_TIME_ANY, o);
	}
}

SECMAP_EXPORT size_t secmap_resolver_nr_modules(const struct secmap_resolver *res)
{
	return res ? res->nr_builds : 0;
}

SECMAP_EXPORT int secmap_resolver_module(const struct secmap_resolver *res, size_t idx,
					 struct secmap_resolver_module *mod)
{
	struct secmap_resolver_module m = { .sz = sizeof(m) };
	const struct rs_build *b;

	if (!res || !mod || idx >= res->nr_builds ||
	    mod->sz < offsetofend(struct secmap_resolver_module, err))
		return libsecmap_err(-EINVAL);
	b = &res->builds[idx];
	m.name = b->name;
	m.build_id = b->id;
	m.build_id_len = b->id_len;
	m.path = b->path;
	m.err = b->err;
	return libsecmap_struct_out(mod, 0, &m, sizeof(m));
}

SECMAP_EXPORT size_t secmap_resolver_nr_maps(const struct secmap_resolver *res)
{
	return res ? res->nr_maps : 0;
}

SECMAP_EXPORT size_t secmap_resolver_nr_kernel_symbols(const struct secmap_resolver *res)
{
	return res ? res->nr_ksyms : 0;
}

/*
 * Many lookups at once, in a pipeline of four stages, each RS_AHEAD lookups
 * apart: fetch the bucket bounds; fetch the bucket's first slots; scan them
 * and fetch the answer's ref; answer. The cache misses of independent
 * lookups then overlap instead of following one another.
 */
#define RS_AHEAD 4

static inline const uint32_t *bucket_of(const struct rs_index *idx, uint64_t addr)
{
	uint64_t b;

	if (addr < idx->base || !idx->nr_buckets)
		return NULL;
	b = (addr - idx->base) >> idx->shift;
	return b < idx->nr_buckets ? &idx->first[b] : NULL;
}

SECMAP_EXPORT void secmap_resolve_many(const struct secmap_resolver *res, const uint64_t *addrs,
				       const uint64_t *times, size_t n,
				       struct secmap_resolution *out, int *ret)
{
	const struct rs_slot *found[RS_AHEAD];
	const struct rs_index *idx;
	const uint32_t *bucket;
	size_t i, j, ksym_hint = SIZE_MAX;

	if (!res || !addrs || !out || !ret)
		return;
	if (!res->finished || res->err) {
		for (i = 0; i < n; i++)
			ret[i] = -EINVAL;
		return;
	}
	if (n && out->sz != sizeof(*out)) {
		resolve_many_sized(res, addrs, times, n, out, ret);
		return;
	}
	idx = &res->sections;
	for (i = 0; i < n + RS_AHEAD; i++) {
		j = i + 3 * RS_AHEAD;
		if (j < n && (bucket = bucket_of(idx, addrs[j])))
			__builtin_prefetch(bucket);
		j = i + 2 * RS_AHEAD;
		if (j < n && (bucket = bucket_of(idx, addrs[j]))) {
			__builtin_prefetch(&idx->slots[*bucket]);
			__builtin_prefetch(&idx->slots[*bucket] + 2);
		}
		if (i >= RS_AHEAD) {
			j = i - RS_AHEAD;
			ret[j] = answer(res, addrs[j], times ? times[j] : SECMAP_TIME_ANY,
					found[j % RS_AHEAD], &ksym_hint, &out[j]);
		}
		if (i < n) {
			found[i % RS_AHEAD] = index_find(idx, addrs[i],
							 times ? times[i] : SECMAP_TIME_ANY, true);
			if (found[i % RS_AHEAD])
				__builtin_prefetch(&idx->refs[found[i % RS_AHEAD]->ref]);
		}
	}
}

int libsecmap_resolver_core_span(const struct secmap_resolver *res, uint64_t *lo, uint64_t *len)
{
	size_t i;

	if (!res->finished || !res->nr_ksyms)
		return -ENOENT;
	for (i = 0; i < res->nr_maps; i++)
		if (res->maps[i].start < res->kernel_end && res->maps[i].end > res->ksyms[0].addr)
			return -ENOENT;
	*lo = res->ksyms[0].addr;
	*len = res->kernel_end - *lo;
	return 0;
}

size_t libsecmap_resolver_nr_lives(const struct secmap_resolver *res)
{
	return res->nr_lives;
}

void libsecmap_resolver_life(const struct secmap_resolver *res, size_t life, uint32_t *build,
			     size_t *nr_maps)
{
	*build = res->lives[life].build;
	*nr_maps = res->lives[life].nr_maps;
}

void libsecmap_resolver_life_map(const struct secmap_resolver *res, size_t life, size_t i,
				 struct libsecmap_map_info *out)
{
	const struct rs_map *m = &res->maps[res->lives[life].maps[i]];

	out->start = m->start;
	out->end = m->end;
	memcpy(out->from, m->from, sizeof(out->from));
	memcpy(out->to, m->to, sizeof(out->to));
	out->flags = m->flags;
	out->section = m->section;
}

void libsecmap_resolver_build(const struct secmap_resolver *res, uint32_t build,
			      struct libsecmap_build_info *out)
{
	const struct rs_build *b = &res->builds[build];

	out->name = b->name;
	out->id = b->id;
	out->id_len = b->id_len;
	out->ko = b->ko;
	out->err = res->opts.no_ko ? -ENOENT : b->err;
}

size_t libsecmap_resolver_symbols(const struct secmap_resolver *res, uint32_t build,
				  uint32_t section, const struct libsecmap_sym **syms)
{
	const struct rs_section *s = &res->builds[build].secs[section];

	*syms = s->syms;
	return s->nr_syms;
}

