/* workers.c - process-wide worker counts for idleness.
 *
 * Runtimes (through plugins or the runtime API) declare which threads are
 * workers and whether each is working or idle.  Both counts live in one
 * 64-bit word (workers << 32 | working) so that a sample reads a
 * consistent pair with one load.  Lock-free and async-signal-safe.
 */
#include "collector.h"

static _Atomic uint64_t counts;

static uint64_t delta(int old, int new)
{
	int64_t dw = (new != CULPRIT_NOT_WORKER) - (old != CULPRIT_NOT_WORKER);
	int64_t dk = (new == CULPRIT_WORKING) - (old == CULPRIT_WORKING);
	return (uint64_t)(dw * ((int64_t)1 << 32) + dk);
}

/* async-signal-safe */
void culprit_worker_set_state(enum culprit_worker_state state)
{
	struct culprit_thread *t = culprit_thread_self();

	if (!t || state > CULPRIT_IDLE)
		return;
	int old = atomic_exchange(&t->worker_state, (int)state);
	if (old != (int)state)
		atomic_fetch_add(&counts, delta(old, (int)state));
}

/* async-signal-safe */
enum culprit_worker_state culprit_worker_state(void)
{
	struct culprit_thread *t = culprit_thread_self();
	return t ? (enum culprit_worker_state)atomic_load(&t->worker_state)
		 : CULPRIT_NOT_WORKER;
}

/* async-signal-safe */
void workers_counts(uint32_t *workers, uint32_t *working)
{
	uint64_t v = atomic_load_explicit(&counts, memory_order_relaxed);
	*workers = (uint32_t)(v >> 32);
	*working = (uint32_t)v;
}

void workers_thread_end(struct culprit_thread *t)
{
	int old = atomic_exchange(&t->worker_state, CULPRIT_NOT_WORKER);
	if (old != CULPRIT_NOT_WORKER)
		atomic_fetch_add(&counts, delta(old, CULPRIT_NOT_WORKER));
}

void workers_fork_child(void)
{
	/* Only the forking thread survives; count it alone. */
	struct culprit_thread *t = culprit_thread_self();
	int s = t ? atomic_load(&t->worker_state) : CULPRIT_NOT_WORKER;
	atomic_store(&counts, delta(CULPRIT_NOT_WORKER, s));
}
