/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The resolver's private model, shared by its files: timeline.c (records
 * into module builds, loads, mappings and gaps), symbols.c (the .ko and
 * kallsyms symbols), index.c (the lookup index), resolver.c (finish,
 * lookups, getters).
 */
#ifndef LIBSECMAP_RESOLVER_H
#define LIBSECMAP_RESOLVER_H

#include "internal.h"
#include "span_index.h"

#define RS_NONE			UINT32_MAX
#define RS_FOOTPRINT		UINT32_MAX	/* rs_map.section of a footprint */
#define RS_OPEN			UINT64_MAX	/* rs_map.to while still mapped */
#define RS_FOOTPRINT_GAP	4096
#define RS_COUNT_MAX		32	/* a bucket list this short may be counted */
#define RS_SCAN_MAX		64	/* a longer one is searched by halves */

struct rs_section {
	char *name;
	uint64_t size;		/* from the .ko; 0 if none was read */
	uint64_t offset;	/* sh_offset, from the .ko; 0 if none was read */
	struct libsecmap_sym *syms;	/* sorted by start */
	size_t nr_syms;
	int err;		/* 0, or why it has no symbols */
};

/* One module build: a name and a build-id. */
struct rs_build {
	char *name;
	uint8_t id[SECMAP_BUILD_ID_MAX];
	size_t id_len;
	struct rs_section *secs;
	size_t nr_secs, cap_secs;
	void *sec_tree;		/* struct rs_sec_key by name, past RS_SECS_SCANNED */
	char *path;		/* the .ko the symbols come from */
	struct secmap_ko *ko;		/* the pool's */
	int err;		/* why there are no symbols */
};

struct rs_map {
	uint64_t start, end;
	uint64_t from[2], to[2];	/* validity, per enum secmap_clock */
	uint64_t pgoff;
	uint32_t build;
	uint32_t section;	/* index in the build's secs, or RS_FOOTPRINT */
	uint32_t flags;		/* SECMAP_MAP_F_* */
};

/* Over [from, to) of each clock, what changed is not known. */
struct rs_gap {
	uint64_t from[2], to[2];
};

/* A module load, from its first map record to its unload. */
struct rs_life {
	uint32_t build;
	uint64_t seq;
	size_t *maps;
	size_t nr_maps, cap_maps;
	bool open;
	bool init_closed;	/* its init maps are closed: each snapshot record says so again */
	int resync;		/* 0, or 1 kept / 2 new in the resync being read */
};

/*
 * The address range the mappings span, cut into buckets of 2^shift bytes;
 * each bucket lists a copy of every mapping that ever overlapped it, latest
 * start of validity first. A lookup is a shift, then a scan of one short
 * contiguous list that holds all the test needs; only the answer is
 * followed to its (build, section, flags), shared by every load of that
 * section. A slot is 32 bytes, so that a timeline of a thousand modules
 * reloaded ten times stays within a last-level cache.
 */
struct rs_slot {
	uint64_t from, to;	/* validity */
	uint64_t start;		/* of the mapping */
	/*
	 * Its length, at most 4 GiB - 1: a module section or a module is far
	 * smaller (the kernel's module area is 1.5 to 2 GiB); a recording
	 * that says otherwise gets the first 4 GiB of its mapping resolved.
	 */
	uint32_t len;
	uint32_t ref;		/* into rs_index.refs */
};

/* What an answer needs of its build and section, copied in one line. */
struct rs_ref {
	const char *module;
	const char *section;		/* NULL for a footprint */
	const struct rs_build *build;
	const struct rs_section *sec;	/* its symbols, when @reason is NULL */
	const char *reason;		/* why there is no symbol, if known beforehand */
	uint32_t flags;
	uint32_t build_id_len;
	uint64_t file_offset;		/* the section's sh_offset; 0: not known */
} __attribute__((aligned(64)));	/* one cache line each: the lookup's last fetch */

struct rs_index {
	uint64_t base;
	unsigned int shift;
	size_t nr_buckets;
	uint32_t *first;	/* bucket i's slots are [first[i], first[i + 1]) */
	struct rs_slot *slots;
	/*
	 * By slot: the latest end of validity of it and those after it in its
	 * bucket. A long scan stops once none left can be valid: a module
	 * reloaded 20k times at one address made each lookup between two
	 * loads read every older load.
	 */
	uint64_t *tail_to;
	/*
	 * The buckets longer than RS_SCAN_MAX, in bucket order, each with a
	 * span index over its slots as they lie: "the first slot from here on
	 * that holds the address" in O(log^2 n). Mappings valid at once that
	 * overlap each other but not the address looked up made every lookup
	 * read all of them.
	 */
	struct rs_long_bucket *longs;
	size_t nr_longs;
	struct rs_ref *refs;
};

