// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* libsecmap data model: snapshot of modules and sections, lookups, freeing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Blocks grow from the first to the last size: a small snapshot stays small. */
#define POOL_BLOCK_FIRST 4096
#define POOL_BLOCK_MAX (64 * 1024)

struct libsecmap_pool_block {
	struct libsecmap_pool_block *next;	/* older */
	size_t size;
	size_t used;
	char data[];
};

char *libsecmap_pool_strndup(struct libsecmap_pool *pool, const char *s, size_t len)
{
	struct libsecmap_pool_block *b = pool->head;
	size_t size;
	char *p;

	if (len >= SIZE_MAX / 2) {
		errno = ENOMEM;
		return NULL;
	}
	if (!b || b->size - b->used <= len) {
		size = b ? 2 * b->size : POOL_BLOCK_FIRST;
		if (size > POOL_BLOCK_MAX)
			size = POOL_BLOCK_MAX;
		if (size <= len)
			size = len + 1;
		b = malloc(sizeof(*b) + size);
		if (!b) {
			errno = ENOMEM;
			return NULL;
		}
		b->size = size;
		b->used = 0;
		/* A string too big for a normal block gets its own, behind the one being filled. */
		if (pool->head && size == len + 1) {
			b->next = pool->head->next;
			pool->head->next = b;
		} else {
			b->next = pool->head;
			pool->head = b;
		}
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

const char *libsecmap_pool_intern(struct libsecmap_pool *pool, const char *s, size_t len)
{
	struct libsecmap_hashmap_slot *slot;
	uint64_t hash;
	char *copy;

	/* Seeded on first use: pools are embedded in structs calloc() made. */
	if (!pool->interned.slots)
		libsecmap_hashmap_init(&pool->interned);
	hash = libsecmap_hashmap_hash(&pool->interned, s, len);
	for (slot = libsecmap_hashmap_probe(&pool->interned, hash); slot;
	     slot = libsecmap_hashmap_next(&pool->interned, hash, slot)) {
		const char *str = (const char *)slot->item;

		/* strnlen() first: @s may hold a NUL, and @str end before @len. */
		if (strnlen(str, len + 1) == len && !memcmp(str, s, len))
			return str;
	}
	copy = libsecmap_pool_strndup(pool, s, len);
	if (copy && libsecmap_hashmap_add(&pool->interned, hash, (uintptr_t)copy)) {
		errno = ENOMEM;
		return NULL;
	}
	return copy;
}

void libsecmap_pool_release(struct libsecmap_pool *pool)
{
	struct libsecmap_pool_block *b, *next;

	for (b = pool->head; b; b = next) {
		next = b->next;
		free(b);
	}
	pool->head = NULL;
	libsecmap_hashmap_free(&pool->interned);
}

struct secmap_snapshot *libsecmap_snapshot_new(void)
{
	struct secmap_snapshot *snap = calloc(1, sizeof(*snap));

	if (!snap)
		errno = ENOMEM;
	return snap;
}

/* Grow @arr (of @size-byte elements) so that one more fits. */
static int grow(void **arr, size_t *cap, size_t nr, size_t size)
{
	size_t ncap;
	void *p;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	if (ncap < *cap || ncap > SIZE_MAX / size)
		return libsecmap_err(-ENOMEM);
	p = realloc(*arr, ncap * size);
	if (!p)
		return libsecmap_err(-ENOMEM);
	*arr = p;
	*cap = ncap;
	return 0;
}

/* Make room in @arr (of @size-byte elements) for @want in all. */
static int reserve(void **arr, size_t *cap, size_t want, size_t size)
{
	void *p;

	if (want <= *cap)
		return 0;
	if (want > SIZE_MAX / size)
		return libsecmap_err(-ENOMEM);
	p = realloc(*arr, want * size);
	if (!p)
		return libsecmap_err(-ENOMEM);
	*arr = p;
	*cap = want;
	return 0;
}

int libsecmap_module_reserve(struct secmap_module *mod, size_t nr_sections, size_t nr_regions)
{
	return reserve((void **)&mod->sections, &mod->cap_sections, nr_sections,
		       sizeof(*mod->sections)) ?:
	       reserve((void **)&mod->regions, &mod->cap_regions, nr_regions,
		       sizeof(*mod->regions));
}

int libsecmap_module_add_section(struct secmap_module *mod, const char *name, uint64_t addr,
				 uint32_t flags, int region)
{
	int err;

	err = grow((void **)&mod->sections, &mod->cap_sections, mod->nr_sections,
		   sizeof(*mod->sections));
	if (err)
		return err;
	mod->sections[mod->nr_sections].name = name;
	mod->sections[mod->nr_sections].addr = addr;
	mod->sections[mod->nr_sections].flags = flags;
	mod->sections[mod->nr_sections].region = region;
	mod->nr_sections++;
	return 0;
}

int libsecmap_module_add_region(struct secmap_module *mod, const struct secmap_region *region)
{
	int err;

	err = grow((void **)&mod->regions, &mod->cap_regions, mod->nr_regions,
		   sizeof(*mod->regions));
	if (err)
		return err;
	mod->regions[mod->nr_regions++] = *region;
	return 0;
}

int libsecmap_snapshot_add_module(struct secmap_snapshot *snap, struct secmap_module *mod)
{
	int err;

	err = grow((void **)&snap->modules, &snap->cap_modules, snap->nr_modules,
		   sizeof(*snap->modules));
	if (err)
		return err;
	snap->modules[snap->nr_modules++] = *mod;
	memset(mod, 0, sizeof(*mod));
	return 0;
}

/*
 * What the kernel lays out in a module's init part, freed once its init
 * has run: the .init* sections, and the full symbol table (.symtab and
 * .strtab; layout_symtab() keeps only a core copy of it, elsewhere).
 * sysfs still shows their old addresses, which the next load may reuse.
 */
static bool in_init_part(const char *name)
{
	return !strncmp(name, ".init", 5) || !strcmp(name, ".symtab") || !strcmp(name, ".strtab");
}

void libsecmap_module_mark_init_freed(struct secmap_module *mod)
{
	size_t i;

	for (i = 0; i < mod->nr_sections; i++)
		if (in_init_part(mod->sections[i].name))
			mod->sections[i].flags |= SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED;
}

void libsecmap_module_release(struct secmap_module *mod)
{
	free(mod->sections);
	free(mod->regions);
	memset(mod, 0, sizeof(*mod));
}

SECMAP_EXPORT void secmap_snapshot_free(struct secmap_snapshot *snapshot)
{
	size_t i;

	if (!snapshot)
		return;
	for (i = 0; i < snapshot->nr_modules; i++)
		libsecmap_module_release(&snapshot->modules[i]);
	free(snapshot->modules);
	libsecmap_pool_release(&snapshot->pool);
	free(snapshot);
}

SECMAP_EXPORT size_t secmap_snapshot_module_count(const struct secmap_snapshot *snapshot)
{
	return snapshot ? snapshot->nr_modules : 0;
}

SECMAP_EXPORT uint64_t secmap_snapshot_time_local_ns(const struct secmap_snapshot *snapshot)
{
	return snapshot ? snapshot->time_local_ns : 0;
}

SECMAP_EXPORT uint64_t secmap_snapshot_time_mono_ns(const struct secmap_snapshot *snapshot)
{
	return snapshot ? snapshot->time_mono_ns : 0;
}

SECMAP_EXPORT const struct secmap_module *
secmap_snapshot_module(const struct secmap_snapshot *snapshot, size_t index)
{
	if (!snapshot || index >= snapshot->nr_modules) {
		errno = ENOENT;
		return NULL;
	}
	return &snapshot->modules[index];
}

/* The kernel names modules with '_', while users type either, as modprobe accepts. */
static int modname_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (libsecmap_modname_char(*a) != libsecmap_modname_char(*b))
			return 0;
	return *a == *b;
}

SECMAP_EXPORT const struct secmap_module *
secmap_snapshot_find(const struct secmap_snapshot *snapshot, const char *name)
{
	size_t i;

	if (snapshot && name)
		for (i = 0; i < snapshot->nr_modules; i++)
			if (modname_eq(snapshot->modules[i].name, name))
				return &snapshot->modules[i];
	errno = ENOENT;
	return NULL;
}

SECMAP_EXPORT const char *secmap_module_name(const struct secmap_module *module)
{
	return module ? module->name : NULL;
}

SECMAP_EXPORT size_t secmap_module_section_count(const struct secmap_module *module)
{
	return module ? module->nr_sections : 0;
}

SECMAP_EXPORT const struct secmap_section *
secmap_module_section(const struct secmap_module *module, size_t index)
{
	if (!module || index >= module->nr_sections) {
		errno = ENOENT;
		return NULL;
	}
	return &module->sections[index];
}

SECMAP_EXPORT const struct secmap_section *
secmap_module_find_section(const struct secmap_module *module, const char *name)
{
	size_t i;

	if (module && name)
		for (i = 0; i < module->nr_sections; i++)
			if (!strcmp(module->sections[i].name, name))
				return &module->sections[i];
	errno = ENOENT;
	return NULL;
}

SECMAP_EXPORT const char *secmap_section_name(const struct secmap_section *section)
{
	return section ? section->name : NULL;
}

SECMAP_EXPORT uint64_t secmap_section_addr(const struct secmap_section *section)
{
	return section ? section->addr : 0;
}

SECMAP_EXPORT uint32_t secmap_section_flags(const struct secmap_section *section)
{
	return section ? section->flags : 0;
}

SECMAP_EXPORT int secmap_section_region(const struct secmap_section *section)
{
	return section ? section->region : -1;
}

SECMAP_EXPORT uint32_t secmap_module_state(const struct secmap_module *module)
{
	return module ? module->state : 0;
}

SECMAP_EXPORT uint64_t secmap_module_taint(const struct secmap_module *module)
{
	return module ? module->taint : 0;
}

SECMAP_EXPORT size_t secmap_module_build_id(const struct secmap_module *module,
					    const uint8_t **id)
{
	if (id)
		*id = module && module->build_id_len ? module->build_id : NULL;
	return module ? module->build_id_len : 0;
}

SECMAP_EXPORT size_t secmap_module_region_count(const struct secmap_module *module)
{
	return module ? module->nr_regions : 0;
}

SECMAP_EXPORT const struct secmap_region *
secmap_module_region(const struct secmap_module *module, size_t index)
{
	if (!module || index >= module->nr_regions) {
		errno = ENOENT;
		return NULL;
	}
	return &module->regions[index];
}

SECMAP_EXPORT uint32_t secmap_region_type(const struct secmap_region *region)
{
	return region ? region->type : 0;
}

SECMAP_EXPORT uint64_t secmap_region_base(const struct secmap_region *region)
{
	return region ? region->base : 0;
}

SECMAP_EXPORT uint64_t secmap_region_size(const struct secmap_region *region)
{
	return region ? region->size : 0;
}

SECMAP_EXPORT const char *secmap_region_type_name(uint32_t type)
{
	static const char *const names[] = {
		[SECMAP_REGION_TEXT]		= "text",
		[SECMAP_REGION_DATA]		= "data",
		[SECMAP_REGION_RODATA]		= "rodata",
		[SECMAP_REGION_RO_AFTER_INIT]	= "ro_after_init",
		[SECMAP_REGION_INIT_TEXT]	= "init_text",
		[SECMAP_REGION_INIT_DATA]	= "init_data",
		[SECMAP_REGION_INIT_RODATA]	= "init_rodata",
		[SECMAP_REGION_PERCPU]		= "percpu",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

SECMAP_EXPORT const char *secmap_module_state_name(uint32_t state)
{
	switch (state) {
	case SECMAP_MODULE_STATE_COMING:
		return "coming";
	case SECMAP_MODULE_STATE_LIVE:
		return "live";
	case SECMAP_MODULE_STATE_GOING:
		return "going";
	default:
		return NULL;
	}
}

SECMAP_EXPORT void secmap_event_free(struct secmap_event *event)
{
	if (!event)
		return;
	libsecmap_module_release(&event->module);
	libsecmap_pool_release(&event->pool);
	secmap_snapshot_free(event->snapshot);
	free(event);
}

SECMAP_EXPORT uint32_t secmap_event_type(const struct secmap_event *event)
{
	return event ? event->type : 0;
}

SECMAP_EXPORT uint64_t secmap_event_seq(const struct secmap_event *event)
{
	return event ? event->seq : 0;
}

SECMAP_EXPORT uint64_t secmap_event_time_local_ns(const struct secmap_event *event)
{
	return event ? event->time_local_ns : 0;
}

SECMAP_EXPORT uint64_t secmap_event_time_mono_ns(const struct secmap_event *event)
{
	return event ? event->time_mono_ns : 0;
}

SECMAP_EXPORT uint64_t secmap_event_lost(const struct secmap_event *event)
{
	return event ? event->lost : 0;
}

SECMAP_EXPORT const struct secmap_module *secmap_event_module(const struct secmap_event *event)
{
	return event && event->type != SECMAP_EVENT_RESYNC ? &event->module : NULL;
}

SECMAP_EXPORT const struct secmap_snapshot *secmap_event_snapshot(const struct secmap_event *event)
{
	return event ? event->snapshot : NULL;
}

SECMAP_EXPORT const char *secmap_strerror(int err)
{
	if (err < 0)
		err = -err;
	/*
	 * Context-free words only: ENOENT means "not loaded" from
	 * secmap_client_open() but "no such file" from a .ko search or a
	 * sysfs read, and EAGAIN "nothing yet" from secmap_client_next_event().
	 */
	switch (err) {
	case EPERM:
	case EACCES:
		return "permission denied (needs CAP_SYSLOG)";
	case EPROTO:
		return "malformed reply from kernel";
	case EBUSY:
		return "module set kept changing during the dump; try again";
	/* Files (recordings, perf.data): "Bad message", "File exists" would mislead. */
	case EBADMSG:
		return "truncated or corrupt file";
	case EEXIST:
		return "perf.data feature section 255 holds data that is not a secmap recording";
	default:
		return strerror(err);
	}
}
