/* tagged.c - code tagged as overhead through its line table.
 *
 * runtime_bookkeeping(), at the end of this file, is compiled under
 * `#line 1 "culprit:overhead/bookkeeping"`, as a runtime would tag its
 * scheduler: its samples are overhead of type bookkeeping.  user_work()
 * does the same amount of work untagged: useful work.  The loops are
 * written out here (not work.h's) so that the sampled lines are these.
 *
 * usage: tagged [UNITS]
 */
#include <stdio.h>
#include <stdlib.h>

volatile double sink;

void runtime_bookkeeping(long n);

__attribute__((noinline)) void user_work(long n)
{
	double x = 1.0;
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 100000000;

	for (int round = 0; round < 4; round++) {
		user_work(units);
		runtime_bookkeeping(units);
	}
	printf("tagged done\n");
	return 0;
}

#line 1 "culprit:overhead/bookkeeping"
__attribute__((noinline)) void runtime_bookkeeping(long n)
{
	double x = 1.0;
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}
