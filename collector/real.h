/* real.h - the C library's definitions of the calls the collector's
 * interposers wrap, looked up once, as the collector starts.
 *
 * A lookup takes the loader's lock, so none may happen where that lock
 * must not be waited for: inside a sample handler, or in a call made
 * under the loader's list lock (a dl_iterate_phdr callback, such as
 * libunwind's), while another thread that holds the loader's lock waits
 * for the list lock.  culprit_real_init runs first in the collector's
 * constructor; a call before it (another library's constructor, with no
 * thread sampled yet) looks them all up then. */
#ifndef CULPRIT_REAL_H
#define CULPRIT_REAL_H

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Every call wrapped. */
#define CULPRIT_REAL_CALLS(X)                                                  \
	X(pthread_create) X(pthread_exit) X(pthread_sigmask) X(sigprocmask)    \
	X(sigaction) X(nanosleep) X(clock_nanosleep) X(dlclose) X(pipe2)       \
	X(execve) X(execveat) X(execvpe) X(fexecve) X(posix_spawn)             \
	X(posix_spawnp) X(exit) X(_exit) X(_Exit)

#define CULPRIT_REAL_DECLARE(fn) HIDDEN extern __typeof__(fn) *real_##fn;
CULPRIT_REAL_CALLS(CULPRIT_REAL_DECLARE)

/* Looks every call up. */
HIDDEN void culprit_real_init(void);

#define REAL(fn) (__builtin_expect(real_##fn != NULL, 1) ? real_##fn \
			: (culprit_real_init(), real_##fn))

#endif
