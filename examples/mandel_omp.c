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

static int size = 1200, max_iter = 600;

/* Iterations before the orbit of (cr, ci) escapes, up to max_iter. */
static int __attribute__((noinline)) escape_time(double cr, double ci)
{
	double zr = 0, zi = 0;
	int n = 0;
	while (n < max_iter && zr * zr + zi * zi <= 4.0) {
		double t = zr * zr - zi * zi + cr;
		zi = 2 * zr * zi + ci;
		zr = t;
		n++;
	}
	return n;
}

static long __attribute__((noinline)) render_row(int y)
{
	long inside = 0;
	double ci = -1.5 + 3.0 * y / size;
	for (int x = 0; x < size; x++)
		inside += escape_time(-2.0 + 3.0 * x / size, ci) == max_iter;
	return inside;
}

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
