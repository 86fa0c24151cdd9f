/* source.c - per-thread sample sources: perf_event counters and POSIX timers.
 *
 * Each source delivers our real-time signal to the thread it measures.  A
 * perf_event source is opened for one thread, owns the signal through
 * F_SETOWN_EX, and writes a PERF_SAMPLE_READ record into a small ring
 * buffer at every overflow: the handler reads the counter's value from
 * there without a system call (a read() of the fd costs about 0.9 us on
 * our test machine, more than the rest of a sample).  POSIX timers are the
 * fallback for CPU time and the source for wall-clock time; their value is
 * read from the clock.
 *
 * The program may close our file descriptors behind our back.  So we move
 * them out of its way, never read() them in the handler when a ring is
 * mapped, and check that a descriptor still is our event (by its kernel id)
 * before an ioctl or close.
 */
#define _GNU_SOURCE
#include "collector.h"
#include "perf_sample.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TIMER_COOKIE 0x43500000	/* "CP" in sival_int, low bits = source index */
#define TIMER_COOKIE_MASK 0xffff0000
#define RING_DATA_PAGES 1		/* 256 sample records; values are absolute, so a
					   full ring loses samples, never the total */

static int exclude_kernel;	/* set once the kernel refuses kernel-mode samples */

static int perf_event_open(struct perf_event_attr *a, pid_t tid)
{
	return (int)syscall(SYS_perf_event_open, a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Moves FD above the range programs use, so that dup2() onto a small number
 * or a program's own fd bookkeeping is less likely to meet ours. */
static int move_high(int fd)
{
	struct rlimit rl;
	int floor = 512;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		rlim_t half = rl.rlim_cur / 2;
		floor = half > 65536 ? 65536 : (int)half;
	}
	if (fd >= floor)
		return fd;
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/* Is S->fd still the event we opened?  async-signal-safe. */
static int still_ours(const struct sample_source *s)
{
	uint64_t id = 0;

	if (s->fd < 0)
		return 0;
	return ioctl(s->fd, PERF_EVENT_IOC_ID, &id) == 0 && id == s->perf_id;
}

static int perf_open(struct sample_source *s, const struct event_spec *ev, pid_t tid)
{
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = ev->perf_type;
	a.config = ev->perf_config;
	a.config1 = ev->perf_config1;
	a.config2 = ev->perf_config2;
	if (ev->flags & MFILE_EVENT_FREQ) {
		a.freq = 1;
		a.sample_freq = ev->period;
	} else {
		a.sample_period = ev->period;
	}
	/* The time of the overflow, on the clock the collector reads: how
	 * late the handler runs (sample.c needs it). */
	perf_sample_attr(&a);
	/* Kernel-mode samples put time spent in system calls at the call site;
	 * without the permission they are skipped, and the counter's next
	 * user-mode delta still includes that time. */
	a.exclude_kernel = exclude_kernel;
	int fd = perf_event_open(&a, tid);
	if (fd < 0 && !exclude_kernel && (errno == EACCES || errno == EPERM)) {
		exclude_kernel = 1;
		a.exclude_kernel = 1;
		fd = perf_event_open(&a, tid);
	}
	if (fd < 0 && errno == EINVAL) {
		/* A kernel without clock ids (before 4.1): values only. */
		a.sample_type = PERF_SAMPLE_READ;
		a.use_clockid = 0;
		fd = perf_event_open(&a, tid);
	}
	if (fd < 0)
		return -1;
	s->timed = (a.sample_type & PERF_SAMPLE_TIME) != 0;
	fd = move_high(fd);
	s->fd = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &s->perf_id) < 0)
		goto fail;

	s->ring_size = (size_t)page * (1 + RING_DATA_PAGES);
	void *ring = mmap(NULL, s->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	s->ring = ring == MAP_FAILED ? NULL : ring;	/* without it: read() */

	struct f_owner_ex owner = { F_OWNER_TID, tid };
	if (fcntl(fd, F_SETSIG, culprit_config.signo) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
	    fcntl(fd, F_SETFL, O_ASYNC) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		goto fail;
	s->kind = MFILE_SRC_PERF;
	return 0;
fail:;
	int e = errno;
	if (s->ring)
		munmap(s->ring, s->ring_size);
	s->ring = NULL;
	close(fd);
	s->fd = -1;
	errno = e;
	return -1;
}

static clockid_t source_clock(int kind)
{
	return kind == MFILE_SRC_CPU_TIMER ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int timer_open(struct sample_source *s, const struct event_spec *ev, int index,
		      pid_t tid, int kind)
{
	struct sigevent sev;
	struct itimerspec its;
	uint64_t period = ev->period;

	if (ev->flags & MFILE_EVENT_FREQ)
		period = 1000000000u / (ev->period ? ev->period : 1);
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = culprit_config.signo;
	sev.sigev_value.sival_int = TIMER_COOKIE | index;
	sev._sigev_un._tid = tid;
	/* A CPU-time timer measures the calling thread, which is TID. */
	if (timer_create(source_clock(kind), &sev, &s->timer) < 0)
		return -1;
	s->kind = kind;
	s->last = clock_ns(source_clock(kind));
	s->timer_period = period;
	memset(&its, 0, sizeof its);
	its.it_value.tv_sec = (time_t)(period / 1000000000u);
	its.it_value.tv_nsec = (long)(period % 1000000000u);
	its.it_interval = its.it_value;
	if (timer_settime(s->timer, 0, &its, NULL) < 0) {
		int e = errno;
		timer_delete(s->timer);
		s->kind = 0;
		errno = e;
		return -1;
	}
	s->timer_armed = 1;
	return 0;
}

int source_open(struct sample_source *s, const struct event_spec *ev, int index, pid_t tid)
{
	memset(s, 0, sizeof *s);
	s->fd = -1;
	switch (ev->source) {
	case MFILE_SRC_PERF:
		return perf_open(s, ev, tid);
	case MFILE_SRC_CPU_TIMER:
	case MFILE_SRC_REAL_TIMER:
		return timer_open(s, ev, index, tid, (int)ev->source);
	}
	errno = EINVAL;
	return -1;
}

/* async-signal-safe */
void source_stop(struct sample_source *s)
{
	if (s->kind == MFILE_SRC_PERF) {
		if (still_ours(s))
			ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	} else if (s->kind && s->timer_armed) {
		struct itimerspec off;
		memset(&off, 0, sizeof off);
		timer_settime(s->timer, 0, &off, NULL);
		s->timer_armed = 0;
	}
}

/* async-signal-safe */
void source_restart(struct sample_source *s)
{
	if (s->kind == MFILE_SRC_PERF) {
		if (still_ours(s))
			ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
	} else if (s->kind && !s->timer_armed) {
		struct itimerspec its;
		memset(&its, 0, sizeof its);
		its.it_value.tv_sec = (time_t)(s->timer_period / 1000000000u);
		its.it_value.tv_nsec = (long)(s->timer_period % 1000000000u);
		its.it_interval = its.it_value;
		s->last = clock_ns(source_clock(s->kind));
		if (timer_settime(s->timer, 0, &its, NULL) == 0)
			s->timer_armed = 1;
	}
}

/* async-signal-safe */
void source_close(struct sample_source *s)
{
	if (s->kind == MFILE_SRC_PERF) {
		/* Unmapping drops the ring's reference to the event; closing
		 * drops the fd's, if the fd is still ours. */
		if (s->ring)
			munmap(s->ring, s->ring_size);
		if (still_ours(s))
			close(s->fd);
	} else if (s->kind) {
		timer_delete(s->timer);
	}
	s->ring = NULL;
	s->fd = -1;
	s->kind = 0;
}

/* In a fork child: the parent's events must stay untouched (an ioctl on the
 * inherited fd would disable the parent's counter) and the ring is not
 * inherited (perf maps it VM_DONTCOPY).  Only the inherited fd is ours to
 * close.  POSIX timers are not inherited at all. */
void source_forget(struct sample_source *s)
{
	if (s->kind == MFILE_SRC_PERF && still_ours(s))
		close(s->fd);
	s->ring = NULL;
	s->fd = -1;
	s->kind = 0;
}

/* async-signal-safe */
int source_identify(struct sample_source *src, int n, const siginfo_t *info)
{
	if (info->si_code == SI_TIMER) {
		int v = info->si_value.sival_int;
		int i = v & ~TIMER_COOKIE_MASK;
		if ((v & TIMER_COOKIE_MASK) == TIMER_COOKIE && i < n &&
		    (src[i].kind == MFILE_SRC_CPU_TIMER || src[i].kind == MFILE_SRC_REAL_TIMER))
			return i;
		return -1;
	}
	if (info->si_code == POLL_IN || info->si_code == POLL_HUP) {
		for (int i = 0; i < n; i++)
			if (src[i].kind == MFILE_SRC_PERF && src[i].fd == info->si_fd)
				return i;
	}
	return -1;
}

static void ring_copy(void *dst, const unsigned char *data, uint64_t size,
		      uint64_t pos, size_t n)
{
	unsigned char *d = dst;
	for (size_t i = 0; i < n; i++)
		d[i] = data[(pos + i) & (size - 1)];
}

/* The value of the newest sample record in S's ring, and its time (0 if
 * the records have none).  async-signal-safe. */
static int ring_value(struct sample_source *s, uint64_t *value, uint64_t *when)
{
	struct perf_event_mmap_page *pg = s->ring;
	const unsigned char *data = (const unsigned char *)pg + pg->data_offset;
	uint64_t size = pg->data_size;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	int found = 0;

	if (!pg->data_offset || !size || (size & (size - 1)))
		return -1;	/* kernels before 4.1 do not describe the ring */
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		ring_copy(&h, data, size, tail, sizeof h);
		if (h.size < sizeof h || h.size > head - tail)
			break;
		size_t time_size = s->timed ? 8 : 0;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + time_size + 8) {
			/* PERF_SAMPLE_TIME comes before PERF_SAMPLE_READ. */
			*when = 0;
			if (time_size)
				ring_copy(when, data, size, tail + sizeof h, 8);
			ring_copy(value, data, size, tail + sizeof h + time_size, 8);
			found = 1;
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	return found ? 0 : -1;
}

/* async-signal-safe */
int source_delta(struct sample_source *s, uint64_t *delta, uint64_t *when)
{
	uint64_t v;

	*when = 0;
	switch (s->kind) {
	case MFILE_SRC_PERF:
		if (s->ring) {
			if (ring_value(s, &v, when) < 0)
				return -1;
		} else if (read(s->fd, &v, sizeof v) != (ssize_t)sizeof v) {
			return -1;
		}
		break;
	case MFILE_SRC_CPU_TIMER:
	case MFILE_SRC_REAL_TIMER:
		v = clock_ns(source_clock(s->kind));
		break;
	default:
		return -1;
	}
	*delta = v >= s->last ? v - s->last : 0;
	s->last = v;
	return 0;
}
