// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The resolver: (address, time) -> module build, section, offset in it,
 * symbol and offset, from a recording's section maps and the modules' .ko
 * symbol tables; kernel-core addresses from the recording's kallsyms.
 *
 * Records are fed in file order and turned into mappings, each valid over a
 * time range: an event load opens its sections at its time, an init-free
 * closes the init ones, an unload closes the rest. A resync's snapshot keeps
 * what it still shows, and closes what it no longer shows (or opens what is
 * new) at the start of the gap it covers: within a gap, nothing better is
 * known.
 *
 * The index cuts the address range into page-sized buckets; each
 * piece lists the mappings that ever covered it, ordered by time. A lookup
 * is a binary search for the piece, then a short scan of its list: time is
 * part of the key, so samples can come in any order. A module's sections are
 * also merged into its footprint (sections less than a page apart), so that
 * an address inside a module but in no recorded section is still named
 * module+offset, with the reason.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <search.h>
#include <sys/mman.h>

#include "hashmap.h"
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
	struct secmap_ko *ko;
	bool ko_shared;		/* @ko is the pool's, not closed with the build */
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
};

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
	/* What the builds' .ko files decompressed to, kept or not: up to LIBSECMAP_KO_BUDGET. */
	size_t ko_spent;
	struct libsecmap_ko_pool *ko_pool;	/* a live resolver's, or NULL */
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

static const char *life_module(const struct secmap_resolver *res, const struct rs_life *life)
{
	return res->builds[life->build].name;
}

static uint64_t module_hash(const struct secmap_resolver *res, const char *module)
{
	return libsecmap_hashmap_hash(&res->open_by_name, module, strlen(module));
}

/* The slot of @module's open life in open_by_name, or NULL. */
static struct libsecmap_hashmap_slot *open_slot(const struct secmap_resolver *res,
						const char *module)
{
	uint64_t h = module_hash(res, module);
	struct libsecmap_hashmap_slot *s;

	for (s = libsecmap_hashmap_probe(&res->open_by_name, h); s;
	     s = libsecmap_hashmap_next(&res->open_by_name, h, s))
		if (!strcmp(life_module(res, &res->lives[s->item]), module))
			return s;
	return NULL;
}

static struct rs_life *open_life(struct secmap_resolver *res, const char *module)
{
	struct libsecmap_hashmap_slot *s = open_slot(res, module);

	return s ? &res->lives[s->item] : NULL;
}

static uint64_t build_hash(const struct secmap_resolver *res, const char *name,
			   const uint8_t *id, size_t id_len)
{
	return libsecmap_hashmap_combine(libsecmap_hashmap_hash(&res->builds_by_id, name,
								strlen(name)),
					 libsecmap_hashmap_hash(&res->builds_by_id, id, id_len));
}

static int find_build(struct secmap_resolver *res, const struct secmap_record *rec, uint32_t *out)
{
	static const uint8_t none[1];
	/* memcmp() and memcpy() want a pointer even for no bytes. */
	const uint8_t *id = rec->build_id_len ? rec->build_id : none;
	struct libsecmap_hashmap_slot *s;
	struct rs_build *b;
	uint64_t h;

	/* No build-id is that long: the record is corrupt, not the file of another kind. */
	if (rec->build_id_len > SECMAP_BUILD_ID_MAX)
		return -EBADMSG;
	if (res->nr_builds >= RS_NONE - 1)
		return -E2BIG;
	h = build_hash(res, rec->module, id, rec->build_id_len);
	for (s = libsecmap_hashmap_probe(&res->builds_by_id, h); s;
	     s = libsecmap_hashmap_next(&res->builds_by_id, h, s)) {
		b = &res->builds[s->item];
		if (b->id_len == rec->build_id_len && !memcmp(b->id, id, b->id_len) &&
		    !strcmp(b->name, rec->module)) {
			*out = (uint32_t)s->item;
			return 0;
		}
	}
	b = libsecmap_grow(res->builds, &res->cap_builds, res->nr_builds, sizeof(*b), 16);
	if (!b)
		return -ENOMEM;
	res->builds = b;
	b = &res->builds[res->nr_builds];
	memset(b, 0, sizeof(*b));
	b->name = strdup(rec->module);
	if (!b->name)
		return -ENOMEM;
	memcpy(b->id, id, rec->build_id_len);
	b->id_len = rec->build_id_len;
	if (libsecmap_hashmap_add(&res->builds_by_id, h, res->nr_builds)) {
		free(b->name);
		return -ENOMEM;
	}
	*out = (uint32_t)res->nr_builds++;
	return 0;
}

