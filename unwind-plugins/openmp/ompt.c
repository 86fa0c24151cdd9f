/* ompt.c - the OpenMP plugin: LLVM libomp, through its tools interface
 * (OMPT).
 *
 * The core starts the plugin (its init hook) as the collector starts,
 * before the program runs.  libomp then finds the tool through
 * ompt_start_tool, which libculprit.so exports (this folder's exports.map),
 * and the plugin answers it only once initialised in a measured process:
 * it works exactly when the program runs an OMPT-capable OpenMP runtime
 * (GCC programs are moved onto libomp by `culprit run`).
 *
 * Logical contexts: a parallel region's record is captured where the
 * region is opened (parallel_begin) and every implicit task of the region
 * runs under it; an explicit task's record is captured where the task is
 * created (task_create).  A thread's current record follows the task it
 * runs (implicit_task, task_schedule).  The boundary of OpenMP work is the
 * innermost frame of user code called directly by libomp (the outlined
 * region or task body), so a sample reads, on any thread:
 *   main -> ... -> the function that opened the region -> the region's
 *   body -> ... -> the call that created the task -> the task's body -> ...
 * with libomp's scheduler frames gone.  Samples inside libomp called from
 * user code keep those frames: that is runtime overhead.
 *
 * Worker states come from the callbacks: a pool worker outside a parallel
 * region is idle because only serial code runs; a worker in a barrier,
 * taskwait, taskgroup or reduction is waiting (CULPRIT_WAITING): it runs
 * libomp's task scheduler, overhead, while tasks are queued, and is idle
 * for that reason while none are; waiting for a lock is idle; running a
 * task (also inside a barrier) is working.
 * Samples of idle workers, spinning or asleep, add nothing: idleness comes
 * from the counts.
 *
 * Task sizes: each explicit task's running time on CLOCK_MONOTONIC (the
 * vDSO: two reads a task), its waits for its children (a taskwait, and
 * the children it runs meanwhile) left out, and the time its thread
 * looked for work before it, go to culprit_task_done by the task's
 * creation site when it completes (seed 004's task-size and waiting-time
 * histograms per task type).
 *
 * libomp reports a pool worker's end of a region late: the worker waits in
 * the region's closing barrier until the next region starts (only then do
 * its barrier wait and implicit task end).  While the region's master still
 * works, that wait is imbalance; once the region has ended it is serial
 * code's doing.  So the master, as the region ends, moves the region's
 * waiting workers from the barrier cause to the serial cause, and a worker
 * that starts to wait after that (a race) moves itself.
 */
#define _GNU_SOURCE
#include "plugin.h"

#include <dlfcn.h>
#include <link.h>
#include <omp-tools.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#define EXPORT __attribute__((visibility("default")))
#define MAX_RANGES 16
#define MAX_NESTING 256
#define MAX_WORKERS 1024

/* libomp's code: the frames that are the runtime's; and the system
 * libraries' (libc and the like), which libomp calls too. */
struct text_set {
	struct {
		uintptr_t lo, hi;
	} range[MAX_RANGES];
	int n;
};
static struct text_set omp_text, sys_text;
/* The core started the plugin (omp_init): ompt_start_tool may answer. */
static int initialised;

/* What is suspended on a thread under the task it runs now: a task that
 * met a barrier and runs another meanwhile, or the task that opened the
 * parallel region whose implicit task runs now. */
struct suspended {
	uint8_t state, cause;	/* its worker state */
	struct culprit_ctx *ctx;	/* its record (the implicit case restores it) */
	const ompt_data_t *task;	/* the task (NULL: a region's encountering task) */
	uint64_t ran_ns, wait_ns;	/* its running time so far; the wait before it */
	uint8_t running;	/* not in a taskwait (set aside from one: 0) */
};

/* The runtime's threads.  TEAM is the region (its record) whose implicit
 * task a pool worker runs as a non-master member, until the region's master
 * sets it NULL as the region ends.  CREATED and STARTED count the deferred
 * tasks the thread created and started: their sums over all threads differ
 * by the tasks queued.  Each thread writes its own slot (no atomic
 * read-modify-write per task); samples read them all. */
struct team_slot {
	_Atomic(struct culprit_ctx *) team;
	struct culprit_worker *worker;
	_Atomic long created, started;
} __attribute__((aligned(64)));
static struct team_slot slots[MAX_WORKERS];
static atomic_int nslots;
/* The counts of threads without a slot. */
static _Atomic long created_elsewhere, started_elsewhere;

