// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: one line per sample of a perf.data, read with libsecmap,
 * in the form perf_data_test.sh makes of `perf script` output:
 *
 *   EVENT IP TID TIME_NS CPU PERIOD [CALLCHAIN...]
 *
 * hex without 0x for addresses, decimal otherwise. With -g the sample's
 * callchain replaces its ip, PERF_CONTEXT_* markers left out and cut at
 * perf script's default depth (127), as perf script shows it. With -a,
 * other records too, one line each: kind, type, and their fields.
 *
 *   perf_data_dump [-g] [-a] FILE
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secmap.h"

#define CONTEXT_MAX	((uint64_t)-4095)	/* PERF_CONTEXT_MAX: markers from here up */
#define MAX_STACK	127

int main(int argc, char **argv)
{
	SECMAP_OPTS(secmap_perf_record, rec);
	struct secmap_perf_data *pd;
	bool chain = false, all = false;
	uint64_t nr_samples = 0;
	size_t i, n;
	int opt, ret;

	while ((opt = getopt(argc, argv, "ga")) != -1) {
		if (opt == 'g')
			chain = true;
		else if (opt == 'a')
			all = true;
		else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s [-g] [-a] FILE\n", argv[0]);
		return 2;
	}
	ret = secmap_perf_data_open(argv[optind], &pd);
	if (ret) {
		fprintf(stderr, "%s: open: %s\n", argv[optind], strerror(-ret));
		return 1;
	}
	while ((ret = secmap_perf_data_next(pd, &rec)) == 1) {
		switch (rec.kind) {
		case SECMAP_PERF_REC_SAMPLE:
			nr_samples++;
			printf("%s", secmap_perf_data_event_name(pd, rec.event));
			if (!chain || !rec.nr_callchain) {
				printf(" %llx", (unsigned long long)rec.ip);
			} else {
				for (i = 0, n = 0; i < rec.nr_callchain && n < MAX_STACK; i++) {
					if (rec.callchain[i] >= CONTEXT_MAX)
						continue;
					printf("%s%llx", n ? "," : " ",
					       (unsigned long long)rec.callchain[i]);
					n++;
				}
			}
			printf(" %d %llu %u %llu\n", (int)rec.tid, (unsigned long long)rec.time, rec.cpu,
			       (unsigned long long)rec.period);
			break;
		case SECMAP_PERF_REC_MMAP:
		case SECMAP_PERF_REC_MMAP2:
			if (all) {
				printf("mmap%s %d/%d %llx+%llx @%llx %s", rec.kind == SECMAP_PERF_REC_MMAP2 ?
				       "2" : "", (int)rec.pid, (int)rec.tid,
				       (unsigned long long)rec.start, (unsigned long long)rec.len,
				       (unsigned long long)rec.pgoff, rec.filename);
				for (i = 0; i < rec.build_id_len; i++)
					printf("%s%02x", i ? "" : " build-id ", rec.build_id[i]);
				printf(" time %llu\n", (unsigned long long)rec.time);
			}
			break;
		case SECMAP_PERF_REC_COMM:
			if (all)
				printf("comm %d/%d %s time %llu\n", (int)rec.pid, (int)rec.tid, rec.comm,
				       (unsigned long long)rec.time);
			break;
		case SECMAP_PERF_REC_FINISHED_ROUND:
			if (all)
				printf("finished_round\n");
			break;
		default:
			if (all)
				printf("other %u size %u\n", rec.type, rec.size);
			break;
		}
	}
	if (ret < 0) {
		fprintf(stderr, "%s: record at offset %llu: %s\n", argv[optind],
			(unsigned long long)secmap_perf_data_offset(pd), strerror(-ret));
		secmap_perf_data_close(pd);
		return 1;
	}
	fprintf(stderr, "# %llu samples, %llu of unknown ids\n", (unsigned long long)nr_samples,
		(unsigned long long)secmap_perf_data_unknown_ids(pd));
	secmap_perf_data_close(pd);
	return 0;
}
