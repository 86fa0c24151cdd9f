/* mandel.c - a parallel Mandelbrot renderer that does not scale as well as
 * it could: the image is cut into equal bands of rows, one per thread, but
 * the rows near the set's middle cost far more than those at the edges.
 * Profile it to see which thread did the work and where.
 *
 * usage: mandel [THREADS [SIZE [ITERATIONS]]]   (default 4 1200 600) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mandel_row.h"

struct band {
	int first, last;	/* rows [first, last) */
	long inside;		/* points found in the set */
};

static void *render_band(void *arg)
{
	struct band *b = arg;
	for (int y = b->first; y < b->last; y++)
		b->inside += render_row(y);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		size = atoi(argv[2]);
	if (argc > 3)
		max_iter = atoi(argv[3]);
	if (threads < 1 || threads > 256 || size < 16 || max_iter < 1) {
		fprintf(stderr, "usage: mandel [THREADS [SIZE [ITERATIONS]]]\n");
		return 2;
	}
	pthread_t *tid = calloc((size_t)threads, sizeof *tid);
	struct band *band = calloc((size_t)threads, sizeof *band);
	if (!tid || !band)
		return 1;
	for (int i = 0; i < threads; i++) {
		band[i].first = size * i / threads;
		band[i].last = size * (i + 1) / threads;
		pthread_create(&tid[i], NULL, render_band, &band[i]);
	}
	long inside = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		inside += band[i].inside;
	}
	printf("%d x %d image, %ld points in the set\n", size, size, inside);
	free(tid);
	free(band);
	return 0;
}
