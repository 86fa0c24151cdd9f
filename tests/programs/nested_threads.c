/* nested_threads.c - a thread that creates a thread.
 *
 * main -> spawn_outer creates `outer`, which calls spawn_inner, which
 * creates `inner`, which works.  The inner thread's work belongs under
 * main -> spawn_outer -> outer -> spawn_inner -> inner.
 */
#include <pthread.h>
#include <stdio.h>

#include "work.h"

volatile double sink;

void *inner(void *arg)
{
	sink = work_units((long)arg);
	return NULL;
}

__attribute__((noinline)) void spawn_inner(long units)
{
	pthread_t t;
	pthread_create(&t, NULL, inner, (void *)units);
	pthread_join(t, NULL);
}

void *outer(void *arg)
{
	spawn_inner((long)arg);
	return NULL;
}

__attribute__((noinline)) void spawn_outer(long units)
{
	pthread_t t;
	pthread_create(&t, NULL, outer, (void *)units);
	pthread_join(t, NULL);
}

int main(void)
{
	spawn_outer(300000000);
	printf("nested_threads done\n");
	return 0;
}
