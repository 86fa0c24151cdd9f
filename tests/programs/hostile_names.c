/* hostile_names.c - a program whose thread names carry terminal control
 * sequences (ESC [2J clears a screen, BEL rings, a UTF-8 C1 CSI), as any
 * program may set them: culprit's output must show them harmlessly.
 * The test runs it under a file name that carries an escape too. */
#define _GNU_SOURCE
#include <pthread.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) double hostile_work(void) { return work_units(20000000); }

static void *worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "w\xc2\x9b" "31m\033]0;t\007");
	sink += hostile_work();
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_setname_np(pthread_self(), "m\033[2J\007x");
	pthread_create(&t, NULL, worker, NULL);
	sink += hostile_work();
	pthread_join(t, NULL);
	return 0;
}
