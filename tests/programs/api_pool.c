/* api_pool.c - a custom runtime (examples/runtime/pool.h, 2 workers) that
 * declares its workers and tasks through culprit's API.
 *
 * Phases of equal total work (2 x UNITS each):
 *   balanced_phase:  two tasks of UNITS, one per worker: idleness only where
 *                    one started or ended before the other, which the
 *                    tasks time themselves (printed as "balanced idle");
 *   serial_phase:    one task of 2 x UNITS while the other worker waits,
 *                    declared CULPRIT_WAIT_SERIAL: idleness:serial = work;
 *   lock_phase:      the same, the wait declared CULPRIT_WAIT_LOCK:
 *                    idleness:lock = work;
 *   nested_phase:    a task that spawns the task of 2 x UNITS: that one
 *                    runs under nested_phase -> spawner.
 * Every task runs under the phase that spawned it.
 *
 * usage: api_pool [UNITS]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pool.h"
#include "work.h"

volatile double sink;

__attribute__((noinline)) void crunch(void *arg)
{
	sink = work_units((long)arg);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A task that times itself. */
struct timed {
	long units;
	double start, end;
};

__attribute__((noinline)) void timed_crunch(void *arg)
{
	struct timed *t = arg;
	t->start = now();
	crunch((void *)t->units);
	t->end = now();
}

static double balanced_idle;	/* seconds a worker waited for the other */

__attribute__((noinline)) void balanced_phase(long units)
{
	struct timed a = { units, 0, 0 }, b = { units, 0, 0 };
	pool_spawn(timed_crunch, &a);
	pool_spawn(timed_crunch, &b);
	pool_wait();
	/* The worker that started later waited meanwhile, and the one that
	 * ended first waits until the other ends (on a busy machine either
	 * may be descheduled for a while). */
	balanced_idle += (a.start > b.start ? a.start - b.start : b.start - a.start) +
			 (a.end > b.end ? a.end - b.end : b.end - a.end);
}

__attribute__((noinline)) void serial_phase(long units)
{
	pool_waiting_means(CULPRIT_WAIT_SERIAL);
	pool_spawn(crunch, (void *)(2 * units));
	pool_wait();
}

__attribute__((noinline)) void lock_phase(long units)
{
	pool_waiting_means(CULPRIT_WAIT_LOCK);
	pool_spawn(crunch, (void *)(2 * units));
	pool_wait();
}

__attribute__((noinline)) void spawner(void *arg)
{
	pool_spawn(crunch, arg);
	__asm__ volatile("");	/* not a tail call: spawner stays on the stack */
}

__attribute__((noinline)) void nested_phase(long units)
{
	pool_waiting_means(CULPRIT_WAIT_SERIAL);
	pool_spawn(spawner, (void *)(2 * units));
	pool_wait();
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 60000000;

	pool_start();
	for (int round = 0; round < 2; round++) {
		balanced_phase(units);
		serial_phase(units);
		lock_phase(units);
		nested_phase(units);
	}
	pool_stop();
	printf("balanced idle %.6f\n", balanced_idle);
	printf("api_pool done\n");
	return 0;
}
