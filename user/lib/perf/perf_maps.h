/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsecmap private: the perf-native module maps (perf_maps.c) as the
 * perf.data rewriter (perf_rewrite.c) and the embedding (perf_embed.c)
 * use them.
 */
#ifndef LIBSECMAP_PERF_MAPS_H
#define LIBSECMAP_PERF_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "secmap.h"

/* Every build-id the objects get is this long, as perf's own (SHA-1 sized). */
#define PM_BUILD_ID_LEN	20
#define PM_MODULE_NAME_MAX	55	/* MODULE_NAME_LEN - 1 */

struct pm_sym {
	uint64_t value, size;	/* in the object's .text */
	const char *name;	/* the resolver's */
	bool global;
};

/* An ELF object for perf: one region of a module build, as laid out in its loads. */
struct pm_object {
	uint32_t build;
	int kind;		/* 0: core text, 1: init text */
	uint64_t size;		/* of .text: the region */
	size_t first;		/* the region it is made from, its first */
	struct pm_sym *syms;	/* sorted by value */
	size_t nr_syms;
	uint8_t id[PM_BUILD_ID_LEN];
	char *dso, *path;
	const char *rel;	/* in @path: from ".secmap/" on */
	uint16_t machine;
	uint8_t elf_class, elf_data;
	size_t nr_loads;
};

enum pm_event_kind {
	PM_UNMAP,	/* a PERF_RECORD_KSYMBOL that unregisters the region */
	PM_MAP,		/* a PERF_RECORD_MMAP2 that maps it */
};

/* One region of one load: mapped, or gone. */
struct pm_event {
	uint64_t time[2];	/* per enum secmap_clock */
	uint64_t start, len;
	uint32_t object;
	uint8_t kind;		/* enum pm_event_kind */
	/* Mapped since before the recording began: goes where perf's own maps are. */
	bool at_start;
};

/* The events, in the order the loads were recorded (not sorted by time). */
const struct pm_event *libsecmap_perf_maps_events(const struct secmap_perf_maps *maps,
						  size_t *nr);
/* The object's file name and build-id (PM_BUILD_ID_LEN bytes). */
const char *libsecmap_perf_maps_path(const struct secmap_perf_maps *maps, uint32_t object);
const uint8_t *libsecmap_perf_maps_build_id(const struct secmap_perf_maps *maps, uint32_t object);
const char *libsecmap_perf_maps_module(const struct secmap_perf_maps *maps, uint32_t object);
/* Whether @maps replaces perf's maps of the module named @name (@len bytes). */
bool libsecmap_perf_maps_covers(const struct secmap_perf_maps *maps, const char *name,
				size_t len);

/* perf_object.c's view of the objects and where they go. */
struct pm_object *libsecmap_perf_maps_obj(const struct secmap_perf_maps *maps, size_t idx);
const char *libsecmap_perf_maps_dir(const struct secmap_perf_maps *maps);

/*
 * The module a kernel map's file name names, as perf derives it
 * (kmod_path__parse): "[mod]", or a path whose base name is mod.ko,
 * optionally compressed, '-' read as '_'. Written to @name (room for
 * @size bytes); false if @filename names no module.
 */
bool libsecmap_kmod_name(const char *filename, char *name, size_t size);

#endif /* LIBSECMAP_PERF_MAPS_H */
