/* callers.c - one procedure, two callers: kernel() is called from
 * light_caller() with one unit of work and from heavy_caller() with three,
 * so a profiler's callers view must give them 25% and 75% of kernel().
 * Each round calls them in a pseudo-random order with a pseudo-random
 * amount of work (the 1:3 ratio kept), so that no sampling period can lock
 * onto the rounds.  usage: callers [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

/* Stores into sink: a pure function would be called once and hoisted out
 * of main's loop. */
__attribute__((noinline)) double kernel(long n)
{
	double r = work_units(n);
	sink += r;
	return r;
}
__attribute__((noinline)) double light_caller(long n) { return kernel(n) + 1; }
__attribute__((noinline)) double heavy_caller(long n) { return kernel(3 * n) + 1; }

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000;
	unsigned seed = 777;
	for (long r = 0; r < rounds; r++) {
		seed = seed * 1103515245u + 12345u;
		long unit = 100000 + (long)(seed >> 16) % 100000;
		if (seed & 0x10000) {
			sink += light_caller(unit);
			sink += heavy_caller(unit);
		} else {
			sink += heavy_caller(unit);
			sink += light_caller(unit);
		}
	}
	printf("callers done\n");
	return 0;
}
