/* waits.c - the pthreads calls that block: a working thread is idle while
 * it waits in them, for a cause, and the wait is counted at its call site.
 *
 * Causes (doc/idleness.md, "pthreads programs"):
 *   mutexes, rwlocks, semaphores    lock
 *   condition variables, barriers   barrier: waiting for other threads to
 *                                   get somewhere; what they ran meanwhile
 *                                   is blamed (the serial step before a
 *                                   "go" signal, the slowest thread's share
 *                                   before a condition-variable barrier)
 *   joins                           join
 *
 * Locks are tried first (a mutex that reads free is simply taken): an
 * uncontended lock costs no state change and no clock read; only a lock
 * that would block is a wait.  A thread that is not working as it calls
 * (idle as its runtime declared, such as libomp's own sleep on a
 * condition variable) is left alone (culprit_block_begin).  The wrappers are exported functions; their
 * return address is the caller's call site. */
#define _GNU_SOURCE
#include "plugin.h"
#include "real.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include "blocking.h"

/* CALL, tried first with TRY: only when TRY says it would block (EBUSY)
 * is CALL a wait, of KIND for CAUSE on OBJECT. */
#define TRY_FIRST_AT(at, try, kind, cause, object, call)                    \
	({                                                                  \
		int try_ = try;                                             \
		try_ != EBUSY ? try_ : BLOCKING_AT(at, kind, cause, object, call); \
	})
#define TRY_FIRST(try, kind, cause, object, call) \
	TRY_FIRST_AT(SITE, try, kind, cause, object, call)

/* A semaphore says "would block" with -1 and EAGAIN: 0 when S was taken,
 * -1 on another error, EBUSY when a wait would block (errno as before). */
static int sem_try(sem_t *s)
{
	int saved = errno;
	if (REAL(sem_trywait)(s) == 0)
		return 0;
	if (errno != EAGAIN)
		return -1;
	errno = saved;
	return EBUSY;
}

#define MUTEX(m, call) TRY_FIRST(REAL(pthread_mutex_trylock)(m), CULPRIT_BLOCK_MUTEX, \
				 CULPRIT_IDLE_LOCK, m, call)
#define RDLOCK(l, call) TRY_FIRST(REAL(pthread_rwlock_tryrdlock)(l), CULPRIT_BLOCK_RWLOCK, \
				  CULPRIT_IDLE_LOCK, l, call)
#define WRLOCK(l, call) TRY_FIRST(REAL(pthread_rwlock_trywrlock)(l), CULPRIT_BLOCK_RWLOCK, \
				  CULPRIT_IDLE_LOCK, l, call)
#define SEM(s, call) TRY_FIRST(sem_try(s), CULPRIT_BLOCK_SEMAPHORE, CULPRIT_IDLE_LOCK, s, call)
/* A thread that already ended is joined at once: no wait. */
#define JOIN(th, ret, call) TRY_FIRST(REAL(pthread_tryjoin_np)(th, ret), CULPRIT_BLOCK_JOIN, \
				      CULPRIT_IDLE_JOIN, (void *)(th), call)
/* A condition wait always blocks: that is what it is for. */
#define COND(c, call) BLOCKING(CULPRIT_BLOCK_CONDITION, CULPRIT_IDLE_BARRIER, c, call)

/* A mutex whose lock word reads free is taken at once, by a tail call:
 * the uncontended lock, the common one, costs the wrapper a load and a
 * jump.  One taken by another thread in the few cycles between that load
 * and the lock is a wait left unseen: a race that short is rare where a
 * lock is contended, since there the word mostly reads busy.  glibc's
 * layout (bits/struct_mutex.h); elsewhere, every lock is tried first. */
#ifdef __GLIBC__
#define MUTEX_LOOKS_FREE(m) (*(volatile const int *)&(m)->__data.__lock == 0)
#else
#define MUTEX_LOOKS_FREE(m) 0
#endif

/* pthread_mutex_lock's slow path, apart so that the fast one saves no
 * registers: a wait at SITE when the lock is busy. */
static __attribute__((noinline)) int mutex_lock_busy(pthread_mutex_t *m, void *site)
{
	return TRY_FIRST_AT(site, REAL(pthread_mutex_trylock)(m), CULPRIT_BLOCK_MUTEX,
			    CULPRIT_IDLE_LOCK, m, REAL(pthread_mutex_lock)(m));
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	if (MUTEX_LOOKS_FREE(m))
		return REAL(pthread_mutex_lock)(m);
	return mutex_lock_busy(m, SITE);
}

EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t)
{
	return MUTEX(m, REAL(pthread_mutex_timedlock)(m, t));
}

EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *t)
{
	return MUTEX(m, REAL(pthread_mutex_clocklock)(m, clock, t));
}

EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	return RDLOCK(l, REAL(pthread_rwlock_rdlock)(l));
}

EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	return WRLOCK(l, REAL(pthread_rwlock_wrlock)(l));
}

EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *t)
{
	return RDLOCK(l, REAL(pthread_rwlock_timedrdlock)(l, t));
}

EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *t)
{
	return WRLOCK(l, REAL(pthread_rwlock_timedwrlock)(l, t));
}

EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock,
				      const struct timespec *t)
{
	return RDLOCK(l, REAL(pthread_rwlock_clockrdlock)(l, clock, t));
}

EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock,
				      const struct timespec *t)
{
	return WRLOCK(l, REAL(pthread_rwlock_clockwrlock)(l, clock, t));
}

EXPORT int sem_wait(sem_t *s)
{
	return SEM(s, REAL(sem_wait)(s));
}

EXPORT int sem_timedwait(sem_t *s, const struct timespec *t)
{
	return SEM(s, REAL(sem_timedwait)(s, t));
}

EXPORT int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *t)
{
	return SEM(s, REAL(sem_clockwait)(s, clock, t));
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return COND(c, REAL(pthread_cond_wait)(c, m));
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
	return COND(c, REAL(pthread_cond_timedwait)(c, m, t));
}

EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
				  const struct timespec *t)
{
	return COND(c, REAL(pthread_cond_clockwait)(c, m, clock, t));
}

EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	return BLOCKING(CULPRIT_BLOCK_BARRIER, CULPRIT_IDLE_BARRIER, b, REAL(pthread_barrier_wait)(b));
}

EXPORT int pthread_join(pthread_t th, void **ret)
{
	return JOIN(th, ret, REAL(pthread_join)(th, ret));
}

EXPORT int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *t)
{
	return JOIN(th, ret, REAL(pthread_timedjoin_np)(th, ret, t));
}

EXPORT int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clock, const struct timespec *t)
{
	return JOIN(th, ret, REAL(pthread_clockjoin_np)(th, ret, clock, t));
}