struct omp_thread {
	int worker;		/* a pool worker (not the initial thread) */
	struct team_slot *slot;	/* this thread's (NULL: none left) */
	struct culprit_ctx *team;	/* the region it last joined as a member */
	uint8_t state, cause;	/* of the running task */
	int depth;		/* entries of stack[] in use (may exceed it) */
	struct suspended stack[MAX_NESTING];
	int regions;		/* implicit tasks of parallel regions running */
	/* The running task's time (CLOCK_MONOTONIC): since when it runs, what
	 * it ran before it was last set aside, how long the thread looked for
	 * work before it started; and since when the thread looks for work. */
	uint64_t task_start_ns, task_ran_ns, task_wait_ns, wait_since_ns;
	int task_running;	/* 0 while it waits in a taskwait: not its size */
};
static __thread struct omp_thread me __attribute__((tls_model("initial-exec")));
/* Inside omp_test_lock: see the interposers at the end. */
static __thread int testing_lock __attribute__((tls_model("initial-exec")));

/* async-signal-safe */
static int in_text(const struct text_set *t, uint64_t addr)
{
	for (int i = 0; i < t->n; i++)
		if (addr - t->range[i].lo < t->range[i].hi - t->range[i].lo)
			return 1;
	return 0;
}

/* async-signal-safe */
static int is_libomp(uint64_t addr)
{
	return in_text(&omp_text, addr);
}


/* The innermost frame of the program's code that libomp called: where an
 * outlined region or task body was entered (libc called by libomp, say to
 * yield, is not it).  When there is none (the thread is in libomp's own
 * code), the libomp frames up to the outermost are kept.
 * async-signal-safe. */
static int omp_boundary(const struct culprit_frame *f, int n, int partial)
{
	int last = -1;
	for (int i = 0; i < n; i++) {
		int omp = is_libomp(f[i].addr);
		if (i + 1 < n && !omp && !(f[i].flags & CULPRIT_FRAME_OURS) &&
		    is_libomp(f[i + 1].addr) && !in_text(&sys_text, f[i].addr))
			return i + 1;
		if (omp)
			last = i;
	}
	if (partial)
		return -1;
	return last >= 0 ? last + 1 : n;
}

/* The clock task sizes are read with: four reads a task (its start and
 * end, a taskwait's start and end), so the time stamp counter where it
 * runs at a constant rate (x86's invariant TSC: about 7 ns a read), scaled
 * to nanoseconds by a rate measured against CLOCK_MONOTONIC as the tool
 * starts; else CLOCK_MONOTONIC (the vDSO: about 20 ns).  Only differences
 * of its values, on one thread, are used. */
static int use_tsc;
static uint64_t tsc_mult;	/* nanoseconds per tick, times 2^32 */

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
#if defined(__x86_64__)
	if (use_tsc)
		return (uint64_t)(((unsigned __int128)__rdtsc() * tsc_mult) >> 32);
#endif
	return monotonic_ns();
}

/* Measures the TSC's rate over 200 us, if it is invariant. */
static void clock_calibrate(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
		return;	/* no invariant TSC: its rate may change */
	uint64_t m0 = monotonic_ns(), t0 = __rdtsc(), m1, t1;
	do {
		m1 = monotonic_ns();
		t1 = __rdtsc();
	} while (m1 - m0 < 200000);
	if (t1 <= t0)
		return;
	tsc_mult = (uint64_t)(((unsigned __int128)(m1 - m0) << 32) / (t1 - t0));
	use_tsc = tsc_mult > 0;
#endif
}

/* The thread's state from now on; NOW is the time if the caller read it
 * (else 0), for a thread that starts to look for work. */
static void set_state_at(int state, int cause, uint64_t now)
{
	if (state == CULPRIT_WORKING && me.state == CULPRIT_WORKING)
		return;	/* the common case: task after task */
	if (state != CULPRIT_WORKING && me.state == CULPRIT_WORKING)
		me.wait_since_ns = now ? now : now_ns();	/* it starts to look for work */
	me.state = (uint8_t)state;
	me.cause = (uint8_t)cause;
	culprit_worker_set((enum culprit_worker_state)state, (enum culprit_idle_cause)cause);
	/* Waiting in a barrier of a region that has ended already: the master
	 * missed this worker (it had not started to wait); see end_team(). */
	if (state == CULPRIT_WAITING && cause == CULPRIT_IDLE_BARRIER && me.slot && me.team &&
	    atomic_load(&me.slot->team) != me.team &&
	    culprit_worker_recause(me.slot->worker, CULPRIT_WAITING, CULPRIT_IDLE_BARRIER,
				   CULPRIT_IDLE, CULPRIT_IDLE_SERIAL)) {
		me.state = CULPRIT_IDLE;
		me.cause = CULPRIT_IDLE_SERIAL;
	}
}

