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

/*
 * The module a kernel map's file name names, as perf derives it
 * (kmod_path__parse): "[mod]", or a path whose base name is mod.ko,
 * optionally compressed, '-' read as '_'. Written to @name (room for
 * @size bytes); false if @filename names no module.
 */
bool libsecmap_kmod_name(const char *filename, char *name, size_t size);

#endif /* LIBSECMAP_PERF_MAPS_H */
