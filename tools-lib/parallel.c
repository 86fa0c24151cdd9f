/* parallel.c - a parallel loop over a small pool of threads, for the
 * postmortem's independent pieces (modules to name, files to read). */
#include "tools.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

int cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

struct loop {
	void (*fn)(void *, size_t);
	void *arg;
	size_t n;
	atomic_size_t next;
};

static void *loop_worker(void *p)
{
	struct loop *l = p;
	size_t i;
	while ((i = atomic_fetch_add(&l->next, 1)) < l->n)
		l->fn(l->arg, i);
	return NULL;
}

void parallel_for(int jobs, size_t n, void (*fn)(void *, size_t), void *arg)
{
	struct loop l = { fn, arg, n, 0 };
	if (jobs > (int)n)
		jobs = (int)n;
	if (jobs <= 1) {
		for (size_t i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	pthread_t *t = xcalloc((size_t)jobs, sizeof *t);
	int started = 0;
	for (int j = 1; j < jobs; j++)
		if (pthread_create(&t[j], NULL, loop_worker, &l) == 0)
			started++;
		else
			break;
	loop_worker(&l);
	for (int j = 1; j <= started; j++)
		pthread_join(t[j], NULL);
	free(t);
}