static void set_state(int state, int cause)
{
	set_state_at(state, cause, 0);
}

/* One more task created, or started, by this thread. */
static void count_task(int started)
{
	if (!me.slot) {
		atomic_fetch_add(started ? &started_elsewhere : &created_elsewhere, 1);
		return;
	}
	_Atomic long *c = started ? &me.slot->started : &me.slot->created;
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* async-signal-safe */
static int omp_tasks_pending(void)
{
	long queued = atomic_load_explicit(&created_elsewhere, memory_order_relaxed) -
		      atomic_load_explicit(&started_elsewhere, memory_order_relaxed);
	int n = atomic_load_explicit(&nslots, memory_order_relaxed);
	for (int i = 0; i < n && i < MAX_WORKERS; i++)
		queued += atomic_load_explicit(&slots[i].created, memory_order_relaxed) -
			  atomic_load_explicit(&slots[i].started, memory_order_relaxed);
	return queued > 0;
}

/* The master ends REGION: its members wait in its closing barrier until
 * some later region needs them, idle because serial code runs.  (The
 * store to a member's slot comes before the change of its state, and a
 * member sets its state before it reads its slot, so each waiting member
 * is moved by one of the two.) */
static void end_team(struct culprit_ctx *region)
{
	int n = atomic_load(&nslots);
	if (!region)
		return;
	for (int i = 0; i < n && i < MAX_WORKERS; i++) {
		struct culprit_ctx *expected = region;
		if (atomic_compare_exchange_strong(&slots[i].team, &expected, NULL))
			culprit_worker_recause(slots[i].worker, CULPRIT_WAITING, CULPRIT_IDLE_BARRIER,
					       CULPRIT_IDLE, CULPRIT_IDLE_SERIAL);
	}
}

/* ---- callbacks ------------------------------------------------------------ */

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
	CULPRIT_MEASURED;
	(void)thread_data;
	memset(&me, 0, sizeof me);
	if (type != ompt_thread_worker && type != ompt_thread_initial)
		return;
	struct culprit_worker *w = culprit_worker_self();
	int i = w ? atomic_fetch_add(&nslots, 1) : MAX_WORKERS;
	if (i < MAX_WORKERS) {
		slots[i].worker = w;
		me.slot = &slots[i];
	}
	if (type == ompt_thread_worker) {
		me.worker = 1;
		set_state(CULPRIT_IDLE, CULPRIT_IDLE_SERIAL);	/* until it gets a region */
	} else {
		set_state(CULPRIT_WORKING, 0);
	}
}

static void on_thread_end(ompt_data_t *thread_data)
{
	CULPRIT_MEASURED;
	(void)thread_data;
	set_state(CULPRIT_NOT_WORKER, 0);
	/* Slots are not reused; the collector's thread slot it names stays
	 * mapped, and no master will claim it now. */
	if (me.slot)
		atomic_store(&me.slot->team, NULL);
}

/* The creating code's context, where libomp was entered from it: FRAME is
 * the encountering task's, whose enter frame is libomp's entry point's
 * frame (its return address, at +8, is CODEPTR's), and whose exit frame is
 * libomp's frame that started the encountering task.  Checked, so that an
 * entry point that sets it otherwise is unwound instead. */
static struct culprit_ctx *capture(const ompt_frame_t *frame, const void *codeptr, unsigned flags)
{
	uintptr_t slot = 0, entry = 0;
	if (frame && codeptr && frame->enter_frame.ptr &&
	    (frame->enter_frame_flags & ompt_frame_framepointer)) {
		slot = (uintptr_t)frame->enter_frame.ptr + sizeof(void *);
		if (*(void *const *)slot != codeptr)
			slot = 0;
		entry = (uintptr_t)frame->exit_frame.ptr;
	}
	return culprit_ctx_capture_at(slot, entry, is_libomp, omp_boundary, flags);
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
			      unsigned int requested, int flags, const void *codeptr)
{
	CULPRIT_MEASURED;
	(void)task;
	(void)requested;
	(void)flags;
	parallel->ptr = capture(frame, codeptr, 0);
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
			    const void *codeptr)
{
	CULPRIT_MEASURED;
	(void)task;
	(void)flags;
	(void)codeptr;
	end_team(parallel->ptr);
	culprit_ctx_release(parallel->ptr);
	parallel->ptr = NULL;
}

