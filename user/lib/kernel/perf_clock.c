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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
	long page = sysconf(_SC_PAGESIZE);
	int fd, err;

	c->fd = -1;
	c->ring = NULL;
	c->page = (size_t)page;
	c->ring_len = (size_t)page * (1 + CLOCK_RING_PAGES);
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	c->ring = mmap(NULL, c->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c->ring == MAP_FAILED) {
		err = -errno;
		c->ring = NULL;
		close(fd);
		return err;
	}
	c->fd = fd;
	return 0;
}

void libsecmap_perf_clock_close(struct libsecmap_perf_clock *c)
{
	if (c->ring)
		munmap(c->ring, c->ring_len);
	if (c->fd >= 0)
		close(c->fd);
	c->ring = NULL;
	c->fd = -1;
}

/*
 * The time of the last MMAP record at @addr among those written since the
 * last call, and every record consumed. 0: none (lost, or not written).
 */
static uint64_t ring_stamp(struct libsecmap_perf_clock *c, uint64_t addr)
{
	struct perf_event_mmap_page *pg = c->ring;
	const uint8_t *data = (const uint8_t *)c->ring + c->page;
	uint64_t size = c->ring_len - c->page, head, tail, stamp = 0;
	uint8_t rec[256];

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t i;

		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) & (size - 1)];
		if (h.size < sizeof(h) || h.size > head - tail)
			break;	/* not a record: give up on what is left */
		if (h.type == PERF_RECORD_MMAP && h.size <= sizeof(rec) &&
		    h.size >= sizeof(h) + 16 + 8) {
			uint64_t at, t;

			for (i = 0; i < h.size; i++)
				rec[i] = data[(tail + i) & (size - 1)];
			/* pid, tid, then addr; the sample_id (the time) ends the record. */
			memcpy(&at, rec + sizeof(h) + 8, sizeof(at));
			memcpy(&t, rec + h.size - 8, sizeof(t));
			if (at == addr)
				stamp = t;
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
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
	if (!c->ring)
		return -ENODEV;
	p = mmap(NULL, c->page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	*local_ns = ring_stamp(c, (uint64_t)(uintptr_t)p);
	munmap(p, c->page);
	return *local_ns ? 0 : -ENODATA;
}