/*
 * A build's sections are found by a scan while they are few (a module has
 * a few dozen), by a tree past that: a recording of 40k sections in one
 * module took 17 s by scans alone.
 */
#define RS_SECS_SCANNED	32

struct rs_sec_key {
	const char *name;
	uint32_t idx;
};

static int cmp_sec_key(const void *a, const void *b)
{
	return strcmp(((const struct rs_sec_key *)a)->name, ((const struct rs_sec_key *)b)->name);
}

static int sec_tree_add(struct rs_build *b, uint32_t idx)
{
	struct rs_sec_key *k = malloc(sizeof(*k));

	if (!k)
		return -ENOMEM;
	k->name = b->secs[idx].name;
	k->idx = idx;
	if (!tsearch(k, &b->sec_tree, cmp_sec_key)) {
		free(k);
		return -ENOMEM;
	}
	return 0;
}

static int find_section(struct rs_build *b, const char *name, uint32_t *out)
{
	struct rs_sec_key key = { .name = name }, **found;
	struct rs_section *s;
	size_t i;
	int err;

	if (b->nr_secs > RS_SECS_SCANNED) {
		found = tfind(&key, &b->sec_tree, cmp_sec_key);
		if (found) {
			*out = (*found)->idx;
			return 0;
		}
	} else {
		for (i = 0; i < b->nr_secs; i++) {
			if (!strcmp(b->secs[i].name, name)) {
				*out = (uint32_t)i;
				return 0;
			}
		}
	}
	if (b->nr_secs >= UINT32_MAX - 1)
		return -E2BIG;
	s = libsecmap_grow(b->secs, &b->cap_secs, b->nr_secs, sizeof(*s), 1);
	if (!s)
		return -ENOMEM;
	b->secs = s;
	s = &b->secs[b->nr_secs];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return -ENOMEM;
	*out = (uint32_t)b->nr_secs++;
	/* The tree gets every section once there are more than it scans. */
	if (b->nr_secs == RS_SECS_SCANNED + 1) {
		for (i = 0; i < b->nr_secs; i++) {
			err = sec_tree_add(b, (uint32_t)i);
			if (err)
				return err;
		}
	} else if (b->nr_secs > RS_SECS_SCANNED + 1) {
		return sec_tree_add(b, *out);
	}
	return 0;
}

static int new_life(struct secmap_resolver *res, uint32_t build, uint64_t seq,
		    struct rs_life **out)
{
	struct rs_life *lives;
	uint32_t *open;

	if (res->nr_lives >= UINT32_MAX - 1)
		return -EOVERFLOW;
	lives = libsecmap_grow(res->lives, &res->cap_lives, res->nr_lives, sizeof(*lives), 64);
	if (!lives)
		return -ENOMEM;
	res->lives = lives;
	open = libsecmap_grow(res->open_lives, &res->cap_open_lives, res->nr_open_lives,
			      sizeof(*open), 64);
	if (!open)
		return -ENOMEM;
	res->open_lives = open;
	if (libsecmap_hashmap_add(&res->open_by_name, module_hash(res, res->builds[build].name),
				  res->nr_lives))
		return -ENOMEM;
	res->open_lives[res->nr_open_lives++] = (uint32_t)res->nr_lives;
	memset(&lives[res->nr_lives], 0, sizeof(*lives));
	lives[res->nr_lives].build = build;
	lives[res->nr_lives].seq = seq;
	lives[res->nr_lives].open = true;
	*out = &lives[res->nr_lives++];
	return 0;
}

