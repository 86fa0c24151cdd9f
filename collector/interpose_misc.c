/* interpose_misc.c - dlclose, sleeps that our samples would cut short (and
 * that make a working thread idle, for cause `sleep`), and
 * the pipe libunwind keeps.
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
 *
 * pipe2(): libunwind validates addresses by writing them into a pipe it
 * opens when it starts, and reopens whenever a read from it fails.  Left
 * alone, that pipe takes the program's lowest free descriptors (3 and 4,
 * typically) before main() runs: the program's own files get other
 * numbers than without us, and a program that closes every descriptor and
 * reuses 3 would have libunwind reading and writing its file.  When
 * libunwind opens the pipe for us, it gets descriptors far above the
 * program's.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "collector.h"
#include "real.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
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

/* nanosleep, resumed after our samples; the thread is idle for `sleep`
 * meanwhile, counted at SITE (waits.c). */
static int sleep_for(const struct timespec *req, struct timespec *rem, const void *site)
{
	struct timespec left = *req, r;
	struct culprit_block w;

	culprit_block_begin(&w, CULPRIT_BLOCK_SLEEP, CULPRIT_IDLE_SLEEP, NULL, site);
	int rc;
	for (;;) {
		uint64_t before = wakeups();
		rc = REAL(nanosleep)(&left, &r);
		if (rc == 0 || errno != EINTR || !ours(before)) {
			if (rc < 0 && errno == EINTR && rem)
				*rem = r;
			break;
		}
		left = r;
	}
	int saved = errno;
	culprit_block_end(&w);
	errno = saved;
	return rc;
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (!req)
		return REAL(nanosleep)(req, rem);
	return sleep_for(req, rem, __builtin_return_address(0));
}

EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
			   struct timespec *rem)
{
	struct timespec left, r;
	struct culprit_block w;

	if (!req)
		return REAL(clock_nanosleep)(clock, flags, req, rem);
	culprit_block_begin(&w, CULPRIT_BLOCK_SLEEP, CULPRIT_IDLE_SLEEP, NULL,
			    __builtin_return_address(0));
	left = *req;
	int rc;
	for (;;) {
		uint64_t before = wakeups();
		rc = REAL(clock_nanosleep)(clock, flags, &left, &r);
		if (rc != EINTR || !ours(before)) {
			if (rc == EINTR && rem && !(flags & TIMER_ABSTIME))
				*rem = r;
			break;
		}
		if (!(flags & TIMER_ABSTIME))
			left = r;	/* an absolute deadline stays as it is */
	}
	culprit_block_end(&w);
	return rc;
}

EXPORT int usleep(useconds_t usec)
{
	struct timespec ts = { (time_t)(usec / 1000000), (long)(usec % 1000000) * 1000 };
	return sleep_for(&ts, NULL, __builtin_return_address(0));
}

EXPORT unsigned int sleep(unsigned int seconds)
{
	struct timespec ts = { (time_t)seconds, 0 }, rem;
	if (sleep_for(&ts, &rem, __builtin_return_address(0)) < 0 && errno == EINTR)
		return (unsigned)rem.tv_sec + (rem.tv_nsec > 0);
	return 0;
}

/* async-signal-safe: libunwind may reopen its pipe inside a sample. */
EXPORT int pipe2(int fds[2], int flags)
{
	int rc = REAL(pipe2)(fds, flags);
	if (rc != 0 || !culprit_config.active || !culprit_unwinder_running())
		return rc;
	struct rlimit rl;
	int floor = 900;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < 1024)
		floor = (int)rl.rlim_cur * 7 / 8;
	for (int i = 0; i < 2; i++) {
		int hi = fcntl(fds[i], (flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, floor);
		if (hi >= 0) {
			close(fds[i]);
			fds[i] = hi;
		}
	}
	return 0;
}
