/* workers.c - worker states for idleness: one slot per worker thread,
 * summed when a sample needs the counts.
 *
 * Runtimes (through plugins or the runtime API) declare which threads are
 * workers and whether each is working, idle and why, or waiting and why.
 * Each worker thread owns a slot, a cache line of its own, whose one word
 * it alone writes in the common case:
 *
 *   bits  0..7   state: enum culprit_worker_state in the low 4 bits, the
 *                cause above
 *   bits  8..15  the state before, in the same layout
 *   bits 16..63  when the state began: the time stamp counter in units of
 *                16 cycles, modulo 2^48 (it wraps after days; stamps are
 *                compared by their difference)
 *
 * A state change is one store: nothing on the per-task path writes a line
 * that another thread writes, so its cost does not grow with the number
 * of threads.  A sample sums the slots (sample.c); the one cross-thread
 * write is culprit_worker_recause, by which a runtime moves a sleeping
 * worker to another state (OpenMP's pool workers wait in a region's last
 * barrier until the next region, long after the region ended).
 *
 * The stamp is there for the sample's sake.  A sample reaches its handler
 * microseconds after the counter overflowed (the timer interrupt, signal
 * delivery), and meanwhile the other workers go on: in a short parallel
 * region, the ones that finish their share start to wait for the sampled
 * thread, which is late only because it is being sampled.  Counting them
 * as idle would blame a whole sampling period of idleness on a wait that
 * the sample itself caused.  So a sample counts each worker in the state
 * it was in when the sampled thread stopped: the state before, when the
 * current one began later than that.  (A worker that changed twice since
 * is counted in the state it left last.)  That moment is not taken before
 * the sampled thread's own state began.
 *
 * Lock-free and async-signal-safe.
 */
#include "collector.h"

#define MAX_WORKERS 4096	/* worker threads alive at once */
#define STATE_BITS 8
#define STATE_MASK 0xffu
#define STAMP_SHIFT 16		/* the stamp's place in the word */
#define STAMP_UNIT 4		/* log2 of the cycles a stamp unit counts */

struct worker_slot {
	_Atomic uint64_t word;			/* state, state before, stamp */
	_Atomic(struct culprit_thread *) owner;	/* NULL: free */
} __attribute__((aligned(64)));

static struct worker_slot slots[MAX_WORKERS];
static atomic_uint nslots;	/* slots ever taken: the ones a sample reads */

/* A thread's state in the word's layout: the state in the low 4 bits, the
 * cause above (only idle and waiting states have one). */
static unsigned pack(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	int has_cause = state == CULPRIT_IDLE || state == CULPRIT_WAITING;
	return (unsigned)state | (has_cause ? (unsigned)cause : 0u) << 4;
}

/* A stamp as the word keeps it, in its top 48 bits. */
static uint64_t stamp_bits(uint64_t stamp)
{
	return stamp >> STAMP_UNIT << STAMP_SHIFT;
}

/* The stamp bits of word W. */
static uint64_t word_stamp(uint64_t w)
{
	return w >> STAMP_SHIFT << STAMP_SHIFT;
}

static uint64_t make_word(unsigned state, unsigned before, uint64_t stamp)
{
	return stamp_bits(stamp) | (uint64_t)(before & STATE_MASK) << STATE_BITS |
	       (state & STATE_MASK);
}

static int valid(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	return state <= CULPRIT_WAITING && cause < CULPRIT_IDLE_CAUSES;
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
		if (atomic_load_explicit(&slots[i].owner, memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&slots[i].owner, &none, t))
			continue;
		atomic_store(&slots[i].word, 0);
		unsigned n = atomic_load(&nslots);
		while (n < i + 1 && !atomic_compare_exchange_weak(&nslots, &n, i + 1))
			;
		t->worker_slot = &slots[i];
		return t->worker_slot;
	}
	return NULL;
}

/* async-signal-safe */
void culprit_worker_set(enum culprit_worker_state state, enum culprit_idle_cause cause)
{
	struct culprit_thread *t = culprit_thread_self();

	if (!t || !valid(state, cause))
		return;
	struct worker_slot *s = t->worker_slot;
	if (!s && (state == CULPRIT_NOT_WORKER || !(s = slot_of(t))))
		return;
	unsigned now = pack(state, cause);
	uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);
	if ((w & STATE_MASK) == now)
		return;
	atomic_store_explicit(&s->word, make_word(now, (unsigned)w, culprit_stamp()),
			      memory_order_release);
}

/* async-signal-safe */
enum culprit_worker_state workers_state(const struct culprit_thread *t,
					enum culprit_idle_cause *cause)
{
	const struct worker_slot *s = t ? t->worker_slot : NULL;
	unsigned packed = s ? (unsigned)atomic_load_explicit(&s->word, memory_order_relaxed) : 0;
	if (cause)
		*cause = (enum culprit_idle_cause)(packed >> 4 & 0xf);
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
	struct worker_slot *s = t ? t->worker_slot : NULL;

	if (!s || !valid(from_state, from_cause) || !valid(to_state, to_cause))
		return 0;
	unsigned from = pack(from_state, from_cause), to = pack(to_state, to_cause);
	uint64_t old = atomic_load(&s->word);
	do
		if ((old & STATE_MASK) != from)
			return 0;
	while (!atomic_compare_exchange_weak(&s->word, &old, make_word(to, from, culprit_stamp())));
	return 1;
}

/* async-signal-safe */
void workers_counts(struct worker_counts *out, uint64_t at, const struct culprit_thread *self)
{
	unsigned n = atomic_load_explicit(&nslots, memory_order_acquire);
	uint64_t at_bits = stamp_bits(at);
	const struct worker_slot *mine = self ? self->worker_slot : NULL;
	/* Not before the sampled thread's own state began: earlier, it was
	 * not doing what it was sampled doing (waiting, say, while the others
	 * waited too), and the others' states then are not its blame. */
	if (at && mine) {
		uint64_t began = word_stamp(atomic_load_explicit(&mine->word, memory_order_relaxed));
		if ((int64_t)(began - at_bits) > 0)
			at_bits = began;
	}

	*out = (struct worker_counts){ 0 };
	for (unsigned i = 0; i < n && i < MAX_WORKERS; i++) {
		uint64_t w = atomic_load_explicit(&slots[i].word, memory_order_relaxed);
		unsigned packed = (unsigned)w;
		/* Began after AT (wrapping-safe): count the state before.  The
		 * sampled thread itself is in the state it was sampled in. */
		if (at && &slots[i] != mine && (int64_t)(word_stamp(w) - at_bits) > 0)
			packed >>= STATE_BITS;
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

void workers_thread_end(struct culprit_thread *t)
{
	struct worker_slot *s = t->worker_slot;
	if (!s)
		return;
	atomic_store(&s->word, 0);
	t->worker_slot = NULL;
	atomic_store(&s->owner, NULL);
}

void workers_fork_child(void)
{
	/* Only the forking thread survives, and it starts afresh (thread.c):
	 * its runtime declares it again. */
	unsigned n = atomic_load(&nslots);
	for (unsigned i = 0; i < n && i < MAX_WORKERS; i++) {
		atomic_store(&slots[i].word, 0);
		atomic_store(&slots[i].owner, NULL);
	}
	atomic_store(&nslots, 0);
}