/* Sets the running task aside (its record CTX, the task TASK) under a new
 * one that starts NOW: its running time so far goes with it. */
static uint64_t task_ran(uint64_t now)
{
	return me.task_ran_ns + (me.task_running && me.task_start_ns ? now - me.task_start_ns : 0);
}

static void push(struct culprit_ctx *ctx, const ompt_data_t *task, uint64_t now)
{
	if (me.depth < MAX_NESTING)
		me.stack[me.depth] = (struct suspended){ me.state, me.cause, ctx, task, task_ran(now),
							 me.task_wait_ns, (uint8_t)me.task_running };
	me.depth++;
	me.task_start_ns = now;
	me.task_ran_ns = 0;
	me.task_wait_ns = 0;
	me.task_running = 1;
}

/* Whether TASK is the one suspended on this thread under the task it runs
 * now: a switch to it goes back down, it starts nothing on top. */
static int suspended_below(const ompt_data_t *task)
{
	return task && me.depth > 0 && me.depth <= MAX_NESTING &&
	       me.stack[me.depth - 1].task == task;
}

/* Pops what was suspended, which runs again from NOW; returns it (zeroed
 * beyond the stack's room). */
static struct suspended pop(uint64_t now)
{
	struct suspended s = { CULPRIT_WORKING, 0, NULL, NULL, 0, 0, 1 };
	if (me.depth > 0 && --me.depth < MAX_NESTING)
		s = me.stack[me.depth];
	me.task_start_ns = now;
	me.task_ran_ns = s.ran_ns;
	me.task_wait_ns = s.wait_ns;
	me.task_running = s.running;
	return s;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
			     ompt_data_t *task, unsigned int actual, unsigned int index, int flags)
{
	CULPRIT_MEASURED;
	(void)actual;
	if (flags & ompt_task_initial) {
		/* The thread's initial task runs under what the thread
		 * already runs under (its creator's context, or nothing). */
		if (endpoint == ompt_scope_begin) {
			struct culprit_ctx *base = culprit_ctx_get();
			culprit_ctx_hold(base);
			task->ptr = base;
		} else {
			culprit_ctx_release(task->ptr);
			task->ptr = NULL;
		}
		return;
	}
	if (endpoint == ompt_scope_begin) {
		struct culprit_ctx *region = parallel ? parallel->ptr : NULL;
		culprit_ctx_hold(region);
		task->ptr = region;
		push(culprit_ctx_set(region), NULL, now_ns());
		me.regions++;
		if (index != 0 && me.worker && me.slot) {
			me.team = region;
			atomic_store(&me.slot->team, region);
		}
		set_state(CULPRIT_WORKING, 0);
		return;
	}
	if (me.team == task->ptr && me.slot) {
		me.team = NULL;
		atomic_store(&me.slot->team, NULL);
	}
	/* The end: the encountering task (or the pool) takes over again; no
	 * task_schedule says so. */
	struct suspended was = pop(now_ns());
	me.regions--;
	culprit_ctx_set(was.ctx);
	if (me.worker && me.regions == 0)
		set_state(CULPRIT_IDLE, CULPRIT_IDLE_SERIAL);	/* back in the pool */
	else
		set_state(was.state, was.cause);
	culprit_ctx_release(task->ptr);
	task->ptr = NULL;
}

