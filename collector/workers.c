/* workers.c - worker states for idleness: one slot per worker thread,
 * summed when a sample needs the counts.
 *
 * Runtimes (through plugins or the runtime API) declare which threads are
 * workers and whether each is working, idle and why, or waiting and why.
 * Each worker thread owns a slot, two cache lines of its own, where it
 * alone records its last HISTORY state changes: each the state entered and
 * when (the time stamp counter), numbered by a sequence counter.  A
 * change is two stores: nothing on the per-task path writes a line that
 * another thread writes, so its cost does not grow with the number of
 * threads.  A sample sums the slots (sample.c).  The one cross-thread
 * write is culprit_worker_recause, by which a runtime moves a sleeping
 * worker to another state (OpenMP's pool workers wait in a region's last
 * barrier until the next region, long after the region ended): it is kept
 * beside the history, for the change number it follows, and the owner
 * folds it into its history at its next change.
 *
 * The history is there for the sample's sake.  A sample reaches its
 * handler microseconds after the sampled thread stopped (the timer
 * interrupt, signal delivery), and meanwhile the other workers go on: in a
 * short parallel region, the ones that finish their share start to wait
 * for the sampled thread, which is late only because it is being sampled.
 * Counting them as idle would blame a whole sampling period of idleness on
 * a wait that the sample itself caused.  So a sample counts each worker in
 * the state it was in when the sampled thread stopped, found in its
 * history: a worker woken late may start, finish its share and wait again
 * within that time (doc/idleness.md).  That moment is not taken before the
 * sampled thread's own state began.
 *
 * Lock-free and async-signal-safe.
 */
#include "collector.h"

#define MAX_WORKERS 4096	/* worker threads alive at once */
#define HISTORY 8		/* state changes a slot remembers */
#define STATE_MASK 0xffu
#define STAMP_UNIT 4		/* log2 of the cycles a stamp unit counts */

/* A change: the state entered in the low 8 bits (enum culprit_worker_state
 * in the low 4, the cause above), and when in the rest: the time stamp
 * counter in units of 16 cycles, modulo 2^56 (changes are compared by the
 * difference of their stamps). */
typedef uint64_t change_t;

struct worker_slot {
	_Atomic uint64_t seq;			/* changes the owner made so far */
	_Atomic change_t change[HISTORY];	/* change n is at n % HISTORY */
	/* Another thread's change of this worker's state: for the owner's
	 * change number (low 16 bits) it follows, the state left (8 bits)
	 * and entered (8 bits), and when (the stamp's low 32 bits). */
	_Atomic uint64_t recause;
	_Atomic(struct culprit_thread *) owner;	/* NULL: free */
	/* Its state is the pthreads default (culprit_worker_default), which
	 * counts only until a runtime declares its pool through the API. */
	_Atomic unsigned char implicit;
} __attribute__((aligned(64)));

static struct worker_slot slots[MAX_WORKERS];
static atomic_uint nslots;	/* slots ever taken: the ones a sample reads */
/* A runtime declared its workers (culprit_worker_begin): threads it did
 * not declare are no workers, whatever their default said. */
static atomic_int declared_pool;

void workers_pool_declared(void)
{
	if (!atomic_load_explicit(&declared_pool, memory_order_relaxed))
		atomic_store(&declared_pool, 1);
}

/* Whether S's state is a default that no longer counts. */
static int overruled(const struct worker_slot *s)
{
	return atomic_load_explicit(&s->implicit, memory_order_relaxed) &&
	       atomic_load_explicit(&declared_pool, memory_order_relaxed);
}

/* A thread's state in a change's layout: the state in the low 4 bits, the
 * cause above (only idle and waiting states have one). */
_Static_assert(CULPRIT_IDLE_CAUSES <= 16, "a cause takes 4 bits of a change");
static unsigned pack(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	int has_cause = state == CULPRIT_IDLE || state == CULPRIT_WAITING;
	return (unsigned)state | (has_cause ? (unsigned)cause : 0u) << 4;
}

static uint64_t stamp_of(uint64_t cycles)
{
	return cycles >> STAMP_UNIT;
}

static change_t make_change(unsigned state, uint64_t stamp)
{
	return stamp << 8 | (state & STATE_MASK);
}

/* Whether change or stamp A comes after B (both in change layout). */
static int later(change_t a, change_t b)
{
	return (int64_t)((a & ~(uint64_t)STATE_MASK) - (b & ~(uint64_t)STATE_MASK)) > 0;
}

static uint64_t make_recause(uint64_t seq, unsigned from, unsigned to, uint64_t stamp)
{
	return (stamp & 0xffffffffu) << 32 | (uint64_t)(to & STATE_MASK) << 24 |
	       (uint64_t)(from & STATE_MASK) << 16 | (seq & 0xffffu);
}

/* Recause R as a change, if it follows change number SEQ whose state is
 * STATE (the latest change, stamped LATEST); else 0. */
