// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a small recording with one record of every type through
 * libsecmap's writer: the fuzzer's seed (a real file, not hand-made bytes).
 *
 *   recording_seed FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "secmap.h"

int main(int argc, char **argv)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const char syms[] = "ffffffff81000000 T _text\nffffffff81001000 T _stext\n";
	struct secmap_record recs[] = {
		{ .type = SECMAP_REC_KERNEL, .pid = SECMAP_PID_HOST_KERNEL, .release = "6.12.0-test",
		  .ref_name = "_text", .ref_addr = 0xffffffff81000000ull,
		  .flags = SECMAP_KERNEL_F_REF_ADDR, .build_id = id, .build_id_len = sizeof(id) },
		{ .type = SECMAP_REC_KALLSYMS, .pid = SECMAP_PID_HOST_KERNEL, .text = syms,
		  .text_len = sizeof(syms) - 1 },
		{ .type = SECMAP_REC_RESYNC, .reason = SECMAP_RESYNC_START,
		  .source = SECMAP_SOURCE_NETLINK, .nr_maps = 1,
		  .nr_modules = 1, .time_local_ns = 10, .time_mono_ns = 11 },
		{ .type = SECMAP_REC_SEC_MAP, .pid = SECMAP_PID_HOST_KERNEL,
		  .flags = SECMAP_MAP_F_EXEC | SECMAP_MAP_F_SNAPSHOT, .start = 0xffffffffc0000000ull,
		  .len = 0x1000, .pgoff = 0x40, .section = ".text", .module = "a",
		  .build_id = id, .build_id_len = sizeof(id), .time_local_ns = 10, .time_mono_ns = 11 },
		{ .type = SECMAP_REC_SEC_MAP, .pid = SECMAP_PID_HOST_KERNEL,
		  .flags = SECMAP_MAP_F_EXEC | SECMAP_MAP_F_INIT, .start = 0xffffffffc0010000ull,
		  .len = 0x200, .pgoff = 0x1040, .section = ".init.text", .module = "b", .seq = 3,
		  .time_local_ns = 20, .time_mono_ns = 21 },
		{ .type = SECMAP_REC_UNMAP, .pid = SECMAP_PID_HOST_KERNEL, .flags = SECMAP_UNMAP_F_INIT,
		  .module = "b", .seq = 4, .time_local_ns = 30, .time_mono_ns = 31 },
		{ .type = SECMAP_REC_FINISHED, .nr_resyncs = 1, .time_local_ns = 40,
		  .time_mono_ns = 41 },
	};
	struct secmap_writer *w;
	size_t i;
	int fd, err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	err = secmap_writer_new(fd, 0, &w);
	for (i = 0; !err && i < sizeof(recs) / sizeof(recs[0]); i++)
		err = (recs[i].sz = sizeof(recs[i]), secmap_writer_add(w, &recs[i]));
	if (!err)
		err = secmap_writer_free(w);
	if (close(fd) < 0 && !err)
		err = -1;
	if (err) {
		fprintf(stderr, "%s: cannot write the seed: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
