/* real.h - the C library's definitions of the calls the pthreads plugin
 * wraps, looked up once, as the plugin starts.
 *
 * RTLD_NEXT finds the definition after libculprit.so, the program's C
 * library.  The condition-variable calls have two versions in glibc (the
 * old LinuxThreads-compatible one and GLIBC_2.3.2's); dlsym may return
 * the old, which programs built today never use, so those are asked for
 * by version.
 *
 * Why at start and not on each call's first use: a lookup takes the
 * loader's lock.  A wrapper's first call can come where that lock must
 * not be waited for: from libunwind inside a dl_iterate_phdr callback
 * (which holds the loader's list lock) while another thread, holding the
 * loader's lock in dlopen, waits for that list lock in a sample's unwind
 * - both threads wait forever (an MPI rank deadlocked in MPI_Init so) -
 * or from a sample handler, where no lookup is safe.  A call made before
 * the plugin starts (another library's constructor) looks them all up
 * then: no thread is sampled yet. */
#ifndef CULPRIT_PTHREADS_REAL_H
#define CULPRIT_PTHREADS_REAL_H

#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Every call wrapped: X(name) or, for a versioned symbol, V(name, version). */
#define PTHREADS_REAL_CALLS(X, V)                                             \
	X(pthread_mutex_lock) X(pthread_mutex_trylock) X(pthread_mutex_timedlock) \
	X(pthread_mutex_clocklock) X(pthread_rwlock_rdlock) X(pthread_rwlock_wrlock) \
	X(pthread_rwlock_tryrdlock) X(pthread_rwlock_trywrlock)               \
	X(pthread_rwlock_timedrdlock) X(pthread_rwlock_timedwrlock)           \
	X(pthread_rwlock_clockrdlock) X(pthread_rwlock_clockwrlock)           \
	X(sem_wait) X(sem_trywait) X(sem_timedwait) X(sem_clockwait)          \
	X(pthread_join) X(pthread_tryjoin_np) X(pthread_timedjoin_np)         \
	X(pthread_clockjoin_np) X(pthread_barrier_wait)                       \
	V(pthread_cond_wait, "GLIBC_2.3.2") V(pthread_cond_timedwait, "GLIBC_2.3.2") \
	X(pthread_cond_clockwait)                                             \
	X(read) X(readv) X(recv) X(recvfrom) X(recvmsg) X(accept) X(accept4)  \
	X(connect) X(poll) X(ppoll) X(select) X(pselect) X(epoll_wait)        \
	X(epoll_pwait)

#define PTHREADS_REAL_DECLARE(fn) extern __typeof__(fn) *real_##fn;
#define PTHREADS_REAL_DECLARE_V(fn, version) PTHREADS_REAL_DECLARE(fn)
PTHREADS_REAL_CALLS(PTHREADS_REAL_DECLARE, PTHREADS_REAL_DECLARE_V)

/* Looks every call up. */
void pthreads_real_init(void);

#define REAL(fn) (__builtin_expect(real_##fn != NULL, 1) ? real_##fn \
			: (pthreads_real_init(), real_##fn))

#endif
