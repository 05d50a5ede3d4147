// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A perf event's ring buffer read from user space, one record at a time:
 * what perf's clock and the module_load tracepoint (perf_clock.c,
 * load_trace.c) share.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

int libsecmap_perf_ring_open(struct libsecmap_perf_ring *r, struct perf_event_attr *attr,
			     int pid, int cpu, unsigned int pages)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd, err;

	r->fd = -1;
	r->base = NULL;
	r->page = (size_t)page;
	/* The kernel wants a power of two of data pages. */
	r->len = (size_t)page * (1 + pages);
	fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		err = -errno;
		r->base = NULL;
		close(fd);
		return err;
	}
	r->fd = fd;
	return 0;
}

void libsecmap_perf_ring_close(struct libsecmap_perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->len);
	if (r->fd >= 0)
		close(r->fd);
	r->base = NULL;
	r->fd = -1;
}

int libsecmap_perf_ring_next(struct libsecmap_perf_ring *r, void *buf, size_t size)
{
	struct perf_event_mmap_page *pg = r->base;
	const uint8_t *data = (const uint8_t *)r->base + r->page;
	uint64_t mask = r->len - r->page - 1, head, tail, i;
	struct perf_event_header h;

	if (!r->base)
		return 0;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	for (tail = pg->data_tail; head - tail >= sizeof(h); tail += h.size) {
		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) & mask];
		if (h.size < sizeof(h) || h.size > head - tail) {
			/* Not a record: drop what is left rather than misread it. */
			__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
			return 0;
		}
		if (h.size > size)
			continue;	/* larger than any record asked for */
		for (i = 0; i < h.size; i++)
			((uint8_t *)buf)[i] = data[(tail + i) & mask];
		__atomic_store_n(&pg->data_tail, tail + h.size, __ATOMIC_RELEASE);
		return (int)h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}