static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frame, ompt_data_t *task,
			   int flags, int has_dependences, const void *codeptr)
{
	CULPRIT_MEASURED;
	(void)parent;
	(void)has_dependences;
	if (flags & ompt_task_initial) {
		task->ptr = NULL;
		return;
	}
	/* An undeferred task runs at once, inside its creator's frames; the
	 * others wait in a queue. */
	int undeferred = (flags & ompt_task_undeferred) != 0;
	task->ptr = capture(frame, codeptr, undeferred ? 0 : CULPRIT_CTX_QUEUED);
	/* Queued, for waiting workers to take; counted where it starts too
	 * (task_schedule), which needs its record. */
	if (!undeferred && task->ptr)
		count_task(0);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	CULPRIT_MEASURED;
	int done = status == ompt_task_complete || status == ompt_task_cancel ||
		   status == ompt_task_detach || status == ompt_task_late_fulfill;
	struct culprit_ctx *next_ctx = next ? next->ptr : NULL;

	/* Back to the task this one ran on top of, in its state: the prior
	 * task ended, or it was set aside.  An untied task is set aside at
	 * its task scheduling points (clang's untied tasks start with one):
	 * it queues its own continuation and libomp reports a switch back to
	 * the task it ran on top of, here; wherever it goes on, a switch to
	 * it says so there. */
	uint64_t now = now_ns();
	if (done || suspended_below(next)) {
		int kept = me.depth > 0 && me.depth <= MAX_NESTING;
		/* Its size: what it ran, the times it was set aside left out.
		 * (An untied task that moved counts its last piece only.) */
		if (done && prior && prior->ptr && me.task_start_ns)
			culprit_task_done(culprit_ctx_site(prior->ptr), task_ran(now), me.task_wait_ns);
		struct suspended was = pop(now);
		/* The record it ran under as it was set aside (past the
		 * stack's room: its own). */
		culprit_ctx_set(kept ? was.ctx : next_ctx);
		set_state(was.state, was.cause);
		if (done && prior) {
			culprit_ctx_release(prior->ptr);
			prior->ptr = NULL;
		}
		return;
	}
	/* A task starts or resumes on top of the prior one, which waits.
	 * Every task runs under its own record, an undeferred one too: its
	 * samples are cut where it was entered, inside its creator's frames,
	 * and continue with where it was created. */
	/* How long this thread looked for work before it: a worker that
	 * waited (in a barrier, a taskwait, the pool); none for one that
	 * worked until now (a creator running its task at once). */
	uint64_t waited = me.state != CULPRIT_WORKING && me.wait_since_ns ? now - me.wait_since_ns : 0;
	push(culprit_ctx_set(next_ctx), prior, now);
	me.task_wait_ns = waited;
	if ((culprit_ctx_flags(next_ctx) & CULPRIT_CTX_QUEUED) && culprit_ctx_claim(next_ctx))
		count_task(1);	/* its start, not a resumption */
	set_state(CULPRIT_WORKING, 0);
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
				ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	CULPRIT_MEASURED;
	(void)parallel;
	(void)task;
	(void)codeptr;
	/* A task's size leaves out its waits for its children. */
	uint64_t now = now_ns();
	if (endpoint == ompt_scope_end) {
		me.task_running = 1;
		me.task_start_ns = now;
		set_state(CULPRIT_WORKING, 0);
		return;
	}
	me.task_ran_ns = task_ran(now);
	me.task_running = 0;
	/* Waiting workers run queued tasks (the runtime's scheduler is
	 * overhead); without any, they are idle. */
	int cause = kind == ompt_sync_region_taskwait || kind == ompt_sync_region_taskgroup
		    ? CULPRIT_IDLE_TASKWAIT : CULPRIT_IDLE_BARRIER;
	set_state_at(CULPRIT_WAITING, cause, now);
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
			     ompt_wait_id_t wait_id, const void *codeptr)
{
	CULPRIT_MEASURED;
	(void)hint;
	(void)impl;
	(void)wait_id;
	(void)codeptr;
	/* omp_test_lock does not wait, and says "acquired" only if it got
	 * the lock.  (libomp 14 reports it as ompt_mutex_lock.) */
	if (kind == ompt_mutex_test_lock || kind == ompt_mutex_test_nest_lock || testing_lock)
		return;
	set_state(CULPRIT_IDLE, CULPRIT_IDLE_LOCK);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
	CULPRIT_MEASURED;
	(void)kind;
	(void)wait_id;
	(void)codeptr;
	set_state(CULPRIT_WORKING, 0);
}

/* In the child of fork(), only the forking thread exists; libomp starts
 * afresh there, with new workers. */
static void omp_fork_child(void)
{
	for (int i = 0; i < MAX_WORKERS; i++) {
		atomic_store(&slots[i].team, NULL);
		atomic_store(&slots[i].created, 0);
		atomic_store(&slots[i].started, 0);
	}
	atomic_store(&nslots, 0);
	atomic_store(&created_elsewhere, 0);
	atomic_store(&started_elsewhere, 0);
	me.slot = NULL;
	me.team = NULL;
}

/* As the collector starts, before the program runs (and so before libomp
 * looks for a tool).  The plugin takes part in every measured process: a
 * program may load libomp at any time. */
static int omp_init(void)
{
	initialised = 1;
	return 1;
}

