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
 *  - an ELF object: ET_REL, one SHT_NOBITS .text at sh_offset 0 as long as
 *    the region (perf's ET_REL fix-ups, symbol-elf.c, then change
 *    nothing), the region's function symbols at their offsets, and a GNU
 *    build-id note that perf checks against the build-id in the record;
 *  - for each load, the times its region was mapped and unmapped.
 *
 * The build-id is derived from what the object holds (module, build-id,
 * kind, size, symbols), so one object serves every load of a build and
 * the same recording always gives the same objects. Every load of a build
 * lays its region out alike on one kernel; a load that does not (another
 * build of the module, say) gets an object and a perf name of its own,
 * "[mod.2]": perf finds a module's objects by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "internal.h"
#include "perf_maps.h"

#define PM_KINDS		2	/* core text, init text */
#define PM_MODULE_NAME_MAX	55	/* MODULE_NAME_LEN - 1 */
/* A module region is megabytes at most; anything larger is not believed. */
#define PM_REGION_MAX		(1ULL << 30)
#define PM_PAGE			4096ULL

struct pm_sym {
	uint64_t value, size;
	const char *name;	/* the resolver's */
	bool global;
};

struct pm_object {
	uint32_t build;
	int kind;
	uint64_t size;		/* of .text: the region */
	uint64_t key;		/* hash of the layout: loads of equal key share it */
	struct pm_sym *syms;
	size_t nr_syms;
	uint8_t id[PM_BUILD_ID_LEN];
	char *dso, *path;
	const char *rel;	/* in @path: from ".secmap/" on */
	uint16_t machine;
	uint8_t elf_class, elf_data;
	size_t nr_loads;
};

