// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the perf.data reader: any bytes, as a file (through
 * a memfd): its header's feature sections (secmap_perf_data_header(), what
 * report --header prints), then the data section, read whole and again
 * with samples skipped. Every string and record handed out is touched in
 * full, so ASan sees a pointer past the record or a string without its
 * NUL.
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "secmap.h"

static volatile size_t sink;

static size_t text_len(const char *s)
{
	return s ? strlen(s) : 0;
}

static size_t header_sum(struct secmap_perf_data *pd)
{
	SECMAP_OPTS(secmap_perf_header, h);

	if (secmap_perf_data_header(pd, &h))
		return 0;
	return text_len(h.hostname) + text_len(h.os_release) + text_len(h.perf_version) +
	       text_len(h.arch) + text_len(h.cpu_desc) + text_len(h.cpuid) + text_len(h.cmdline) +
	       h.nr_cpus_online + h.total_mem_kb + h.first_sample_time;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct secmap_perf_event *ev;
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	char path[64];
	size_t sum = 0, i;
	int fd;

	fd = memfd_create("secmap-perf-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!secmap_perf_data_open(path, &pd)) {
		sum += header_sum(pd);
		for (i = 0; (ev = secmap_perf_data_event(pd, i)); i++)
			sum += strlen(ev->name) + strlen(secmap_perf_data_event_name(pd, i));
		while (secmap_perf_data_next(pd, &rec) == 1) {
			if (rec.event != SECMAP_PERF_EVENT_NONE && rec.event >= i)
				abort();
			if (rec.filename)
				sum += strlen(rec.filename);
			if (rec.comm)
				sum += strlen(rec.comm);
			if (rec.ksym_name)
				sum += strlen(rec.ksym_name) + rec.start + rec.len;
			for (i = 0; i < rec.nr_callchain; i++)
				sum += rec.callchain[i];
			for (i = 0; i < rec.build_id_len; i++)
				sum += rec.build_id[i];
			i = secmap_perf_data_nr_events(pd);
		}
		sum += secmap_perf_data_offset(pd) + secmap_perf_data_unknown_ids(pd);
		secmap_perf_data_close(pd);
	}
	/* Again as secmap report's first pass reads it: samples stepped over. */
	if (!secmap_perf_data_open(path, &pd)) {
		secmap_perf_data_skip_samples(pd, true);
		while (secmap_perf_data_next(pd, &rec) == 1) {
			if (rec.kind == SECMAP_PERF_REC_SAMPLE)
				abort();
			if (rec.filename)
				sum += strlen(rec.filename);
		}
		secmap_perf_data_close(pd);
	}
	sink += sum;
	close(fd);
	return 0;
}
