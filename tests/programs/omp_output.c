/* omp_output.c - a parallel computation, then its results written out
 * serially, like Rodinia's hotspot and its writeoutput().
 *
 * compute() is a balanced parallel loop.  write_output() prints every
 * value with fprintf("%.6f") to /dev/null on the initial thread, outside
 * any parallel region, while the other worker idles: its time is almost
 * all in libc's number formatting (__printf_fp_l, __vfprintf_internal),
 * and so is the idleness blamed on it, all of it `idleness:serial`.  A
 * diagnosis must name write_output, a serial phase, not libc's code.
 *
 * usage: omp_output [ROUNDS]  (run with OMP_NUM_THREADS=2)
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define N 200000

volatile double sink;
static double value[N];

__attribute__((noinline)) void compute(long units)
{
#pragma omp parallel for schedule(static)
	for (int i = 0; i < N; i++)
		value[i] = work_units(units) * i;
}

__attribute__((noinline)) void write_output(FILE *out)
{
	for (int i = 0; i < N; i++)
		fprintf(out, "%d\t%.6f\n", i, value[i]);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 4;
	FILE *out = fopen("/dev/null", "w");

	if (!out) {
		perror("omp_output: /dev/null");
		return 1;
	}
	for (long r = 0; r < rounds; r++) {
		compute(400);
		write_output(out);
	}
	fclose(out);
	printf("omp_output done\n");
	return 0;
}
