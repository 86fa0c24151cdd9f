/* leaves.c - ground truth for sample attribution.
 *
 * Three leaf functions do 1, 2 and 4 units of identical work, interleaved
 * round by round, so a correct profiler gives them 1/7, 2/7 and 4/7 of
 * the samples.  Each round calls them in a pseudo-random order and with a
 * pseudo-random amount of work (the ratios kept): with rounds of a fixed
 * length and order, a sampler whose period is close to a multiple of a
 * round would see the same leaf again and again.
 * usage: leaves [ROUNDS [UNIT]] */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) double leaf_one(long n) { return work_units(n); }
__attribute__((noinline)) double leaf_two(long n) { return work_units(2 * n); }
__attribute__((noinline)) double leaf_four(long n) { return work_units(4 * n); }

__attribute__((noinline)) void one_round(long n, unsigned order)
{
	static double (*const leaf[3])(long) = { leaf_one, leaf_two, leaf_four };
	static const int perm[6][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 }
	};
	for (int i = 0; i < 3; i++)
		sink += leaf[perm[order % 6][i]](n);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 250;
	long unit = argc > 2 ? atol(argv[2]) : 350000;

	unsigned seed = 12345;
	for (long r = 0; r < rounds; r++) {
		seed = seed * 1103515245u + 12345u;
		one_round(unit / 2 + (long)(seed >> 8) % unit, seed >> 16);
	}
	printf("leaves done\n");
	return 0;
}
