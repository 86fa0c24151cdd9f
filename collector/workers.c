/* workers.c - process-wide worker counts for idleness.
 *
 * Runtimes (through plugins or the runtime API) declare which threads are
 * workers and whether each is working, idle and why, or waiting and why.
 * The counts live in two 64-bit words:
 *
 *   counts   bits 48..63  working workers
 *            bits  0..47  idle workers, 12 bits per cause
 *   waiting  bits  0..63  waiting workers, 16 bits per cause
 *
 * A waiting worker sits in a runtime wait (a barrier, a taskwait) that runs
 * the runtime's task scheduler: it works, as the runtime's overhead, while
 * the runtime has tasks queued, and is idle for its cause while it has
 * none.  Which of the two is decided when a sample is taken (sample.c), by
 * asking the plugins whether tasks are queued; counting the queue itself
 * would cost an atomic operation on a shared word per task.
 *
 * A thread changes its own state; the one exception is culprit_worker_recause,
 * by which a runtime moves a sleeping worker to another state (OpenMP's
 * pool workers wait in a region's last barrier until the next region, long
 * after the region ended).  When a change touches both words, the new
 * state is added before the old is taken away, so that for an instant a
 * worker may count twice but never not at all.  A recause's count update
 * follows its state change by a few instructions, and a sample in between
 * can see a field borrowed from: a field that reads as more than half its
 * range is taken as zero.
 *
 * Lock-free and async-signal-safe.
 */
#include "collector.h"

#define WORKING_SHIFT 48
#define CAUSE_BITS 12
#define CAUSE_MASK ((1u << CAUSE_BITS) - 1)
#define WAITING_BITS 16
#define WAITING_MASK 0xffffu

static _Atomic uint64_t counts, waiting;

/* A thread's state word: the state in the low 4 bits, the cause above. */
static int pack(int state, int cause)
{
	return state | cause << 4;
}

static uint64_t in_counts(int packed)
{
	int state = packed & 0xf, cause = packed >> 4;
	if (state == CULPRIT_WORKING)
		return (uint64_t)1 << WORKING_SHIFT;
	if (state == CULPRIT_IDLE)
		return (uint64_t)1 << (CAUSE_BITS * cause);
	return 0;
}

static uint64_t in_waiting(int packed)
{
	if ((packed & 0xf) != CULPRIT_WAITING)
		return 0;
	return (uint64_t)1 << (WAITING_BITS * (packed >> 4));
}

/* The counts for a change from OLD to NEW, adding before taking away. */
static void account(int old, int new)
{
	uint64_t dc = in_counts(new) - in_counts(old), dw = in_waiting(new) - in_waiting(old);
	if (in_waiting(new)) {
		if (dw)
			atomic_fetch_add(&waiting, dw);
		if (dc)
			atomic_fetch_add(&counts, dc);
	} else {
		if (dc)
			atomic_fetch_add(&counts, dc);
		if (dw)
			atomic_fetch_add(&waiting, dw);
	}
}

static void change(struct culprit_thread *t, int packed)
{
	int old = atomic_exchange(&t->worker_state, packed);
	if (old != packed)
		account(old, packed);
}

static int valid(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	return state <= CULPRIT_WAITING && cause < CULPRIT_IDLE_CAUSES;
}

static int packed_state(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	int has_cause = state == CULPRIT_IDLE || state == CULPRIT_WAITING;
	return pack(state, has_cause ? cause : 0);
}

/* async-signal-safe */
void culprit_worker_set(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	struct culprit_thread *t = culprit_thread_self();

	if (!t || !valid(state, cause))
		return;
	change(t, packed_state(state, cause));
}

/* async-signal-safe */
enum culprit_worker_state workers_state(const struct culprit_thread *t,
					enum culprit_idle_cause *cause)
{
	int packed = t ? atomic_load_explicit(&t->worker_state, memory_order_relaxed) : 0;
	if (cause)
		*cause = (enum culprit_idle_cause)(packed >> 4);
	return (enum culprit_worker_state)(packed & 0xf);
}

struct culprit_worker *culprit_worker_self(void)
{
	return (struct culprit_worker *)culprit_thread_self();
}

/* async-signal-safe */
int culprit_worker_recause(struct culprit_worker *w, enum culprit_worker_state from_state,
			   enum culprit_idle_cause from_cause, enum culprit_worker_state to_state,
			   enum culprit_idle_cause to_cause)
{
	struct culprit_thread *t = (struct culprit_thread *)w;

	if (!t || !valid(from_state, from_cause) || !valid(to_state, to_cause))
		return 0;
	int expected = packed_state(from_state, from_cause);
	int packed = packed_state(to_state, to_cause);
	if (!atomic_compare_exchange_strong(&t->worker_state, &expected, packed))
		return 0;
	if (expected != packed)
		account(expected, packed);
	return 1;
}

/* async-signal-safe */
void workers_counts(struct worker_counts *out)
{
	uint64_t c = atomic_load_explicit(&counts, memory_order_relaxed);
	uint64_t w = atomic_load_explicit(&waiting, memory_order_relaxed);
	out->working = (uint32_t)(c >> WORKING_SHIFT);
	if (out->working > 0x7fff)
		out->working = 0;	/* borrowed from, for an instant */
	out->nwaiting = 0;
	for (int k = 0; k < CULPRIT_IDLE_CAUSES; k++) {
		out->idle[k] = (uint32_t)(c >> (CAUSE_BITS * k)) & CAUSE_MASK;
		if (out->idle[k] > CAUSE_MASK / 2)
			out->idle[k] = 0;
		out->waiting[k] = (uint32_t)(w >> (WAITING_BITS * k)) & WAITING_MASK;
		if (out->waiting[k] > WAITING_MASK / 2)
			out->waiting[k] = 0;
		out->nwaiting += out->waiting[k];
	}
}

void workers_thread_end(struct culprit_thread *t)
{
	change(t, CULPRIT_NOT_WORKER);
}

void workers_fork_child(void)
{
	/* Only the forking thread survives; count it alone. */
	struct culprit_thread *t = culprit_thread_self();
	int packed = t ? atomic_load(&t->worker_state) : 0;
	atomic_store(&counts, in_counts(packed));
	atomic_store(&waiting, in_waiting(packed));
}
