/* omp_imbalance.c - a statically scheduled loop whose second half costs
 * three times its first.
 *
 * With 2 threads, one gets the light half (cost W), the other the heavy
 * half (3W).  For the first W both work; for the remaining 2W the light
 * thread waits at the barrier.  So the heavy iterations carry idleness 2W
 * against work 3W (a ratio of 2/3), all of it `idleness:barrier`, and the
 * light iterations carry none.
 *
 * That holds on a quiet machine.  Beside a busy one the threads get
 * unequal shares of the CPUs, and the heavy thread's tail is what it is:
 * so the program measures it.  The light thread says when it ends its
 * half; the heavy thread, which does its work in chunks, notes its CPU
 * clock at the first chunk after that and at its end.  The idleness it
 * prints per loop ("idle loop_in_region 0.41") is the heavy thread's CPU
 * time alone: what the waiting thread lost (doc/idleness.md); "work" is
 * both threads' CPU time in their halves.
 *
 * Both kinds of barrier are exercised: a worksharing loop's own barrier
 * inside one region, and the barrier that closes a `parallel for`.
 *
 * usage: omp_imbalance [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

#define ITERATIONS 32
#define CHUNKS 30	/* a heavy iteration's chunks */

volatile double sink;
static _Atomic int light_ended;		/* in this loop */
static double heavy_alone_from;		/* the heavy thread's CPU clock then */
static double idle[2], work[2];		/* per function, seconds */

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) void light(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void heavy(long units)
{
	for (int c = 0; c < CHUNKS; c++) {
		sink = work_units(3 * units / CHUNKS);
		if (!heavy_alone_from && atomic_load(&light_ended))
			heavy_alone_from = cpu_now();
	}
}

/* Iteration I of a loop of function F, timed at its half's ends. */
static void iteration(int f, int i, long units, double *began)
{
	if (i == 0 || i == ITERATIONS / 2)
		*began = cpu_now();
	if (i < ITERATIONS / 2)
		light(units);
	else
		heavy(units);
	if (i == ITERATIONS / 2 - 1) {
		double t = cpu_now();
		atomic_store(&light_ended, 1);
#pragma omp atomic
		work[f] += t - *began;
	} else if (i == ITERATIONS - 1) {
		double t = cpu_now();
		if (heavy_alone_from) {
#pragma omp atomic
			idle[f] += t - heavy_alone_from;
		}
#pragma omp atomic
		work[f] += t - *began;
	}
}

/* Before each loop: no half has ended. */
static void loop_begins(void)
{
	atomic_store(&light_ended, 0);
	heavy_alone_from = 0;
}

__attribute__((noinline)) void loop_in_region(long units, int rounds)
{
#pragma omp parallel
	for (int r = 0; r < rounds; r++) {
		double began = 0;
#pragma omp single
		loop_begins();
#pragma omp for schedule(static)
		for (int i = 0; i < ITERATIONS; i++)
			iteration(0, i, units, &began);
	}
}

__attribute__((noinline)) void parallel_loop(long units)
{
	loop_begins();
	double began = 0;
#pragma omp parallel for schedule(static) firstprivate(began)
	for (int i = 0; i < ITERATIONS; i++)
		iteration(1, i, units, &began);
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 2000000;

	loop_in_region(units, 4);
	for (int r = 0; r < 4; r++)
		parallel_loop(units);
	printf("idle loop_in_region %.6f work %.6f\n", idle[0], work[0]);
	printf("idle parallel_loop %.6f work %.6f\n", idle[1], work[1]);
	printf("omp_imbalance done\n");
	return 0;
}
