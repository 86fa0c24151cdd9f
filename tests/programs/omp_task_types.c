/* omp_task_types.c - a recursion that makes tasks of three types, whose
 * counts and sizes are known, for task histograms (report --tasks).
 *
 * spawn(d) creates, at each of DEPTH levels, a small task (SMALL units of
 * work), a big task (8 x SMALL) and the task of the next level, then waits
 * for them.  So each type has DEPTH tasks; the level's own task does
 * little but create and wait (its children's time is not its size).
 * Each small and big task times itself on CLOCK_MONOTONIC; the program
 * prints their mean sizes ("small 21.3 us") and the small tasks' fullest
 * log2 bucket of nanoseconds ("small_bucket 14": a task preempted on a
 * busy machine is large on both clocks), the truth to check against.
 * usage: omp_task_types [DEPTH [SMALL]] */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

volatile double sink;
static long small_units;
static double small_ns, big_ns;	/* summed over tasks */
static int small_hist[64];		/* small tasks by log2 of their nanoseconds */

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((noinline)) void small_task(void)
{
	double t = now_ns();
	sink = work_units(small_units);
	t = now_ns() - t;
#pragma omp atomic
	small_ns += t;
	int b = 0;
	while (b < 63 && (double)(1ull << (b + 1)) <= t)
		b++;
#pragma omp atomic
	small_hist[b]++;
}

__attribute__((noinline)) void big_task(void)
{
	double t = now_ns();
	sink = work_units(8 * small_units);
	t = now_ns() - t;
#pragma omp atomic
	big_ns += t;
}

__attribute__((noinline)) void spawn(int depth)
{
	if (depth == 0)
		return;
#pragma omp task /* type: small */
	small_task();
#pragma omp task /* type: big */
	big_task();
#pragma omp task /* type: level */
	spawn(depth - 1);
#pragma omp taskwait
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 300;
	small_units = argc > 2 ? atol(argv[2]) : 20000;
#pragma omp parallel
#pragma omp single
	spawn(depth);
	printf("tasks %d of each type\n", depth);
	printf("small %.3f us\n", small_ns / depth / 1e3);
	printf("big %.3f us\n", big_ns / depth / 1e3);
	int fullest = 0;
	for (int b = 1; b < 64; b++)
		if (small_hist[b] > small_hist[fullest])
			fullest = b;
	printf("small_bucket %d\n", fullest);
	return 0;
}
