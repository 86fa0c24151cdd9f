/* omp_bodies.c - work written in the bodies of OpenMP constructs, which
 * the compiler moves into functions of its own, and calls made from them.
 *
 * Each construct is in a function of its own: parallel, a worksharing
 * loop, tasks created in a single, master, sections.  Every body does
 * work on its own lines (the BODY_WORK loop, expanded in place) and calls
 * a function of its own from a line marked "call:NAME".  Each thread
 * times both with its own CPU clock and the program prints, per construct,
 * the CPU seconds of the body's own lines and of the call:
 *
 *   body in_parallel 0.2012 call 0.1003
 *
 * A profiler must show the body's own time as the exclusive time of the
 * function that wrote the construct, and each call under its own line.
 *
 * usage: omp_bodies [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

volatile double sink;

enum { PARALLEL, FOR, TASKS, MASTER, SECTIONS, NCONSTRUCTS };
static const char *const construct_name[NCONSTRUCTS] = {
	"in_parallel", "in_for", "in_tasks", "in_master", "in_sections",
};

/* Per thread and construct (at most MAXTHREADS threads), so that no two
 * threads write one word. */
#define MAXTHREADS 16
static struct {
	double body, call;
	char pad[48];
} spent[MAXTHREADS][NCONSTRUCTS];

static double thread_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int omp_get_thread_num(void);

static int me(void)
{
	int t = omp_get_thread_num();
	return t < MAXTHREADS ? t : MAXTHREADS - 1;
}

/* The body's own work: the same chain as work.h's, written out on the
 * body's lines so that no other function holds it. */
#define BODY_WORK(k, units)                                                 \
	do {                                                                \
		double t0_ = thread_seconds(), x_ = 1.0;                    \
		for (long i_ = 0; i_ < (units); i_++)                       \
			x_ = x_ * 1.0000001 + 1e-9;                         \
		sink = x_;                                                  \
		spent[me()][k].body += thread_seconds() - t0_;              \
	} while (0)

#define CALLEE(name, k)                                                     \
	__attribute__((noinline)) void name(long units)                    \
	{                                                                   \
		double t0 = thread_seconds();                               \
		sink = work_units(units);                                   \
		spent[me()][k].call += thread_seconds() - t0;               \
	}
CALLEE(parallel_callee, PARALLEL)
CALLEE(for_callee, FOR)
CALLEE(task_callee, TASKS)
CALLEE(master_callee, MASTER)
CALLEE(sections_callee, SECTIONS)

__attribute__((noinline)) void in_parallel(long units)
{
#pragma omp parallel
	{
		BODY_WORK(PARALLEL, units);
		parallel_callee(units / 2); /* call:parallel_callee */
	}
}

#define ITERATIONS 64

__attribute__((noinline)) void in_for(long units)
{
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = 0; i < ITERATIONS; i++) {
		BODY_WORK(FOR, units / ITERATIONS);
		for_callee(units / ITERATIONS / 2); /* call:for_callee */
	}
}

#define TASKS_MADE 32

__attribute__((noinline)) void in_tasks(long units)
{
#pragma omp parallel
#pragma omp single
	for (int i = 0; i < TASKS_MADE; i++) {
#pragma omp task firstprivate(units)
		{
			BODY_WORK(TASKS, 2 * units / TASKS_MADE);
			task_callee(units / TASKS_MADE); /* call:task_callee */
		}
	}
}

__attribute__((noinline)) void in_master(long units)
{
#pragma omp parallel
	{
#pragma omp master
		{
			BODY_WORK(MASTER, units);
			master_callee(units / 2); /* call:master_callee */
		}
#pragma omp barrier
	}
}

__attribute__((noinline)) void in_sections(long units)
{
#pragma omp parallel sections
	{
#pragma omp section
		{
			BODY_WORK(SECTIONS, units);
			sections_callee(units / 2); /* call:sections_callee */
		}
#pragma omp section
		{
			BODY_WORK(SECTIONS, units);
		}
	}
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 40000000;
	in_parallel(units);
	in_for(2 * units);
	in_tasks(units);
	in_master(units);
	in_sections(units);
	for (int k = 0; k < NCONSTRUCTS; k++) {
		double body = 0, call = 0;
		for (int t = 0; t < MAXTHREADS; t++) {
			body += spent[t][k].body;
			call += spent[t][k].call;
		}
		printf("body %s %.4f call %.4f\n", construct_name[k], body, call);
	}
	printf("omp_bodies done\n");
	return 0;
}
