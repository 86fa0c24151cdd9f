/* omp_serial.c - serial phases between parallel regions, while the pool's
 * workers wait: one inlined into main, run twice from two lines (a
 * warm-up and a timed run of the same code), and one in a library built
 * without debug information (serial_lib.c), whose internal code does the
 * work.  A diagnosis must name the inlined function, twice, told apart by
 * main's lines, and the library's entry point, not its internals.
 *
 * usage: omp_serial [UNITS]  (run with OMP_NUM_THREADS=2)
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

void lib_entry(long units);

/* The work written out, so that no other function holds it. */
static inline __attribute__((always_inline)) void setup_inlined(long units)
{
	double x = 1.0;
	for (long i = 0; i < units; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}

__attribute__((noinline)) void region(long units)
{
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = 0; i < 64; i++)
		sink = work_units(units / 64);
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 40000000;
	region(units);
	setup_inlined(units); /* call:warm-up */
	region(units);
	setup_inlined(units); /* call:timed */
	region(units);
	lib_entry(units);
	region(units);
	printf("omp_serial done\n");
	return 0;
}
