/* capture.c - capturing a thread's logical context where it creates work
 * (see plugin.h; context.c keeps the records): by unwinding, or from
 * memory of an earlier capture at the same place on the stack.
 *
 * Unwinding out to the boundary of the record the thread runs under walks
 * our own frames and the runtime's too, some 150 ns per OpenMP task with
 * libunwind's fast path: more than a fine-grained task costs.  But programs
 * create their tasks from few places, through the same calls each time.
 * So when the runtime says which stack slot holds the return address into
 * the creating code (OpenMP's enter frame), a thread remembers its captures
 * by that return address and the slot's distance to where the work it
 * runs was entered, together with the stack slot (relative to the first)
 * of every return address the capture found.  A later capture with the
 * same key reads those slots; when each still holds the same return
 * address, the stack above is the same chain of calls, and the capture
 * costs a few loads (frames are placed by the return addresses below them
 * and their own size, and a frame of another size this time changes the
 * distance in the key).  A key seen once is only noted; the second time,
 * a walk with libunwind's cursor (slow, once) finds the slots.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "collector.h"

#include <libunwind.h>
#include <string.h>

#define CAPTURE_FIRST 16	/* frames a capture under a record looks at first */
#define MEMO_FRAMES 32		/* the longest capture remembered */
#define MEMO_SETS 32		/* sets of remembered captures per thread ... */
#define MEMO_WAYS 4		/* ... of this many: variants of one key (a task
				   created by tasks of two kinds) and neighbours */

struct memo_key {
	uint64_t ra;			/* the return address in the slot */
	uint64_t where;			/* distance from slot to the work's entry, or
					   the slot's address when there is no work */
	culprit_boundary_fn rule;	/* the current record's rule (NULL: none) */
};

struct memo_entry {
	struct memo_key key;
	uint8_t n;			/* frames; 0: the key was seen once, not learnt */
	uint8_t complete;		/* (no current record) the frames reach the root */
	uint32_t off[MEMO_FRAMES];	/* each return address's slot, from the first */
	uint64_t frame[MEMO_FRAMES];	/* the return addresses, innermost first */
};

struct capture_memo {
	struct memo_entry entry[MEMO_SETS][MEMO_WAYS];
	uint8_t victim[MEMO_SETS];	/* the way to replace next */
};

/* ---- unwinding --------------------------------------------------------------- */

/* What an unwinding capture found, in the thread's scratch frames. */
struct unwound {
	int n;		/* frames in t->frame */
	int first, end;	/* the record's frames: [first, end) */
	int complete;	/* (no current record) they reach the thread's root */
};

/* Unwinds the calling thread (state BUSY) out to the boundary of CUR, its
 * current record, skipping our own frames and then RUNTIME's and SKIP more
 * at the innermost end. */
static void unwind_creation(struct culprit_thread *t, const struct culprit_ctx *cur,
			    int (*runtime)(uint64_t addr), int skip, struct unwound *u)
{
	int cap = (int)culprit_config.max_depth;
	/* Under a record, only the frames out to its boundary are needed,
	 * and in a task recursion the stack below is deep: look at the
	 * innermost frames first, at more only if they do not do. */
	int depth = cur && CAPTURE_FIRST < cap ? CAPTURE_FIRST
		    : cap < (int)t->scratch_cap ? cap : (int)t->scratch_cap;
	int n, end;
	for (;;) {
		n = unw_backtrace(t->raw, depth);
		for (int i = 0; i < n; i++)
			t->frame[i] = (struct culprit_frame){
				(uintptr_t)t->raw[i], 0, MFILE_NODE_FRAME,
				(uint8_t)(culprit_in_collector((uintptr_t)t->raw[i]) ? CULPRIT_FRAME_OURS : 0)
			};
		int more = n == depth && depth < cap;	/* the stack goes on */
		end = cur ? ctx_boundary(cur, t->frame, n, more) : n;
		if (end >= 0 && (cur || !more))
			break;
		memset(t->raw, 0, (size_t)n * sizeof *t->raw);
		if (depth == (int)t->scratch_cap && scratch_reserve(t, 2 * t->scratch_cap) < 0)
			cap = depth;	/* no more memory: this much will do */
		depth = cap < (int)t->scratch_cap ? cap : (int)t->scratch_cap;
	}
	struct culprit_frame *f = t->frame;
	void **raw = t->raw;
	int whole = n < depth && n > 0 && culprit_unwind_is_root(t, (uintptr_t)raw[n - 1]);
	u->complete = !cur && n < cap && whole;
	memset(raw, 0, (size_t)n * sizeof *raw);
	/* An interpreter's frames as the functions it runs (plugins): a
	 * record keeps them as they are now. */
	if (plugins_rewrite()) {
		struct culprit_path path = { .frame = f, .n = n, .max = (int)t->scratch_cap };
		end = plugins_logical_frames(&path, end, whole);
		n = path.n;
	}

	/* Innermost: us, then the runtime's own creation machinery. */
	int first = 0;
	while (first < n && (f[first].flags & CULPRIT_FRAME_OURS))
		first++;
	while (runtime && first < n && runtime(f[first].addr))
		first++;
	for (; skip > 0 && first < n; skip--)
		first++;
	u->n = n;
	u->first = first;
	u->end = end < first ? first : end;
}

