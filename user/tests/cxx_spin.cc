// SPDX-License-Identifier: GPL-2.0
/*
 * C++ calls through the PLT in a loop: operator new and delete, and the
 * clock, are libstdc++'s, reached through slots perf names demangled
 * ("operator delete@plt"). Built without optimization, so that no call is
 * left out.
 */
#include <chrono>
#include <cstdlib>

// cxx_spin SECONDS
int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::atof(argv[1]) : 1;
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
	volatile unsigned long n = 0;

	while (std::chrono::steady_clock::now() < end)
		for (int i = 0; i < 1000; i++) {
			int *p = new int(i);

			n += *p;
			delete p;
		}
	return n == 0;
}
