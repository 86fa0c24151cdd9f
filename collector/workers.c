/* workers.c - process-wide worker counts for idleness.
 *
 * Runtimes (through plugins or the runtime API) declare which threads are
 * workers and whether each is working, or idle and why.  All counts live in
 * one 64-bit word, so that a sample reads a consistent set with one load:
 *
 *   bits 48..63  working workers
 *   bits  0..47  idle workers, 12 bits per cause (enum culprit_idle_cause)
 *
 * A thread changes its own state; the one exception is culprit_worker_recause,
 * by which a runtime moves a sleeping worker to another cause (OpenMP's
 * pool workers wait in a region's last barrier until the next region, long
 * after the region ended).  The count update then follows the state change
 * by a few instructions, and a sample in between can see a field borrowed
 * from: a field that reads as more than half its range is taken as zero.
 *
 * Lock-free and async-signal-safe.
 */
#include "collector.h"

#define WORKING_SHIFT 48
#define CAUSE_BITS 12
#define CAUSE_MASK ((1u << CAUSE_BITS) - 1)

static _Atomic uint64_t counts;

/* A thread's state word: the state in the low 4 bits, the cause above. */
static int pack(int state, int cause)
{
	return state | cause << 4;
}

static uint64_t contribution(int packed)
{
	int state = packed & 0xf, cause = packed >> 4;
	if (state == CULPRIT_WORKING)
		return (uint64_t)1 << WORKING_SHIFT;
	if (state == CULPRIT_IDLE)
		return (uint64_t)1 << (CAUSE_BITS * cause);
	return 0;
}

static void change(struct culprit_thread *t, int packed)
{
	int old = atomic_exchange(&t->worker_state, packed);
	if (old != packed)
		atomic_fetch_add(&counts, contribution(packed) - contribution(old));
}

/* async-signal-safe */
void culprit_worker_set(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	struct culprit_thread *t = culprit_thread_self();

	if (!t || state > CULPRIT_IDLE || cause >= CULPRIT_IDLE_CAUSES)
		return;
	change(t, pack(state, state == CULPRIT_IDLE ? cause : 0));
}

struct culprit_worker *culprit_worker_self(void)
{
	return (struct culprit_worker *)culprit_thread_self();
}

/* async-signal-safe */
int culprit_worker_recause(struct culprit_worker *w, enum culprit_idle_cause from,
			   enum culprit_idle_cause to)
{
	struct culprit_thread *t = (struct culprit_thread *)w;

	if (!t || from >= CULPRIT_IDLE_CAUSES || to >= CULPRIT_IDLE_CAUSES)
		return 0;
	int expected = pack(CULPRIT_IDLE, from), packed = pack(CULPRIT_IDLE, to);
	if (!atomic_compare_exchange_strong(&t->worker_state, &expected, packed))
		return 0;
	if (from != to)
		atomic_fetch_add(&counts, contribution(packed) - contribution(expected));
	return 1;
}

/* async-signal-safe */
void workers_counts(uint32_t *working, uint32_t idle[CULPRIT_IDLE_CAUSES])
{
	uint64_t v = atomic_load_explicit(&counts, memory_order_relaxed);
	*working = (uint32_t)(v >> WORKING_SHIFT);
	if (*working > 0x7fff)
		*working = 0;	/* borrowed from, for an instant */
	for (int c = 0; c < CULPRIT_IDLE_CAUSES; c++) {
		idle[c] = (uint32_t)(v >> (CAUSE_BITS * c)) & CAUSE_MASK;
		if (idle[c] > CAUSE_MASK / 2)
			idle[c] = 0;
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
	atomic_store(&counts, t ? contribution(atomic_load(&t->worker_state)) : 0);
}
