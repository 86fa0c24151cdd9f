/* create_fail.c - pthread_create calls that fail, among ones that work.
 *
 * main tries twice to create a thread with a stack larger than any address
 * space (pthread_create fails: EAGAIN), then creates `spawner`, which
 * fails three times the same way and then creates two workers.  Under
 * culprit every try, failed or not, first captures the creating context
 * for the new thread; a failed one must give that record back.
 * Prints how the tries went and a result that does not depend on the
 * profiler: the same output with culprit and without.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "work.h"

#define UNITS 100000000L

volatile double sink;
static pthread_attr_t impossible;	/* a stack of SIZE_MAX / 2 bytes */
static int failed, tries;
static char why[64];			/* strerror of the failures */

void *worker(void *arg)
{
	long id = (long)arg;
	char name[16];
	snprintf(name, sizeof name, "worker-%ld", id);
	pthread_setname_np(pthread_self(), name);
	sink = work_units(UNITS);
	return (void *)(id * 10);
}

/* Tries N times to create a thread that cannot be made. */
__attribute__((noinline)) void try_impossible(int n)
{
	for (int i = 0; i < n; i++) {
		pthread_t t;
		int rc = pthread_create(&t, &impossible, worker, (void *)0L);
		tries++;
		if (rc == 0) {
			pthread_join(t, NULL);
			continue;
		}
		failed++;
		snprintf(why, sizeof why, "%s", strerror(rc));
	}
}

/* Two workers, made and joined: returns the sum of their results. */
__attribute__((noinline)) long spawn_workers(void)
{
	pthread_t t[2];
	long sum = 0;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)) != 0)
			return -1;
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	return sum;
}

void *spawner(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "spawner");
	try_impossible(3);
	return (void *)spawn_workers();
}

int main(void)
{
	pthread_t t;
	void *r;

	pthread_attr_init(&impossible);
	if (pthread_attr_setstacksize(&impossible, SIZE_MAX / 2) != 0) {
		printf("create_fail: cannot ask for an impossible stack\n");
		return 1;
	}
	try_impossible(2);
	if (pthread_create(&t, NULL, spawner, NULL) != 0) {
		printf("create_fail: cannot create the spawner\n");
		return 1;
	}
	pthread_join(t, &r);
	printf("create_fail: %d of %d impossible creations failed (%s); workers' result %ld\n",
	       failed, tries, why, (long)r);
	return failed == tries ? 0 : 1;
}
