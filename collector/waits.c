/* waits.c - blocking waits: the thread's state while it blocks, and a
 * count of where it waited.
 *
 * Plugins wrap the calls that block (unwind-plugins/pthreads/waits.c, the
 * sleeps in interpose_misc.c) and bracket the blocking part.  A working
 * thread is idle for the wait's cause in between: its own samples add
 * nothing to the tree, and the samples of the threads still working are
 * blamed for it (sample.c).  Each wait is also counted in the thread's
 * table of wait sites, keyed by (site, object, kind): how many waits, how
 * long in all, the longest.  The table belongs to the thread: only the
 * thread writes it, and it is written out with the thread's file.
 *
 * A wait is timed with CLOCK_MONOTONIC (the vDSO: tens of nanoseconds),
 * paid only when a call really blocks: lock wrappers try first.
 */
#include "collector.h"
#include "mfile_write.h"

#define WAIT_SITES 512	/* distinct (site, object, kind) per thread */

struct wait_site {
	uintptr_t site;		/* 0: free */
	uintptr_t object;
	uint32_t kind, cause;
	uint64_t count, total_ns, max_ns;
};

struct wait_table {
	struct wait_site site[WAIT_SITES];
};

int culprit_waits_tracked(void)
{
	return culprit_config.active && culprit_config.waits;
}

int culprit_io_idle(void)
{
	return culprit_config.active && culprit_config.waits && culprit_config.io_idle;
}

/* Objects whose waits have a cause of their own (culprit_wait_cause). */
#define CAUSE_RANGES 4

static struct cause_range {
	uintptr_t lo, size;
	enum culprit_idle_cause cause;
} cause_range[CAUSE_RANGES];
static int ncause_ranges;

int culprit_wait_cause(const void *object, size_t size, enum culprit_idle_cause cause)
{
	if (ncause_ranges == CAUSE_RANGES || cause >= CULPRIT_IDLE_CAUSES)
		return -1;
	cause_range[ncause_ranges++] = (struct cause_range){ (uintptr_t)object, size, cause };
	return 0;
}

/* async-signal-safe */
int culprit_block_begin(struct culprit_block *w, enum culprit_block_kind kind,
		       enum culprit_idle_cause cause, const void *object, const void *site)
{
	struct culprit_thread *t = culprit_thread_self();
	w->start_ns = 0;
	/* Not our own waits: those of the sample handler (libunwind takes
	 * locks), of a capture, or of the thread being written out.  Nor a
	 * thread whose state a runtime declares (an OpenMP worker): its
	 * runtime locks and sleeps in its own way, and says so itself, but
	 * knows nothing of waits for other processes (MPI ranks). */
	if (!t || !culprit_config.waits || culprit_measuring ||
	    (unsigned)cause >= CULPRIT_IDLE_CAUSES ||
	    atomic_load_explicit(&t->state, memory_order_relaxed) != THREAD_LIVE ||
	    workers_state(t, NULL) != CULPRIT_WORKING ||
	    (!workers_by_default(t) && idle_cause(cause)->claim != IDLE_CLAIM_ELSEWHERE))
		return 0;
	for (int i = 0; i < ncause_ranges; i++)
		if ((uintptr_t)object - cause_range[i].lo < cause_range[i].size)
			cause = cause_range[i].cause;
	/* A plugin may read its runtime's memory under the fault guard,
	 * which a sample's own guarded unwind must not meet: no sample
	 * meanwhile, as for a capture (capture.c). */
	int expected = THREAD_LIVE;
	if (atomic_compare_exchange_strong(&t->state, &expected, THREAD_BUSY)) {
		cause = plugins_wait_cause(cause, kind, object);
		expected = THREAD_BUSY;
		atomic_compare_exchange_strong(&t->state, &expected, THREAD_LIVE);
	}
	if ((unsigned)cause >= CULPRIT_IDLE_CAUSES)
		return 0;
	workers_set_keeping(t, CULPRIT_IDLE, cause);
	w->site = (uintptr_t)site;
	w->object = object;
	w->kind = kind;
	w->start_ns = culprit_now_monotonic();
	return 1;
}

