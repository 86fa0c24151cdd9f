/* omp_imbalance.c - a statically scheduled loop whose second half costs
 * three times its first.
 *
 * With 2 threads, one gets the light half (cost W), the other the heavy
 * half (3W).  For the first W both work; for the remaining 2W the light
 * thread waits at the barrier.  So the heavy iterations carry idleness 2W
 * against work 3W (a ratio of 2/3), all of it `idleness:barrier`, and the
 * light iterations carry none.
 *
 * Both kinds of barrier are exercised: a worksharing loop's own barrier
 * inside one region, and the barrier that closes a `parallel for`.
 *
 * usage: omp_imbalance [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) void light(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void heavy(long units)
{
	sink = work_units(3 * units);
}

#define ITERATIONS 32

__attribute__((noinline)) void loop_in_region(long units, int rounds)
{
#pragma omp parallel
	for (int r = 0; r < rounds; r++) {
#pragma omp for schedule(static)
		for (int i = 0; i < ITERATIONS; i++) {
			if (i < ITERATIONS / 2)
				light(units);
			else
				heavy(units);
		}
	}
}

__attribute__((noinline)) void parallel_loop(long units)
{
#pragma omp parallel for schedule(static)
	for (int i = 0; i < ITERATIONS; i++) {
		if (i < ITERATIONS / 2)
			light(units);
		else
			heavy(units);
	}
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 2000000;

	loop_in_region(units, 4);
	for (int r = 0; r < 4; r++)
		parallel_loop(units);
	printf("omp_imbalance done\n");
	return 0;
}