struct rs_long_bucket {
	uint64_t bucket;
	struct span_index *spans;
};

/* 12 bytes: a kernel has 100 000 and more text symbols. */
struct rs_kernel_sym {
	uint64_t addr;
	uint32_t name_off;	/* into kernel_names */
} __attribute__((packed));

struct secmap_resolver {
	struct secmap_resolver_opts opts;
	struct secmap_ko_search search;
	const char **paths;	/* the copy of opts.search->paths */
	char *release;
	uint64_t ref_addr;
	bool have_ref_addr;
	bool ref_is_stext;	/* the KERNEL record's reference symbol is _stext */

	struct rs_build *builds;
	size_t nr_builds, cap_builds;
	struct libsecmap_hashmap builds_by_id;	/* by name and build-id: indices into builds */
	/*
	 * Where the builds' .ko files are opened, and stay open (symbol names
	 * point into them): a live resolver's, shared by its generations, or
	 * @own_pool. Either counts what they decompress to, up to
	 * LIBSECMAP_KO_BUDGET.
	 */
	struct libsecmap_ko_pool *ko_pool;
	struct libsecmap_ko_pool *own_pool;
	struct rs_map *maps;
	size_t nr_maps, cap_maps;
	struct rs_life *lives;
	size_t nr_lives, cap_lives;
	/*
	 * The lives open at the last resync and those opened since (some
	 * closed by now): a resync looks at these, not at every life the
	 * recording had, so that a storm of resyncs stays linear.
	 */
	uint32_t *open_lives;
	size_t nr_open_lives, cap_open_lives;
	struct libsecmap_hashmap open_by_name;	/* open lives by module name: indices into lives */

	/* The resync being read: how many snapshot maps are still to come. */
	uint32_t snap_left;
	uint32_t snap_reason;
	uint64_t snap_at[2];	/* when the gap began (or the resync, if none) */
	int resync_no;
	/*
	 * The gaps of resyncs (events lost, secmap.ko reloaded): what a
	 * snapshot shows new is opened at a gap's start, a guess until its end.
	 * Sorted by start in the resolver's clock by finish().
	 */
	struct rs_gap *gaps;
	size_t nr_gaps, cap_gaps;

	/* kallsyms: read line by line as pieces come; only text symbols kept. */
	uint64_t kallsyms_len;		/* bytes received: the next piece's offset */
	char *partial;			/* a line cut between two pieces */
	size_t partial_len;
	uint64_t ksym_text, ksym_stext;	/* their addresses in the kallsyms text; 0: absent */
	char *kernel_names;		/* text symbols' names, NUL-separated */
	size_t kernel_names_len, kernel_names_cap;
	uint32_t last_name_off;		/* the name last placed there: it ends the names */
	size_t ksyms_cap;
	bool ksyms_sorted;
	struct rs_kernel_sym *ksyms;
	size_t nr_ksyms;
	uint64_t kernel_end;
	/*
	 * The kernel's text cut in buckets of 2^ksym_shift bytes from
	 * ksyms[0]: ksym_first[b] is the symbol holding bucket b's first byte,
	 * so bucket b's answers lie in [ksym_first[b], ksym_first[b + 1]].
	 */
	uint32_t *ksym_first;
	unsigned int ksym_shift;

	/* The indexes, built by secmap_resolver_finish(). */
	bool finished;
	struct rs_index sections;
	struct rs_index footprints;	/* consulted only when no section holds it */
	int err;		/* sticky: from adding records */
};

/* symbols.c */
int rs_add_kallsyms(struct secmap_resolver *res, const struct secmap_record *rec);
int rs_load_build(struct secmap_resolver *res, struct rs_build *b);
int rs_parse_kallsyms(struct secmap_resolver *res);

/* index.c */
int rs_add_footprints(struct secmap_resolver *res);
int rs_build_index(struct secmap_resolver *res, struct rs_index *idx, bool footprint);
void rs_index_free(struct rs_index *idx);

#endif /* LIBSECMAP_RESOLVER_H */
