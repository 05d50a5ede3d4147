// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the recording reader, and the resolver built from
 * what it reads: any bytes, as a buffer and as
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
	SECMAP_OPTS(secmap_record, rec);
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

/* The resolver over whatever records the reader hands out, then lookups. */
static void resolve_all(const uint8_t *data, size_t size)
{
	SECMAP_OPTS(secmap_resolver_opts, opts, .no_ko = true);
	SECMAP_OPTS(secmap_resolution, out);
	struct secmap_resolver *res;
	struct secmap_reader *r;
	SECMAP_OPTS(secmap_record, rec);
	uint64_t addr = 0xffffffffc0000000ull, kaddr = 0xffffffff81000000ull;
	uint64_t addrs[20], times[20];
	struct secmap_resolution many[20];
	int ret[20], i, n = 0;
	char hex[17];

	if (secmap_reader_from_buffer(data, size, &r))
		return;
	if (secmap_resolver_new(&opts, &res)) {
		secmap_reader_free(r);
		return;
	}
	while (secmap_reader_next(r, &rec) == 1) {
		if (secmap_resolver_add(res, &rec))
			break;
		/* Probe where the records say things are. */
		if (rec.type == SECMAP_REC_SEC_MAP)
			addr = rec.start + rec.len / 2;
		/* And where a kallsyms piece's first line says a symbol is. */
		if (rec.type == SECMAP_REC_KALLSYMS && rec.text_len >= 16) {
			memcpy(hex, rec.text, 16);
			hex[16] = 0;
			kaddr = strtoull(hex, NULL, 16);
		}
	}
	if (!secmap_resolver_finish(res)) {
		for (i = -2; i <= 2; i++) {
			if (!secmap_resolve(res, addr + i * 4096, SECMAP_TIME_ANY, &out) && out.module)
				sink += strlen(out.module);
			if (!secmap_resolve(res, addr + i, (uint64_t)i * 1000, &out) && out.section)
				sink += strlen(out.section);
			if (!secmap_resolve(res, kaddr + i * 4096, 1, &out) && out.symbol)
				sink += strlen(out.symbol);
			/* A batch, which searches its own way (kernel symbols: from the last). */
			addrs[n] = addr + i * 64;
			times[n++] = (uint64_t)i * 1000;
			addrs[n] = kaddr + i;
			times[n++] = 1;
			addrs[n] = kaddr + i * 4096;
			times[n++] = 1;
			addrs[n] = kaddr - i * 65536;
			times[n++] = SECMAP_TIME_ANY;
		}
		many[0].sz = sizeof(many[0]);
		secmap_resolve_many(res, addrs, times, (size_t)n, many, ret);
		for (i = 0; i < n; i++)
			if (!ret[i] && many[i].symbol)
				sink += strlen(many[i].symbol);
	}
	secmap_resolver_free(res);
	secmap_reader_free(r);
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
	resolve_all(data, size);
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