/* Close @life's maps (only init ones if @init_only) at @at. */
static void close_life(struct secmap_resolver *res, struct rs_life *life, const uint64_t at[2],
		       bool init_only)
{
	size_t i;

	if (init_only && life->init_closed)
		return;
	life->init_closed = true;
	for (i = 0; i < life->nr_maps; i++) {
		struct rs_map *m = &res->maps[life->maps[i]];

		if (m->to[0] != RS_OPEN || (init_only && !(m->flags & SECMAP_MAP_F_INIT)))
			continue;
		m->to[0] = at[0];
		m->to[1] = at[1];
	}
	if (!init_only) {
		struct libsecmap_hashmap_slot *s = open_slot(res, life_module(res, life));

		life->open = false;
		if (s)
			libsecmap_hashmap_remove(&res->open_by_name, s);
	}
}

static int add_map(struct secmap_resolver *res, struct rs_life *life,
		   const struct secmap_record *rec, const uint64_t from[2])
{
	struct rs_build *b = &res->builds[life->build];
	struct rs_map *m;
	size_t *maps;
	uint32_t sec;
	int err;

	/* Length 0: the recorder had no .ko; finish() takes it from the .ko. */
	if (rec->start + rec->len < rec->start)
		return 0;
	err = find_section(b, rec->section, &sec);
	if (err)
		return err;
	m = libsecmap_grow(res->maps, &res->cap_maps, res->nr_maps, sizeof(*m), 1024);
	if (!m)
		return -ENOMEM;
	res->maps = m;
	maps = libsecmap_grow(life->maps, &life->cap_maps, life->nr_maps, sizeof(*maps), 1);
	if (!maps)
		return -ENOMEM;
	life->maps = maps;
	maps[life->nr_maps++] = res->nr_maps;
	m = &res->maps[res->nr_maps++];
	memset(m, 0, sizeof(*m));
	m->start = rec->start;
	m->end = rec->start + rec->len;
	m->from[0] = from[0];
	m->from[1] = from[1];
	m->to[0] = m->to[1] = RS_OPEN;
	m->pgoff = rec->pgoff;
	m->build = life->build;
	m->section = sec;
	m->flags = rec->flags;
	if (m->flags & SECMAP_MAP_F_INIT)
		life->init_closed = false;
	return 0;
}

static bool life_has(const struct secmap_resolver *res, const struct rs_life *life,
		     const struct secmap_record *rec)
{
	size_t i;

	for (i = 0; i < life->nr_maps; i++) {
		const struct rs_map *m = &res->maps[life->maps[i]];

		if (m->start == rec->start &&
		    !strcmp(res->builds[m->build].secs[m->section].name, rec->section))
			return true;
	}
	return false;
}

static int add_gap(struct secmap_resolver *res, const struct secmap_record *rec)
{
	struct rs_gap *g;

	if (res->snap_at[0] >= rec->time_local_ns && res->snap_at[1] >= rec->time_mono_ns)
		return 0;	/* no gap start recorded: nothing is opened early */
	g = libsecmap_grow(res->gaps, &res->cap_gaps, res->nr_gaps, sizeof(*g), 8);
	if (!g)
		return -ENOMEM;
	res->gaps = g;
	g = &res->gaps[res->nr_gaps++];
	g->from[0] = res->snap_at[0];
	g->from[1] = res->snap_at[1];
	g->to[0] = rec->time_local_ns;
	g->to[1] = rec->time_mono_ns;
	return 0;
}

/* After a resync's snapshot: what it did not show is gone since the gap began. */
static void end_resync(struct secmap_resolver *res)
{
	size_t i, kept = 0;

	/* Only lives still open can be in a snapshot; those closed since go from the list. */
	for (i = 0; i < res->nr_open_lives; i++) {
		struct rs_life *life = &res->lives[res->open_lives[i]];

		if (life->open && !life->resync)
			close_life(res, life, res->snap_at, false);
		life->resync = 0;
		if (life->open)
			res->open_lives[kept++] = res->open_lives[i];
	}
	res->nr_open_lives = kept;
}

