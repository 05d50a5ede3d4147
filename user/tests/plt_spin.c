// SPDX-License-Identifier: GPL-2.0
/*
 * Calls through the PLT in a loop, built to be stripped: a program whose
 * file keeps no symbol of its own (no .symtab, nothing defined in
 * .dynsym), as Debian ships many. perf names the PLT's slots only in a
 * file that gave it symbols: here it shows their addresses.
 */
#include <stdlib.h>
#include <time.h>

/* plt_spin SECONDS */
int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	clock_t end = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);
	volatile size_t n = 0;
	int i;

	while (clock() < end)
		for (i = 0; i < 1000; i++)
			n += (size_t)labs(i - 500);
	return n == 0;
}
