/* omp_regions.c - many short parallel regions, whose idleness the program
 * measures with its own clocks.
 *
 * Each thread reads CLOCK_MONOTONIC as it starts and ends its share of a
 * region; after each region the program adds up the idleness those
 * intervals say is due to region_work: the time other threads were not in
 * their share while at least one thread was in its own, the integral of
 * (threads - in_share) while in_share > 0, each idle thread losing what a
 * working one gets of a CPU meanwhile (their CPU clocks say how much: all
 * of it on a quiet machine, less beside a busy one).  That is culprit's
 * definition of idleness (doc/idleness.md) applied to region_work, so the
 * idleness culprit blames on region_work must match the printed figure.
 *
 * Thread 0 does HEAVY times the work of the others: HEAVY 1 is balanced.
 *
 * usage: omp_regions REGIONS UNITS [HEAVY]
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

#define MAX_THREADS 256

volatile double sink;
static double idleness, wall_idleness, worked;

static double clock_s(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

struct edge {
	double at;
	int thread, starts;
};

static int by_time(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	return (x->at > y->at) - (x->at < y->at);
}

/* Adds the idleness the shares [START[i], END[i]) of N threads show, on
 * the wall clock (wall_idleness) and as CPU capacity (idleness): while
 * some threads work and others have done their share, each idle thread
 * loses what a working one gets of a CPU meanwhile, the working threads'
 * mean CPU rate in their shares (CPU[i] / (END[i] - START[i])).  On a quiet
 * machine the two are the same; beside a busy neighbour, preempted
 * threads get less, and so does what the idle ones lose. */
static void account(int n, const double *start, const double *end, const double *cpu)
{
	struct edge e[2 * MAX_THREADS];
	double rate[MAX_THREADS];
	for (int i = 0; i < n; i++) {
		worked += end[i] - start[i];
		rate[i] = end[i] > start[i] ? cpu[i] / (end[i] - start[i]) : 1;
		e[2 * i] = (struct edge){ start[i], i, 1 };
		e[2 * i + 1] = (struct edge){ end[i], i, 0 };
	}
	qsort(e, (size_t)(2 * n), sizeof *e, by_time);
	int in = 0;
	double t = 0, rates = 0;
	for (int k = 0; k < 2 * n; k++) {
		if (in > 0) {
			wall_idleness += (n - in) * (e[k].at - t);
			idleness += (n - in) * (e[k].at - t) * rates / in;
		}
		t = e[k].at;
		in += e[k].starts ? 1 : -1;
		rates += e[k].starts ? rate[e[k].thread] : -rate[e[k].thread];
	}
}

__attribute__((noinline)) void region_work(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void regions(int count, long units, int heavy)
{
	for (int r = 0; r < count; r++) {
		double start[MAX_THREADS], end[MAX_THREADS], cpu[MAX_THREADS];
		int n = 1;
#pragma omp parallel
		{
			int id = omp_get_thread_num();
			if (id == 0)
				n = omp_get_num_threads();
			if (id < MAX_THREADS) {
				double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
				start[id] = now();
				region_work(id == 0 ? units * heavy : units);
				end[id] = now();
				cpu[id] = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
			}
		}
		account(n < MAX_THREADS ? n : MAX_THREADS, start, end, cpu);
	}
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 20000;
	long units = argc > 2 ? atol(argv[2]) : 5000;
	int heavy = argc > 3 ? atoi(argv[3]) : 1;
	double t0 = now();

	regions(count, units, heavy);
	double wall = now() - t0;
	printf("omp_regions: %d regions of %.1f us: idleness %.6f s, work %.6f s, "
	       "on the wall clock %.6f s\n", count, wall / count * 1e6, idleness, worked,
	       wall_idleness);
	return 0;
}