static int add_snapshot_map(struct secmap_resolver *res, const struct secmap_record *rec)
{
	uint64_t from[2] = { 0, 0 };
	struct rs_life *life = open_life(res, rec->module);
	uint32_t build;
	int err;

	if (res->snap_reason != SECMAP_RESYNC_START) {
		from[0] = res->snap_at[0];
		from[1] = res->snap_at[1];
	}
	err = find_build(res, rec, &build);
	if (err)
		return err;
	if (life && !life->resync) {
		/* First map of this module in this snapshot: the same load still? */
		if (life->build == build && life_has(res, life, rec)) {
			life->resync = 1;
		} else {
			close_life(res, life, from, false);
			life = NULL;
		}
	}
	if (!life) {
		err = new_life(res, build, rec->seq, &life);
		if (err)
			return err;
		life->resync = 2;
	}
	/* Kept loads have their maps; a freed init section is no mapping. */
	if (life->resync == 2 && !(rec->flags & SECMAP_MAP_F_FREED))
		err = add_map(res, life, rec, from);
	/* A kept load whose init was freed in the gap: closed when it began. */
	if (life->resync == 1 && (rec->flags & (SECMAP_MAP_F_FREED | SECMAP_MAP_F_INIT)) ==
	    (SECMAP_MAP_F_FREED | SECMAP_MAP_F_INIT))
		close_life(res, life, from, true);
	return err;
}

static int add_event_map(struct secmap_resolver *res, const struct secmap_record *rec)
{
	const uint64_t at[2] = { rec->time_local_ns, rec->time_mono_ns };
	struct rs_life *life = open_life(res, rec->module);
	uint32_t build;
	int err;

	err = find_build(res, rec, &build);
	if (err)
		return err;
	if (life && (life->seq != rec->seq || life->build != build)) {
		/* A load while the last one was never seen to go: lost unload. */
		close_life(res, life, at, false);
		life = NULL;
	}
	if (!life) {
		err = new_life(res, build, rec->seq, &life);
		if (err)
			return err;
	}
	return add_map(res, life, rec, at);
}

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* One kallsyms line, "ffffffff81000000 T _text", @len bytes without its newline. */
static int kallsyms_line(struct secmap_resolver *res, const char *line, size_t len)
{
	const char *name;
	size_t name_len;
	uint64_t addr;
	char type;

	if (!libsecmap_kallsyms_parse(line, len, &addr, &type, &name, &name_len) || !addr ||
	    !is_text_type(type))
		return 0;
	if (memchr(name, '\t', name_len) || memchr(name, '\0', name_len))
		return 0;	/* a module's ("\t[mod]"), or not a line */
	if (res->nr_ksyms == res->ksyms_cap) {
		size_t cap = res->ksyms_cap ? 2 * res->ksyms_cap : 4096;
		struct rs_kernel_sym *k = realloc(res->ksyms, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		res->ksyms = k;
		res->ksyms_cap = cap;
	}
	if (res->kernel_names_len + name_len + 1 > UINT32_MAX)
		return -EFBIG;
	if (res->kernel_names_len + name_len + 1 > res->kernel_names_cap) {
		size_t cap = res->kernel_names_cap ? 2 * res->kernel_names_cap : 65536;
		char *n;

		while (cap < res->kernel_names_len + name_len + 1)
			cap *= 2;
		n = realloc(res->kernel_names, cap);
		if (!n)
			return -ENOMEM;
		res->kernel_names = n;
		res->kernel_names_cap = cap;
	}
	if (name_len == 5 && !memcmp(name, "_text", 5) && !res->ksym_text)
		res->ksym_text = addr;
	else if (name_len == 6 && !memcmp(name, "_stext", 6) && !res->ksym_stext)
		res->ksym_stext = addr;
	if (res->nr_ksyms && res->ksyms[res->nr_ksyms - 1].addr > addr)
		res->ksyms_sorted = false;
	res->ksyms[res->nr_ksyms].addr = addr;
	res->ksyms[res->nr_ksyms].name_off = (uint32_t)res->kernel_names_len;
	res->nr_ksyms++;
	memcpy(res->kernel_names + res->kernel_names_len, name, name_len);
	res->kernel_names_len += name_len;
	res->kernel_names[res->kernel_names_len++] = '\0';
	return 0;
}

/*
 * The recorder splits kallsyms into pieces anywhere, lines included: whole
 * lines are read at once, a cut one waits for the rest. Only text symbols'
 * names are kept (a few MiB of text would otherwise stay resident).
 */
static int add_kallsyms(struct secmap_resolver *res, const struct secmap_record *rec)
{
	const char *p = rec->text, *end = rec->text + rec->text_len, *nl;
	int err;

	if (rec->text_offset != res->kallsyms_len)
		return -EBADMSG;	/* pieces out of order: not what a recorder writes */
	res->kallsyms_len += rec->text_len;
	if (!res->nr_ksyms && !res->partial_len)
		res->ksyms_sorted = true;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			char *part = realloc(res->partial, res->partial_len + (size_t)(end - p));

			if (!part)
				return -ENOMEM;
			memcpy(part + res->partial_len, p, (size_t)(end - p));
			res->partial = part;
			res->partial_len += (size_t)(end - p);
			return 0;
		}
		if (res->partial_len) {
			char *part = realloc(res->partial, res->partial_len + (size_t)(nl - p));

			if (!part)
				return -ENOMEM;
			memcpy(part + res->partial_len, p, (size_t)(nl - p));
			err = kallsyms_line(res, part, res->partial_len + (size_t)(nl - p));
			free(part);
			res->partial = NULL;
			res->partial_len = 0;
		} else {
			err = kallsyms_line(res, p, (size_t)(nl - p));
		}
		if (err)
			return err;
		p = nl + 1;
	}
	return 0;
}