/* A record of the frames U found, our own left out. */
static struct culprit_ctx *record_unwound(struct culprit_thread *t, const struct unwound *u,
					  culprit_boundary_fn boundary, unsigned flags)
{
	/* The raw scratch is free again (and must be zero after). */
	uint64_t *addr = (uint64_t *)t->raw;
	int count = 0;
	for (int i = u->first; i < u->end; i++)
		if (!(t->frame[i].flags & CULPRIT_FRAME_OURS))
			addr[count++] = frame_word(&t->frame[i]);
	struct culprit_ctx *r = ctx_new(t, addr, count, u->complete, boundary, flags);
	memset(addr, 0, (size_t)count * sizeof *addr);
	return r;
}

/* ---- remembered captures -------------------------------------------------------- */

/* The set of KEY's remembered captures, or NULL without memory. */
static struct memo_entry *memo_set(struct culprit_thread *t, const struct memo_key *key,
				   uint8_t **victim)
{
	if (!t->capture_memo && !(t->capture_memo = culprit_map(sizeof *t->capture_memo)))
		return NULL;
	uint64_t h = key->ra * 0x9e3779b97f4a7c15ull ^ key->where * 0xc2b2ae3d27d4eb4full ^
		     (uint64_t)(uintptr_t)key->rule;
	unsigned set = (unsigned)(h >> 29) % MEMO_SETS;
	*victim = &t->capture_memo->victim[set];
	return t->capture_memo->entry[set];
}

static int memo_matches(const struct memo_entry *e, const struct memo_key *key)
{
	return e->key.ra == key->ra && e->key.where == key->where && e->key.rule == key->rule;
}

/* Whether the stack above SLOT still holds E's return addresses. */
static int memo_valid(const struct memo_entry *e, uintptr_t slot)
{
	for (int i = 0; i < e->n; i++)
		if (*(const uint64_t *)(slot + e->off[i]) != e->frame[i])
			return 0;
	return 1;
}

/* Finds, with libunwind's cursor, the stack slots of the return addresses
 * in U's frames [first, end), the first of which must be at SLOT, and
 * fills E with them.  The frames are our caller's: they are still there. */
static void memo_learn(struct memo_entry *e, struct culprit_thread *t, const struct unwound *u,
		       uintptr_t slot)
{
	const struct culprit_frame *f = t->frame;
	int want = u->end - u->first;
	unw_context_t uc;
	unw_cursor_t c;

	if (want <= 0 || want > MEMO_FRAMES || unw_getcontext(&uc) < 0 ||
	    unw_init_local(&c, &uc) < 0)
		return;
	/* Out to the frame whose return address is in SLOT, then the
	 * record's frames one by one, as the fast unwind found them. */
	int k = 0;
	for (int steps = 0; k < want && steps < u->end + 16; steps++) {
		unw_word_t ip, sp;
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || unw_get_reg(&c, UNW_REG_SP, &sp) < 0)
			return;
		/* A caller's ip is the return address its callee's call pushed
		 * just below the caller's stack pointer. */
		uintptr_t at = (uintptr_t)sp - 8;
		const struct culprit_frame *g = &f[u->first + k];
		if (k > 0 || at == slot) {
			/* A logical frame is not where a stack slot says. */
			if (g->kind != MFILE_NODE_FRAME || ip != g->addr || (g->flags & CULPRIT_FRAME_OURS) || at < slot ||
			    at - slot > UINT32_MAX)
				return;
			e->off[k] = (uint32_t)(at - slot);
			e->frame[k] = g->addr;
			k++;
		}
		if (k < want && unw_step(&c) <= 0)
			return;
	}
	if (k == want) {
		e->n = (uint8_t)want;
		e->complete = (uint8_t)u->complete;
	}
}

