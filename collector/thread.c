/* thread.c - per-thread collector state and its life cycle.
 *
 * Every sampled thread owns a struct culprit_thread, found through an
 * initial-exec TLS pointer (safe in signal handlers because this library is
 * preloaded).  Slots are mmap'd, linked into a registry that is never
 * shrunk, and reused once free, so the process-ending path can walk every
 * thread without locks.
 *
 * The state word arbitrates between a thread's own sample handler, the
 * thread ending itself, and another thread ending the process:
 *   LIVE -> BUSY -> LIVE      a sample (sample.c)
 *   LIVE -> CLOSING -> CLOSED written out, by whoever claims it first
 *   CLOSED/LIVE -> FREE       the thread released its slot as it ended
 */
#define _GNU_SOURCE
#include "collector.h"
#include "real.h"

#include <stddef.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <string.h>

__thread struct culprit_thread *culprit_self __attribute__((tls_model("initial-exec")));
static _Atomic(struct culprit_thread *) registry;
static pthread_key_t exit_key;
static int exit_key_ok;
static atomic_int warned_source;

const char *const culprit_counter_names[CNT_MAX] = {
	[CNT_SIGNALS] = "signals",
	[CNT_SAMPLES] = "samples",
	[CNT_IDLE] = "idle_samples",
	[CNT_MEASUREMENT] = "measurement_samples",
	[CNT_DROP_BUSY] = "dropped:busy",
	[CNT_DROP_MEMORY] = "dropped:tree_full",
	[CNT_DROP_EMPTY] = "dropped:no_new_value",
	[CNT_FOREIGN] = "foreign_signals",
	[CNT_PARTIAL] = "unwind:partial",
	[CNT_TRUNCATED] = "unwind:truncated",
	[CNT_FAULTS] = "unwind:faults",
	[CNT_UNKNOWN_FRAMES] = "frames:unknown_module",
	[CNT_HANDLER_NS] = "collector:handler_ns",
	[CNT_CAPTURES] = "context:captures",
	[CNT_CAPTURES_UNWOUND] = "context:captures_unwound",
	[CNT_CTX_FREED] = "context:freed",
	[CNT_WORKER_CHANGES] = "worker:changes",
	[CNT_WAITS_LOST] = "waits:lost",
	[CNT_TASKS_LOST] = "tasks:lost",
	[CNT_THROTTLED] = "throttled",
	[CNT_LOGICAL_FAULTS] = "logical:faults",
	[CNT_NAMES_LOST] = "logical:names_lost",
	[CNT_DROP_OVERFLOW] = "dropped:queue_full",
};

struct culprit_thread *culprit_thread_list(void)
{
	return atomic_load(&registry);
}

static void reset_slot(struct culprit_thread *t)
{
	/* Records from the pool may outlive the thread; the pool stays with
	 * the slot and serves the next thread in it. */
	struct ctx_pool *pool = t->ctx_pool;
	/* Captures are remembered by stack address: not the new thread's. */
	struct capture_memo *memo = t->capture_memo;
	capture_forget(memo);
	waits_forget(t);
	struct wait_table *waits = t->waits;
	tasks_forget(t);
	struct task_table *tasks = t->tasks;
	names_forget(t);
	struct name_table *names = t->names;
	/* The sample path's scratch stays too (its raw part is kept zero). */
	void **raw = t->raw;
	struct culprit_frame *frame = t->frame;
	uint32_t scratch_cap = t->scratch_cap, prefix_cap = t->prefix_cap;
	uint64_t *prefix_key = t->prefix_key;
	uint32_t *prefix_node = t->prefix_node;
	/* Everything after the registry link: other threads walk the list
	 * (slot_get) while this slot is reset, and a link cleared and put
	 * back could be read torn (half its bytes zero) and followed. */
	size_t keep = offsetof(struct culprit_thread, next) + sizeof t->next;
	memset((char *)t + keep, 0, sizeof *t - keep);
	t->ctx_pool = pool;
	t->capture_memo = memo;
	t->waits = waits;
	t->tasks = tasks;
	t->names = names;
	t->raw = raw;
	t->frame = frame;
	t->scratch_cap = scratch_cap;
	t->prefix_key = prefix_key;
	t->prefix_node = prefix_node;
	t->prefix_cap = prefix_cap;
	t->creator_seq = MFILE_NONE;
	t->creator_node = MFILE_NONE;
	for (int i = 0; i < EVENT_MAX; i++)
		t->src[i].fd = -1;
}

static struct culprit_thread *slot_get(void)
{
	struct culprit_thread *t;

