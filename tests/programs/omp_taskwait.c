/* omp_taskwait.c - one task at a time, waited for.
 *
 * In each round the single thread creates one long task and waits for
 * it.  Whichever of the 2 threads runs it, the other waits with nothing
 * queued (in the taskwait, or in the barrier closing the single): idle,
 * not running the runtime's scheduler.  So long_task carries idleness
 * equal to its work, as idleness:taskwait or idleness:barrier, and almost
 * no overhead is measured.
 *
 * usage: omp_taskwait [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) void long_task(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void one_at_a_time(long units, int rounds)
{
#pragma omp parallel
#pragma omp single
	for (int r = 0; r < rounds; r++) {
#pragma omp task
		long_task(units);
#pragma omp taskwait
	}
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 50000000;

	one_at_a_time(units, 8);
	printf("omp_taskwait done\n");
	return 0;
}