SECMAP_EXPORT int secmap_resolver_add(struct secmap_resolver *res, const struct secmap_record *rec)
{
	const uint64_t at[2] = { rec ? rec->time_local_ns : 0, rec ? rec->time_mono_ns : 0 };
	struct rs_life *life;
	int err = 0;

	if (!res || !rec || res->finished)
		return libsecmap_err(-EINVAL);
	if (res->err)
		return libsecmap_err(res->err);
	if (res->snap_left && !(rec->type == SECMAP_REC_SEC_MAP &&
				(rec->flags & SECMAP_MAP_F_SNAPSHOT))) {
		/* The reader checks this; records given by hand may not be. */
		err = -EBADMSG;
		goto out;
	}
	switch (rec->type) {
	case SECMAP_REC_KERNEL:
		free(res->release);
		res->release = strdup(rec->release);
		if (!res->release)
			err = -ENOMEM;
		res->have_ref_addr = rec->flags & SECMAP_KERNEL_F_REF_ADDR;
		res->ref_addr = rec->ref_addr;
		res->ref_is_stext = rec->ref_name && !strcmp(rec->ref_name, "_stext");
		break;
	case SECMAP_REC_KALLSYMS:
		err = add_kallsyms(res, rec);
		break;
	case SECMAP_REC_RESYNC:
		res->snap_left = rec->nr_maps;
		res->snap_reason = rec->reason;
		res->snap_at[0] = rec->gap_local_ns ? rec->gap_local_ns : rec->time_local_ns;
		res->snap_at[1] = rec->gap_mono_ns ? rec->gap_mono_ns : rec->time_mono_ns;
		if (rec->reason != SECMAP_RESYNC_START)
			err = add_gap(res, rec);
		if (!err && !res->snap_left)
			end_resync(res);
		break;
	case SECMAP_REC_SEC_MAP:
		if (rec->flags & SECMAP_MAP_F_SNAPSHOT) {
			if (!res->snap_left) {
				err = -EBADMSG;
				break;
			}
			err = add_snapshot_map(res, rec);
			if (!err && !--res->snap_left)
				end_resync(res);
		} else {
			err = add_event_map(res, rec);
		}
		break;
	case SECMAP_REC_UNMAP:
		life = open_life(res, rec->module);
		if (life)
			close_life(res, life, at, rec->flags & SECMAP_UNMAP_F_INIT);
		break;
	default:
		break;	/* FINISHED, and types this library does not know */
	}
out:
	if (err)
		res->err = err;
	return err ? libsecmap_err(err) : 0;
}

SECMAP_EXPORT int secmap_resolver_new(const struct secmap_resolver_opts *opts,
				      struct secmap_resolver **resp)
{
	struct secmap_resolver *res;
	size_t n = 0;