	for (t = atomic_load(&registry); t; t = t->next) {
		int expected = THREAD_FREE;
		if (atomic_compare_exchange_strong(&t->state, &expected, THREAD_SETUP)) {
			reset_slot(t);
			return t;
		}
	}
	t = culprit_map(sizeof *t);
	if (!t)
		return NULL;
	atomic_store(&t->state, THREAD_SETUP);
	reset_slot(t);
	struct culprit_thread *head = atomic_load(&registry);
	do
		t->next = head;
	while (!atomic_compare_exchange_weak(&registry, &head, t));
	return t;
}

static void exit_key_destructor(void *arg)
{
	/* A thread that ends without returning through our trampoline or
	 * calling pthread_exit (cancellation): close it here. */
	if (culprit_self && culprit_self == arg)
		culprit_thread_end(MFILE_END_CANCEL);
}

void culprit_thread_signal_setup(struct culprit_thread *t)
{
	stack_t cur;
	sigset_t ours;

	/* Fatal-signal handlers run on an alternate stack so that a stack
	 * overflow can still flush; give the thread one if it has none. */
	if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
		size_t size = 64 * 1024;
		void *p = culprit_map(size);
		if (p) {
			stack_t ss = { .ss_sp = p, .ss_size = size, .ss_flags = 0 };
			if (sigaltstack(&ss, NULL) == 0)
				t->altstack = p;
			else
				culprit_unmap(p, size);
		}
	}
	/* New threads inherit their creator's mask; ours must be open. */
	sigemptyset(&ours);
	sigaddset(&ours, culprit_config.signo);
	REAL(pthread_sigmask)(SIG_UNBLOCK, &ours, NULL);
}

static void open_sources(struct culprit_thread *t)
{
	for (int i = 0; i < culprit_config.nevents; i++) {
		const struct event_spec *ev = &culprit_config.events[i];
		if (source_open(&t->src[i], ev, i, t->tid) == 0)
			continue;
		int err = errno;
		/* perf_event refused (fd limit, seccomp, a container): CPU time
		 * can still be sampled with a POSIX CPU-time timer. */
		if (ev->source == MFILE_SRC_PERF && strcmp(ev->name, "cputime") == 0) {
			struct event_spec fb = *ev;
			fb.source = MFILE_SRC_CPU_TIMER;
			if (source_open(&t->src[i], &fb, i, t->tid) == 0) {
				t->fallback_errno[i] = err;	/* said in the thread's file */
				continue;
			}
		}
		if (atomic_exchange(&warned_source, 1) == 0)
			culprit_log("cannot sample %s in thread %d: %s; its samples are missing",
				    ev->name, (int)t->tid, strerrordesc_np(err));
	}
}

/* A thread that will not be sampled: what the plugins captured for it at
 * its creation goes back to them. */
static struct culprit_thread *not_sampled(void *cookies[])
{
	if (cookies)
		plugins_release(cookies);
	return NULL;
}

struct culprit_thread *culprit_thread_begin(int is_main, void *cookies[])
{
	CULPRIT_MEASURED;
	if (!culprit_config.active || atomic_load(&culprit_process.finishing))
		return not_sampled(cookies);
	struct culprit_thread *t = slot_get();
	if (!t)
		return not_sampled(cookies);
	t->seq = is_main ? 0 : atomic_fetch_add(&culprit_process.thread_seq, 1);
	t->tid = culprit_gettid();
	t->start_realtime_ns = culprit_now_realtime();
	if (scratch_init(t) < 0 ||
	    cct_init(&t->cct, (uint32_t)NCOLUMNS, culprit_config.max_nodes) < 0) {
		atomic_store(&t->state, THREAD_FREE);
		return not_sampled(cookies);
	}
	culprit_unwind_thread_init(t, is_main);
	culprit_self = t;
	if (exit_key_ok)
		pthread_setspecific(exit_key, t);
	culprit_thread_signal_setup(t);
	atomic_store(&t->state, THREAD_LIVE);	/* plugins may capture contexts */
	plugins_thread_begin(cookies);
	atomic_store(&t->state, THREAD_SETUP);
	atomic_fetch_add(&culprit_process.threads_measured, 1);
	atomic_store(&t->state, THREAD_LIVE);
	open_sources(t);
	return t;
}

/* async-signal-safe */
int culprit_thread_claim(struct culprit_thread *t)
{
	for (long spins = 0;; spins++) {
		int s = THREAD_LIVE;
		if (atomic_compare_exchange_strong(&t->state, &s, THREAD_CLOSING))
			return 1;
		if (s != THREAD_BUSY)
			return 0;	/* being set up, already closing or closed, free */
		if (t == culprit_self) {
			/* We interrupted our own sample handler (a fatal signal
			 * inside it): nothing else will finish that sample. */
			if (atomic_compare_exchange_strong(&t->state, &s, THREAD_CLOSING))
				return 1;
			continue;
		}
		/* A sample is in progress on T's own thread; it takes
		 * microseconds.  A thread stopped inside its handler (a
		 * debugger) is given up on rather than waited for. */
		if (spins > 200000)
			return 0;
		sched_yield();
	}
}

