/* omp_fork.c - an OpenMP program that forks after a parallel region; the
 * child runs regions of its own on a fresh libomp pool.
 *
 * In both processes serial() runs while the pool's other worker idles:
 * its idleness equals its work, as `idleness:serial`.
 *
 * usage: omp_fork [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) void region(long units)
{
#pragma omp parallel
	sink = work_units(units);
}

__attribute__((noinline)) void serial(long units)
{
	sink = work_units(units);
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 50000000;

	region(units);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		region(units);
		serial(units);
		printf("omp_fork child done\n");
		return 0;
	}
	waitpid(child, NULL, 0);
	serial(units);
	printf("omp_fork parent done\n");
	return 0;
}
