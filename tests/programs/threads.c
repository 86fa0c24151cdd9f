/* threads.c - threads that come and go in every way.
 *
 * Three joinable workers (1, 2 and 3 units of work, in worker_one,
 * worker_two, worker_three), a detached one that ends with pthread_exit,
 * and one that is cancelled while it sleeps.  Each is named, so the
 * measurement files can be matched to them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "work.h"

volatile double sink;
static long unit = 40000000;
static pthread_barrier_t detached_done;

__attribute__((noinline)) double worker_one(void) { return work_units(unit); }
__attribute__((noinline)) double worker_two(void) { return work_units(2 * unit); }
__attribute__((noinline)) double worker_three(void) { return work_units(3 * unit); }

static void *run(void *arg)
{
	long which = (long)arg;
	char name[16];
	snprintf(name, sizeof name, "worker-%ld", which);
	pthread_setname_np(pthread_self(), name);
	double r = which == 1 ? worker_one() : which == 2 ? worker_two() : worker_three();
	sink += r;
	return NULL;
}

__attribute__((noinline)) double detached_work(void) { return work_units(unit); }

static void *detached(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "detached");
	sink += detached_work();
	pthread_barrier_wait(&detached_done);
	pthread_exit(NULL);
}

static void *sleepy(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "cancelled");
	for (;;)
		sleep(1);	/* a cancellation point */
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3], d, s;
	pthread_attr_t attr;

	if (argc > 1)
		unit = atol(argv[1]);
	pthread_barrier_init(&detached_done, NULL, 2);
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, run, (void *)(i + 1));
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_create(&d, &attr, detached, NULL);
	pthread_create(&s, NULL, sleepy, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_wait(&detached_done);
	pthread_cancel(s);
	pthread_join(s, NULL);
	printf("threads done\n");
	return 0;
}
