/* pthreads.c - the pthreads plugin: a thread's work belongs under the call
 * that created it.
 *
 * When a thread calls pthread_create(), the creator's logical context is
 * captured there; the new thread runs under that record.  Its samples keep
 * their native frames down to the thread's start routine (the boundary is
 * culprit's thread trampoline, which calls it) and continue with the
 * creator's path: main -> ... -> spawner -> worker -> ..., never
 * clone -> start_thread -> worker.
 *
 * Every thread is also a worker, and the calls that block make it idle
 * while they wait (waits.c, io.c): pthreads programs get idleness without
 * declaring anything. */
#define _GNU_SOURCE
#include "plugin.h"
#include "real.h"

#include <stddef.h>

/* The calls the plugin wraps are looked up before any thread is sampled. */
static int pthreads_init(void)
{
	pthreads_real_init();
	return 1;
}

static void thread_create(void **cookie)
{
	/* Frames from pthread_create's caller out to where the creator's own
	 * work began; culprit's wrapper frames are skipped. */
	*cookie = culprit_ctx_capture(NULL, culprit_boundary_collector, 0);
}

static void thread_begin(void *cookie)
{
	/* Every thread is a worker, working, until it blocks (waits.c) or
	 * its runtime says otherwise (an OpenMP worker's callbacks, the
	 * runtime API), which come after this. */
	if (culprit_waits_tracked())
		culprit_worker_default();
	/* The reference the creator took passes to this thread, which gives
	 * it back as it ends (the core releases the current record). */
	if (cookie)
		culprit_ctx_release(culprit_ctx_set(cookie));
}

/* pthread_create failed (or the thread is not sampled): the record was
 * captured for nothing; its reference, and with it the record, goes. */
static void release(void *cookie)
{
	culprit_ctx_release(cookie);
}

static const struct culprit_plugin pthreads_plugin = {
	.name = "pthreads",
	.abi = CULPRIT_PLUGIN_ABI,
	.init = pthreads_init,
	.thread_create = thread_create,
	.release = release,
	.thread_begin = thread_begin,
};
CULPRIT_PLUGIN(pthreads_plugin);
