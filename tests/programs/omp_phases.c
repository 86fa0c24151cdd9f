/* omp_phases.c - parallel phases with serial code between them.
 *
 * Each round runs a balanced parallel loop, then a serial function of the
 * same length as one thread's share of the loop.  With 2 threads, the
 * serial function runs while the other thread idles: its idleness equals
 * its own work, all of it `idleness:serial`.  The balanced loop keeps both
 * threads busy: idleness only where one thread started or ended its share
 * before the other, which the threads time themselves (printed as
 * "balanced idle": on a busy machine, a thread descheduled for a while
 * makes the other wait).
 *
 * usage: omp_phases [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) void balanced_body(long units)
{
	sink = work_units(units);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double balanced_idle;	/* seconds a thread waited for the other */

/* 64 equal iterations: 32 for each of 2 threads. */
__attribute__((noinline)) void balanced_phase(long units)
{
	double start[2] = { 0, 0 }, end[2] = { 0, 0 };
#pragma omp parallel
	{
		int me = omp_get_thread_num();
		double t0 = now();
#pragma omp for schedule(static) nowait
		for (int i = 0; i < 64; i++)
			balanced_body(units / 32);
		if (me < 2) {
			start[me] = t0;
			end[me] = now();
		}
	}
	if (end[1] > 0)
		balanced_idle += (start[0] > start[1] ? start[0] - start[1] : start[1] - start[0]) +
				 (end[0] > end[1] ? end[0] - end[1] : end[1] - end[0]);
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
	printf("balanced idle %.6f\n", balanced_idle);
	printf("omp_phases done\n");
	return 0;
}
