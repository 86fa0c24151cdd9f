/* mandel_row.h - the Mandelbrot kernel of the examples: a row of the image,
 * whose cost depends on how close it runs to the set's middle.  mandel.c
 * (pthreads) and mandel_omp.c (OpenMP) both render with it. */
#ifndef MANDEL_ROW_H
#define MANDEL_ROW_H

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

/* Points of row Y inside the set. */
static long __attribute__((noinline)) render_row(int y)
{
	long inside = 0;
	double ci = -1.5 + 3.0 * y / size;
	for (int x = 0; x < size; x++)
		inside += escape_time(-2.0 + 3.0 * x / size, ci) == max_iter;
	return inside;
}

#endif