static change_t recause_change(uint64_t r, uint64_t seq, unsigned state, change_t latest)
{
	if (!r || (r & 0xffffu) != (seq & 0xffffu) || (r >> 16 & STATE_MASK) != state)
		return 0;
	/* Its stamp's high bits are those of the change it follows, or the
	 * next 2^32 units if its low bits wrapped since. */
	uint64_t base = latest >> 8, low = r >> 32;
	uint64_t stamp = (base & ~0xffffffffull) | low;
	if (stamp < base)
		stamp += 1ull << 32;
	return make_change((unsigned)(r >> 24), stamp);
}

static int valid(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	return state <= CULPRIT_WAITING && cause < CULPRIT_IDLE_CAUSES;
}

/* S's latest change: the owner's own (number *SEQ), and a recause that
 * follows it (*RECAUSE, 0: none).  Exact for the owner; another thread
 * may read a change as it is made. */
static change_t read_latest(const struct worker_slot *s, uint64_t *seq, change_t *recause)
{
	uint64_t n = atomic_load_explicit(&s->seq, memory_order_acquire);
	change_t c = n ? atomic_load_explicit(&s->change[n % HISTORY], memory_order_relaxed) : 0;
	*recause = recause_change(atomic_load_explicit(&s->recause, memory_order_relaxed), n,
				  (unsigned)(c & STATE_MASK), c);
	*seq = n;
	return c;
}

/* The latest change of S, a pending recause folded in. */
static change_t latest_change(const struct worker_slot *s, uint64_t *seq)
{
	uint64_t n;
	change_t r, c = read_latest(s, &n, &r);
	if (seq)
		*seq = n;
	return r ? r : c;
}

/* T's slot, taken on its first declaration.  NULL when all are taken: the
 * thread is then no worker.  Not for signal handlers that run before the
 * thread has a slot (none do: only declarations take one). */
static struct worker_slot *slot_of(struct culprit_thread *t)
{
	if (t->worker_slot)
		return t->worker_slot;
	for (unsigned i = 0; i < MAX_WORKERS; i++) {
		struct culprit_thread *none = NULL;
		struct worker_slot *s = &slots[i];
		if (atomic_load_explicit(&s->owner, memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&s->owner, &none, t))
			continue;
		atomic_store(&s->seq, 0);
		atomic_store(&s->recause, 0);
		unsigned n = atomic_load(&nslots);
		while (n < i + 1 && !atomic_compare_exchange_weak(&nslots, &n, i + 1))
			;
		t->worker_slot = s;
		return s;
	}
	return NULL;
}

/* Appends changes to S, whose latest is number N: a recause R folded in
 * (0: none), then NOW.  Owner only. */
static void append(struct worker_slot *s, uint64_t n, change_t r, change_t now)
{
	if (r) {
		atomic_store_explicit(&s->change[++n % HISTORY], r, memory_order_relaxed);
		atomic_store_explicit(&s->seq, n, memory_order_release);
	}
	atomic_store_explicit(&s->change[++n % HISTORY], now, memory_order_relaxed);
	atomic_store_explicit(&s->seq, n, memory_order_release);
}

/* T declares STATE for CAUSE; IMPLICIT: as a default, not its runtime's
 * word.  async-signal-safe. */
static void declare(struct culprit_thread *t, enum culprit_worker_state state,
		    enum culprit_idle_cause cause, int implicit)
{
	if (!t || !valid(state, cause))
		return;
	struct worker_slot *s = t->worker_slot;
	if (!s && (state == CULPRIT_NOT_WORKER || !(s = slot_of(t))))
		return;
	if (atomic_load_explicit(&s->implicit, memory_order_relaxed) != implicit)
		atomic_store_explicit(&s->implicit, (unsigned char)implicit, memory_order_relaxed);
	uint64_t n;
	change_t r, c = read_latest(s, &n, &r);
	unsigned now = pack(state, cause);
	if (((r ? r : c) & STATE_MASK) == now)
		return;
	append(s, n, r, make_change(now, stamp_of(culprit_stamp())));
	t->counter[CNT_WORKER_CHANGES]++;
}

/* async-signal-safe */
void culprit_worker_set(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	declare(culprit_thread_self(), state, cause, 0);
}

/* async-signal-safe */
void culprit_worker_default(void)
{
	declare(culprit_thread_self(), CULPRIT_WORKING, 0, 1);
}

/* async-signal-safe */
int workers_by_default(const struct culprit_thread *t)
{
	const struct worker_slot *s = t->worker_slot;
	return s && atomic_load_explicit(&s->implicit, memory_order_relaxed) && !overruled(s);
}

/* async-signal-safe */
void workers_set_keeping(struct culprit_thread *t, enum culprit_worker_state state,
			 enum culprit_idle_cause cause)
{
	const struct worker_slot *s = t->worker_slot;
	declare(t, state, cause, s && atomic_load_explicit(&s->implicit, memory_order_relaxed));
}

/* async-signal-safe */
enum culprit_worker_state workers_state(const struct culprit_thread *t,
					enum culprit_idle_cause *cause)
{
	const struct worker_slot *s = t ? t->worker_slot : NULL;
	unsigned packed = s && !overruled(s) ? (unsigned)(latest_change(s, NULL) & STATE_MASK) : 0;
	if (cause)
		*cause = (enum culprit_idle_cause)(packed >> 4 & 0xf);
	return (enum culprit_worker_state)(packed & 0xf);
}

