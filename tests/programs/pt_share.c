/* pt_share.c - threads that wait while the CPUs are busy, and several
 * threads waiting for one free CPU: idleness is the CPU capacity lost.
 *
 * Two phases, each with one worker per CPU the program may run on, each
 * wait timed by the program with CLOCK_MONOTONIC:
 *   1. "queue": main waits on a condition variable until the workers have
 *      done the work (pool_work, in chunks they take in turn), as a
 *      pipeline's reader or a compressor's main thread waits for its
 *      workers: every CPU works meanwhile, so the wait loses nothing;
 *   2. "barrier": the workers meet at a pthread barrier, worker 0 with
 *      three times the others' work (slow_work against fast_work), while
 *      main joins them: the CPUs the fast workers leave free are lost
 *      once, to the barrier, however many threads wait for them.
 * Prints main's condition wait ("queue"), the fast workers' barrier waits
 * summed ("barrier") and main's join ("join"), in seconds; and the CPU
 * capacity the barrier lost, from the slow worker's CPU clock ("alone": its
 * CPU time from each fast worker's arrival on, summed), which is the
 * barrier wait on a quiet machine and less beside a busy one.
 * usage: pt_share [UNITS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

volatile double sink;
static long unit = 20000000;
static int nworkers;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static int done;
static pthread_barrier_t barrier;
static double barrier_waited;	/* under m */

/* The queue's work, 4 units a worker, in chunks the workers take in turn:
 * they end together even when a busy neighbour slows one of them. */
#define CHUNKS 100
static _Atomic long next_chunk, chunks;
__attribute__((noinline)) void pool_work(void)
{
	while (atomic_fetch_add(&next_chunk, 1) < chunks)
		sink = work_units(4 * unit / CHUNKS);
}
static double cpu_now(void);
/* The slow worker's work, in chunks: after each, it notes its CPU clock
 * for each fast worker that arrived at the barrier meanwhile. */
static _Atomic int arrived;
static int seen;
static double cpu_at_arrivals;	/* summed over the fast workers seen */
__attribute__((noinline)) void slow_work(void)
{
	for (int i = 0; i < 3 * CHUNKS; i++) {
		sink = work_units(2 * unit / CHUNKS);
		for (int a = atomic_load(&arrived); seen < a; seen++)
			cpu_at_arrivals += cpu_now();
	}
}
__attribute__((noinline)) void fast_work(void) { sink = work_units(2 * unit); }
static double slow_cpu;

static void *queue_worker(void *arg)
{
	(void)arg;
	pool_work();
	pthread_mutex_lock(&m);
	if (++done == nworkers)
		pthread_cond_signal(&all_done);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *barrier_worker(void *arg)
{
	int id = (int)(long)arg;
	if (id == 0) {
		slow_work();
		slow_cpu = cpu_now();
	} else {
		fast_work();
		atomic_fetch_add(&arrived, 1);
	}
	double t0 = now();
	pthread_barrier_wait(&barrier);
	double waited = now() - t0;
	if (id != 0) {
		pthread_mutex_lock(&m);
		barrier_waited += waited;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	cpu_set_t cpus;
	if (argc > 1)
		unit = atol(argv[1]);
	nworkers = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 2;
	if (nworkers < 2)
		nworkers = 2;
	pthread_t *t = malloc(nworkers * sizeof *t);
	if (!t)
		return 1;

	chunks = (long)nworkers * CHUNKS;
	for (int i = 0; i < nworkers; i++)
		pthread_create(&t[i], NULL, queue_worker, NULL);
	double t0 = now();
	pthread_mutex_lock(&m);
	while (done < nworkers)
		pthread_cond_wait(&all_done, &m);
	pthread_mutex_unlock(&m);
	double queue = now() - t0;
	for (int i = 0; i < nworkers; i++)
		pthread_join(t[i], NULL);

	pthread_barrier_init(&barrier, NULL, nworkers);
	for (int i = 0; i < nworkers; i++)
		pthread_create(&t[i], NULL, barrier_worker, (void *)(long)i);
	t0 = now();
	for (int i = 0; i < nworkers; i++)
		pthread_join(t[i], NULL);
	double join = now() - t0;

	printf("workers %d\n", nworkers);
	printf("waited queue %.6f barrier %.6f join %.6f\n", queue, barrier_waited, join);
	/* Each fast worker at the barrier leaves its CPU free while the
	 * slow one runs on: the slow one's CPU time from each arrival on. */
	printf("alone %.6f\n", seen * slow_cpu - cpu_at_arrivals);
	printf("pt_share done\n");
	free(t);
	return 0;
}
