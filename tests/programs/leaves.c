/* leaves.c - ground truth for sample attribution.
 *
 * Three leaf functions do 1, 2 and 4 units of identical work, interleaved
 * round by round, so a correct profiler gives them 1/7, 2/7 and 4/7 of
 * the samples.  usage: leaves [ROUNDS [UNIT]] */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) double leaf_one(long n) { return work_units(n); }
__attribute__((noinline)) double leaf_two(long n) { return work_units(2 * n); }
__attribute__((noinline)) double leaf_four(long n) { return work_units(4 * n); }

__attribute__((noinline)) void one_round(long n)
{
	sink += leaf_one(n);
	sink += leaf_two(n);
	sink += leaf_four(n);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 250;
	long unit = argc > 2 ? atol(argv[2]) : 350000;

	for (long r = 0; r < rounds; r++)
		one_round(unit);
	printf("leaves done\n");
	return 0;
}
