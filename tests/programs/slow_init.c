/* slow_init.c - libslow_init.so, for loader_locks.c: a constructor that
 * works, with the loader's lock held, in code it runs only once the
 * program's iterator thread is inside dl_iterate_phdr. */
#include <time.h>

#include "work.h"

extern volatile int iterator_locking;	/* the program's */
volatile double slow_init_sink;

/* Not inlined, never run before: its frames are new to the unwinder. */
__attribute__((noinline)) void slow_init_fresh_work(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		slow_init_sink += work_units(100000);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000000L);
}

__attribute__((constructor)) static void slow_init(void)
{
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < 5000 && !iterator_locking; i++)
		nanosleep(&ms, NULL);
	nanosleep(&ms, NULL);
	slow_init_fresh_work();
}