/* async-signal-safe */
void culprit_thread_close(struct culprit_thread *t, uint32_t reason)
{
	for (int i = 0; i < culprit_config.nevents; i++)
		source_stop(&t->src[i]);
	t->end_reason = reason;
	t->end_realtime_ns = culprit_now_realtime();
	writer_thread_file(t, reason);
	atomic_store(&t->state, THREAD_CLOSED);
}

static void release(struct culprit_thread *t)
{
	for (int i = 0; i < culprit_config.nevents; i++)
		source_close(&t->src[i]);
	cct_destroy(&t->cct);
	if (t->altstack) {
		stack_t cur, off = { .ss_flags = SS_DISABLE };
		if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == t->altstack &&
		    sigaltstack(&off, NULL) == 0)
			culprit_unmap(t->altstack, 64 * 1024);
		t->altstack = NULL;
	}
	atomic_store(&t->state, THREAD_FREE);
}

void culprit_thread_end(uint32_t reason)
{
	CULPRIT_MEASURED;
	struct culprit_thread *t = culprit_self;

	if (!t)
		return;
	/* Our name now: once we are gone, /proc no longer has it for
	 * whoever writes our file. */
	prctl(PR_GET_NAME, t->name, 0, 0, 0);
	plugins_thread_end();
	workers_thread_end(t);
	culprit_ctx_release(culprit_ctx_set(NULL));
	if (culprit_thread_claim(t)) {
		culprit_thread_close(t, reason);
	} else if (atomic_load(&t->state) != THREAD_CLOSED) {
		/* The process is being finished by another thread, which owns
		 * our slot now; leave it be. */
		culprit_self = NULL;
		return;
	}
	culprit_self = NULL;
	if (exit_key_ok)
		pthread_setspecific(exit_key, NULL);
	release(t);
}

/* After a failed exec: every thread the finish wrote out is sampled again,
 * from an empty tree, as part of the new generation.  Their trees are not
 * touched by their handlers while they are CLOSED. */
void culprit_thread_reopen_all(void)
{
	for (struct culprit_thread *t = atomic_load(&registry); t; t = t->next) {
		if (!t->finish_owned || atomic_load(&t->state) != THREAD_CLOSED)
			continue;
		t->finish_owned = 0;
		cct_destroy(&t->cct);
		if (cct_init(&t->cct, (uint32_t)NCOLUMNS, culprit_config.max_nodes) < 0)
			continue;	/* stays CLOSED: unsampled */
		memset(t->counter, 0, sizeof t->counter);
		memset(t->idle_value, 0, sizeof t->idle_value);
		memset(t->idle_cause_value, 0, sizeof t->idle_cause_value);
		memset(t->record_node, 0, sizeof t->record_node);	/* a new tree */
		t->prefix_len = 0;
		t->file_suffix = 0;	/* the new generation's file */
		t->next_snapshot_ns = 0;
		t->end_reason = 0;
		t->end_realtime_ns = 0;
		t->start_realtime_ns = culprit_now_realtime();
		atomic_fetch_add(&culprit_process.threads_measured, 1);
		atomic_store(&t->state, THREAD_LIVE);
		for (int i = 0; i < culprit_config.nevents; i++)
			source_restart(&t->src[i]);
	}
}

void culprit_thread_fork_child(void)
{
	struct culprit_thread *me = culprit_self;

	/* Only the forking thread exists in the child.  The other slots'
	 * memory is a copy we can drop; their sources belong to the parent. */
	for (struct culprit_thread *t = atomic_load(&registry); t; t = t->next) {
		if (t == me || atomic_load(&t->state) == THREAD_FREE)
			continue;
		for (int i = 0; i < culprit_config.nevents; i++)
			source_forget(&t->src[i]);
		cct_destroy(&t->cct);
		atomic_store(&t->state, THREAD_FREE);
	}
	if (!me)
		return;
	uintptr_t root = me->root_ip;
	int was_main = me->seq == 0;
	for (int i = 0; i < culprit_config.nevents; i++)
		source_forget(&me->src[i]);
	cct_destroy(&me->cct);
	void *alt = me->altstack;
	atomic_store(&me->state, THREAD_FREE);
	culprit_self = NULL;
	me = culprit_thread_begin(1, NULL);
	if (me) {
		if (!was_main)
			me->root_ip = root;
		if (alt && !me->altstack)
			me->altstack = alt;	/* still installed: inherited by fork */
	}
}

void culprit_thread_process_init(void)
{
	exit_key_ok = pthread_key_create(&exit_key, exit_key_destructor) == 0;
}
