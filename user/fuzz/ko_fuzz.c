// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the .ko reader: any bytes, as a module file (plain
 * ELF, or xz, zstd or gzip, told apart by magic). Whatever opens is asked
 * for its build-id, image, the sections dump asks for and their symbols;
 * every byte and string handed back is touched.
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secmap.h"

static char path[64];
static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		".text", ".text.unlikely", ".init.text", ".exit.text", ".data", ".data..percpu",
		".gnu.linkonce.this_module", ".symtab", ".note.gnu.build-id", "",
	};
	struct secmap_ko *ko;
	const uint8_t *p;
	size_t sum = 0, i, j, n;
	int fd;

	if (!path[0]) {
		strcpy(path, "/tmp/secmap-ko-fuzz.XXXXXX");
		fd = mkstemp(path);
	} else {
		fd = open(path, O_WRONLY | O_TRUNC);
	}
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);

	if (secmap_ko_open(path, &ko))
		return 0;
	n = secmap_ko_build_id(ko, &p);
	for (i = 0; i < n; i++)
		sum += p[i];
	n = secmap_ko_image(ko, &p);
	if (n)
		sum += p[0] + p[n - 1];
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		SECMAP_OPTS(secmap_ko_section, sec);
		struct secmap_ko_symbol *syms = NULL;
		size_t nr = 0;

		if (secmap_ko_section(ko, names[i], &sec))
			continue;
		sum += sec.size + sec.offset + sec.nr_symbols;
		if (!secmap_ko_section_symbols(ko, names[i], &syms, &nr))
			for (j = 0; j < nr; j++)
				sum += strlen(syms[j].name) + syms[j].value;
		free(syms);
	}
	secmap_ko_close(ko);
	sink = sum;
	return 0;
}
