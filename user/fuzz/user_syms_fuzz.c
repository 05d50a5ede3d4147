// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the user-space symbols of report and script
 * (lib/perf/user_syms.c): any bytes as a mapped file, read through
 * libdwfl as an ELF file, or (a first byte 'M') as a JIT's perf map,
 * /tmp/perf-PID.map; some inputs also say a build-id perf recorded for
 * it, which sends the reader to an (empty) build-id cache when the file
 * is not that build. Then functions are looked up at offsets the input
 * gives, and every name found is read in full, so ASan sees a pointer
 * past its string.
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "internal.h"
#include "perf/session.h"

static char elf_path[300], map_path[64];
static volatile size_t sink;

static void remove_map(void)
{
	unlink(map_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = fuzz_scratch_dir("user_syms_fuzz");

	(void)argc;
	(void)argv;
	snprintf(elf_path, sizeof(elf_path), "%s/mapped-file", dir);
	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	atexit(remove_map);
	/* An empty home: its build-id cache has nothing, whatever the input asks. */
	setenv("HOME", dir, 1);
	return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size)) {
		perror(path);
		abort();
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool jit = size && data[0] == 'M';
	const char *path = jit ? map_path : elf_path;
	struct libsecmap_user_syms u;
	uint64_t offsets[6] = { 0, 0x1000, size / 2, size, UINT64_MAX, 0x7f0000001000 };
	size_t i;

	write_file(path, data + jit, size - jit);
	libsecmap_user_syms_init(&u);
	if (size > 24 && (data[1] & 1) &&
	    libsecmap_user_syms_recorded(&u, path, data + size - 20, 20))
		abort();
	if (size >= 16)
		memcpy(&offsets[0], data + size - 16, 8);
	for (i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		struct secmap_frame f = { .sz = sizeof(f) };

		if (libsecmap_user_symbol(&u, path, offsets[i], &f))
			abort();
		if (f.symbol)
			sink += strlen(f.symbol) + f.symbol_offset;
		if (f.build_id_len)
			sink += f.build_id[f.build_id_len - 1];
	}
	libsecmap_user_syms_free(&u);
	return 0;
}