static const struct culprit_plugin openmp_plugin = {
	.name = "openmp",
	.abi = CULPRIT_PLUGIN_ABI,
	.init = omp_init,
	.fork_child = omp_fork_child,
	.tasks_pending = omp_tasks_pending,
};
CULPRIT_PLUGIN(openmp_plugin);

/* ---- the tool ---------------------------------------------------------------- */

/* Adds the executable segments of the module INFO describes to T. */
static void add_text(struct text_set *t, const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum && t->n < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			t->range[t->n].lo = info->dlpi_addr + ph->p_vaddr;
			t->range[t->n].hi = t->range[t->n].lo + ph->p_memsz;
			t->n++;
		}
	}
}

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uintptr_t inside = (uintptr_t)arg;
	int mine = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && inside - lo < ph->p_memsz)
			mine = 1;
	}
	if (!mine)
		return 0;
	add_text(&omp_text, info);
	return 1;
}

/* Libraries that work for whoever calls them, by the start of their
 * file names. */
static int system_library(const char *path)
{
	static const char *const names[] = { "libc.so", "libm.so", "libpthread.so", "ld-linux",
					     "libstdc++.so", "libgcc_s.so", "libdl.so", "librt.so",
					     "linux-vdso" };
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strncmp(base, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

static int find_system(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (info->dlpi_name && system_library(info->dlpi_name))
		add_text(&sys_text, info);
	return 0;
}

#define REGISTER(set, event, fn) \
	set(event, (ompt_callback_t)(void (*)(void))(fn))

static int tool_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool_data)
{
	(void)device;
	(void)tool_data;
	ompt_set_callback_t set = (ompt_set_callback_t)(void (*)(void))lookup("ompt_set_callback");
	if (!set)
		return 0;
	clock_calibrate();
	/* The lookup function is libomp's: its module is the runtime. */
	dl_iterate_phdr(find_text, (void *)(uintptr_t)lookup);
	dl_iterate_phdr(find_system, NULL);
	REGISTER(set, ompt_callback_thread_begin, on_thread_begin);
	REGISTER(set, ompt_callback_thread_end, on_thread_end);
	REGISTER(set, ompt_callback_parallel_begin, on_parallel_begin);
	REGISTER(set, ompt_callback_parallel_end, on_parallel_end);
	REGISTER(set, ompt_callback_implicit_task, on_implicit_task);
	REGISTER(set, ompt_callback_task_create, on_task_create);
	REGISTER(set, ompt_callback_task_schedule, on_task_schedule);
	REGISTER(set, ompt_callback_sync_region_wait, on_sync_region_wait);
	REGISTER(set, ompt_callback_mutex_acquire, on_mutex_acquire);
	REGISTER(set, ompt_callback_mutex_acquired, on_mutex_acquired);
	return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
	(void)tool_data;
}

/* libomp calls this when it starts, if a tool provides it: the tool's
 * entry point, not the plugin's start (omp_init), so it answers only when
 * the core started the plugin and the process is being measured. */
EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						 const char *runtime_version);
EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						 const char *runtime_version)
{
	static ompt_start_tool_result_t result = { tool_initialize, tool_finalize, { 0 } };
	(void)omp_version;
	(void)runtime_version;
	if (!initialised || !culprit_collecting())
		return NULL;	/* loaded, but not measuring this process */
	return &result;
}

/* omp_test_lock and omp_test_nest_lock, wrapped: libomp 14 reports their
 * tries as ompt_mutex_lock, and a failed try has no "acquired", so without
 * this a thread that polls a lock would count as waiting for it while it
 * works between tries.  The lock is passed on untouched (its layout is
 * the runtime's business). */
typedef int test_lock_fn(void *lock);

static int test_lock(const char *name, test_lock_fn **real, void *lock)
{
	if (!*real)
		*real = (test_lock_fn *)(uintptr_t)dlsym(RTLD_NEXT, name);
	if (!*real)
		return 0;
	testing_lock++;
	int r = (*real)(lock);
	testing_lock--;
	return r;
}

EXPORT int omp_test_lock(void *lock);
EXPORT int omp_test_lock(void *lock)
{
	static test_lock_fn *real;
	return test_lock("omp_test_lock", &real, lock);
}

EXPORT int omp_test_nest_lock(void *lock);
EXPORT int omp_test_nest_lock(void *lock)
{
	static test_lock_fn *real;
	return test_lock("omp_test_nest_lock", &real, lock);
}