	if (!resp || (opts && opts->clock > SECMAP_CLOCK_MONO))
		return libsecmap_err(-EINVAL);
	*resp = NULL;
	res = calloc(1, sizeof(*res));
	if (!res)
		return libsecmap_err(-ENOMEM);
	libsecmap_hashmap_init(&res->builds_by_id);
	libsecmap_hashmap_init(&res->open_by_name);
	if (opts)
		res->opts = *opts;
	if (opts && opts->search) {
		res->search = *opts->search;
		while (opts->search->paths && opts->search->paths[n])
			n++;
		res->paths = calloc(n + 1, sizeof(*res->paths));
		if (!res->paths) {
			free(res);
			return libsecmap_err(-ENOMEM);
		}
		if (n)
			memcpy(res->paths, opts->search->paths, n * sizeof(*res->paths));
		res->search.paths = res->paths;
	}
	res->opts.search = NULL;
	*resp = res;
	return 0;
}

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

static void index_free(struct rs_index *idx)
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
		if (!b->ko_shared)
			secmap_ko_close(b->ko);
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
	index_free(&res->sections);
	index_free(&res->footprints);
	free(res->release);
	free(res->paths);
	free(res);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct libsecmap_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* The larger first at one address: the last that covers wins, the innermost. */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	/* Aliases (init_module and the init function): the global, plain name last, to win. */
	if (x->global != y->global)
		return x->global ? 1 : -1;
	if ((x->name[0] == '_') != (y->name[0] == '_'))
		return x->name[0] == '_' ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct rs_kernel_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The pool's .ko for @b, if any; shared, and never closed by the build. 0 or -ENOMEM. */
static int open_pooled(struct secmap_resolver *res, struct rs_build *b)
{
	const char *path;
	int err;

	err = libsecmap_ko_pool_get(res->ko_pool, &res->search, b->name, b->id_len ? b->id : NULL,
				    b->id_len, &path, &b->ko);
	if (err == -ENOMEM)
		return err;
	if (path) {
		b->path = strdup(path);
		if (!b->path)
			return -ENOMEM;
	}
	b->ko_shared = true;
	b->err = err;
	return 0;
}

/* The symbols of @b's sections, from its opened .ko of the right build. */
static int read_build_symbols(struct secmap_resolver *res, struct rs_build *b)
{
	const uint8_t *id;
	size_t i, j, len;
	int err;

	len = secmap_ko_build_id(b->ko, &id);
	if (b->id_len && (len != b->id_len || memcmp(id, b->id, len)) && !res->opts.force) {
		b->err = -ESTALE;
		if (!b->ko_shared)
			secmap_ko_close(b->ko);
		b->ko = NULL;
		return 0;
	}
	for (i = 0; i < b->nr_secs; i++) {
		struct rs_section *s = &b->secs[i];
		struct secmap_ko_symbol *syms;
		struct secmap_ko_section info;
		size_t nr, n = 0;

		if (secmap_ko_section(b->ko, s->name, &info)) {
			s->err = -ENOENT;
			continue;
		}
		s->size = info.size;
		err = secmap_ko_section_symbols(b->ko, s->name, &syms, &nr);
		if (err == -ENOMEM)
			return err;
		if (err || !nr) {
			s->err = err ? err : -ENODATA;
			free(syms);
			continue;
		}
		s->syms = calloc(nr, sizeof(*s->syms));
		if (!s->syms) {
			free(syms);
			return -ENOMEM;
		}
		for (j = 0; j < nr; j++) {
			/* Code resolves to functions; data symbols in code are labels. */
			if (!syms[j].func && (info.flags & SHF_EXECINSTR))
				continue;
			s->syms[n].start = syms[j].value;
			s->syms[n].end = syms[j].size ? syms[j].value + syms[j].size : 0;
			s->syms[n].name = syms[j].name;
			s->syms[n].global = syms[j].global;
			n++;
		}
		free(syms);
		qsort(s->syms, n, sizeof(*s->syms), cmp_sym);
		/* Unsized symbols run to the next one, or the section's end. */
		for (j = 0; j < n; j++)
			if (!s->syms[j].end)
				s->syms[j].end = j + 1 < n ? s->syms[j + 1].start : info.size;
		s->nr_syms = n;
	}
	return 0;
}

