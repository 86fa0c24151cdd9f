/* phases.c - a run in three phases of known lengths, for the timeline:
 *
 *   serial      the main thread works SERIAL ms; the others wait at a barrier
 *   parallel    every thread works PARALLEL ms
 *   imbalanced  the main thread works 2 * IMBALANCE ms, the others
 *               IMBALANCE ms and wait at a barrier for it
 *
 * Work runs to a deadline on the program's own clock, so the phases last
 * what they say on any machine.  Each phase prints its start and end, in
 * CLOCK_REALTIME seconds, as the main thread saw them:
 *   phase NAME START END
 * usage: phases [THREADS [SERIAL PARALLEL IMBALANCE]]   (2, 300 400 200) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

volatile double sink;
static pthread_barrier_t barrier;
static long parallel_ms, imbalance_ms;

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Works until MS milliseconds after START (CLOCK_MONOTONIC), in chunks of
 * about 50 us, so that nearly every sample lands in the caller. */
static inline void work_until(double start, long ms)
{
	while (clock_s(CLOCK_MONOTONIC) < start + (double)ms / 1e3)
		sink = work_units(20000);
}

__attribute__((noinline)) void serial_work(long ms)
{
	work_until(clock_s(CLOCK_MONOTONIC), ms);
}

__attribute__((noinline)) void parallel_work(double start, long ms)
{
	work_until(start, ms);
}

__attribute__((noinline)) void imbalanced_work(double start, long ms)
{
	work_until(start, ms);
}

/* The phases' shared starts: each thread works to the same deadline. */
static double parallel_start, imbalanced_start;

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&barrier);	/* the serial phase */
	pthread_barrier_wait(&barrier);	/* parallel_start is set */
	parallel_work(parallel_start, parallel_ms);
	pthread_barrier_wait(&barrier);
	pthread_barrier_wait(&barrier);	/* imbalanced_start is set */
	imbalanced_work(imbalanced_start, imbalance_ms);
	pthread_barrier_wait(&barrier);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	long serial_ms = argc > 4 ? atol(argv[2]) : 300;
	parallel_ms = argc > 4 ? atol(argv[3]) : 400;
	imbalance_ms = argc > 4 ? atol(argv[4]) : 200;
	if (threads < 1 || threads > 256 || serial_ms < 0 || parallel_ms < 0 || imbalance_ms < 0) {
		fprintf(stderr, "usage: phases [THREADS [SERIAL PARALLEL IMBALANCE]]\n");
		return 2;
	}
	pthread_t tid[256];
	pthread_barrier_init(&barrier, NULL, (unsigned)threads);
	for (int i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, NULL);

	double t0 = clock_s(CLOCK_REALTIME);
	serial_work(serial_ms);
	double t1 = clock_s(CLOCK_REALTIME);
	printf("phase serial %.6f %.6f\n", t0, t1);
	pthread_barrier_wait(&barrier);

	parallel_start = clock_s(CLOCK_MONOTONIC);
	t0 = clock_s(CLOCK_REALTIME);
	pthread_barrier_wait(&barrier);
	parallel_work(parallel_start, parallel_ms);
	pthread_barrier_wait(&barrier);
	t1 = clock_s(CLOCK_REALTIME);
	printf("phase parallel %.6f %.6f\n", t0, t1);

	imbalanced_start = clock_s(CLOCK_MONOTONIC);
	t0 = clock_s(CLOCK_REALTIME);
	pthread_barrier_wait(&barrier);
	imbalanced_work(imbalanced_start, 2 * imbalance_ms);
	pthread_barrier_wait(&barrier);
	t1 = clock_s(CLOCK_REALTIME);
	printf("phase imbalanced %.6f %.6f\n", t0, t1);

	for (int i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	return 0;
}
