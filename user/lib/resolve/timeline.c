// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The resolver's timeline: records, fed in file order, turned into module
 * builds (name and build-id), loads (a "life": from the first map to the
 * unload) and mappings, each valid over a time range: an event load opens
 * its sections at its time, an init-free closes the init ones, an unload
 * closes the rest. A resync's snapshot keeps what it still shows, and
 * closes what it no longer shows (or opens what is new) at the start of
 * the gap it covers: within a gap, nothing better is known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <search.h>

#include "resolver.h"

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
	/* Init freed before the load was seen (a uevent's): the range may be another's now. */
	if (rec->flags & SECMAP_MAP_F_FREED)
		return 0;
	return add_map(res, life, rec, at);
}

SECMAP_EXPORT int secmap_resolver_add(struct secmap_resolver *res, const struct secmap_record *user)
{
	struct secmap_record r, *rec = &r;
	uint64_t at[2];
	struct rs_life *life;
	int err = 0;

	if (!res || !user || res->finished)
		return libsecmap_err(-EINVAL);
	err = libsecmap_struct_in(user, SECMAP_RECORD_SZ_1_0, &r, sizeof(r));
	if (err)
		return libsecmap_err(err);
	at[0] = rec->time_local_ns;
	at[1] = rec->time_mono_ns;
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
		err = rs_add_kallsyms(res, rec);
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
	SECMAP_OPTS(secmap_resolver_opts, o);
	SECMAP_OPTS(secmap_ko_search, search);
	struct secmap_resolver *res;
	size_t n = 0;
	int err;

	if (!resp)
		return libsecmap_err(-EINVAL);
	*resp = NULL;
	err = opts ? libsecmap_struct_in(opts, SECMAP_RESOLVER_OPTS_SZ_1_0, &o, sizeof(o)) : 0;
	if (!err && o.search)
		err = libsecmap_struct_in(o.search, SECMAP_KO_SEARCH_SZ_1_0, &search, sizeof(search));
	if (!err && o.clock > SECMAP_CLOCK_MONO)
		err = -EINVAL;
	if (err)
		return libsecmap_err(err);
	res = calloc(1, sizeof(*res));
	if (!res)
		return libsecmap_err(-ENOMEM);
	libsecmap_hashmap_init(&res->builds_by_id);
	libsecmap_hashmap_init(&res->open_by_name);
	res->opts = o;
	res->search = search;
	while (search.paths && search.paths[n])
		n++;
	res->paths = calloc(n + 1, sizeof(*res->paths));
	if (!res->paths) {
		free(res);
		return libsecmap_err(-ENOMEM);
	}
	if (n)
		memcpy(res->paths, search.paths, n * sizeof(*res->paths));
	res->search.paths = res->paths;
	res->opts.search = NULL;
	*resp = res;
	return 0;
}

