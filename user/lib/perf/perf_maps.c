// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Perf-native module maps: what stock perf needs to put each module sample
 * on the right function (Documentation/secmap-record.rst, "For stock perf").
 *
 * perf maps a module as one range and reads its symbols from the module's
 * file, where an ET_REL object's sections all sit at offset 0: only .text
 * comes out right, and a module loaded during the recording is not mapped
 * at all. What it reads right is an object whose one .text is the whole
 * region, with the functions at their offsets in it. So, from a finished
 * resolver, per module build and kind of region (core text; init text,
 * freed when init finishes) this builds:
 *
 *  - an ELF object (perf_object.c writes it): ET_REL, one SHT_NOBITS
 *    .text at sh_offset 0 as long as the region, the region's function
 *    symbols at their offsets, and a GNU build-id note;
 *  - for each load, the times its region was mapped and unmapped.
 *
 * Regions are gathered first, one per load and kind, with a hash of their
 * layout; sorted, equal ones meet, and each object is made from the first
 * of its group: n log n in the loads, however many there are.
 *
 * The build-id is derived from what the object holds (module, build-id,
 * kind, size, symbols), so one object serves every load of a build and
 * the same recording always gives the same objects. Every load of a build
 * lays its region out alike on one kernel; a load that does not (another
 * build of the module, say) gets an object and a perf name of its own,
 * "[mod.2]": perf finds a module's objects by name.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "internal.h"
#include "perf_maps.h"

#define PM_KINDS		2	/* core text, init text */
/* A module region is megabytes at most; anything larger is not believed. */
#define PM_REGION_MAX		(1ULL << 30)
#define PM_PAGE			4096ULL

/* One kind of region of one load, before objects are made. */
struct pm_region {
	uint32_t life, build;
	int kind;
	uint64_t lo, hi;
	uint64_t key;		/* its layout's hash */
	uint64_t from[2], to[2];
	uint32_t object;
};

struct secmap_perf_maps {
	const struct secmap_resolver *res;
	char *dir;
	struct pm_region *regions;	/* in load order */
	size_t nr_regions, cap_regions;
	struct pm_object *objs;
	size_t nr_objs;
	struct pm_event *events;
	size_t nr_events;
	const char **covered;	/* module names with an object, sorted; the resolver's */
	size_t nr_covered;
	size_t nr_skipped;
};

