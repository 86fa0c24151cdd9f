/* omp_scaling.c - a program whose scaling losses are known, for `culprit
 * scale` and `report --scaling`.
 *
 * Each round runs four parts, each in a function of its own:
 *   serial_part      SERIAL units on one thread, between parallel regions:
 *                    at p threads the others idle, (p - 1) x its time;
 *   parallel_part    PARALLEL units in 48 equal iterations, dynamically
 *                    scheduled (an even split at 1, 2, 3, 4, 6, 8 threads):
 *                    no loss;
 *   thread_setup     SETUP units on every thread of a region, tagged as
 *                    overhead (type setup): p x SETUP, a per-thread cost;
 *   contended_part   CONTENDED iterations that each add to one shared
 *                    counter: at p >= 2 threads its cache line moves from
 *                    core to core, and the same work takes longer (work
 *                    inflation), in this function only.
 * Every thread times each part on its own CPU clock; the program prints
 * the sums ("part serial_part cpu 0.512"): the truth a profile of it is
 * checked against.  usage: omp_scaling [ROUNDS [SERIAL PARALLEL SETUP CONTENDED]] */
#define _GNU_SOURCE
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

volatile double sink;
static _Atomic long shared_counter;
static double part_cpu[4];	/* seconds, summed over threads */
static const char *const part_name[4] = { "serial_part", "parallel_part", "thread_setup",
					  "contended_part" };

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void account(int part, double seconds)
{
#pragma omp atomic
	part_cpu[part] += seconds;
}

void thread_setup(long units);

__attribute__((noinline)) void serial_part(long units)
{
	double t = thread_cpu();
	sink = work_units(units);
	account(0, thread_cpu() - t);
}

__attribute__((noinline)) void parallel_body(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void parallel_part(long units, long setup)
{
#pragma omp parallel
	{
		double t = thread_cpu();
		if (setup)
			thread_setup(setup);
		double s = thread_cpu();
		account(2, s - t);
		/* Dynamic: a thread the machine's other load holds back
		 * leaves its iterations to the others instead of making
		 * them wait (which would be a loss of the machine's, not
		 * the program's). */
#pragma omp for schedule(dynamic) nowait
		for (int i = 0; i < 48; i++)
			parallel_body(units / 48);
		account(1, thread_cpu() - s);
		/* Timed before it: a thread waiting here spins, which a profile
		 * counts as idle, not as the loop's work. */
#pragma omp barrier
	}
}

__attribute__((noinline)) void contended_part(long iterations)
{
	if (iterations == 0)
		return;
#pragma omp parallel
	{
		double t = thread_cpu();
#pragma omp for schedule(static) nowait
		for (long i = 0; i < iterations; i++)
			atomic_fetch_add_explicit(&shared_counter, 1, memory_order_relaxed);
		account(3, thread_cpu() - t);
#pragma omp barrier
	}
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20;
	long serial = argc > 2 ? atol(argv[2]) : 9000000;
	long parallel = argc > 3 ? atol(argv[3]) : 36000000;
	long setup = argc > 4 ? atol(argv[4]) : 2000000;
	long contended = argc > 5 ? atol(argv[5]) : 2000000;

	/* The runtime makes its threads at the first parallel region: before
	 * it, no thread waits while serial code runs, and a profile counts
	 * no idleness there.  Made now, the pool waits through every serial
	 * part. */
#pragma omp parallel
	sink = 0;
	for (long r = 0; r < rounds; r++) {
		serial_part(serial);
		parallel_part(parallel, setup);
		contended_part(contended);
	}
	printf("threads %d\n", omp_get_max_threads());
	for (int k = 0; k < 4; k++)
		printf("part %s cpu %.6f\n", part_name[k], part_cpu[k]);
	return 0;
}

/* Tagged as overhead through the line table, as a runtime would tag its
 * own code (see tagged.c). */
#line 1 "culprit:overhead/setup"
__attribute__((noinline)) void thread_setup(long units)
{
	double x = 1.0;
	for (long i = 0; i < units; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}
