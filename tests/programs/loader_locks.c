/* loader_locks.c - the loader's two locks, held by two threads, while one
 * of them is sampled.
 *
 * Thread "opener" dlopens libslow_init.so, whose constructor runs with the
 * loader's lock held (glibc's dl_load_lock).  Meanwhile thread "iterator"
 * is inside dl_iterate_phdr, which holds the loader's list lock
 * (dl_load_write_lock), and its callback takes a mutex that main holds:
 * the program's first contended lock, so the lock wrapper's slow path
 * runs for the first time there.  Then the constructor runs code never
 * sampled before: a sample's unwind must find its unwind tables, which
 * libunwind does with dl_iterate_phdr - waiting for the iterator.  Were
 * the wrapper to look up the real trylock on its first call (dlsym, which
 * takes the loader's lock), the iterator would wait for the opener and
 * the opener's handler for the iterator, forever.  Main lets the mutex go
 * after a while; the program ends, printing "loader locks done".
 *
 * With "iterate": one thread works inside dl_iterate_phdr callbacks (the
 * loader's list lock held, and sampled there) while main starts short
 * threads one after another, each of whose first unwinds in libunwind
 * takes its register-state cache's lock and calls dl_iterate_phdr.  A
 * sample handler that unwound inside the callbacks would wait for that
 * lock, and its holder for the list lock.  Prints "loader locks done".
 * usage: loader_locks DIR (where libslow_init.so is) | loader_locks iterate */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

volatile double sink;
/* Set by the iterator as it takes the mutex; read by the constructor. */
volatile int iterator_locking;

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static const char *dir;

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
	nanosleep(&ts, NULL);
}

static void *opener(void *arg)
{
	char path[4096];
	(void)arg;
	snprintf(path, sizeof path, "%s/libslow_init.so", dir);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return (void *)1;
	}
	dlclose(h);
	return NULL;
}

static int take_held(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	(void)data;
	iterator_locking = 1;
	pthread_mutex_lock(&held);
	pthread_mutex_unlock(&held);
	return 1;	/* once */
}

static void *iterator(void *arg)
{
	(void)arg;
	dl_iterate_phdr(take_held, NULL);
	return NULL;
}

static volatile int iterating = 1;

/* Works in each module's callback, 0.2 ms a module. */
__attribute__((noinline)) int work_in_callback(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	(void)data;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink += 1e-9;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000);
	return 0;
}

static void *iterate_long(void *arg)
{
	(void)arg;
	while (iterating)
		dl_iterate_phdr(work_in_callback, NULL);
	return NULL;
}

static void *short_life(void *arg)
{
	return arg;
}

/* Two seconds of threads starting beside a thread inside the callbacks. */
static int iterate_mode(void)
{
	pthread_t it, s;
	struct timespec t0, t;
	pthread_create(&it, NULL, iterate_long, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pthread_create(&s, NULL, short_life, NULL);
		pthread_join(s, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 2);
	iterating = 0;
	pthread_join(it, NULL);
	printf("loader locks done\n");
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t o, i;
	void *failed = NULL;
	if (argc == 2 && strcmp(argv[1], "iterate") == 0)
		return iterate_mode();
	if (argc != 2) {
		fprintf(stderr, "usage: loader_locks DIR\n");
		return 2;
	}
	dir = argv[1];
	pthread_mutex_lock(&held);
	pthread_create(&o, NULL, opener, NULL);
	pause_ms(50);		/* the opener in its constructor */
	pthread_create(&i, NULL, iterator, NULL);
	while (!iterator_locking)
		pause_ms(1);
	pause_ms(400);		/* the constructor's new code sampled */
	pthread_mutex_unlock(&held);
	pthread_join(i, NULL);
	pthread_join(o, &failed);
	if (failed)
		return 1;
	printf("loader locks done\n");
	return 0;
}
