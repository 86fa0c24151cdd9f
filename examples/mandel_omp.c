/* mandel_omp.c - the Mandelbrot renderer of mandel.c with OpenMP: one
 * parallel loop over the rows.  Its schedule comes from OMP_SCHEDULE
 * (schedule(runtime)): with "static" each thread gets an equal band of
 * rows and the threads with the costly middle of the set keep the others
 * waiting at the loop's end; with "dynamic,4" threads take rows as they
 * go.  culprit blames the waiting on the rows that kept them waiting.
 *
 * usage: OMP_SCHEDULE=static mandel_omp [SIZE [ITERATIONS]]   (default 1200 600)
 * build: clang -O2 -g -fopenmp mandel_omp.c  (or gcc; culprit runs it on libomp) */
#include <stdio.h>
#include <stdlib.h>

#include "mandel_row.h"

static long __attribute__((noinline)) render(void)
{
	long inside = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : inside)
	for (int y = 0; y < size; y++)
		inside += render_row(y);
	return inside;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		size = atoi(argv[1]);
	if (argc > 2)
		max_iter = atoi(argv[2]);
	if (size < 16 || max_iter < 1) {
		fprintf(stderr, "usage: mandel_omp [SIZE [ITERATIONS]]\n");
		return 2;
	}
	printf("%d x %d image, %ld points in the set\n", size, size, render());
	return 0;
}