/* The symbols of every section a build's maps name, from its .ko. */
static int load_build(struct secmap_resolver *res, struct secmap_ko_index *idx, struct rs_build *b)
{
	size_t spent;
	int err;

	if (res->opts.no_ko) {
		b->err = -ENOENT;
		return 0;
	}
	if (res->ko_pool) {
		err = open_pooled(res, b);
		if (err || !b->ko)
			return err;
		return read_build_symbols(res, b);
	}
	err = secmap_ko_index_find(idx, b->name, b->id_len ? b->id : NULL, b->id_len, &b->path);
	if (err == -ENOMEM)
		return err;
	if (err) {
		b->err = -ENOENT;
		return 0;
	}
	/*
	 * The image stays open (symbol names point into it): without a total,
	 * a few small .ko.zst bombs, each under the cap of one file, would
	 * hold gigabytes. -EDQUOT once spent; plain .ko files cost nothing.
	 */
	err = libsecmap_ko_open_budget(b->path, res->ko_spent < LIBSECMAP_KO_BUDGET ?
				       LIBSECMAP_KO_BUDGET - res->ko_spent : 0, &b->ko, &spent);
	res->ko_spent += spent;
	if (err == -ENOMEM)
		return err;
	if (err) {
		b->err = err;
		return 0;
	}
	return read_build_symbols(res, b);
}


/*
 * A binary search over 100 000 symbols and more mispredicts a branch and
 * misses the cache at nearly every step; so did one over every 64th
 * symbol's address, then within a block of 64. Buckets of the address
 * space, a few symbols each, take a shift and a short search: secmap
 * report of a recording 80% in the kernel took 190 ms instead of 262.
 * There is about one bucket of 4 bytes for every KSYM_PER_BUCKET symbols
 * (fewer when the text is sparse): 159 KiB for this host's 122 000, next
 * to their 1.4 MiB.
 */
#define KSYM_PER_BUCKET 2

static int index_kernel_symbols(struct secmap_resolver *res)
{
	uint64_t base, span, start;
	size_t b, n, j;

	if (!res->nr_ksyms)
		return 0;
	if (res->nr_ksyms > UINT32_MAX)
		return -EFBIG;
	base = res->ksyms[0].addr;
	span = res->kernel_end - base;
	for (res->ksym_shift = 6;
	     res->ksym_shift < 63 && (span >> res->ksym_shift) > res->nr_ksyms / KSYM_PER_BUCKET;
	     res->ksym_shift++)
		;
	n = (size_t)(span >> res->ksym_shift) + 1;	/* a spare one at most */
	res->ksym_first = malloc((n + 1) * sizeof(*res->ksym_first));
	if (!res->ksym_first)
		return -ENOMEM;
	for (b = 0, j = 0; b < n; b++) {
		start = base + ((uint64_t)b << res->ksym_shift);
		while (j + 1 < res->nr_ksyms && res->ksyms[j + 1].addr <= start)
			j++;
		res->ksym_first[b] = (uint32_t)j;
	}
	res->ksym_first[n] = (uint32_t)(res->nr_ksyms - 1);
	return 0;
}

/*
 * kallsyms from another boot of the same build (a build-id cache's copy
 * given to a recording without its own) is shifted by KASLR: moved, as
 * perf moves it, so that its reference symbol sits where the recording
 * saw it. A recording's own kallsyms has the offset 0.
 */
static void relocate_kallsyms(struct secmap_resolver *res)
{
	uint64_t at = res->ref_is_stext ? res->ksym_stext : res->ksym_text, delta;
	size_t i;

	if (!res->have_ref_addr || !at || at == res->ref_addr)
		return;
	delta = res->ref_addr - at;
	for (i = 0; i < res->nr_ksyms; i++)
		res->ksyms[i].addr += delta;
	/* A crafted shift may wrap around the top: sorted again then. */
	res->ksyms_sorted = false;
}

