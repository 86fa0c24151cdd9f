/* churn.c - 10,000 threads that come and go, ten at a time, each doing a
 * little work (a worker pool that is not a pool).
 * usage: churn [THREADS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) double short_task(void) { return work_units(20000); }

static void *run(void *arg)
{
	(void)arg;
	sink += short_task();
	return NULL;
}

int main(int argc, char **argv)
{
	long want = argc > 1 ? atol(argv[1]) : 10000, made = 0;
	while (made < want) {
		pthread_t t[10];
		int n = 0;
		for (; n < 10 && made + n < want; n++)
			if (pthread_create(&t[n], NULL, run, NULL) != 0)
				break;
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		if (n == 0)
			break;
		made += n;
	}
	printf("%ld threads\n", made);
	return made == want ? 0 : 1;
}
