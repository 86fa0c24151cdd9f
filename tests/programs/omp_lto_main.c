/* omp_lto_main.c - with omp_lto_kernel.c, a program that GCC builds with
 * -flto: kernel(), defined in the other file, is inlined across files
 * into main and into the body of a parallel loop, so that its frames and
 * lines are only in the debug information of the link-time units.
 *
 * A profiler must show kernel (file omp_lto_kernel.c) inlined under the
 * lines that call it: the loop's body in lto_region and main's own call.
 *
 * usage: omp_lto [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#include <stdio.h>
#include <stdlib.h>

volatile double sink;

double kernel(long units);

#define ITERATIONS 64

__attribute__((noinline)) void lto_region(long units)
{
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = 0; i < ITERATIONS; i++)
		sink = kernel(units / ITERATIONS); /* call:region */
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 60000000;
	lto_region(units);
	sink = kernel(units / 2); /* call:main */
	printf("omp_lto done\n");
	return 0;
}
