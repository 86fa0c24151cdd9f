/* omp_untied.c - tasks that are set aside and resumed: untied tasks (their
 * continuation may run on another thread; clang starts each with a task
 * scheduling point), and undeferred ones (if(0)) that wait for children.
 *
 * Each kind of task must sit under the code that created it, and after the
 * region, serial() must sit directly under main: a profiler that loses
 * track of the tasks a thread set aside restores a stale context at the
 * region's end and files serial() under a task, with a second main inside
 * (BOTS strassen built with clang did).
 *
 * usage: omp_untied [UNITS [TASKS]]  (OMP_NUM_THREADS=1 or 2)
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) void untied_body(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void child_body(long units)
{
	sink = work_units(units);
}

__attribute__((noinline)) void after_wait(long units)
{
	sink = work_units(units);
}

/* Untied tasks, each waiting for an untied child of its own. */
__attribute__((noinline)) void untied_tasks(long units, int tasks)
{
#pragma omp parallel
#pragma omp single
	for (int i = 0; i < tasks; i++) {
#pragma omp task untied
		{
			untied_body(units);
#pragma omp task untied
			child_body(units);
#pragma omp taskwait
			after_wait(units);
		}
	}
}

/* Undeferred tasks that create children and wait for them. */
__attribute__((noinline)) void undeferred_tasks(long units, int tasks)
{
#pragma omp parallel
#pragma omp single
	for (int i = 0; i < tasks; i++) {
#pragma omp task if(0)
		{
			for (int j = 0; j < 2; j++) {
#pragma omp task
				child_body(units);
			}
#pragma omp taskwait
			after_wait(units);
		}
	}
}

__attribute__((noinline)) void serial(long units)
{
	sink = work_units(units);
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 2000000;
	int tasks = argc > 2 ? atoi(argv[2]) : 40;

	untied_tasks(units, tasks);
	undeferred_tasks(units, tasks);
	serial(units * tasks);
	printf("omp_untied done\n");
	return 0;
}
