/* sample.c - the sample signal handler: one sample, start to finish.
 *
 *   1. identify the source that sent the signal and read its delta
 *   2. samples in culprit's own work (its code, or while culprit_measuring
 *      says so) go to the measurement metric at their context, no further
 *   3. read the thread's worker state: idle workers add nothing to the tree
 *   4. unwind the native frames (unwind.c)
 *   5. place them in their logical context: if the thread's work runs
 *      under a record (context.c), cut the frames where the work began and
 *      continue with the record's chain; then let plugins adjust the path
 *   6. insert the path into the thread's tree and add the metrics:
 *        work += delta, idleness += delta * n_idle / n_working, by cause
 *
 * Everything here is async-signal-safe.  The thread's state word makes
 * the sample exclusive with the thread being written out (thread.c).
 */
#define _GNU_SOURCE
#include "collector.h"

#include <errno.h>
#include <time.h>
#include <ucontext.h>

const char *const culprit_column_names[COLS_PER_EVENT] = {
	[COL_SAMPLES] = "samples",
	[COL_WORK] = "work",
	[COL_IDLENESS] = "idleness",
#define IDLE_CAUSE_COLUMN(id, name, ...) [COL_IDLE_CAUSE + CULPRIT_IDLE_##id] = "idleness:" name,
	CULPRIT_IDLE_CAUSE_TABLE(IDLE_CAUSE_COLUMN)
#undef IDLE_CAUSE_COLUMN
	[COL_MEASUREMENT] = "measurement",
};

__thread unsigned culprit_measuring __attribute__((tls_model("initial-exec")));

/* When the thread stopped running its own code for a sample that the
 * kernel time-stamped at WHEN: a little earlier, by the timer interrupt's
 * entry (on a virtual machine, the exit to the host: 4 us on our test VM),
 * which culprit run measures (driver/sample_lead.c).  async-signal-safe. */
static uint64_t stopped_at(uint64_t when)
{
	uint64_t lead = culprit_config.sample_lead_ns;
	return when > lead ? when - lead : when;
}


/* Adds the idleness blamed on a sample of VALUE to its node's metrics M:
 * each cause's SHARE of the idle threads (idle_share.c), over the
 * WORKING threads (at least one: idle_share counts none idle without). */
static void blame(double *m, uint64_t value, uint32_t working,
		  const double share[CULPRIT_IDLE_CAUSES])
{
	for (unsigned c = 0; c < CULPRIT_IDLE_CAUSES; c++) {
		/* The total is the sum of the parts, exactly. */
		double b = (double)value * share[c] / working;
		m[COL_IDLE_CAUSE + c] += b;
		m[COL_IDLENESS] += b;
	}
}

/* Records a sample of VALUE taken at stamp AT (0: now), at NOW
 * (CLOCK_MONOTONIC), in thread T's tree and trace; MEASURING: the thread
 * was in culprit's own work. */
static void record(struct culprit_thread *t, const ucontext_t *uc, int ev, uint64_t value,
		   uint64_t at, uint64_t now, int measuring)
{
	struct trace *tr = &t->cct.trace;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	enum mfile_marker marker;

	/* Our own cost is measured where it was paid, but it is not the
	 * program's work. */
	if (measuring || culprit_in_collector(pc)) {
		uint32_t leaf = path_sample_node(t, uc, 1, &marker);
		if (leaf != CCT_NONE) {
			cct_node(&t->cct, leaf)->metric[ev * COLS_PER_EVENT + COL_MEASUREMENT] +=
				(double)value;
			t->counter[CNT_MEASUREMENT]++;
			trace_add(tr, now, ev, value, leaf, MFILE_TRACE_MEASUREMENT, NULL);
		}
		return;
	}

	/* A waiting worker works in the runtime's scheduler while tasks are
	 * queued; with none, it is idle (workers.c). */
	enum culprit_idle_cause cause;
	enum culprit_worker_state state = workers_state(t, &cause);
	int pending = -1;	/* not asked yet */
	if (state == CULPRIT_WAITING)
		pending = plugins_tasks_pending();
	if (state == CULPRIT_IDLE || (state == CULPRIT_WAITING && !pending)) {
		/* Its own time waiting (a wall-clock event sees it): the
		 * thread's statistics, not the tree's work. */
		t->counter[CNT_IDLE]++;
		t->idle_value[ev] += (double)value;
		if (cause < CULPRIT_IDLE_CAUSES)
			t->idle_cause_value[ev][cause] += (double)value;
		/* The timeline still shows it idle, and why. */
		trace_add(tr, now, ev, value, 0,
			  mfile_trace_idle_state(cause < CULPRIT_IDLE_CAUSES ? cause : 0), NULL);
		return;
	}
	/* The other workers as they were when the sample was taken, before
	 * this handler's own delay could make them wait for this thread. */
	struct worker_counts n;
	int worker = state == CULPRIT_WORKING || state == CULPRIT_WAITING;
	if (worker)
		workers_counts(&n, at, t);

	uint32_t leaf = path_sample_node(t, uc, 0, &marker);
	if (leaf == CCT_NONE)
		return;
	if (marker)
		t->counter[marker == MFILE_MARKER_TRUNCATED ? CNT_TRUNCATED : CNT_PARTIAL]++;
	double *m = cct_node(&t->cct, leaf)->metric + ev * COLS_PER_EVENT;
	m[COL_SAMPLES] += 1;
	m[COL_WORK] += (double)value;
	struct idle_moment moment;
	if (worker) {
		/* Once, for the metrics and the trace alike. */
		double share[CULPRIT_IDLE_CAUSES];
		if (n.nwaiting && pending < 0)
			pending = plugins_tasks_pending();
		moment.idle = idle_share(&n, pending, &moment.working, share);
		if (moment.idle)	/* then some thread works: this one */
			blame(m, value, moment.working, share);
	}
	t->counter[CNT_SAMPLES]++;
	trace_add(tr, now, ev, value, leaf, MFILE_TRACE_WORK, worker ? &moment : NULL);
}

