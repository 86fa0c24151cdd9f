/* overhead_work.c - CPU-bound workload for bench/overhead.sh.
 *
 * usage: overhead_work NTHREADS ITERATIONS_PER_THREAD
 *
 * Every thread runs ITERATIONS_PER_THREAD steps of a floating-point
 * dependency chain (x = x*1.0000001 + 1e-9) in a noinline kernel that is
 * reached through eight levels of noinline functions, so that sampled stacks
 * are 12-15 frames deep.  NTHREADS == 1 runs the work on the main thread;
 * otherwise NTHREADS pthreads are started.  The results are printed and
 * stored in a volatile sink so that the compiler cannot delete the work.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noinline, noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif

#define MAX_THREADS 64

static volatile double sink;

NOINLINE static double kernel(long n, double x)
{
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

/* Each level does a little work after the call, so it is not a tail call. */
#define LEVEL(name, next)                                   \
    NOINLINE static double name(long n, double x)           \
    {                                                       \
        double r = next(n, x + 1e-12);                      \
        sink = r;                                           \
        return r * 0.5 + x;                                 \
    }
LEVEL(level8, kernel)
LEVEL(level7, level8)
LEVEL(level6, level7)
LEVEL(level5, level6)
LEVEL(level4, level5)
LEVEL(level3, level4)
LEVEL(level2, level3)
LEVEL(level1, level2)

struct job {
    long iterations;
    double result;
};

NOINLINE static void *thread_body(void *arg)
{
    struct job *job = arg;
    job->result = level1(job->iterations, 1.0);
    sink = job->result;
    return NULL;
}

NOINLINE static double run_work(int nthreads, long iterations)
{
    struct job jobs[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    double total = 0.0;

    for (int i = 0; i < nthreads; i++)
        jobs[i].iterations = iterations;
    if (nthreads == 1) {
        thread_body(&jobs[0]);
    } else {
        for (int i = 0; i < nthreads; i++)
            if (pthread_create(&tids[i], NULL, thread_body, &jobs[i]) != 0) {
                fprintf(stderr, "overhead_work: pthread_create failed\n");
                exit(1);
            }
        for (int i = 0; i < nthreads; i++)
            pthread_join(tids[i], NULL);
    }
    for (int i = 0; i < nthreads; i++)
        total += jobs[i].result;
    return total;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s NTHREADS ITERATIONS_PER_THREAD\n", argv[0]);
        return 2;
    }
    int nthreads = atoi(argv[1]);
    long iterations = atol(argv[2]);
    if (nthreads < 1 || nthreads > MAX_THREADS || iterations < 0) {
        fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 2;
    }
    double total = run_work(nthreads, iterations);
    sink = total;
    printf("%g\n", total);
    return 0;
}