/* ---- captures ---------------------------------------------------------------------- */

/* The slow way: unwinding (and, for a key seen before, learning). */
static struct culprit_ctx *capture_unwinding(struct culprit_thread *t, int (*runtime)(uint64_t),
					     int skip, culprit_boundary_fn boundary, unsigned flags,
					     struct memo_entry *e, uintptr_t slot)
{
	/* Our sample handler also uses libunwind's per-thread cache and the
	 * thread's scratch arrays: keep it out while we are at it. */
	int expected = THREAD_LIVE;
	if (!atomic_compare_exchange_strong(&t->state, &expected, THREAD_BUSY))
		return NULL;
	struct unwound u;
	unwind_creation(t, atomic_load_explicit(&t->ctx, memory_order_relaxed), runtime, skip, &u);
	if (e)
		memo_learn(e, t, &u, slot);
	struct culprit_ctx *r = record_unwound(t, &u, boundary, flags);
	if (r) {
		t->counter[CNT_CAPTURES]++;
		t->counter[CNT_CAPTURES_UNWOUND]++;
	}
	expected = THREAD_BUSY;
	atomic_compare_exchange_strong(&t->state, &expected, THREAD_LIVE);
	return r;
}

struct culprit_ctx *ctx_capture(int (*runtime)(uint64_t addr), int skip,
				culprit_boundary_fn boundary, unsigned flags)
{
	CULPRIT_MEASURED;
	struct culprit_thread *t = culprit_thread_self();
	return t ? capture_unwinding(t, runtime, skip, boundary, flags, NULL, 0) : NULL;
}

struct culprit_ctx *culprit_ctx_capture(int (*runtime)(uint64_t addr),
					culprit_boundary_fn boundary, unsigned flags)
{
	return ctx_capture(runtime, 0, boundary, flags);
}

struct culprit_ctx *culprit_ctx_capture_at(uintptr_t ra_slot, uintptr_t work_entry,
					   int (*runtime)(uint64_t addr),
					   culprit_boundary_fn boundary, unsigned flags)
{
	CULPRIT_MEASURED;
	struct culprit_thread *t = culprit_thread_self();
	if (!t)
		return NULL;
	if (!ra_slot)
		return capture_unwinding(t, runtime, 0, boundary, flags, NULL, 0);
	struct memo_key key = {
		.ra = *(const uint64_t *)ra_slot,
		.where = work_entry > ra_slot ? work_entry - ra_slot : ra_slot,
		.rule = ctx_rule(atomic_load_explicit(&t->ctx, memory_order_relaxed)),
	};
	uint8_t *victim;
	struct memo_entry *set = memo_set(t, &key, &victim);
	if (!set)
		return capture_unwinding(t, runtime, 0, boundary, flags, NULL, 0);
	struct memo_entry *seen = NULL;
	for (int w = 0; w < MEMO_WAYS; w++) {
		struct memo_entry *e = &set[w];
		if (!memo_matches(e, &key))
			continue;
		if (e->n && memo_valid(e, ra_slot)) {
			struct culprit_ctx *r = ctx_new(t, e->frame, e->n, e->complete, boundary,
							flags);
			if (r)
				t->counter[CNT_CAPTURES]++;
			return r;
		}
		if (!e->n)
			seen = e;
	}
	/* Seen before without being learnt (or learnt as another variant
	 * that is noted again): learn it now. */
	if (seen)
		return capture_unwinding(t, runtime, 0, boundary, flags, seen, ra_slot);
	/* New here: note it, so that it is learnt if it comes again. */
	struct memo_entry *e = &set[*victim % MEMO_WAYS];
	*victim = (uint8_t)((*victim + 1) % MEMO_WAYS);
	e->key = key;
	e->n = 0;
	return capture_unwinding(t, runtime, 0, boundary, flags, NULL, 0);
}

void capture_forget(struct capture_memo *memo)
{
	if (memo)
		memset(memo, 0, sizeof *memo);
}
