/* interpose_misc.c - dlclose, and sleeps that our samples would cut short.
 *
 * dlclose(): after it returns, the load map records which modules went
 * away (see loadmap.c for why dlopen() is not wrapped) and libunwind forgets
 * what it cached about their code.
 *
 * A wall-clock (REALTIME) sample interrupts a thread blocked in a sleep;
 * the kernel never restarts nanosleep() and its relatives after a signal
 * handler, whatever SA_RESTART says, so a program that does not check the
 * return value would wake early.  These wrappers sleep the rest when the
 * only interruption was ours.  Other calls that the kernel never restarts
 * (poll, select, epoll_wait) may still return EINTR, as under any
 * signal-based wall-clock profiler; programs generally retry those.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "collector.h"

#include <dlfcn.h>
#include <errno.h>
#include <libunwind.h>
#include <time.h>
#include <unistd.h>

EXPORT int dlclose(void *handle)
{
	int rc = REAL(dlclose)(handle);
	if (culprit_config.active) {
		loadmap_refresh(0);
		unw_flush_cache(unw_local_addr_space, 0, 0);
	}
	return rc;
}

static uint64_t wakeups(void)
{
	struct culprit_thread *t = culprit_thread_self();
	return t ? t->wakeups : 0;
}

/* Whether EINTR came from our sample and not from the program's signals:
 * a sample arrived during the call.  (Both at once would lose the
 * program's interruption; their handlers still run.) */
static int ours(uint64_t before)
{
	return culprit_thread_self() && wakeups() != before;
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	struct timespec left, r;

	if (!req)
		return REAL(nanosleep)(req, rem);
	left = *req;
	for (;;) {
		uint64_t w = wakeups();
		int rc = REAL(nanosleep)(&left, &r);
		if (rc == 0 || errno != EINTR || !ours(w)) {
			if (rc < 0 && errno == EINTR && rem)
				*rem = r;
			return rc;
		}
		left = r;
	}
}

EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
			   struct timespec *rem)
{
	struct timespec left, r;

	if (!req)
		return REAL(clock_nanosleep)(clock, flags, req, rem);
	left = *req;
	for (;;) {
		uint64_t w = wakeups();
		int rc = REAL(clock_nanosleep)(clock, flags, &left, &r);
		if (rc != EINTR || !ours(w)) {
			if (rc == EINTR && rem && !(flags & TIMER_ABSTIME))
				*rem = r;
			return rc;
		}
		if (!(flags & TIMER_ABSTIME))
			left = r;	/* an absolute deadline stays as it is */
	}
}

EXPORT int usleep(useconds_t usec)
{
	struct timespec ts = { (time_t)(usec / 1000000), (long)(usec % 1000000) * 1000 };
	return nanosleep(&ts, NULL);
}

EXPORT unsigned int sleep(unsigned int seconds)
{
	struct timespec ts = { (time_t)seconds, 0 }, rem;
	if (nanosleep(&ts, &rem) < 0 && errno == EINTR)
		return (unsigned)rem.tv_sec + (rem.tv_nsec > 0);
	return 0;
}