/* async-signal-safe */
enum culprit_worker_state culprit_worker_get(enum culprit_idle_cause *cause)
{
	return workers_state(culprit_thread_self(), cause);
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
	struct worker_slot *s = t ? t->worker_slot : NULL;

	if (!s || !valid(from_state, from_cause) || !valid(to_state, to_cause))
		return 0;
	unsigned from = pack(from_state, from_cause), to = pack(to_state, to_cause);
	for (int tries = 0; tries < 4; tries++) {
		uint64_t n, r = atomic_load(&s->recause);
		if ((latest_change(s, &n) & STATE_MASK) != from)
			return 0;
		uint64_t mine = make_recause(n, from, to, stamp_of(culprit_stamp()));
		if (!atomic_compare_exchange_strong(&s->recause, &r, mine))
			continue;
		/* The owner changed meanwhile: its change is the newer news. */
		return atomic_load(&s->seq) == n;
	}
	return 0;
}

/* S's state at stamp AT (change layout; 0: now), from its history.
 * A change the reader cannot be sure of (being written) is left out; a
 * history older than the ring counts as its oldest state.
 * async-signal-safe. */
static unsigned state_at(const struct worker_slot *s, change_t at)
{
	for (int tries = 0; tries < 3; tries++) {
		uint64_t n = atomic_load_explicit(&s->seq, memory_order_acquire);
		if (!n)
			return 0;
		change_t h[HISTORY + 1];
		int k = 0;
		/* The oldest entry may be overwritten by the owner's next
		 * change as we read: HISTORY - 1 of them. */
		for (uint64_t i = n; i > 0 && k < HISTORY - 1; i--)
			h[k++] = atomic_load_explicit(&s->change[i % HISTORY], memory_order_relaxed);
		change_t r = recause_change(atomic_load_explicit(&s->recause, memory_order_relaxed),
					    n, (unsigned)(h[0] & STATE_MASK), h[0]);
		if (atomic_load_explicit(&s->seq, memory_order_acquire) > n + 1)
			continue;	/* lapped while reading */
		if (!at)
			return (unsigned)((r ? r : h[0]) & STATE_MASK);
		if (r && !later(r, at))
			return (unsigned)(r & STATE_MASK);
		for (int i = 0; i < k; i++)
			if (!later(h[i], at))
				return (unsigned)(h[i] & STATE_MASK);
		/* All later: before its first change it was no worker. */
		return (uint64_t)k == n ? 0 : (unsigned)(h[k - 1] & STATE_MASK);
	}
	return (unsigned)(latest_change(s, NULL) & STATE_MASK);
}

/* async-signal-safe */
void workers_counts(struct worker_counts *out, uint64_t at, const struct culprit_thread *self)
{
	unsigned n = atomic_load_explicit(&nslots, memory_order_acquire);
	const struct worker_slot *mine = self ? self->worker_slot : NULL;
	change_t when = at ? make_change(0, stamp_of(at)) : 0;
	/* Not before the sampled thread's own state began: earlier, it was
	 * not doing what it was sampled doing (waiting, say, while the others
	 * waited too), and the others' states then are not its blame. */
	if (when && mine) {
		change_t began = latest_change(mine, NULL);
		if (later(began, when))
			when = began & ~(uint64_t)STATE_MASK;
	}

	*out = (struct worker_counts){ 0 };
	for (unsigned i = 0; i < n && i < MAX_WORKERS; i++) {
		if (overruled(&slots[i]))
			continue;
		/* The sampled thread itself is in the state it was sampled in. */
		unsigned packed = state_at(&slots[i], &slots[i] == mine ? 0 : when);
		unsigned state = packed & 0xf, cause = packed >> 4 & 0xf;
		if (cause >= CULPRIT_IDLE_CAUSES)
			continue;
		if (state == CULPRIT_WORKING)
			out->working++;
		else if (state == CULPRIT_IDLE)
			out->idle[cause]++;
		else if (state == CULPRIT_WAITING) {
			out->waiting[cause]++;
			out->nwaiting++;
		}
	}
}

/* Frees slot S: no worker, no history. */
static void slot_clear(struct worker_slot *s)
{
	atomic_store(&s->implicit, 0);
	atomic_store(&s->seq, 0);
	atomic_store(&s->recause, 0);
	atomic_store(&s->owner, NULL);
}

void workers_thread_end(struct culprit_thread *t)
{
	struct worker_slot *s = t->worker_slot;
	if (!s)
		return;
	t->worker_slot = NULL;
	slot_clear(s);
}

void workers_fork_child(void)
{
	/* Only the forking thread survives, and it starts afresh (thread.c):
	 * its runtime declares it again. */
	unsigned n = atomic_load(&nslots);
	for (unsigned i = 0; i < n && i < MAX_WORKERS; i++)
		slot_clear(&slots[i]);
	atomic_store(&nslots, 0);
	atomic_store(&declared_pool, 0);
}
