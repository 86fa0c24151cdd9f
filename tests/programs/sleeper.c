/* sleeper.c - half computing, half sleeping, for wall-clock sampling.
 *
 * Alternates compute() and nap() in equal wall-clock shares.  Prints
 * whether every sleep lasted as long as asked: a wall-clock profiler's
 * signal must not cut sleeps short.  usage: sleeper [ROUNDS] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

volatile double sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) void compute(double seconds)
{
	double end = now() + seconds;
	while (now() < end)
		sink += work_units(20000);
}

/* Returns 1 if the sleeps lasted their full time. */
__attribute__((noinline)) int nap(double seconds)
{
	double start = now();
	struct timespec ts = { 0, (long)(seconds / 2 * 1e9) };
	nanosleep(&ts, NULL);		/* one half through nanosleep */
	usleep((useconds_t)(seconds / 2 * 1e6));	/* one through usleep */
	return now() - start >= seconds * 0.98;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 8;
	int full = 1;

	for (int i = 0; i < rounds; i++) {
		compute(0.05);
		full &= nap(0.05);
	}
	printf("sleeps lasted their full time: %s\n", full ? "yes" : "no");
	return 0;
}
