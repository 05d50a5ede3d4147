// SPDX-License-Identifier: GPL-2.0
/*
 * Twin libraries: this file built twice with -shared -DTWIN=twin_a and
 * -DTWIN=twin_b gives two files of one layout, their functions at the same
 * offsets under other names; built without TWIN, a program that spins in
 * each in turn. A reader that told frames apart by offset alone would give
 * one library's names to the other's samples.
 */
#ifdef TWIN
#define TWIN_SPIN(name)	name##_spin
#define SPIN(name)	TWIN_SPIN(name)

void SPIN(TWIN)(volatile unsigned long *n)
{
	unsigned long i;

	for (i = 0; i < 1000000; i++)
		(*n)++;
}
#else
#include <stdlib.h>
#include <time.h>

void twin_a_spin(volatile unsigned long *n);
void twin_b_spin(volatile unsigned long *n);

/* twin_spin SECONDS */
int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	volatile unsigned long n = 0;
	clock_t end = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);

	while (clock() < end) {
		twin_a_spin(&n);
		twin_b_spin(&n);
	}
	return n == 0;
}
#endif
