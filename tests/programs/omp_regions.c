/* omp_regions.c - many short parallel regions, whose idleness the program
 * measures with its own clocks.
 *
 * Each thread reads CLOCK_MONOTONIC as it starts and ends its share of a
 * region; after each region the program adds up the idleness those
 * intervals say is due to region_work: the time other threads were not in
 * their share while at least one thread was in its own, the integral of
 * (threads - in_share) while in_share > 0.  That is culprit's definition
 * of idleness (doc/idleness.md) applied to region_work, so the idleness
 * culprit blames on region_work must match the printed figure.
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
static double idleness, worked;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_time(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Adds the idleness the shares [START[i], END[i]) of N threads show. */
static void account(int n, double *start, double *end)
{
	for (int i = 0; i < n; i++)
		worked += end[i] - start[i];
	qsort(start, (size_t)n, sizeof *start, by_time);
	qsort(end, (size_t)n, sizeof *end, by_time);
	int s = 0, e = 0, in = 0;
	double t = 0;
	while (s < n || e < n) {
		int starts = s < n && (e >= n || start[s] <= end[e]);
		double next = starts ? start[s++] : end[e++];
		if (in > 0)
			idleness += (n - in) * (next - t);
		t = next;
		in += starts ? 1 : -1;
	}
}

__attribute__((noinline)) void region_work(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void regions(int count, long units, int heavy)
{
	for (int r = 0; r < count; r++) {
		double start[MAX_THREADS], end[MAX_THREADS];
		int n = 1;
#pragma omp parallel
		{
			int id = omp_get_thread_num();
			if (id == 0)
				n = omp_get_num_threads();
			if (id < MAX_THREADS) {
				start[id] = now();
				region_work(id == 0 ? units * heavy : units);
				end[id] = now();
			}
		}
		account(n < MAX_THREADS ? n : MAX_THREADS, start, end);
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
	printf("omp_regions: %d regions of %.1f us: idleness %.6f s, work %.6f s\n", count,
	       wall / count * 1e6, idleness, worked);
	return 0;
}
