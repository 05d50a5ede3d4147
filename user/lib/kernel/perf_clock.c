// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * perf's clock read from user space. A perf.data's samples are stamped
 * with local_clock() (perf_clock()), which no clock_gettime() id names;
 * secmap.ko stamps its events with it, but without secmap.ko the only
 * way to it is perf itself: a dummy software event on this thread that
 * records its executable mappings, and one such mapping made and removed.
 * The PERF_RECORD_MMAP it writes carries the time in its sample_id.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <linux/perf_event.h>

#include "internal.h"

/* One page of records: a stamp is one MMAP record of some 60 bytes. */
#define CLOCK_RING_PAGES 1

int libsecmap_perf_clock_open(struct libsecmap_perf_clock *c)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.mmap = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return libsecmap_perf_ring_open(&c->ring, &attr, 0, -1, CLOCK_RING_PAGES);
}

void libsecmap_perf_clock_close(struct libsecmap_perf_clock *c)
{
	libsecmap_perf_ring_close(&c->ring);
}

/*
 * The time of the last MMAP record at @addr among those written since the
 * last call, and every record consumed. 0: none (lost, or not written).
 */
static uint64_t ring_stamp(struct libsecmap_perf_clock *c, uint64_t addr)
{
	uint64_t rec[32], stamp = 0, at;
	struct perf_event_header h;
	int n;

	while ((n = libsecmap_perf_ring_next(&c->ring, rec, sizeof(rec))) > 0) {
		memcpy(&h, rec, sizeof(h));
		/* pid, tid, then addr; the sample_id (the time) ends the record. */
		if (h.type != PERF_RECORD_MMAP || (size_t)n < sizeof(h) + 16 + 8)
			continue;
		memcpy(&at, (uint8_t *)rec + sizeof(h) + 8, sizeof(at));
		if (at == addr)
			memcpy(&stamp, (uint8_t *)rec + n - 8, sizeof(stamp));
	}
	return stamp;
}

int libsecmap_perf_clock_now(struct libsecmap_perf_clock *c, uint64_t *local_ns,
			     uint64_t *mono_ns)
{
	struct timespec ts;
	void *p;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	*mono_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	*local_ns = 0;
	if (!c->ring.base)
		return -ENODEV;
	p = mmap(NULL, c->ring.page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	*local_ns = ring_stamp(c, (uint64_t)(uintptr_t)p);
	munmap(p, c->ring.page);
	return *local_ns ? 0 : -ENODATA;
}
