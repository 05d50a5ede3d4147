// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the .ko cache's entry reader (lib/ko/ko_cache.c): the
 * input is the entry file of a module of five sections, read back by
 * libsecmap_ko_cache_load(). An entry that loads must give each section a value it
 * could have stored; one that does not must leave nothing behind. The
 * corpus is seeded with a real entry (libsecmap_ko_cache_store()) on start-up.
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "../tests/msg.h"

static const uint8_t id[20] = { 0x3f, 0x2a, 0x9c, 0x01, 0x00, 0xff, 0x10, 0x20, 0x30, 0x40,
				0x50, 0x60, 0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0, 0xd0, 0xe1 };
static const char *const names[] = { ".text", ".text.unlikely", ".data.caf\xe9", ".bss",
				     ".init.text" };
#define NR_SECS (sizeof(names) / sizeof(names[0]))

static struct secmap_snapshot *snap;
static char dir[64], entry[160];

/* The entry libsecmap_ko_cache_store() writes, for the corpus directory @corpus. */
static void write_seed(const char *corpus)
{
	struct libsecmap_ko_row rows[NR_SECS] = {
		{ true, { .size = 0x1234, .offset = 0x40, .flags = SHF_ALLOC | SHF_EXECINSTR,
			  .nr_symbols = 3 } },
		{ true, { .size = 0x10, .offset = 0x1274, .flags = SHF_ALLOC | SHF_EXECINSTR,
			  .nr_symbols = 1 } },
		{ false },
		{ true, { .size = 0x100, .offset = 0x2000, .flags = SHF_ALLOC | SHF_WRITE } },
		{ true, { .size = 0x80, .offset = 0x1300, .flags = SHF_ALLOC | SHF_EXECINSTR,
			  .nr_symbols = 2 } },
	};
	struct libsecmap_ko_rows ko = { .path = "/lib/modules/r/kernel/m.ko.xz", .rows = rows };
	struct libsecmap_ko_rows back;
	char cmd[400];

	/* The seed must be an entry that loads, or the fuzzing starts blind. */
	if (libsecmap_ko_cache_store(dir, secmap_snapshot_module(snap, 0), &ko) ||
	    libsecmap_ko_cache_load(dir, secmap_snapshot_module(snap, 0), &back))
		abort();
	free(back.path);
	free(back.rows);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s/seed-kotab'", corpus, entry,
		 corpus);
	if (system(cmd))
		abort();
}

static void remove_dir(void)
{
	unlink(entry);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char buf[8192];
	struct nlmsghdr *nlh;
	char hex[2 * sizeof(id) + 1];
	size_t i;

	snap = libsecmap_snapshot_new();
	strcpy(dir, "/tmp/secmap-ko-cache-fuzz.XXXXXX");
	if (!snap || !mkdtemp(dir))
		abort();
	atexit(remove_dir);
	nlh = msg_module(buf, "fuzzed");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, id, sizeof(id));
	for (i = 0; i < NR_SECS; i++)
		msg_section_full(nlh, names[i], 0xffffffffc0000000ULL + i * 0x1000, 0, -1);
	if (libsecmap_parse_module_msg(nlh, snap))
		abort();
	secmap_build_id_str(id, sizeof(id), hex, sizeof(hex));
	snprintf(entry, sizeof(entry), "%s/%s.kotab", dir, hex);
	/* The corpus directory is the last argument that is not a flag. */
	for (i = (size_t)*argc - 1; i > 0; i--)
		if ((*argv)[i][0] != '-') {
			write_seed((*argv)[i]);
			break;
		}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct secmap_module *mod = secmap_snapshot_module(snap, 0);
	struct libsecmap_ko_rows out;
	FILE *f = fopen(entry, "w");
	size_t i;
	int err;

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	err = libsecmap_ko_cache_load(dir, mod, &out);
	if (err) {
		if (err != -ENOENT && err != -ENOMEM)
			abort();
		if (out.path || out.rows)
			abort();	/* a miss leaves nothing */
		return 0;
	}
	if (!out.path || !*out.path || !out.rows)
		abort();
	for (i = 0; i < NR_SECS; i++)
		if (!out.rows[i].found && (out.rows[i].s.size || out.rows[i].s.offset))
			abort();	/* an absent section has no values */
	free(out.path);
	free(out.rows);
	return 0;
}
