/* omp_loop_work.c - the parallel-loop workload of bench/omp_scaling.sh.
 *
 * usage: omp_loop_work [REGIONS [ROWS [UNITS]]]
 *
 * Runs REGIONS parallel regions (default 40), each a `parallel for
 * schedule(dynamic)` over ROWS rows (default 2048).  Row i does
 * UNITS * (1 + i % 4) / 2.5 steps of the floating-point chain of
 * tests/programs/work.h (UNITS default 5000, so a row averages 5000 steps,
 * about 10 microseconds, and rows differ in cost as the rows of an image
 * do).
 * The total work is fixed: with T threads each does about 1/T of it, so
 * the run gets shorter as T grows.  About 0.8 s on one thread of the
 * development VM.  The sum of the rows is printed so that none of the work
 * can be deleted.
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) double row(int i, long units)
{
	return work_units(units * (1 + i % 4) * 2 / 5);
}

__attribute__((noinline)) double sweep(int rows, long units)
{
	double sum = 0.0;

#pragma omp parallel for schedule(dynamic) reduction(+ : sum)
	for (int i = 0; i < rows; i++)
		sum += row(i, units);
	return sum;
}

int main(int argc, char **argv)
{
	int regions = argc > 1 ? atoi(argv[1]) : 40;
	int rows = argc > 2 ? atoi(argv[2]) : 2048;
	long units = argc > 3 ? atol(argv[3]) : 5000;
	double total = 0.0;

	for (int r = 0; r < regions; r++)
		total += sweep(rows, units);
	sink = total;
	printf("omp_loop_work: %d regions of %d rows, sum %.6g\n", regions, rows, total);
	return 0;
}
