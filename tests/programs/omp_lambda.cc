// omp_lambda.cc - OpenMP constructs written inside C++ lambdas, and a
// lambda called from a parallel loop's body.
//
// A lambda is a function of its own (its operator()): a construct written
// in it is the lambda's code, whatever the compiler outlines it into, and
// a lambda inlined into a loop's body is the lambda's.  Each part times
// itself with each thread's CPU clock; the program prints the CPU seconds
// of each:
//
//   lambda region_lambda 0.2012
//
// usage: omp_lambda [UNITS]  (run with OMP_NUM_THREADS=2)
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <omp.h>

volatile double sink;

enum { REGION, TASKS, CALLED, NPARTS };
static const char *const part_name[NPARTS] = { "region_lambda", "task_lambda", "called_lambda" };

#define MAXTHREADS 16
static struct {
	double seconds;
	char pad[56];
} spent[MAXTHREADS][NPARTS];

static double thread_seconds()
{
	timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int me()
{
	int t = omp_get_thread_num();
	return t < MAXTHREADS ? t : MAXTHREADS - 1;
}

// The work of a part, written out on the line of the code that does it.
#define OWN_WORK(k, units)                                                  \
	do {                                                                \
		double t0_ = thread_seconds(), x_ = 1.0;                    \
		for (long i_ = 0; i_ < (units); i_++)                       \
			x_ = x_ * 1.0000001 + 1e-9;                         \
		sink = x_;                                                  \
		spent[me()][k].seconds += thread_seconds() - t0_;           \
	} while (0)

template <class F> __attribute__((noinline)) void apply(F f, long units)
{
	f(units);
}

// A parallel loop in a lambda: its body is the lambda's code.
__attribute__((noinline)) void region_in_lambda(long units)
{
	auto region_lambda = [](long u) {
#pragma omp parallel for schedule(dynamic, 1)
		for (int i = 0; i < 64; i++)
			OWN_WORK(REGION, u / 64);
	};
	apply(region_lambda, units);
}

// Tasks created in a lambda.
__attribute__((noinline)) void tasks_in_lambda(long units)
{
	auto task_lambda = [](long u) {
#pragma omp parallel
#pragma omp single
		for (int i = 0; i < 32; i++) {
#pragma omp task firstprivate(u)
			OWN_WORK(TASKS, u / 32);
		}
	};
	apply(task_lambda, units);
}

// A lambda called (and inlined) in a parallel loop's body.
__attribute__((noinline)) void lambda_in_loop(long units)
{
	auto called_lambda = [](long u) { OWN_WORK(CALLED, u); };
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = 0; i < 64; i++)
		called_lambda(units / 64);
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 40000000;
	region_in_lambda(units);
	tasks_in_lambda(units);
	lambda_in_loop(units);
	for (int k = 0; k < NPARTS; k++) {
		double s = 0;
		for (int t = 0; t < MAXTHREADS; t++)
			s += spent[t][k].seconds;
		printf("lambda %s %.4f\n", part_name[k], s);
	}
	printf("omp_lambda done\n");
	return 0;
}
