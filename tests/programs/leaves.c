/* leaves.c - ground truth for sample attribution.
 *
 * Three leaf functions do 1, 2 and 4 units of identical work, interleaved
 * round by round, so a correct profiler gives them 1/7, 2/7 and 4/7 of
 * the samples.  Each round calls them in a pseudo-random order and with a
 * pseudo-random amount of work (the ratios kept): with rounds of a fixed
 * length and order, a sampler whose period is close to a multiple of a
 * round would see the same leaf again and again.
 *
 * The same instructions do not always take the same time: a busy sibling
 * hyperthread or a frequency change slows whichever leaf runs then (CI's
 * two shared cores moved one leaf 3.7 points), and a preempted leaf takes
 * more wall-clock time.  So the program also times each leaf on its own
 * thread's CPU clock and on the monotonic clock and prints the shares it
 * measured ("leaf_two cpu 28.57% wall 28.60%"): the ground truth that a
 * profiler's CPU-time and wall-clock shares are checked against.
 * usage: leaves [ROUNDS [UNIT]] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) double leaf_one(long n) { return work_units(n); }
__attribute__((noinline)) double leaf_two(long n) { return work_units(2 * n); }
__attribute__((noinline)) double leaf_four(long n) { return work_units(4 * n); }

static double (*const leaf[3])(long) = { leaf_one, leaf_two, leaf_four };
static const char *const leaf_name[3] = { "leaf_one", "leaf_two", "leaf_four" };
static long long leaf_cpu_ns[3], leaf_wall_ns[3];

static long long clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void one_round(long n, unsigned order)
{
	static const int perm[6][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 }
	};
	for (int i = 0; i < 3; i++) {
		int k = perm[order % 6][i];
		long long cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		long long wall = clock_ns(CLOCK_MONOTONIC);
		sink += leaf[k](n);
		leaf_wall_ns[k] += clock_ns(CLOCK_MONOTONIC) - wall;
		leaf_cpu_ns[k] += clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	}
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 250;
	long unit = argc > 2 ? atol(argv[2]) : 350000;

	unsigned seed = 12345;
	for (long r = 0; r < rounds; r++) {
		seed = seed * 1103515245u + 12345u;
		one_round(unit / 2 + (long)(seed >> 8) % unit, seed >> 16);
	}
	long long cpu = leaf_cpu_ns[0] + leaf_cpu_ns[1] + leaf_cpu_ns[2];
	long long wall = leaf_wall_ns[0] + leaf_wall_ns[1] + leaf_wall_ns[2];
	for (int k = 0; k < 3 && cpu > 0 && wall > 0; k++)
		printf("%s cpu %.2f%% wall %.2f%%\n", leaf_name[k],
		       100.0 * leaf_cpu_ns[k] / cpu, 100.0 * leaf_wall_ns[k] / wall);
	printf("leaves done\n");
	return 0;
}
