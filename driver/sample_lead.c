/* sample_lead.c - how long before the kernel time-stamps a sample the
 * sampled thread stops running, measured on this machine.
 *
 * A sample's handler runs microseconds after the counter overflowed, and
 * the thread stopped a little before the kernel wrote the overflow's time:
 * the timer interrupt's entry, and on a virtual machine the exit to the
 * host (about 4 us on our test VM, a fraction of a microsecond on bare
 * metal).  The collector counts the other workers in the states they were
 * in when the sampled thread stopped (collector/workers.c), so it needs
 * that lead.  It belongs to the machine, not the program: culprit run
 * measures it once, on its own thread, which spins reading the time stamp
 * counter while a task-clock counter samples it at 10 kHz, and hands it to
 * the collector in CULPRIT_SAMPLE_LEAD.  Each sample leaves a gap in the
 * spinning; the lead is the part of the gap before the kernel's stamp.
 */
#define _GNU_SOURCE
#include "driver.h"
#include "perf_sample.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LEAD_SAMPLES 32		/* gaps measured */
#define LEAD_PERIOD_NS 100000	/* one sample per 100 us of CPU time */
#define LEAD_BUDGET_NS 50000000	/* give up after 50 ms on a busy machine */
#define LEAD_MAX_NS 100000	/* a longer gap is a preemption, not a sample */

/* What the handler saw, per sample: the counter when the spinning stopped
 * and when the handler ran, the clock then, and the kernel's stamp. */
static struct lead_sample {
	uint64_t stopped, handled, handled_ns, stamped_ns;
} seen[LEAD_SAMPLES];
static volatile sig_atomic_t nseen;
static volatile uint64_t spinning;	/* the counter, as the spinning left it */
static struct perf_event_mmap_page *ring;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The stamp of the newest sample record in the ring; 0 if none. */
static uint64_t newest_stamp(void)
{
	const unsigned char *data = (const unsigned char *)ring + ring->data_offset;
	uint64_t size = ring->data_size, stamp = 0;
	uint64_t head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE), tail = ring->data_tail;

	while (size && head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		memcpy(&h, data + (tail & (size - 1)), sizeof h);
		if (h.size < sizeof h)
			break;
		/* Records are 8-byte aligned: an 8-byte field never wraps. */
		if (h.type == PERF_RECORD_SAMPLE)
			memcpy(&stamp, data + ((tail + sizeof h) & (size - 1)), 8);
		tail += h.size;
	}
	__atomic_store_n(&ring->data_tail, head, __ATOMIC_RELEASE);
	return stamp;
}

/* A sample lost to a full signal queue (see sample_lead_measure): the
 * lead is measured from the samples that came. */
static void on_overflow(int sig)
{
	(void)sig;
}

static void on_sample(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)info;
	(void)uc;
	uint64_t handled = __builtin_ia32_rdtsc(), now = monotonic_ns();
	if (nseen < LEAD_SAMPLES) {
		seen[nseen] = (struct lead_sample){ spinning, handled, now, newest_stamp() };
		nseen++;
	}
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The lead from the samples seen: their median.  Not more: looking back
 * further than the thread stopped puts the other workers' states in
 * another phase of the program (our VM: 4.0 us median, 5 us at p90, and
 * the short measure's tail is noisy). */
static long lead_from_samples(uint64_t stamp0, uint64_t ns0, uint64_t stamp1, uint64_t ns1)
{
	double leads[LEAD_SAMPLES];
	int n = 0;

	if (stamp1 <= stamp0 || ns1 <= ns0)
		return 0;
	double per_ns = (double)(stamp1 - stamp0) / (double)(ns1 - ns0);
	/* The first sample may have met the spinning loop's first entry. */
	for (int i = 1; i < nseen; i++) {
		const struct lead_sample *s = &seen[i];
		if (!s->stamped_ns || s->handled <= s->stopped || s->handled_ns < s->stamped_ns)
			continue;
		double gap = (double)(s->handled - s->stopped) / per_ns;
		double lead = gap - (double)(s->handled_ns - s->stamped_ns);
		if (gap < LEAD_MAX_NS && lead >= 0)
			leads[n++] = lead;
	}
	if (n < LEAD_SAMPLES / 3)
		return 0;
	qsort(leads, (size_t)n, sizeof *leads, by_value);
	return (long)leads[n / 2];
}

long sample_lead_measure(void)
{
	int signo = SIGRTMIN + 1;
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	perf_sample_attr(&a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = LEAD_PERIOD_NS;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;	/* the collector will use timers, which carry no stamp */
	long page = sysconf(_SC_PAGESIZE);
	void *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return 0;
	}
	ring = map;

	struct sigaction sa, old, io, old_io;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(signo, &sa, &old);
	/* When the queue of real-time signals is full (a low
	 * RLIMIT_SIGPENDING, or strace -f holding them), the kernel sends a
	 * plain SIGIO instead, whose default action would end culprit run:
	 * such a sample is lost, nothing more. */
	memset(&io, 0, sizeof io);
	io.sa_handler = on_overflow;
	io.sa_flags = SA_RESTART;
	sigemptyset(&io.sa_mask);
	sigaction(SIGIO, &io, &old_io);
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	long lead = 0;
	nseen = 0;
	if (fcntl(fd, F_SETSIG, signo) == 0 && fcntl(fd, F_SETOWN_EX, &owner) == 0 &&
	    fcntl(fd, F_SETFL, O_ASYNC) == 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0) {
		uint64_t stamp0 = __builtin_ia32_rdtsc(), ns0 = monotonic_ns(), ns1 = ns0;
		while (nseen < LEAD_SAMPLES && ns1 - ns0 < LEAD_BUDGET_NS) {
			for (int i = 0; i < 256; i++)
				spinning = __builtin_ia32_rdtsc();
			ns1 = monotonic_ns();
		}
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		uint64_t stamp1 = __builtin_ia32_rdtsc();
		ns1 = monotonic_ns();
		lead = lead_from_samples(stamp0, ns0, stamp1, ns1);
	}
	/* Signals sent before the close are delivered before it returns. */
	close(fd);
	munmap(map, (size_t)page * 2);
	sigaction(signo, &old, NULL);
	sigaction(SIGIO, &old_io, NULL);
	return lead;
}
