// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the recording reader: any bytes, as a buffer and as
 * a file (which also takes the perf.data path: a file with perf's magic is
 * looked into for an injected recording). Every record handed out must be
 * within the input and its strings terminated; the sanitizers check the rest.
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

/* Where the touched bytes go, so the compiler keeps the reads. */
static volatile size_t sink;

static void drain(struct secmap_reader *r)
{
	struct secmap_record rec;
	size_t sum = 0;

	while (secmap_reader_next(r, &rec) == 1) {
		/* Touch every byte handed out, so ASan sees any overrun. */
		if (rec.section)
			sum += strlen(rec.section);
		if (rec.module)
			sum += strlen(rec.module);
		if (rec.release)
			sum += strlen(rec.release);
		if (rec.ref_name)
			sum += strlen(rec.ref_name);
		for (size_t i = 0; i < rec.build_id_len; i++)
			sum += rec.build_id[i];
		for (size_t i = 0; i < rec.text_len; i++)
			sum += (unsigned char)rec.text[i];
	}
	sink += sum;
	(void)secmap_reader_offset(r);
	(void)secmap_reader_skipped(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct secmap_reader *r;
	char path[64];
	int fd;

	if (!secmap_reader_from_buffer(data, size, &r)) {
		drain(r);
		secmap_reader_free(r);
	}
	(void)secmap_data_validate(data, size);

	fd = memfd_create("secmap-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!secmap_reader_open(path, &r)) {
		drain(r);
		secmap_reader_free(r);
	}
	close(fd);
	return 0;
}