/* The kallsyms read: a last line without newline, names placed, order. */
static int parse_kallsyms(struct secmap_resolver *res)
{
	int err;

	if (res->partial_len) {
		err = kallsyms_line(res, res->partial, res->partial_len);
		free(res->partial);
		res->partial = NULL;
		res->partial_len = 0;
		if (err)
			return err;
	}
	relocate_kallsyms(res);
	/* /proc/kallsyms lists the core in address order, mostly: sort only if not. */
	if (res->nr_ksyms && !res->ksyms_sorted)
		qsort(res->ksyms, res->nr_ksyms, sizeof(*res->ksyms), cmp_ksym);
	/*
	 * Core text runs to a page after the last text symbol: past _etext
	 * come .init.text and friends (start_kernel), which samples can reach.
	 */
	if (res->nr_ksyms) {
		res->kernel_end = res->ksyms[res->nr_ksyms - 1].addr + 4096;
		/* A recording's last symbol in the top page: its text ends with the space. */
		if (res->kernel_end < 4096)
			res->kernel_end = UINT64_MAX;
	}
	return index_kernel_symbols(res);
}

/* A module's sections, merged where less than a page apart. */
static int add_footprints(struct secmap_resolver *res)
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
	idx->refs = malloc((n + 1) * sizeof(*idx->refs));
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
static int build_index(struct secmap_resolver *res, struct rs_index *idx, bool footprint)
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
	index_free(idx);
	return err;
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
	struct secmap_ko_index *idx = NULL;
	size_t i;
	int err;

	if (!res || res->finished)
		return libsecmap_err(-EINVAL);
	if (res->err)
		return libsecmap_err(res->err);
	if (res->snap_left)
		return libsecmap_err(-EBADMSG);	/* a resync's snapshot cut short */
	res->finished = true;
	err = parse_kallsyms(res);
	if (!err && !res->search.release)
		res->search.release = res->release;
	if (!err && !res->opts.no_ko && !res->ko_pool)
		err = secmap_ko_index_new(&res->search, &idx);
	for (i = 0; !err && i < res->nr_builds; i++)
		err = load_build(res, idx, &res->builds[i]);
	secmap_ko_index_free(idx);
	/* Maps recorded without a length (no .ko at record time) take the .ko's. */
	for (i = 0; !err && i < res->nr_maps; i++) {
		struct rs_map *m = &res->maps[i];
		uint64_t size = res->builds[m->build].secs[m->section].size;

		if (m->end == m->start && size && m->start + size > m->start)
			m->end = m->start + size;
	}
	if (!err)
		err = add_footprints(res);
	if (!err && res->nr_gaps)
		qsort_r(res->gaps, res->nr_gaps, sizeof(*res->gaps), cmp_gap, res);
	if (!err)
		err = build_index(res, &res->sections, false);
	if (!err)
		err = build_index(res, &res->footprints, true);
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
	struct secmap_record rec;
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
	static const struct secmap_resolution empty;
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
	if (!ref->reason)
		resolve_symbol(ref->sec, out->section_offset, out);
	if (res->nr_gaps && time != SECMAP_TIME_ANY && in_gap(res, slot->from, time)) {
		out->map_flags |= SECMAP_RESOLVED_F_IN_GAP;
		if (!out->reason)
			out->reason = "loaded during a gap in the recording: maybe not yet at this time";
	}
	return 0;
}

SECMAP_EXPORT int secmap_resolve(const struct secmap_resolver *res, uint64_t addr, uint64_t time,
				 struct secmap_resolution *out)
{
	size_t ksym_hint = SIZE_MAX;

	if (!res || !out || !res->finished || res->err)
		return libsecmap_err(-EINVAL);
	return answer(res, addr, time, index_find(&res->sections, addr, time, false), &ksym_hint,
		      out);
}

SECMAP_EXPORT size_t secmap_resolver_nr_modules(const struct secmap_resolver *res)
{
	return res ? res->nr_builds : 0;
}

SECMAP_EXPORT int secmap_resolver_module(const struct secmap_resolver *res, size_t idx,
					 struct secmap_resolver_module *mod)
{
	const struct rs_build *b;

	if (!res || !mod || idx >= res->nr_builds)
		return libsecmap_err(-EINVAL);
	b = &res->builds[idx];
	mod->name = b->name;
	mod->build_id = b->id;
	mod->build_id_len = b->id_len;
	mod->path = b->path;
	mod->err = b->err;
	return 0;
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