/* async-signal-safe */
int culprit_away_begin(void)
{
	struct culprit_thread *t = culprit_thread_self();
	if (!t || !culprit_config.waits || culprit_measuring ||
	    atomic_load_explicit(&t->state, memory_order_relaxed) != THREAD_LIVE ||
	    !workers_by_default(t) || workers_state(t, NULL) != CULPRIT_WORKING)
		return 0;
	workers_set_keeping(t, CULPRIT_NOT_WORKER, 0);
	return 1;
}

/* async-signal-safe */
void culprit_away_end(void)
{
	struct culprit_thread *t = culprit_thread_self();
	/* Unless a handler of the program's declared something meanwhile. */
	if (t && workers_state(t, NULL) == CULPRIT_NOT_WORKER)
		workers_set_keeping(t, CULPRIT_WORKING, 0);
}

/* The entry for W in T's table, made on first use; NULL when full. */
static struct wait_site *site_of(struct culprit_thread *t, const struct culprit_block *w)
{
	if (!t->waits) {
		t->waits = culprit_map(sizeof *t->waits);
		if (!t->waits)
			return NULL;
	}
	uint64_t h = (uint64_t)w->site * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)w->object;
	h ^= h >> 29;
	h = (h + w->kind) * 0xbf58476d1ce4e5b9ull;
	for (unsigned i = 0; i < WAIT_SITES; i++) {
		struct wait_site *s = &t->waits->site[(h + i) % WAIT_SITES];
		if (!s->site) {
			s->site = w->site;
			s->object = (uintptr_t)w->object;
			s->kind = w->kind;
			return s;
		}
		if (s->site == w->site && s->object == (uintptr_t)w->object && s->kind == w->kind)
			return s;
	}
	return NULL;
}

/* async-signal-safe */
void culprit_block_end(struct culprit_block *w)
{
	if (!w->start_ns)
		return;
	enum culprit_idle_cause cause;
	struct culprit_thread *t = culprit_thread_self();
	/* The thread's state is still the wait's unless a handler of the
	 * program's changed it meanwhile: then that is the news. */
	if (!t)
		return;
	if (workers_state(t, &cause) == CULPRIT_IDLE)
		workers_set_keeping(t, CULPRIT_WORKING, 0);
	uint64_t ns = culprit_now_monotonic() - w->start_ns;
	struct wait_site *s = site_of(t, w);
	if (!s) {
		t->counter[CNT_WAITS_LOST]++;
		return;
	}
	s->cause = cause;
	s->count++;
	s->total_ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
}

void waits_write(struct mfile_writer *mw, const struct culprit_thread *t)
{
	uint32_t n = 0;
	if (!t->waits)
		return;
	for (unsigned i = 0; i < WAIT_SITES; i++)
		n += t->waits->site[i].count != 0;
	if (!n)
		return;
	mfile_section_begin(mw, MFILE_TAG_WAIT);
	mfile_put_u32(mw, n);
	for (unsigned i = 0; i < WAIT_SITES; i++) {
		const struct wait_site *s = &t->waits->site[i];
		if (!s->count)
			continue;
		uint64_t offset = 0;
		uint32_t module = loadmap_lookup(s->site, &offset);
		mfile_put_u32(mw, s->kind);
		mfile_put_u32(mw, COL_IDLE_CAUSE + s->cause);	/* the first event's */
		mfile_put_u32(mw, module);
		mfile_put_u32(mw, 0);
		mfile_put_u64(mw, module ? offset : s->site);
		mfile_put_u64(mw, s->object);
		mfile_put_u64(mw, s->count);
		mfile_put_u64(mw, s->total_ns);
		mfile_put_u64(mw, s->max_ns);
	}
	mfile_section_end(mw);
}

void waits_forget(struct culprit_thread *t)
{
	if (t->waits)
		for (unsigned i = 0; i < WAIT_SITES; i++)
			t->waits->site[i] = (struct wait_site){ 0 };
}
