/* omp_tiny_tasks.c - tasks far too small for what they cost to make.
 *
 * fine: one thread runs spawn_round() over and over, which creates TASKS
 * tasks of a few instructions each and waits for them; the other thread
 * runs them from the barrier that ends the single construct.  Almost all
 * the effort goes to libomp: creating the tasks (__kmpc_omp_task,
 * GOMP_task), and running its scheduler in the taskwait and the barrier.
 *
 * mixed: the initial thread alone, outside any parallel region, runs
 * mixed_round() over and over, which does real work and then creates a
 * few tiny tasks (which run at once: there is no team to hand them to)
 * and waits for them.  Its overhead is about a twentieth of its effort
 * here, a tenth where task creation is slow (CI once measured 20.5% with
 * twice the tasks): under the threshold of a diagnosis, whatever else the
 * machine runs.  The runtime calls it makes are all overhead, and still a
 * noticeable share of all effort (over 2%).
 *
 * Either way the waste is inside libomp (and libc, which libomp calls),
 * but the code that pays for it, and that a programmer can change, is the
 * program's: a diagnosis must name it, not a procedure of libomp or libc.
 *
 * usage: omp_tiny_tasks [fine|mixed] [ROUNDS]  (run with OMP_NUM_THREADS=2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

#define TASKS 1000		/* tasks of a fine round */
#define MIXED_TASKS 750		/* tasks of a mixed round */
#define MIXED_UNITS 700000	/* work of a mixed round, before its tasks */

volatile double sink;

__attribute__((noinline)) void tiny(long i)
{
	sink = work_units(1 + i % 4);
}

__attribute__((noinline)) void spawn_round(void)
{
	for (long i = 0; i < TASKS; i++) {
#pragma omp task firstprivate(i)
		tiny(i);
	}
#pragma omp taskwait
}

__attribute__((noinline)) void fine(long rounds)
{
#pragma omp parallel
#pragma omp single
	for (long r = 0; r < rounds; r++)
		spawn_round();
}

__attribute__((noinline)) void mixed_round(void)
{
	sink = work_units(MIXED_UNITS);
	for (long i = 0; i < MIXED_TASKS; i++) {
#pragma omp task firstprivate(i)
		tiny(i);
	}
#pragma omp taskwait
}

__attribute__((noinline)) void mixed(long rounds)
{
	for (long r = 0; r < rounds; r++)
		mixed_round();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fine";
	long rounds = argc > 2 ? atol(argv[2]) : 1000;

	if (strcmp(mode, "mixed") == 0)
		mixed(rounds);
	else
		fine(rounds);
	printf("omp_tiny_tasks %s done\n", mode);
	return 0;
}