/* Module names become paths: the kernel's own alphabet, and a bounded length. */
static bool valid_module_name(const char *name)
{
	size_t len = strlen(name), i;

	if (!len || len > PM_MODULE_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-'))
			return false;
	return true;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct pm_sym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool region_has(const struct libsecmap_map_info *m, int kind)
{
	return (m->flags & SECMAP_MAP_F_EXEC) && !(m->flags & SECMAP_MAP_F_PERCPU) &&
	       m->end > m->start && !!(m->flags & SECMAP_MAP_F_INIT) == (kind == 1);
}

/* The symbols of a region: each of its maps' section symbols at their offset in it. */
static int region_symbols(const struct secmap_perf_maps *pm, const struct pm_region *r,
			  struct pm_sym **out, size_t *nr_out)
{
	const struct libsecmap_sym *syms;
	struct libsecmap_map_info m;
	struct pm_sym *v = NULL, *p;
	size_t i, j, n, nr = 0, cap = 0, nr_maps;
	uint32_t build;

	libsecmap_resolver_life(pm->res, r->life, &build, &nr_maps);
	for (i = 0; i < nr_maps; i++) {
		libsecmap_resolver_life_map(pm->res, r->life, i, &m);
		if (!region_has(&m, r->kind))
			continue;
		n = libsecmap_resolver_symbols(pm->res, build, m.section, &syms);
		for (j = 0; j < n; j++) {
			uint64_t len = m.end - m.start;
			uint64_t end = syms[j].end < len ? syms[j].end : len;

			if (syms[j].start >= end)
				continue;
			if (nr == cap) {
				cap = cap ? 2 * cap : 64;
				p = realloc(v, cap * sizeof(*v));
				if (!p) {
					free(v);
					return -ENOMEM;
				}
				v = p;
			}
			v[nr++] = (struct pm_sym){ .value = m.start - r->lo + syms[j].start,
						   .size = end - syms[j].start,
						   .name = syms[j].name,
						   .global = syms[j].global };
		}
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_sym);
	*out = v;
	*nr_out = nr;
	return 0;
}

/* What tells two layouts of a region apart: kind, size and every symbol. */
static int layout_key(const struct secmap_perf_maps *pm, struct pm_region *r)
{
	XXH3_state_t *st;
	struct pm_sym *syms;
	uint64_t v[3];
	size_t i, nr;
	int err;

	err = region_symbols(pm, r, &syms, &nr);
	if (err)
		return err;
	st = XXH3_createState();
	if (!st) {
		free(syms);
		return -ENOMEM;
	}
	XXH3_64bits_reset(st);
	v[0] = (uint64_t)r->kind;
	v[1] = r->hi - r->lo;
	XXH3_64bits_update(st, v, 2 * sizeof(v[0]));
	for (i = 0; i < nr; i++) {
		v[0] = syms[i].value;
		v[1] = syms[i].size;
		v[2] = syms[i].global;
		XXH3_64bits_update(st, v, sizeof(v));
		XXH3_64bits_update(st, syms[i].name, strlen(syms[i].name) + 1);
	}
	r->key = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	free(syms);
	return 0;
}

/* The object's build-id: 20 bytes from what it holds, whoever builds it. */
static int object_build_id(struct pm_object *o, const struct libsecmap_build_info *b)
{
	XXH3_state_t *st = XXH3_createState();
	static const char tag[] = "secmap perf map 1";
	XXH128_hash_t h, h2;
	uint64_t v[3];
	size_t i;

	if (!st)
		return -ENOMEM;
	XXH3_128bits_reset(st);
	XXH3_128bits_update(st, tag, sizeof(tag));
	XXH3_128bits_update(st, b->name, strlen(b->name) + 1);
	v[0] = b->id_len;
	v[1] = (uint64_t)o->kind;
	v[2] = o->size;
	XXH3_128bits_update(st, v, sizeof(v));
	XXH3_128bits_update(st, b->id, b->id_len);
	v[0] = o->machine;
	v[1] = o->elf_class;
	v[2] = o->elf_data;
	XXH3_128bits_update(st, v, sizeof(v));
	for (i = 0; i < o->nr_syms; i++) {
		v[0] = o->syms[i].value;
		v[1] = o->syms[i].size;
		v[2] = o->syms[i].global;
		XXH3_128bits_update(st, v, sizeof(v));
		XXH3_128bits_update(st, o->syms[i].name, strlen(o->syms[i].name) + 1);
	}
	h = XXH3_128bits_digest(st);
	XXH3_128bits_update(st, tag, 1);
	h2 = XXH3_128bits_digest(st);
	XXH3_freeState(st);
	for (i = 0; i < 8; i++) {
		o->id[i] = (uint8_t)(h.high64 >> (56 - 8 * i));
		o->id[8 + i] = (uint8_t)(h.low64 >> (56 - 8 * i));
	}
	for (i = 0; i < PM_BUILD_ID_LEN - 16; i++)
		o->id[16 + i] = (uint8_t)(h2.low64 >> (56 - 8 * i));
	return 0;
}

/* An object's symbols, ELF identity and build-id, from its first region. */
static int object_fill(struct secmap_perf_maps *pm, struct pm_object *o)
{
	struct libsecmap_build_info b;
	const uint8_t *image;
	int err;

	libsecmap_resolver_build(pm->res, o->build, &b);
	/* The module's own class, byte order and machine: from its ELF header. */
	if (secmap_ko_image(b.ko, &image) < 20)
		return -EINVAL;
	o->elf_class = image[EI_CLASS];
	o->elf_data = image[EI_DATA];
	o->machine = o->elf_data == ELFDATA2MSB ? (uint16_t)(image[18] << 8 | image[19]) :
						   (uint16_t)(image[19] << 8 | image[18]);
	err = region_symbols(pm, &pm->regions[o->first], &o->syms, &o->nr_syms);
	return err ? err : object_build_id(o, &b);
}

/* perf's name for it ("[mod]", "[mod.2.init]"...) and the path the records give. */
static int object_names(struct secmap_perf_maps *pm, struct pm_object *o, size_t variant)
{
	char sid[2 * PM_BUILD_ID_LEN + 1], base[PM_MODULE_NAME_MAX + 32];
	struct libsecmap_build_info b;

	libsecmap_resolver_build(pm->res, o->build, &b);
	if (variant)
		snprintf(base, sizeof(base), "%s.%zu%s", b.name, variant + 1,
			 o->kind ? ".init" : "");
	else
		snprintf(base, sizeof(base), "%s%s", b.name, o->kind ? ".init" : "");
	secmap_build_id_str(o->id, sizeof(o->id), sid, sizeof(sid));
	if (asprintf(&o->dso, "[%s]", base) < 0) {
		o->dso = NULL;
		return -ENOMEM;
	}
	if (asprintf(&o->path, "%s/.secmap/%s/%s.ko", pm->dir, sid, base) < 0) {
		o->path = NULL;
		return -ENOMEM;
	}
	o->rel = o->path + strlen(pm->dir) + 1;
	return 0;
}

/* One kind of region of load @life, if it has one. */
static int add_region(struct secmap_perf_maps *pm, uint32_t life, uint32_t build, size_t nr_maps,
		      int kind)
{
	struct pm_region r = { .life = life, .build = build, .kind = kind, .lo = UINT64_MAX };
	struct libsecmap_map_info m;
	size_t i, nr = 0;
	int err;

	for (i = 0; i < nr_maps; i++) {
		libsecmap_resolver_life_map(pm->res, life, i, &m);
		if (!region_has(&m, kind))
			continue;
		if (!nr++) {
			memcpy(r.from, m.from, sizeof(r.from));
			memcpy(r.to, m.to, sizeof(r.to));
		}
		if (m.start < r.lo)
			r.lo = m.start;
		if (m.end > r.hi)
			r.hi = m.end;
	}
	if (!nr)
		return 0;
	/* Regions start on a page: so does the kernel's allocation of them. */
	r.lo &= ~(PM_PAGE - 1);
	if (r.hi - r.lo > PM_REGION_MAX)
		return 0;
	err = layout_key(pm, &r);
	if (err)
		return err;
	if (pm->nr_regions == pm->cap_regions) {
		size_t cap = pm->cap_regions ? 2 * pm->cap_regions : 256;
		struct pm_region *v = realloc(pm->regions, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		pm->regions = v;
		pm->cap_regions = cap;
	}
	pm->regions[pm->nr_regions++] = r;
	return 0;
}

static bool same_layout(const struct pm_region *x, const struct pm_region *y)
{
	return x->build == y->build && x->kind == y->kind && x->key == y->key &&
	       x->hi - x->lo == y->hi - y->lo;
}

/* Regions of one build, kind and layout together, each group in load order. */
static int cmp_layout(const void *a, const void *b, void *arg)
{
	const struct pm_region *v = arg, *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->build != y->build)
		return x->build < y->build ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->hi - x->lo != y->hi - y->lo)
		return x->hi - x->lo < y->hi - y->lo ? -1 : 1;
	return x->life < y->life ? -1 : x->life > y->life;
}

/* Objects in the order of their first region: the order loads were recorded in. */
static int cmp_first(const void *a, const void *b)
{
	const struct pm_object *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Objects of one module and kind together, in load order: variants are numbered so. */
static int cmp_variant(const void *a, const void *b, void *arg)
{
	const struct secmap_perf_maps *pm = arg;
	const struct pm_object *x = &pm->objs[*(const size_t *)a];
	const struct pm_object *y = &pm->objs[*(const size_t *)b];
	struct libsecmap_build_info bx, by;
	int c;

	libsecmap_resolver_build(pm->res, x->build, &bx);
	libsecmap_resolver_build(pm->res, y->build, &by);
	c = strcmp(bx.name, by.name);
	if (c)
		return c;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * One object per build, kind and layout of region, made from the first of
 * its regions: the regions sorted so that equal ones meet (n log n, however
 * many loads), the objects numbered in load order, each region told its
 * object.
 */
static int make_objects(struct secmap_perf_maps *pm, size_t *order)
{
	size_t i, k, n = pm->nr_regions;
	struct pm_region *r;
	int err;

	pm->objs = calloc(n + 1, sizeof(*pm->objs));
	if (!pm->objs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_layout, pm->regions);
	for (i = 0; i < n; i++) {
		r = &pm->regions[order[i]];
		if (!i || !same_layout(&pm->regions[order[i - 1]], r)) {
			struct pm_object *o = &pm->objs[pm->nr_objs++];

			o->build = r->build;
			o->kind = r->kind;
			o->size = r->hi - r->lo;
			o->first = order[i];
		}
		pm->objs[pm->nr_objs - 1].nr_loads++;
	}
	qsort(pm->objs, pm->nr_objs, sizeof(*pm->objs), cmp_first);
	for (k = 0; k < pm->nr_objs; k++)
		pm->regions[pm->objs[k].first].object = (uint32_t)k;
	/* A group starts with its first region, which knows its object now. */
	for (i = 0, k = 0; i < n; i++) {
		r = &pm->regions[order[i]];
		if (!i || !same_layout(&pm->regions[order[i - 1]], r))
			k = r->object;
		r->object = (uint32_t)k;
	}
	for (k = 0; k < pm->nr_objs; k++) {
		err = object_fill(pm, &pm->objs[k]);
		if (err)
			return err;
	}
	return 0;
}

/* Names, in an order of their own: the variants of a module's objects are numbered. */
static int name_objects(struct secmap_perf_maps *pm, size_t *order)
{
	struct libsecmap_build_info b, prev = { 0 };
	size_t i, variant = 0;
	int err;

	for (i = 0; i < pm->nr_objs; i++)
		order[i] = i;
	qsort_r(order, pm->nr_objs, sizeof(*order), cmp_variant, pm);
	for (i = 0; i < pm->nr_objs; i++) {
		struct pm_object *o = &pm->objs[order[i]];

		libsecmap_resolver_build(pm->res, o->build, &b);
		if (i && !strcmp(b.name, prev.name) && o->kind == pm->objs[order[i - 1]].kind)
			variant++;
		else
			variant = 0;
		prev = b;
		err = object_names(pm, o, variant);
		if (err)
			return err;
	}
	/* The modules covered: each object's, once, sorted for a binary search. */
	pm->covered = malloc((pm->nr_objs + 1) * sizeof(*pm->covered));
	if (!pm->covered)
		return -ENOMEM;
	for (i = 0; i < pm->nr_objs; i++) {
		libsecmap_resolver_build(pm->res, pm->objs[order[i]].build, &b);
		if (!pm->nr_covered || strcmp(pm->covered[pm->nr_covered - 1], b.name))
			pm->covered[pm->nr_covered++] = b.name;
	}
	return 0;
}

/* Each region's map, and its unmap when it went, in load order. */
static int make_events(struct secmap_perf_maps *pm)
{
	size_t i;

	pm->events = calloc(2 * pm->nr_regions + 1, sizeof(*pm->events));
	if (!pm->events)
		return -ENOMEM;
	for (i = 0; i < pm->nr_regions; i++) {
		const struct pm_region *r = &pm->regions[i];
		struct pm_event *ev = &pm->events[pm->nr_events++];

		ev->start = r->lo;
		ev->len = r->hi - r->lo;
		ev->object = r->object;
		ev->kind = PM_MAP;
		memcpy(ev->time, r->from, sizeof(ev->time));
		ev->at_start = !r->from[0] && !r->from[1];
		if (r->to[0] == UINT64_MAX)
			continue;
		pm->events[pm->nr_events] = *ev;
		ev = &pm->events[pm->nr_events++];
		ev->kind = PM_UNMAP;
		ev->at_start = false;
		memcpy(ev->time, r->to, sizeof(ev->time));
	}
	return 0;
}

/*
 * @dir made absolute, else ~/.debug, perf's default (perf reads no
 * environment variable for it: only its --buildid-dir and buildid.dir).
 */
static char *default_dir(const char *dir)
{
	char *abs = NULL, *cwd;
	const char *home;

	if (!dir || !*dir) {
		home = getenv("HOME");
		if (!home || *home != '/')
			return NULL;
		/* Init's HOME is "/": "/.debug", not "//.debug". */
		if (asprintf(&abs, "%s%s.debug", home, home[strlen(home) - 1] == '/' ? "" : "/") < 0)
			return NULL;
		return abs;
	}
	if (*dir == '/')
		return strdup(dir);
	cwd = getcwd(NULL, 0);
	if (cwd && asprintf(&abs, "%s/%s", cwd, dir) < 0)
		abs = NULL;
	free(cwd);
	return abs;
}

SECMAP_EXPORT int secmap_perf_maps_new(const struct secmap_resolver *res,
				       const struct secmap_perf_maps_opts *opts,
				       struct secmap_perf_maps **mapsp)
{
	SECMAP_OPTS(secmap_perf_maps_opts, o);
	struct secmap_perf_maps *pm;
	struct libsecmap_build_info b;
	size_t life, nr_maps, *order = NULL;
	uint32_t build;
	int kind, err = 0;

	if (!res || !mapsp)
		return libsecmap_err(-EINVAL);
	*mapsp = NULL;
	/* Any size: buildid_dir came with the first one. */
	err = opts ? libsecmap_struct_in(opts, sizeof(size_t), &o, sizeof(o)) : 0;
	if (err)
		return libsecmap_err(err);
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return libsecmap_err(-ENOMEM);
	pm->res = res;
	pm->dir = default_dir(o.buildid_dir);
	if (!pm->dir) {
		/* No $HOME: nowhere to put the objects perf will look for. */
		free(pm);
		return libsecmap_err(-ENOENT);
	}
	/* Paths are built from this: no trailing '/'. */
	while (strlen(pm->dir) > 1 && pm->dir[strlen(pm->dir) - 1] == '/')
		pm->dir[strlen(pm->dir) - 1] = '\0';
	for (life = 0; !err && life < libsecmap_resolver_nr_lives(res); life++) {
		libsecmap_resolver_life(res, life, &build, &nr_maps);
		libsecmap_resolver_build(res, build, &b);
		if (!b.ko || b.err || !valid_module_name(b.name)) {
			pm->nr_skipped++;
			continue;
		}
		for (kind = 0; !err && kind < PM_KINDS; kind++)
			err = add_region(pm, (uint32_t)life, build, nr_maps, kind);
	}
	if (!err && life > UINT32_MAX)
		err = -EOVERFLOW;
	if (!err) {
		order = malloc((pm->nr_regions + 1) * sizeof(*order));
		err = order ? make_objects(pm, order) : -ENOMEM;
	}
	if (!err)
		err = name_objects(pm, order);
	if (!err)
		err = make_events(pm);
	free(order);
	if (err) {
		secmap_perf_maps_free(pm);
		return libsecmap_err(err);
	}
	*mapsp = pm;
	return 0;
}

SECMAP_EXPORT void secmap_perf_maps_free(struct secmap_perf_maps *pm)
{
	size_t i;

	if (!pm)
		return;
	for (i = 0; i < pm->nr_objs; i++) {
		free(pm->objs[i].syms);
		free(pm->objs[i].dso);
		free(pm->objs[i].path);
	}
	free(pm->covered);
	free(pm->regions);
	free(pm->objs);
	free(pm->events);
	free(pm->dir);
	free(pm);
}

SECMAP_EXPORT size_t secmap_perf_maps_nr_objects(const struct secmap_perf_maps *pm)
{
	return pm ? pm->nr_objs : 0;
}

SECMAP_EXPORT size_t secmap_perf_maps_nr_skipped(const struct secmap_perf_maps *pm)
{
	return pm ? pm->nr_skipped : 0;
}

SECMAP_EXPORT int secmap_perf_maps_object(const struct secmap_perf_maps *pm, size_t idx,
					  struct secmap_perf_maps_object *obj)
{
	struct secmap_perf_maps_object out = { .sz = sizeof(out) };
	const struct pm_object *o;
	struct libsecmap_build_info b;

	if (!pm || !obj || idx >= pm->nr_objs ||
	    obj->sz < offsetofend(struct secmap_perf_maps_object, nr_loads))
		return libsecmap_err(-EINVAL);
	o = &pm->objs[idx];
	libsecmap_resolver_build(pm->res, o->build, &b);
	out.module = b.name;
	out.dso = o->dso;
	out.path = o->path;
	out.cache_path = o->rel;
	out.build_id = o->id;
	out.build_id_len = sizeof(o->id);
	out.nr_symbols = o->nr_syms;
	out.nr_loads = o->nr_loads;
	return libsecmap_struct_out(obj, 0, &out, sizeof(out));
}

const struct pm_event *libsecmap_perf_maps_events(const struct secmap_perf_maps *pm, size_t *nr)
{
	*nr = pm->nr_events;
	return pm->events;
}

const char *libsecmap_perf_maps_path(const struct secmap_perf_maps *pm, uint32_t object)
{
	return pm->objs[object].path;
}

const uint8_t *libsecmap_perf_maps_build_id(const struct secmap_perf_maps *pm, uint32_t object)
{
	return pm->objs[object].id;
}

const char *libsecmap_perf_maps_module(const struct secmap_perf_maps *pm, uint32_t object)
{
	struct libsecmap_build_info b;

	libsecmap_resolver_build(pm->res, pm->objs[object].build, &b);
	return b.name;
}

bool libsecmap_perf_maps_covers(const struct secmap_perf_maps *pm, const char *name, size_t len)
{
	char key[PM_MODULE_NAME_MAX + 1];
	const char *k = key;

	if (len > PM_MODULE_NAME_MAX)
		return false;
	memcpy(key, name, len);
	key[len] = '\0';
	return pm->nr_covered &&
	       bsearch(&k, pm->covered, pm->nr_covered, sizeof(*pm->covered), cmp_str);
}

bool libsecmap_kmod_name(const char *filename, char *name, size_t size)
{
	const char *base = strrchr(filename, '/');
	size_t len, i;

	base = base ? base + 1 : filename;
	len = strlen(base);
	if (base[0] == '[') {
		/* perf's own names for what is no module. */
		if (len < 3 || base[len - 1] != ']' || !strncmp(base, "[kernel.kallsyms]", 17) ||
		    !strncmp(base, "[guest.kernel.kallsyms", 22) || !strncmp(base, "[vdso", 5) ||
		    !strcmp(base, "[vsyscall]"))
			return false;
		base++;
		len -= 2;
	} else {
		len = libsecmap_ko_name_len(base);
	}
	if (!len || len >= size)
		return false;
	for (i = 0; i < len; i++)
		name[i] = libsecmap_modname_char(base[i]);
	name[len] = '\0';
	return true;
}


struct pm_object *libsecmap_perf_maps_obj(const struct secmap_perf_maps *pm, size_t idx)
{
	return &pm->objs[idx];
}

const char *libsecmap_perf_maps_dir(const struct secmap_perf_maps *pm)
{
	return pm->dir;
}
