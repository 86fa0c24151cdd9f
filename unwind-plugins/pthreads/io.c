/* io.c - blocking I/O as idleness, when asked for (culprit run --io-idle).
 *
 * A thread blocked in read() or poll() waits for the outside world, not
 * for the program's other threads: a server waiting for clients is not a
 * parallel-efficiency problem, so by default these calls are no wait:
 * a read passes through untouched (off the CPU, the thread takes no
 * CPU-time samples), and in a call made for waiting (poll, select, epoll,
 * accept) the thread is away, holding no CPU in the idleness count
 * (culprit_away_begin).  With --io-idle, a working thread
 * is idle for cause `io` while it is in one of them, and the wait is
 * counted at its call site like a lock's.  Calls cannot be tried first:
 * a read of a ready file counts as a (short) wait too.  I/O that the C
 * library does inside itself (stdio's buffers) is not seen. */
#define _GNU_SOURCE
#include "plugin.h"
#include "real.h"
#include "blocking.h"

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define IO(object, call) \
	(culprit_io_idle() ? BLOCKING(CULPRIT_BLOCK_IO, CULPRIT_IDLE_IO, object, call) : call)
/* The calls made for waiting (poll, select, epoll, accept): without
 * --io-idle the thread is away meanwhile, neither working nor idle, so
 * that it holds no CPU in the idleness count (a runtime's progress thread
 * in epoll_wait beside its workers: doc/idleness.md).  A read that would
 * not block is not worth the two state changes. */
#define WAITING_IO(object, call)                                               \
	(culprit_io_idle() ? BLOCKING(CULPRIT_BLOCK_IO, CULPRIT_IDLE_IO, object, call) \
			   : ({                                                \
				   int away_ = culprit_away_begin();           \
				   __typeof__(call) rc_ = call;                \
				   int errno_ = errno;                         \
				   if (away_)                                  \
					   culprit_away_end();                 \
				   errno = errno_;                             \
				   rc_;                                        \
			   }))
#define FD(fd) ((const void *)(uintptr_t)(unsigned)(fd))

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	return IO(FD(fd), REAL(read)(fd, buf, n));
}

EXPORT ssize_t readv(int fd, const struct iovec *v, int n)
{
	return IO(FD(fd), REAL(readv)(fd, v, n));
}

EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	return IO(FD(fd), REAL(recv)(fd, buf, n, flags));
}

EXPORT ssize_t
recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *len)
{
	return IO(FD(fd), REAL(recvfrom)(fd, buf, n, flags, from, len));
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	return IO(FD(fd), REAL(recvmsg)(fd, msg, flags));
}

EXPORT int accept(int fd, struct sockaddr *a, socklen_t *len)
{
	return WAITING_IO(FD(fd), REAL(accept)(fd, a, len));
}

EXPORT int
accept4(int fd, struct sockaddr *a, socklen_t *len, int flags)
{
	return WAITING_IO(FD(fd), REAL(accept4)(fd, a, len, flags));
}

EXPORT int
connect(int fd, const struct sockaddr *a, socklen_t len)
{
	return IO(FD(fd), REAL(connect)(fd, a, len));
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	return WAITING_IO(NULL, REAL(poll)(fds, n, timeout));
}

EXPORT int
ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask)
{
	return WAITING_IO(NULL, REAL(ppoll)(fds, n, t, mask));
}

EXPORT int
select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	return WAITING_IO(NULL, REAL(select)(n, r, w, e, t));
}

EXPORT int
pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *t, const sigset_t *mask)
{
	return WAITING_IO(NULL, REAL(pselect)(n, r, w, e, t, mask));
}

EXPORT int
epoll_wait(int fd, struct epoll_event *ev, int n, int timeout)
{
	return WAITING_IO(FD(fd), REAL(epoll_wait)(fd, ev, n, timeout));
}

EXPORT int
epoll_pwait(int fd, struct epoll_event *ev, int n, int timeout, const sigset_t *mask)
{
	return WAITING_IO(FD(fd), REAL(epoll_pwait)(fd, ev, n, timeout, mask));
}
