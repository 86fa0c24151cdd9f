/* lock_work.c - lock/unlock loops for bench/lock_overhead.sh.
 *
 * usage: lock_work uncontended|contended THREADS ITERATIONS
 *   uncontended: each thread locks its own mutex around a tiny critical
 *                section: the locks never block (the cost of the wrapper's
 *                try-first);
 *   contended:   all threads share one mutex: most locks block (the cost of
 *                a wait's state changes and its count).
 * Prints the loop's wall-clock seconds. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long iterations;
static int shared;
static pthread_mutex_t one = PTHREAD_MUTEX_INITIALIZER;
static struct { pthread_mutex_t m; char pad[64 - sizeof(pthread_mutex_t) % 64]; } own[64];
static volatile long counter[64 * 8];

static void *loop(void *arg)
{
	long id = (long)arg;
	pthread_mutex_t *m = shared ? &one : &own[id].m;
	for (long i = 0; i < iterations; i++) {
		pthread_mutex_lock(m);
		counter[id * 8]++;
		pthread_mutex_unlock(m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	shared = strcmp(argv[1], "contended") == 0;
	int n = atoi(argv[2]);
	iterations = atol(argv[3]);
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_mutex_init(&own[i].m, NULL);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pthread_t t[64];
	for (long i = 1; i < n; i++)
		pthread_create(&t[i], NULL, loop, (void *)i);
	loop(0);
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.6f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
