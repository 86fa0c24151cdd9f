/* recurse.c - a deep, known stack: descend(DEPTH) recurses DEPTH times
 * before the leaf works.  usage: recurse DEPTH [UNITS] */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) double deep_leaf(long n) { return work_units(n); }

__attribute__((noinline)) double descend(int depth, long n)
{
	if (depth == 0)
		return deep_leaf(n);
	double r = descend(depth - 1, n);
	sink = r;		/* work after the call: no tail call */
	return r + depth;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 40;
	long n = argc > 2 ? atol(argv[2]) : 100000000;

	for (int i = 0; i < 10; i++)
		sink += descend(depth, n / 10);
	printf("recursion done\n");
	return 0;
}
