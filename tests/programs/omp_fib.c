/* omp_fib.c - a task-parallel recursion.
 *
 * fib() creates two tasks per call down to a cutoff and waits for them;
 * below it, it recurses serially.  The tasks run on whichever thread takes
 * them, deep in libomp's scheduler; a profiler that follows logical
 * contexts places every sample under main -> run -> open_region -> fib ->
 * ... -> fib, whichever thread ran it.
 *
 * usage: omp_fib [N [CUTOFF]]
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) long fib_serial(int n)
{
	return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

__attribute__((noinline)) long fib(int n, int cutoff)
{
	long a, b;

	if (n <= cutoff)
		return fib_serial(n);
#pragma omp task shared(a)
	a = fib(n - 1, cutoff);
#pragma omp task shared(b)
	b = fib(n - 2, cutoff);
#pragma omp taskwait
	return a + b;
}

__attribute__((noinline)) long open_region(int n, int cutoff)
{
	long r = 0;
#pragma omp parallel
#pragma omp single
	r = fib(n, cutoff);
	return r;
}

__attribute__((noinline)) long run(int n, int cutoff)
{
	return open_region(n, cutoff);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 32;
	int cutoff = argc > 2 ? atoi(argv[2]) : 12;

	printf("fib(%d) = %ld\n", n, run(n, cutoff));
	return 0;
}
