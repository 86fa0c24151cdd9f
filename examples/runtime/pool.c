/* pool.c - a program on the thread pool of pool.h, to profile with culprit.
 *
 * A phase of two equal tasks (balanced), then a phase with a single long
 * task while the other worker has nothing to do.  Under culprit, the long
 * task is charged the idle worker's time as idleness, and each task's
 * work appears under the phase that spawned it.
 *
 * build: cc -O2 -g pool.c $(pkg-config --cflags --libs culprit) -pthread
 * usage: pool [UNITS] */
#include <stdio.h>
#include <stdlib.h>

#include "pool.h"

static volatile double sink;

static __attribute__((noinline)) void crunch(void *arg)
{
	long n = (long)arg;
	double x = 1;
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	sink += x;
}

static __attribute__((noinline)) void balanced_phase(long units)
{
	pool_spawn(crunch, (void *)units);
	pool_spawn(crunch, (void *)units);
	pool_wait();
}

static __attribute__((noinline)) void lonely_phase(long units)
{
	pool_spawn(crunch, (void *)(2 * units));	/* the other worker has nothing */
	pool_wait();
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 150000000;
	pool_start();
	balanced_phase(units);
	lonely_phase(units);
	pool_stop();
	printf("pool done\n");
	return 0;
}
