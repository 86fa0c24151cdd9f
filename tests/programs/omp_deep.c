/* omp_deep.c - a task recursion DEPTH levels deep: each level creates one
 * task for the next and waits for it; the deepest works.
 *
 * Every sample of leaf_work must have its whole logical path, main ->
 * run_deep -> ... -> DEPTH levels of descend -> leaf_work, however deep the
 * tasks nest on the threads' native stacks, at a cost per sample that does
 * not grow with DEPTH (records hold the outer part of the path).
 *
 * usage: omp_deep [DEPTH [REPEATS [UNITS]]]
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) void leaf_work(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void descend(int depth, long units)
{
	if (depth == 0) {
		leaf_work(units);
		return;
	}
#pragma omp task
	descend(depth - 1, units);
#pragma omp taskwait
	sink += depth;	/* work after the wait: the frame stays */
}

__attribute__((noinline)) void run_deep(int depth, int repeats, long units)
{
#pragma omp parallel
#pragma omp single
	for (int r = 0; r < repeats; r++)
		descend(depth, units);
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 1000;
	int repeats = argc > 2 ? atoi(argv[2]) : 100;
	long units = argc > 3 ? atol(argv[3]) : 2000000;

	run_deep(depth, repeats, units);
	printf("omp_deep done\n");
	return 0;
}
