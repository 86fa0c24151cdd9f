/* prof_work.c - workload for bench/prof_vs_perf.sh: a CPU-bound program
 * with a large calling-context tree.
 *
 * usage: prof_work NTHREADS UNITS_PER_THREAD
 *
 * Each thread repeatedly descends a random path through eight mutually
 * recursive functions (f0..f7) to a random depth of 3 to 16, then runs a
 * floating-point kernel for a random number of steps at the bottom.  Every
 * function calls the next one from one of four call sites, chosen by a
 * per-thread xorshift generator, so the paths (and the return addresses
 * on the stack) differ from one descent to the next: a profile of a few
 * seconds has tens of thousands of distinct calling contexts.  Some work
 * is also done on the way back up, so samples land in interior frames too.
 * A thread stops once its kernels have run UNITS_PER_THREAD steps.  The
 * generators are seeded from the thread index, so every run follows the
 * same paths.  NTHREADS == 1 runs the work on the main thread.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noinline, noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif

#define MAX_THREADS 64
#define NFUNCS 8

static volatile double sink;

struct walker {
    uint64_t rng;
    long units_left;
};

static inline uint64_t next_rand(struct walker *w)
{
    uint64_t x = w->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return w->rng = x;
}

NOINLINE static double kernel(struct walker *w, long n, double x)
{
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    w->units_left -= n;
    return x;
}

typedef double fn(struct walker *w, int depth, double x);
static fn f0, f1, f2, f3, f4, f5, f6, f7;

/* F(name, a, b, c, d): at depth 0 run the kernel; otherwise call one of
 * a..d (four call sites, so four distinct return addresses), then do a
 * little work after the call so that it is not a tail call. */
#define F(name, a, b, c, d)                                              \
    NOINLINE static double name(struct walker *w, int depth, double x)   \
    {                                                                    \
        double r;                                                        \
        if (depth == 0)                                                  \
            return kernel(w, 2000 + (long)(next_rand(w) % 6000), x);     \
        switch (next_rand(w) & 3) {                                      \
        case 0: r = a(w, depth - 1, x + 1e-12); break;                   \
        case 1: r = b(w, depth - 1, x + 2e-12); break;                   \
        case 2: r = c(w, depth - 1, x + 3e-12); break;                   \
        default: r = d(w, depth - 1, x + 4e-12); break;                  \
        }                                                                \
        if ((next_rand(w) & 7) == 0)                                     \
            r = kernel(w, 500, r);                                       \
        sink = r;                                                        \
        return r * 0.5 + x;                                              \
    }
F(f0, f1, f2, f3, f4)
F(f1, f2, f3, f5, f7)
F(f2, f0, f3, f4, f6)
F(f3, f1, f4, f5, f0)
F(f4, f5, f6, f7, f2)
F(f5, f6, f0, f3, f1)
F(f6, f7, f1, f2, f4)
F(f7, f0, f5, f6, f3)

static fn *const roots[NFUNCS] = { f0, f1, f2, f3, f4, f5, f6, f7 };

struct job {
    long units;
    int index;
    double result;
};

NOINLINE static void *thread_body(void *arg)
{
    struct job *job = arg;
    struct walker w = {
        .rng = 0x9E3779B97F4A7C15ull * (uint64_t)(job->index + 1),
        .units_left = job->units,
    };
    double x = 1.0;

    while (w.units_left > 0) {
        uint64_t r = next_rand(&w);
        x = roots[r % NFUNCS](&w, 3 + (int)((r >> 8) % 14), x) * 1e-3;
    }
    job->result = x;
    sink = x;
    return NULL;
}

int main(int argc, char **argv)
{
    struct job jobs[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    double total = 0.0;

    if (argc != 3) {
        fprintf(stderr, "usage: %s NTHREADS UNITS_PER_THREAD\n", argv[0]);
        return 2;
    }
    int nthreads = atoi(argv[1]);
    long units = atol(argv[2]);
    if (nthreads < 1 || nthreads > MAX_THREADS || units < 0) {
        fprintf(stderr, "prof_work: bad arguments\n");
        return 2;
    }
    for (int i = 0; i < nthreads; i++) {
        jobs[i].units = units;
        jobs[i].index = i;
    }
    if (nthreads == 1) {
        thread_body(&jobs[0]);
    } else {
        for (int i = 0; i < nthreads; i++)
            if (pthread_create(&tids[i], NULL, thread_body, &jobs[i]) != 0) {
                fprintf(stderr, "prof_work: pthread_create failed\n");
                return 1;
            }
        for (int i = 0; i < nthreads; i++)
            pthread_join(tids[i], NULL);
    }
    for (int i = 0; i < nthreads; i++)
        total += jobs[i].result;
    printf("%g\n", total);
    return 0;
}