struct secmap_perf_maps {
	const struct secmap_resolver *res;
	char *dir;
	struct pm_object *objs;
	size_t nr_objs, cap_objs;
	struct pm_event *events;
	size_t nr_events, cap_events;
	char **covered;		/* module names with an object, sorted */
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

/* The maps of one kind of region of a load, and what they span. */
struct pm_region {
	struct libsecmap_map_info first;
	uint64_t lo, hi;
	size_t nr_maps;
};

static bool region_has(const struct libsecmap_map_info *m, int kind)
{
	return (m->flags & SECMAP_MAP_F_EXEC) && !(m->flags & SECMAP_MAP_F_PERCPU) &&
	       m->end > m->start && !!(m->flags & SECMAP_MAP_F_INIT) == (kind == 1);
}

/* The symbols of the region: each map's section symbols at their offset in it. */
static int region_symbols(const struct secmap_perf_maps *pm, size_t life, size_t nr_maps,
			  uint32_t build, int kind, uint64_t lo, struct pm_sym **out,
			  size_t *nr_out)
{
	const struct libsecmap_sym *syms;
	struct libsecmap_map_info m;
	struct pm_sym *v = NULL, *p;
	size_t i, j, n, nr = 0, cap = 0;

	for (i = 0; i < nr_maps; i++) {
		libsecmap_resolver_life_map(pm->res, life, i, &m);
		if (!region_has(&m, kind))
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
			v[nr++] = (struct pm_sym){ .value = m.start - lo + syms[j].start,
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

static uint64_t layout_key(int kind, uint64_t size, const struct pm_sym *syms, size_t nr)
{
	XXH3_state_t *st = XXH3_createState();
	uint64_t key, v[3];
	size_t i;

	if (!st)
		return 0;
	XXH3_64bits_reset(st);
	v[0] = (uint64_t)kind;
	v[1] = size;
	XXH3_64bits_update(st, v, 2 * sizeof(v[0]));
	for (i = 0; i < nr; i++) {
		v[0] = syms[i].value;
		v[1] = syms[i].size;
		v[2] = syms[i].global;
		XXH3_64bits_update(st, v, sizeof(v));
		XXH3_64bits_update(st, syms[i].name, strlen(syms[i].name) + 1);
	}
	key = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return key;
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

/* perf's name for it, and the path the records give. */
static int object_names(struct secmap_perf_maps *pm, struct pm_object *o, const char *module)
{
	char sid[2 * PM_BUILD_ID_LEN + 1], base[PM_MODULE_NAME_MAX + 32];
	size_t i, variant = 0;

	/* Earlier objects of the same module and kind: this one is a variant. */
	for (i = 0; i < pm->nr_objs; i++) {
		struct libsecmap_build_info b;

		if (&pm->objs[i] == o || pm->objs[i].kind != o->kind)
			continue;
		libsecmap_resolver_build(pm->res, pm->objs[i].build, &b);
		variant += !strcmp(b.name, module);
	}
	if (variant)
		snprintf(base, sizeof(base), "%s.%zu%s", module, variant + 1,
			 o->kind ? ".init" : "");
	else
		snprintf(base, sizeof(base), "%s%s", module, o->kind ? ".init" : "");
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

/* The object a region of this layout uses: found, or made (taking @syms). */
static int find_object(struct secmap_perf_maps *pm, uint32_t build, int kind, uint64_t size,
		       struct pm_sym *syms, size_t nr_syms, uint32_t *out)
{
	uint64_t key = layout_key(kind, size, syms, nr_syms);
	struct libsecmap_build_info b;
	const uint8_t *image;
	struct pm_object *o;
	size_t i;
	int err;

	for (i = 0; i < pm->nr_objs; i++) {
		o = &pm->objs[i];
		if (o->build == build && o->kind == kind && o->key == key && o->size == size) {
			free(syms);
			*out = (uint32_t)i;
			return 0;
		}
	}
	if (pm->nr_objs == pm->cap_objs) {
		size_t cap = pm->cap_objs ? 2 * pm->cap_objs : 64;

		o = realloc(pm->objs, cap * sizeof(*o));
		if (!o) {
			free(syms);
			return -ENOMEM;
		}
		pm->objs = o;
		pm->cap_objs = cap;
	}
	o = &pm->objs[pm->nr_objs];
	memset(o, 0, sizeof(*o));
	o->build = build;
	o->kind = kind;
	o->size = size;
	o->key = key;
	o->syms = syms;
	o->nr_syms = nr_syms;
	libsecmap_resolver_build(pm->res, build, &b);
	/* The module's own class, byte order and machine: from its ELF header. */
	if (secmap_ko_image(b.ko, &image) < 20) {
		free(syms);
		return -EINVAL;
	}
	o->elf_class = image[EI_CLASS];
	o->elf_data = image[EI_DATA];
	o->machine = o->elf_data == ELFDATA2MSB ? (uint16_t)(image[18] << 8 | image[19]) :
						   (uint16_t)(image[19] << 8 | image[18]);
	pm->nr_objs++;
	err = object_build_id(o, &b);
	if (!err)
		err = object_names(pm, o, b.name);
	if (err)
		return err;
	*out = (uint32_t)(pm->nr_objs - 1);
	return 0;
}

static int add_event(struct secmap_perf_maps *pm, const struct pm_event *ev)
{
	struct pm_event *e;

	if (pm->nr_events == pm->cap_events) {
		size_t cap = pm->cap_events ? 2 * pm->cap_events : 256;

		e = realloc(pm->events, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		pm->events = e;
		pm->cap_events = cap;
	}
	pm->events[pm->nr_events++] = *ev;
	return 0;
}

static int add_covered(struct secmap_perf_maps *pm, const char *name)
{
	char **v;
	size_t i;

	for (i = 0; i < pm->nr_covered; i++)
		if (!strcmp(pm->covered[i], name))
			return 0;
	v = realloc(pm->covered, (pm->nr_covered + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	pm->covered = v;
	v[pm->nr_covered] = strdup(name);
	if (!v[pm->nr_covered])
		return -ENOMEM;
	pm->nr_covered++;
	return 0;
}

/* One kind of region of load @life: its object and its two events. */
static int add_region(struct secmap_perf_maps *pm, size_t life, uint32_t build, size_t nr_maps,
		      int kind)
{
	struct pm_region r = { .lo = UINT64_MAX };
	struct libsecmap_map_info m;
	struct pm_event ev = { 0 };
	struct pm_sym *syms;
	size_t i, nr_syms;
	uint32_t obj;
	int err;

	for (i = 0; i < nr_maps; i++) {
		libsecmap_resolver_life_map(pm->res, life, i, &m);
		if (!region_has(&m, kind))
			continue;
		if (!r.nr_maps++)
			r.first = m;
		if (m.start < r.lo)
			r.lo = m.start;
		if (m.end > r.hi)
			r.hi = m.end;
	}
	if (!r.nr_maps)
		return 0;
	/* Regions start on a page: so does the kernel's allocation of them. */
	r.lo &= ~(PM_PAGE - 1);
	if (r.hi - r.lo > PM_REGION_MAX)
		return 0;
	err = region_symbols(pm, life, nr_maps, build, kind, r.lo, &syms, &nr_syms);
	if (!err)
		err = find_object(pm, build, kind, r.hi - r.lo, syms, nr_syms, &obj);
	if (err)
		return err;
	pm->objs[obj].nr_loads++;
	ev.start = r.lo;
	ev.len = r.hi - r.lo;
	ev.object = obj;
	ev.kind = PM_MAP;
	memcpy(ev.time, r.first.from, sizeof(ev.time));
	ev.at_start = !r.first.from[0] && !r.first.from[1];
	err = add_event(pm, &ev);
	if (err || r.first.to[0] == UINT64_MAX)
		return err;
	ev.kind = PM_UNMAP;
	ev.at_start = false;
	memcpy(ev.time, r.first.to, sizeof(ev.time));
	return add_event(pm, &ev);
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
	struct secmap_perf_maps *pm;
	struct libsecmap_build_info b;
	size_t life, nr_maps, i;
	uint32_t build;
	int kind, err = 0;

	if (!res || !mapsp || (opts && opts->sz < sizeof(size_t)))
		return libsecmap_err(-EINVAL);
	*mapsp = NULL;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return libsecmap_err(-ENOMEM);
	pm->res = res;
	pm->dir = default_dir(opts && opts->sz > offsetof(struct secmap_perf_maps_opts, buildid_dir) ?
			      opts->buildid_dir : NULL);
	if (!pm->dir) {
		/* No $HOME: nowhere to put the objects perf will look for. */
		free(pm);
		return libsecmap_err(-ENOENT);
	}
	/* Paths are built from this: it must not end in '/' or hold what perf splits on. */
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
			err = add_region(pm, life, build, nr_maps, kind);
	}
	for (i = 0; !err && i < pm->nr_objs; i++) {
		libsecmap_resolver_build(res, pm->objs[i].build, &b);
		err = add_covered(pm, b.name);
	}
	if (err) {
		secmap_perf_maps_free(pm);
		return libsecmap_err(err);
	}
	if (pm->nr_covered)
		qsort(pm->covered, pm->nr_covered, sizeof(*pm->covered), cmp_str);
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
	for (i = 0; i < pm->nr_covered; i++)
		free(pm->covered[i]);
	free(pm->covered);
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
	const struct pm_object *o;
	struct libsecmap_build_info b;

	if (!pm || !obj || idx >= pm->nr_objs)
		return libsecmap_err(-EINVAL);
	o = &pm->objs[idx];
	libsecmap_resolver_build(pm->res, o->build, &b);
	obj->module = b.name;
	obj->dso = o->dso;
	obj->path = o->path;
	obj->cache_path = o->rel;
	obj->build_id = o->id;
	obj->build_id_len = sizeof(o->id);
	obj->nr_symbols = o->nr_syms;
	obj->nr_loads = o->nr_loads;
	return 0;
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
	static const char *const compressed[] = { ".gz", ".xz", ".zst" };
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
		for (i = 0; i < sizeof(compressed) / sizeof(compressed[0]); i++) {
			size_t n = strlen(compressed[i]);

			if (len > n && !strcmp(base + len - n, compressed[i])) {
				len -= n;
				break;
			}
		}
		if (len <= 3 || strncmp(base + len - 3, ".ko", 3))
			return false;
		len -= 3;
	}
	if (!len || len >= size)
		return false;
	for (i = 0; i < len; i++)
		name[i] = libsecmap_modname_char(base[i]);
	name[len] = '\0';
	return true;
}

/* --- the ELF object ----------------------------------------------------------- */

enum { SEC_TEXT = 1, SEC_NOTE, SEC_SYMTAB, SEC_STRTAB, SEC_SHSTRTAB, NR_SECS };

static const char shstrtab[] = "\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";
/* Offsets of the names above. */
static const size_t sec_name[NR_SECS] = { 0, 1, 7, 26, 34, 42 };

static void put_note32(uint8_t *p, uint32_t v, bool msb)
{
	v = msb ? htobe32(v) : htole32(v);
	memcpy(p, &v, sizeof(v));
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The symbols as ELF wants them: locals first (sh_info is the first global). */
static int elf_symbols(const struct pm_object *o, GElf_Sym **symsp, char **strtabp,
		       size_t *strtab_len, size_t *nr_local)
{
	size_t i, j, k, pos = 1, len = 1;
	GElf_Sym *syms;
	char *strtab;

	for (i = 0; i < o->nr_syms; i++)
		len += strlen(o->syms[i].name) + 1;
	syms = calloc(o->nr_syms + 1, sizeof(*syms));
	strtab = malloc(len);
	if (!syms || !strtab) {
		free(syms);
		free(strtab);
		return -ENOMEM;
	}
	strtab[0] = '\0';
	*nr_local = 1;
	for (k = 0, i = 1; k < 2; k++) {
		for (j = 0; j < o->nr_syms; j++) {
			const struct pm_sym *s = &o->syms[j];
			size_t n = strlen(s->name) + 1;

			if (s->global != (k == 1))
				continue;
			syms[i].st_name = (uint32_t)pos;
			syms[i].st_value = s->value;
			syms[i].st_size = s->size;
			syms[i].st_info = GELF_ST_INFO(s->global ? STB_GLOBAL : STB_LOCAL, STT_FUNC);
			syms[i].st_shndx = SEC_TEXT;
			memcpy(strtab + pos, s->name, n);
			pos += n;
			i++;
		}
		if (!k)
			*nr_local = i;
	}
	*symsp = syms;
	*strtabp = strtab;
	*strtab_len = len;
	return 0;
}

static int write_elf(const struct pm_object *o, int fd)
{
	static const Elf_Type type[NR_SECS] = {
		[SEC_TEXT] = ELF_T_BYTE, [SEC_NOTE] = ELF_T_BYTE, [SEC_SYMTAB] = ELF_T_SYM,
		[SEC_STRTAB] = ELF_T_BYTE, [SEC_SHSTRTAB] = ELF_T_BYTE,
	};
	bool msb = o->elf_data == ELFDATA2MSB;
	uint8_t note[12 + 4 + PM_BUILD_ID_LEN];
	void *buf[NR_SECS] = { NULL };
	size_t i, nr_local, strtab_len;
	GElf_Shdr sh[NR_SECS];
	char *strtab = NULL;
	GElf_Sym *syms = NULL;
	void *symtab = NULL;
	Elf_Data *d;
	Elf_Scn *scn;
	GElf_Ehdr eh;
	uint64_t off;
	Elf *elf;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	err = elf_symbols(o, &syms, &strtab, &strtab_len, &nr_local);
	if (err)
		return err;
	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf) {
		err = -EIO;
		goto out;
	}
	err = -EINVAL;
	if (!gelf_newehdr(elf, o->elf_class))
		goto out;

	put_note32(note, 4, msb);
	put_note32(note + 4, PM_BUILD_ID_LEN, msb);
	put_note32(note + 8, NT_GNU_BUILD_ID, msb);
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, o->id, PM_BUILD_ID_LEN);

	memset(sh, 0, sizeof(sh));
	sh[SEC_TEXT].sh_type = SHT_NOBITS;
	sh[SEC_TEXT].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[SEC_TEXT].sh_offset = 0;	/* perf's ET_REL module fix-ups then add nothing */
	sh[SEC_TEXT].sh_size = o->size;
	sh[SEC_TEXT].sh_addralign = 16;
	/* After .text: an allocated section before it would move it, for elfutils. */
	sh[SEC_NOTE].sh_type = SHT_NOTE;
	sh[SEC_NOTE].sh_flags = SHF_ALLOC;
	sh[SEC_NOTE].sh_addralign = 4;
	sh[SEC_NOTE].sh_size = sizeof(note);
	buf[SEC_NOTE] = note;
	sh[SEC_SYMTAB].sh_type = SHT_SYMTAB;
	sh[SEC_SYMTAB].sh_link = SEC_STRTAB;
	sh[SEC_SYMTAB].sh_info = (uint32_t)nr_local;
	sh[SEC_SYMTAB].sh_addralign = 8;
	sh[SEC_SYMTAB].sh_entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	sh[SEC_SYMTAB].sh_size = gelf_fsize(elf, ELF_T_SYM, o->nr_syms + 1, EV_CURRENT);
	/* File and memory sizes of a symbol agree for both classes. */
	symtab = calloc(1, sh[SEC_SYMTAB].sh_size);
	buf[SEC_SYMTAB] = symtab;
	sh[SEC_STRTAB].sh_type = SHT_STRTAB;
	sh[SEC_STRTAB].sh_addralign = 1;
	sh[SEC_STRTAB].sh_size = strtab_len;
	buf[SEC_STRTAB] = strtab;
	sh[SEC_SHSTRTAB].sh_type = SHT_STRTAB;
	sh[SEC_SHSTRTAB].sh_addralign = 1;
	sh[SEC_SHSTRTAB].sh_size = sizeof(shstrtab);
	buf[SEC_SHSTRTAB] = (void *)shstrtab;
	if (!symtab) {
		err = -ENOMEM;
		goto out;
	}
	/* Laid out here (ELF_F_LAYOUT), for .text's offset 0. */
	off = gelf_fsize(elf, ELF_T_EHDR, 1, EV_CURRENT);
	for (i = SEC_NOTE; i < NR_SECS; i++) {
		off = align_up(off, sh[i].sh_addralign);
		sh[i].sh_offset = off;
		off += sh[i].sh_size;
	}
	off = align_up(off, 8);

	for (i = 1; i < NR_SECS; i++) {
		scn = elf_newscn(elf);
		d = scn ? elf_newdata(scn) : NULL;
		if (!d)
			goto out;
		d->d_type = type[i];
		d->d_version = EV_CURRENT;
		d->d_align = sh[i].sh_addralign;
		d->d_size = sh[i].sh_size;
		d->d_buf = buf[i];
		sh[i].sh_name = (uint32_t)sec_name[i];
		if (!gelf_update_shdr(scn, &sh[i]))
			goto out;
		if (i == SEC_SYMTAB) {
			size_t j;

			for (j = 0; j <= o->nr_syms; j++)
				if (!gelf_update_sym(d, (int)j, &syms[j]))
					goto out;
		}
	}
	if (!gelf_getehdr(elf, &eh))
		goto out;
	eh.e_ident[EI_DATA] = o->elf_data;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_REL;
	eh.e_machine = o->machine;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = off;
	eh.e_shstrndx = SEC_SHSTRTAB;
	if (!gelf_update_ehdr(elf, &eh))
		goto out;
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	err = elf_update(elf, ELF_C_WRITE) < 0 ? -EIO : 0;
out:
	elf_end(elf);
	free(symtab);
	free(syms);
	free(strtab);
	return err;
}

SECMAP_EXPORT int secmap_perf_maps_write_object(const struct secmap_perf_maps *pm, size_t idx,
						int fd)
{
	int err;

	if (!pm || idx >= pm->nr_objs || fd < 0)
		return libsecmap_err(-EINVAL);
	err = write_elf(&pm->objs[idx], fd);
	return err ? libsecmap_err(err) : 0;
}

/* mkdir -p of @path's directory part below @top (which exists or is made too). */
static int make_dirs(char *path, size_t top_len)
{
	char *p;

	for (p = path + top_len; (p = strchr(p + 1, '/')); ) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			int err = -errno;

			*p = '/';
			return err;
		}
		*p = '/';
	}
	return 0;
}

/* Write @o at @o->path, replacing what was there only once it is whole. */
static int install_object(const struct secmap_perf_maps *pm, const struct pm_object *o)
{
	char sid[2 * PM_BUILD_ID_LEN + 1], *tmp = NULL, *link = NULL, *target = NULL;
	int fd = -1, err;

	secmap_build_id_str(o->id, sizeof(o->id), sid, sizeof(sid));
	err = make_dirs(o->path, 0);
	if (err)
		return err;
	if (asprintf(&tmp, "%s.tmp-XXXXXX", o->path) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = write_elf(o, fd);
	if (!err && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	fd = -1;
	if (!err && rename(tmp, o->path) < 0)
		err = -errno;
	if (err)
		goto out;
	free(tmp);
	tmp = NULL;
	/* .build-id/ab/cdef... -> ../../.secmap/ID/mod.ko, as perf's own links go up two. */
	if (asprintf(&link, "%s/.build-id/%.2s/%s", pm->dir, sid, sid + 2) < 0 ||
	    asprintf(&target, "../../%s", o->rel) < 0 ||
	    asprintf(&tmp, "%s.tmp-%d", link, (int)getpid()) < 0) {
		err = -ENOMEM;
		goto out;
	}
	err = make_dirs(link, strlen(pm->dir));
	if (!err) {
		unlink(tmp);
		if (symlink(target, tmp) < 0 || rename(tmp, link) < 0)
			err = -errno;
	}
out:
	if (fd >= 0)
		close(fd);
	if (err && tmp)
		unlink(tmp);
	free(tmp);
	free(link);
	free(target);
	return err;
}

SECMAP_EXPORT int secmap_perf_maps_install(const struct secmap_perf_maps *pm)
{
	size_t i;
	int err = 0;

	if (!pm)
		return libsecmap_err(-EINVAL);
	for (i = 0; !err && i < pm->nr_objs; i++)
		err = install_object(pm, &pm->objs[i]);
	return err ? libsecmap_err(err) : 0;
}
