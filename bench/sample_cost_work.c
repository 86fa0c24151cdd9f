/* sample_cost_work.c - deep-stack workload for bench/sample_cost.sh.
 *
 * usage: sample_cost_work DEPTH ITERATIONS
 *
 * Recurses through DEPTH noinline frames of recurse() and then runs
 * ITERATIONS steps of a floating-point dependency chain in a noinline leaf,
 * so nearly every sample sees a stack of DEPTH + ~6 frames (leaf, main and
 * the libc start-up frames).  Each frame uses the callee's result after the
 * call, so (together with -fno-optimize-sibling-calls) the recursion is not
 * turned into a loop.  The result is printed and stored in a volatile sink.
 */
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noinline, noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif

static volatile double sink;
static volatile int depth_sink;

NOINLINE static double leaf(long n, double x)
{
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

NOINLINE static double recurse(int d, long n, double x)
{
    if (d <= 0)
        return leaf(n, x);
    double r = recurse(d - 1, n, x + 1e-12);
    sink = r;          /* use the result after the call: no tail call */
    depth_sink = d;
    return r * 0.5 + x;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DEPTH ITERATIONS\n", argv[0]);
        return 2;
    }
    int depth = atoi(argv[1]);
    long iterations = atol(argv[2]);
    if (depth < 0 || depth > 100000 || iterations < 0) {
        fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 2;
    }
    double r = recurse(depth, iterations, 1.0);
    sink = r;
    printf("%g\n", r);
    return 0;
}
