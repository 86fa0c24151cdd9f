/* omp_phases.c - parallel phases with serial code between them.
 *
 * Each round runs a balanced parallel loop, then a serial function of the
 * same length as one thread's share of the loop.  With 2 threads, the
 * serial function runs while the other thread idles: its idleness equals
 * its own work, all of it `idleness:serial`.  The balanced loop keeps both
 * threads busy: almost no idleness.
 *
 * usage: omp_phases [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) void balanced_body(long units)
{
	sink = work_units(units);
}

/* 64 equal iterations: 32 for each of 2 threads. */
__attribute__((noinline)) void balanced_phase(long units)
{
#pragma omp parallel for schedule(static)
	for (int i = 0; i < 64; i++)
		balanced_body(units / 32);
}

__attribute__((noinline)) void serial_phase(long units)
{
	sink = work_units(units);
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 40000000;

	for (int round = 0; round < 8; round++) {
		balanced_phase(units);
		serial_phase(units);
	}
	printf("omp_phases done\n");
	return 0;
}
