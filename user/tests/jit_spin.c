// SPDX-License-Identifier: GPL-2.0
/* A JIT in miniature: code copied into anonymous executable memory and
 * described in /tmp/perf-PID.map, as JITs do for perf. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* x86-64: mov ecx, 100000000; 1: dec ecx; jnz 1b; ret */
static const unsigned char spin[] = { 0xb9, 0x00, 0xe1, 0xf5, 0x05, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

int main(void)
{
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *map;
	int i;

	if (code == MAP_FAILED)
		return 1;
	memcpy(code, spin, sizeof(spin));
	memcpy(code + 64, spin, sizeof(spin));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map)
		return 1;
	fprintf(map, "%lx %zx jit_spin_one\n%lx %zx jit spin two [tier 2]\n", (unsigned long)code,
		sizeof(spin), (unsigned long)(code + 64), sizeof(spin));
	fclose(map);
	for (i = 0; i < 3; i++) {
		((void (*)(void))code)();
		((void (*)(void))(code + 64))();
	}
	return 0;
}
