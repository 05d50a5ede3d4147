// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a small perf.data by hand for the fuzzer's corpus, for when perf
 * record cannot make a real one: one event (IP, TID, TIME, CPU, PERIOD,
 * CALLCHAIN; sample_id_all), named in HEADER_EVENT_DESC, and a COMM, an
 * MMAP2, a sample, and the same sample again in a COMPRESSED2 batch.
 *
 *   perf_data_seed FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

static uint8_t buf[4096];
static size_t len;

static void put(const void *p, size_t n)
{
	memcpy(buf + len, p, n);
	len += n;
}

static void put64(uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		buf[len++] = (uint8_t)v;
}

static void set64(size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		buf[at + i] = (uint8_t)v;
}

/* type | misc << 32 | size << 48, as the little-endian header reads. */
static void hdr(uint32_t type, uint16_t misc, uint16_t size)
{
	put64(type | (uint64_t)misc << 32 | (uint64_t)size << 48);
}

static void sample(void)
{
	hdr(9, 1, 8 * 10);
	put64(0xffffffff81234567ull);
	put64(100 | 101ull << 32);
	put64(5000);
	put64(1);
	put64(250000);
	put64(3);
	put64((uint64_t)-128);
	put64(0xffffffff81234567ull);
	put64(0xffffffff81000010ull);
}

int main(int argc, char **argv)
{
	uint8_t attr[128] = { 1, 0, 0, 0, 128 }, z[512];
	size_t data_off, data_end, desc, zl, at, plain;
	FILE *f;

	if (argc != 2)
		return 2;
	len = 104;
	memcpy(buf, "PERFILE2", 8);
	set64(8, 104);
	set64(16, 128 + 16);
	set64(24, len);
	set64(32, 128 + 16);
	attr[24] = 0xa7;			/* IP TID TIME CALLCHAIN CPU */
	attr[25] = 0x01;			/* PERIOD */
	attr[42] = 0x04;			/* sample_id_all */
	put(attr, sizeof(attr));
	put64(0);
	put64(0);

	data_off = len;
	hdr(3, 0, 8 + 8 + 8 + 24);
	put64(100 | 101ull << 32);
	put("sleep\0\0", 8);
	put64(100 | 101ull << 32);		/* trailer: tid, time, cpu */
	put64(1000);
	put64(1);
	hdr(10, 2, 72 + 16 + 24);
	put64(100 | 100ull << 32);
	put64(0x400000);
	put64(0x1000);
	put64(0);
	put("\x08\0\0\0\x01\0\0\0", 8);
	put64(1234);
	put64(1);
	put64(5 | 2ull << 32);
	put("/bin/sleep\0\0\0\0\0", 16);
	put64(100 | 100ull << 32);
	put64(1100);
	put64(1);
	plain = len;
	sample();
	zl = ZSTD_compress(z, sizeof(z), buf + plain, len - plain, 3);
	if (ZSTD_isError(zl))
		return 1;
	at = len;
	hdr(83, 0, (uint16_t)(16 + (zl + 7) / 8 * 8));
	put64(zl);
	put(z, zl);
	while ((len - at) % 8)
		buf[len++] = 0;
	hdr(68, 0, 8);
	data_end = len;
	set64(40, data_off);
	set64(48, data_end - data_off);

	/* HEADER_EVENT_DESC (bit 12): nr, attr_size, attr, nr_ids, name. */
	buf[72 + 1] = 1 << 4;
	put64(len + 16);
	put64(8 + 128 + 8 + 16);
	desc = len;
	put("\x01\0\0\0\x80\0\0\0", 8);
	put(attr, sizeof(attr));
	put("\0\0\0\0\x10\0\0\0", 8);
	put("cpu-clock\0\0\0\0\0\0\0", 16);
	(void)desc;

	f = fopen(argv[1], "w");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		return 1;
	return 0;
}
