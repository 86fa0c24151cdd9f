/* uncontended.c - two threads, each locking its own mutex around its own
 * work: locks that never block, so no thread ever waits.
 * usage: uncontended [ROUNDS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;
static long rounds = 200000;
static pthread_mutex_t lock[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };

static __attribute__((noinline)) void own_work(void) { sink = work_units(2000); }

static void *loop(void *arg)
{
	pthread_mutex_t *m = arg;
	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(m);
		own_work();
		pthread_mutex_unlock(m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atol(argv[1]);
	pthread_t t;
	pthread_create(&t, NULL, loop, &lock[1]);
	loop(&lock[0]);
	pthread_join(t, NULL);
	printf("uncontended done\n");
	return 0;
}
