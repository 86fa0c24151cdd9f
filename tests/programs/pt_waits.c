/* pt_waits.c - a pthreads program that knows how long its threads waited.
 *
 * Two threads (main and one worker), phases with known waits, each timed
 * by the program with CLOCK_MONOTONIC around the wait:
 *   1. a serial step: main computes while the worker waits at a
 *      condition-variable barrier (cv_barrier, as SPLASH builds it);
 *   2. an imbalanced round ending at the same barrier;
 *   3. a contended mutex around a critical section;
 *   4. a pthread barrier after an imbalanced step;
 *   5. main joins a long worker, which times its own CPU time ("longcpu":
 *      the CPU capacity main's wait lost, beside a busy neighbour too);
 *   6. main launches one worker per CPU it may run on, and joins them: the
 *      CPUs are all busy meanwhile, so that wait is no loss (the workers
 *      take the work in chunks, so that they end together).
 * Prints per kind the seconds waited (phase 6 apart, as "launch"), and the
 * process's CPU time.
 * usage: pt_waits [UNITS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

volatile double sink;
static long unit = 20000000;

static double now(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static pthread_mutex_t bm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bc = PTHREAD_COND_INITIALIZER;
static int arrived, generation;
static double waited_cv[2], waited_lock[2], waited_pbar[2];

static void cv_barrier(int id)
{
	double t0 = now(CLOCK_MONOTONIC);
	pthread_mutex_lock(&bm);
	int g = generation;
	if (++arrived == 2) {
		arrived = 0;
		generation++;
		pthread_cond_broadcast(&bc);
	} else {
		while (g == generation)
			pthread_cond_wait(&bc, &bm);
	}
	pthread_mutex_unlock(&bm);
	waited_cv[id] += now(CLOCK_MONOTONIC) - t0;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t pbar;

static __attribute__((noinline)) void serial_step(void) { sink = work_units(8 * unit); }
static __attribute__((noinline)) void imbalanced(int id) { sink = work_units((long)(id + 1) * 2 * unit); }
static __attribute__((noinline)) void critical(void) { sink = work_units(unit / 2); }
static __attribute__((noinline)) void before_barrier(int id) { sink = work_units(id ? unit : 4 * unit); }

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	if (id == 0)
		serial_step();
	cv_barrier(id);
	imbalanced(id);
	cv_barrier(id);
	for (int i = 0; i < 8; i++) {
		double t0 = now(CLOCK_MONOTONIC);
		pthread_mutex_lock(&lock);
		waited_lock[id] += now(CLOCK_MONOTONIC) - t0;
		critical();
		pthread_mutex_unlock(&lock);
	}
	before_barrier(id);
	double t0 = now(CLOCK_MONOTONIC);
	pthread_barrier_wait(&pbar);
	waited_pbar[id] += now(CLOCK_MONOTONIC) - t0;
	return NULL;
}

static __attribute__((noinline)) void long_work(void) { sink = work_units(6 * unit); }
static double long_cpu;	/* long_work's CPU time: what main's join lost */
static void *long_worker(void *arg)
{
	(void)arg;
	double t0 = now(CLOCK_THREAD_CPUTIME_ID);
	long_work();
	long_cpu = now(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

/* Phase 6's work, 4 units a worker, in chunks the workers take in turn:
 * they end together even when a busy neighbour slows one of them. */
#define LAUNCH_CHUNKS 100
static _Atomic long launch_next, launch_chunks;
static __attribute__((noinline)) void launched_work(void)
{
	while (atomic_fetch_add(&launch_next, 1) < launch_chunks)
		sink = work_units(4 * unit / LAUNCH_CHUNKS);
}
static void *launched(void *arg) { (void)arg; launched_work(); return NULL; }

/* Phase 6: the seconds main waited for one worker per CPU. */
static double launch_and_join(void)
{
	cpu_set_t cpus;
	int n = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
	if (n > 64)
		n = 64;
	pthread_t t[64];
	launch_chunks = (long)n * LAUNCH_CHUNKS;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, launched, NULL);
	double j0 = now(CLOCK_MONOTONIC);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return now(CLOCK_MONOTONIC) - j0;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		unit = atol(argv[1]);
	pthread_barrier_init(&pbar, NULL, 2);
	pthread_t t, lw;
	pthread_create(&t, NULL, worker, (void *)1L);
	worker(0);
	pthread_join(t, NULL);
	pthread_create(&lw, NULL, long_worker, NULL);
	double j0 = now(CLOCK_MONOTONIC);
	pthread_join(lw, NULL);
	double join = now(CLOCK_MONOTONIC) - j0;
	double launch = launch_and_join();
	printf("waited cv %.6f lock %.6f barrier %.6f join %.6f launch %.6f cpu %.6f longcpu %.6f\n",
	       waited_cv[0] + waited_cv[1], waited_lock[0] + waited_lock[1],
	       waited_pbar[0] + waited_pbar[1], join, launch, now(CLOCK_PROCESS_CPUTIME_ID),
	       long_cpu);
	printf("pt_waits done\n");
	return 0;
}
