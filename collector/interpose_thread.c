/* interpose_thread.c - threads the program creates and ends.
 *
 * pthread_create() starts the new thread in our trampoline, which begins
 * sampling it before the program's start routine runs and writes its file
 * when the routine returns.  pthread_exit() writes the file first (for the
 * main thread too: the process lives on until its last thread exits).
 * A cancelled thread is closed by the TLS destructor in thread.c.
 */
#define _GNU_SOURCE
#include "collector.h"
#include "real.h"

#include <pthread.h>
#include <stdlib.h>

struct start {
	void *(*routine)(void *);
	void *arg;
	void *cookies[MAX_PLUGINS];	/* from the plugins, in the creator */
};

static void *trampoline(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	struct culprit_thread *t = culprit_thread_begin(0, s.cookies);
	void *ret = s.routine(s.arg);
	if (t)
		culprit_thread_end(MFILE_END_THREAD_EXIT);
	return ret;
}

EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			  void *(*routine)(void *), void *arg)
{
	if (!culprit_config.active || atomic_load(&culprit_process.finishing))
		return REAL(pthread_create)(thread, attr, routine, arg);
	struct start *s = malloc(sizeof *s);
	if (!s)
		return REAL(pthread_create)(thread, attr, routine, arg);
	s->routine = routine;
	s->arg = arg;
	plugins_thread_create(s->cookies);
	int rc = REAL(pthread_create)(thread, attr, trampoline, s);
	if (rc != 0) {
		/* No thread will take what the plugins captured for it. */
		plugins_release(s->cookies);
		free(s);
	}
	return rc;
}

EXPORT void pthread_exit(void *ret)
{
	culprit_thread_end(MFILE_END_THREAD_EXIT);
	REAL(pthread_exit)(ret);
	__builtin_unreachable();
}