/* The most of a thread's time its sample handler may take, in percent,
 * as perf's kernel.perf_cpu_time_max_percent (25 by default), and the
 * most credit a thread saves up, so that a few slow samples (the first
 * ones, with cold caches) pass. */
#define HANDLER_MAX_PERCENT 25
#define HANDLER_CREDIT_MAX_NS 20000000

/* The calling thread's CPU time: what its handler costs it.  The wall
 * clock would count the time a preempted handler waits for a CPU (64
 * threads on 2 CPUs: 62 s of "handler time" in a 3.75 s run, and half
 * the samples throttled).  A system call (some 0.4 us in a VM).
 * async-signal-safe */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether thread T's handler, starting at CPU time NOW, must pass this
 * signal over: its samples have taken more than HANDLER_MAX_PERCENT of
 * its CPU time.  A stack 65,536 frames deep takes about 10 ms a sample,
 * longer than the interval: unthrottled, the program would never get
 * anywhere.  The usual sample, microseconds every millisecond, never is.
 * async-signal-safe. */
static int throttled(struct culprit_thread *t, uint64_t now)
{
	int64_t credit = t->handler_credit_ns;
	if (!t->handler_seen_ns)
		credit = HANDLER_CREDIT_MAX_NS;
	else if (now > t->handler_seen_ns)
		credit += (int64_t)((now - t->handler_seen_ns) * HANDLER_MAX_PERCENT / 100);
	t->handler_credit_ns = credit < HANDLER_CREDIT_MAX_NS ? credit : HANDLER_CREDIT_MAX_NS;
	t->handler_seen_ns = now;
	return t->handler_credit_ns < 0;
}

/* Thread T's sample of event EV, its handler started at T0 (CLOCK_MONOTONIC)
 * and at CPU time C0, and a snapshot when one is due.  Our own cost is
 * kept, in CPU time, so that every measurement says what it cost.
 * async-signal-safe. */
static void take_sample(struct culprit_thread *t, int ev, const ucontext_t *uc, uint64_t t0,
			uint64_t c0, int measuring)
{
	t->counter[CNT_SIGNALS]++;
	uint64_t value, when;
	if (source_delta(&t->src[ev], &value, &when) == 0)
		record(t, uc, ev, value, when ? culprit_stamp_at(stopped_at(when), t0) : 0,
		       when ? stopped_at(when) : t0, measuring);
	else
		t->counter[CNT_DROP_EMPTY]++;
	uint64_t t1 = culprit_now_monotonic();
	if (culprit_config.snapshot_ns && t1 >= t->next_snapshot_ns)
		writer_snapshot(t, t1);	/* about once a second: see writer.c */
	uint64_t c1 = thread_cpu_ns();
	uint64_t cost = c1 > c0 ? c1 - c0 : 0;
	t->handler_credit_ns -= (int64_t)cost;
	t->counter[CNT_HANDLER_NS] += cost;
}

/* async-signal-safe */
void culprit_sample_handler(int sig, siginfo_t *info, void *ucv)
{
	int saved_errno = errno;
	int measuring = culprit_measuring != 0;
	struct culprit_thread *t = culprit_thread_self();
	int ev = t ? source_identify(t->src, culprit_config.nevents, info) : -1;

	if (ev < 0) {
		/* A leftover from a source already closed, or someone else's
		 * use of our signal number. */
		int ours = info->si_code == SI_TIMER || info->si_code == POLL_IN ||
			   info->si_code == POLL_HUP;
		if (!ours) {
			if (t && atomic_load(&t->state) == THREAD_LIVE)
				t->counter[CNT_FOREIGN]++;
			signals_forward_foreign(sig, info, ucv);
		}
		errno = saved_errno;
		return;
	}

	t->wakeups++;
	int expected = THREAD_LIVE;
	if (!atomic_compare_exchange_strong(&t->state, &expected, THREAD_BUSY)) {
		/* Capturing a context (context.c), or being written out (its
		 * counters are final then). */
		if (expected == THREAD_BUSY)
			t->counter[CNT_DROP_BUSY]++;
		errno = saved_errno;
		return;
	}
	/* Where it interrupted, for the load map (loadmap.c, path.c) while
	 * this handler runs. */
	t->sample_pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
	uint64_t t0 = culprit_now_monotonic(), c0 = thread_cpu_ns();
	if (throttled(t, c0))
		t->counter[CNT_THROTTLED]++;	/* its value goes to the next sample */
	else
		take_sample(t, ev, ucv, t0, c0, measuring);
	t->sample_pc = 0;
	expected = THREAD_BUSY;
	atomic_compare_exchange_strong(&t->state, &expected, THREAD_LIVE);
	errno = saved_errno;
}
