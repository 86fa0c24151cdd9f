/* omp_lock.c - threads waiting for a critical section, and a thread that
 * polls a lock with omp_test_lock while doing work.
 *
 * critical_phase: 2 threads each run ROUNDS critical sections and nothing
 * else, so one works while the other waits for the lock: in_critical
 * carries idleness equal to its work, all of it `idleness:lock`.
 *
 * polling_phase: one thread holds a lock while it works (held); the other
 * polls the lock with omp_test_lock and works between tries (polling).
 * Nobody waits: a failed omp_test_lock must not leave the poller idle, so
 * polling keeps its work and held gets almost no idleness.
 *
 * usage: omp_lock [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;
static volatile int taken;	/* not a local: clang's outlining would lose volatile */

#define ROUNDS 16

__attribute__((noinline)) void in_critical(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void critical_phase(long units)
{
#pragma omp parallel
	for (int r = 0; r < ROUNDS; r++) {
#pragma omp critical
		in_critical(units);
	}
}

__attribute__((noinline)) void held(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void polling(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void polling_phase(long units)
{
	omp_lock_t lock;

	omp_init_lock(&lock);
	taken = 0;
#pragma omp parallel num_threads(2)
	{
		if (omp_get_thread_num() == 0) {
			omp_set_lock(&lock);
			taken = 1;
			held(ROUNDS * units);
			omp_unset_lock(&lock);
		} else {
			while (!taken)
				;
			while (!omp_test_lock(&lock))
				polling(units / 64);
			omp_unset_lock(&lock);
		}
	}
	omp_destroy_lock(&lock);
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 4000000;

	critical_phase(units);
	polling_phase(units);
	printf("omp_lock done\n");
	return 0;
}
