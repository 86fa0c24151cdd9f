/* path.c - a sample's calling context: its native frames placed in their
 * logical context (the records of the work they run under), cut to the
 * depth limit, and inserted into the thread's calling-context tree.
 *
 * Under a record, a sample's own native frames end at the record's
 * boundary and the rest of its path is the record chain's frames.  The
 * slow way appends those to the path and inserts it all; the fast way
 * (insert_under_records) starts from the tree node that the chain's first
 * remembered record leads to.  Everything here is async-signal-safe.
 */
#define _GNU_SOURCE
#include "collector.h"

#include <ucontext.h>

/* Sets PATH's root from how its unwind ended. */
static void set_root(struct culprit_path *path, enum unwind_status status)
{
	path->root_kind = status == UNWIND_COMPLETE ? MFILE_NODE_ROOT : MFILE_NODE_MARKER;
	path->root_key = status == UNWIND_TRUNCATED ? MFILE_MARKER_TRUNCATED
			 : status == UNWIND_PARTIAL ? MFILE_MARKER_PARTIAL : 0;
}

/* Cuts PATH to the depth limit: its innermost frames, a truncation marker
 * and its outermost CULPRIT_PATH_OUTER (unless those are not known: a
 * stack deeper than the unwinder looks at).  async-signal-safe. */
static void fit(struct culprit_path *path, int outer_known)
{
	int max = (int)culprit_config.max_depth;
	if (path->n <= max)
		return;
	if (!outer_known) {
		path->n = max;
		return;
	}
	int outer = max / 4 < (int)CULPRIT_PATH_OUTER ? max / 4 : (int)CULPRIT_PATH_OUTER;
	int head = max - outer - 1;
	path->frame[head] = (struct culprit_frame){ MFILE_MARKER_TRUNCATED, 0, MFILE_NODE_MARKER, 0 };
	for (int i = 0; i < outer; i++)
		path->frame[head + 1 + i] = path->frame[path->n - outer + i];
	path->n = max;
	path->cut = 1;
}

/* Step 5: the native frames placed in their logical context: under CTX,
 * frames [0, B) are the work's own (B -1: its boundary is not among them).
 * async-signal-safe. */
static void place(struct culprit_thread *t, struct culprit_path *path, enum unwind_status status,
		  struct culprit_ctx *ctx, int b)
{
	/* Found where the work began: what lies beyond (the runtime, even an
	 * unwind that failed out there) no longer matters. */
	if (ctx && b >= 0) {
		path->n = b;
		/* Room for the records' frames, up to what fit() keeps. */
		size_t need = (size_t)b + ctx_chain_frames(ctx) + 1;
		size_t most = culprit_config.max_depth + CULPRIT_PATH_OUTER + 2;
		if (need > (size_t)path->max &&
		    scratch_reserve(t, (uint32_t)(need < most ? need : most)) == 0) {
			path->frame = t->frame;
			path->max = (int)t->scratch_cap;
		}
		ctx_append(ctx, path);
		status = ctx_complete(ctx) ? UNWIND_COMPLETE : UNWIND_PARTIAL;
	}
	set_root(path, status);
	/* Our own frames have served; they are not the program's. */
	int k = 0;
	for (int i = 0; i < path->n; i++)
		if (!(path->frame[i].flags & CULPRIT_FRAME_OURS))
			path->frame[k++] = path->frame[i];
	path->n = k;
	fit(path, status != UNWIND_TRUNCATED);
}

/* The child of NODE for frame F, its address named by the load map (once
 * refreshed per sample, *REFRESHED, for a library loaded since).  Not
 * when the sample interrupted libc or the loader, which may be taking or
 * releasing the loader's lock (see loadmap.c): the frame stays unknown
 * this once.  async-signal-safe. */
static uint32_t frame_child(struct culprit_thread *t, uint32_t node, const struct culprit_frame *f,
			    int *refreshed)
{
	uint32_t module = f->module;
	uint64_t key = f->addr;
	if (f->kind == MFILE_NODE_FRAME) {
		module = loadmap_lookup(f->addr, &key);
		if (!module && !*refreshed) {
			*refreshed = 1;
			if (!loadmap_may_hold_loader_lock(t->sample_pc)) {
				loadmap_refresh(1);
				module = loadmap_lookup(f->addr, &key);
			}
		}
		if (!module) {
			key = f->addr;
			t->counter[CNT_UNKNOWN_FRAMES]++;
		}
	}
	return cct_child(&t->cct, node, f->kind, f->flags, module, key);
}

/* The root node of a path with this root. */
static uint32_t root_node(struct culprit_thread *t, uint8_t kind, uint64_t key)
{
	return kind == MFILE_NODE_ROOT ? 0 : cct_child(&t->cct, 0, kind, 0, 0, key);
}

/* How the prefix of the last path remembers frame F: its frame word
 * (native or logical, frame_word), bits 62 and 63 flipped when it is the
 * exact instruction, so that the four kinds never meet (native addresses
 * are below 2^47, logical namespaces below 64); ~0 for a marker, which
 * ends a prefix. */
static uint64_t prefix_key_of(const struct culprit_frame *f)
{
	if (f->kind != MFILE_NODE_FRAME && f->kind != MFILE_NODE_LOGICAL)
		return ~0ull;
	return frame_word(f) ^ ((f->flags & MFILE_NODE_EXACT) ? 3ull << 62 : 0);
}

/* Inserts PATH below its root and returns the leaf node, or CCT_NONE when
 * the tree is full.  The previous sample's path is remembered root first;
 * the part the two share is not looked up again.  async-signal-safe. */
static uint32_t insert_path(struct culprit_thread *t, const struct culprit_path *path)
{
	int refreshed = 0;
	uint32_t root = root_node(t, path->root_kind, path->root_key);
	if (root == CCT_NONE)
		return CCT_NONE;

	uint32_t gen = loadmap_generation();
	uint32_t n = (uint32_t)path->n, j = 0, node = root;
	if (t->prefix_root == root && t->prefix_map_gen == gen) {
		uint32_t lim = n < t->prefix_len ? n : t->prefix_len;
		while (j < lim) {
			uint64_t key = prefix_key_of(&path->frame[n - 1 - j]);
			if (key == ~0ull || t->prefix_key[j] != key)
				break;
			node = t->prefix_node[j++];
		}
	}

	for (; j < n; j++) {
		const struct culprit_frame *f = &path->frame[n - 1 - j];
		node = frame_child(t, node, f, &refreshed);
		if (node == CCT_NONE) {
			t->prefix_len = j < t->prefix_cap ? j : t->prefix_cap;
			return CCT_NONE;
		}
		if (j < t->prefix_cap) {
			t->prefix_key[j] = prefix_key_of(f);
			t->prefix_node[j] = node;
		}
	}
	t->prefix_len = n < t->prefix_cap ? n : t->prefix_cap;
	t->prefix_root = root;
	t->prefix_map_gen = loadmap_generation();
	return node;
}

/* The fast way under a record: a record chain's frames lead to the same
 * node every time, so each thread remembers the node by the chain's
 * content (ctx_chain), and a sample walks its chain only out to the first
 * chain it has seen: a task recursion created afresh, or reached again by
 * other tasks, costs its new records and the sample's own frames, however
 * deep it is.  Returns the leaf, CCT_NONE when the tree is full, or
 * RECORDS_NO when the path must take the slow way (too deep for the limit,
 * or no room to walk).  Native frames [0, B) of PATH are the sample's own.
 * async-signal-safe. */
#define RECORDS_NO (CCT_NONE - 1)

static struct record_node *record_node(struct culprit_thread *t, uint64_t chain)
{
	return &t->record_node[((chain * 0x9e3779b97f4a7c15ull) >> 56) % RECORD_NODES];
}

static uint32_t insert_under_records(struct culprit_thread *t, const struct culprit_path *path,
				     int b, const struct culprit_ctx *ctx)
{
	/* The records not seen yet, innermost first, are noted in the
	 * frame scratch past the sample's own frames. */
	struct culprit_frame *walk = path->frame + b;
	size_t room = path->max > b ? (size_t)(path->max - b) : 0, nw = 0, frames = 0;
	uint32_t gen = loadmap_generation(), node, depth = 0;
	const struct culprit_ctx *r = ctx;
	for (; r; r = ctx_parent(r)) {
		const struct record_node *e = record_node(t, ctx_chain(r));
		if (e->chain == ctx_chain(r) && e->gen == gen)
			break;
		if (nw == room)
			return RECORDS_NO;
		walk[nw++].addr = (uintptr_t)r;
		frames += ctx_nframes(r);
	}
	if (r) {
		const struct record_node *e = record_node(t, ctx_chain(r));
		node = e->node;
		depth = e->depth;
	} else {
		node = root_node(t, ctx_complete(ctx) ? MFILE_NODE_ROOT : MFILE_NODE_MARKER,
				 ctx_complete(ctx) ? 0 : MFILE_MARKER_PARTIAL);
	}
	if (depth + frames + (size_t)b > culprit_config.max_depth)
		return RECORDS_NO;
	int refreshed = 0;
	for (size_t i = nw; i-- > 0 && node != CCT_NONE;) {
		const struct culprit_ctx *w = (const struct culprit_ctx *)(uintptr_t)walk[i].addr;
		uint32_t n;
		const uint64_t *frame = ctx_frames(w, &n);
		for (uint32_t k = n; k-- > 0 && node != CCT_NONE;) {
			struct culprit_frame f = word_frame(frame[k]);
			node = frame_child(t, node, &f, &refreshed);
		}
		depth += n;
		if (node != CCT_NONE && !refreshed)
			*record_node(t, ctx_chain(w)) = (struct record_node){
				ctx_chain(w), node, depth, gen
			};
	}
	for (int k = b; k-- > 0 && node != CCT_NONE;)
		if (!(path->frame[k].flags & CULPRIT_FRAME_OURS))
			node = frame_child(t, node, &path->frame[k], &refreshed);
	t->prefix_len = 0;	/* the slow way's memory is not this path */
	return node;
}

/* Removes the innermost frames of PATH out to the first frames of ours and
 * those: a sample in culprit's own work (which may be in a library it
 * called) is kept where the program or its runtime called culprit.
 * async-signal-safe. */
static void cut_ours(struct culprit_path *path)
{
	int a = 0;
	while (a < path->n && !(path->frame[a].flags & CULPRIT_FRAME_OURS) &&
	       !culprit_in_collector(path->frame[a].addr))
		a++;
	if (a == path->n)
		return;
	int b = a;
	while (b < path->n && ((path->frame[b].flags & CULPRIT_FRAME_OURS) ||
			       culprit_in_collector(path->frame[b].addr)))
		b++;
	for (int i = b; i < path->n; i++)
		path->frame[i - b] = path->frame[i];
	path->n -= b;
}

/* The sample's path in thread T, placed and inserted: its leaf node, or
 * CCT_NONE when the tree is full.  OURS: the sample is culprit's own work.
 * async-signal-safe. */
uint32_t path_sample_node(struct culprit_thread *t, const ucontext_t *uc, int ours,
			  enum mfile_marker *marker)
{
	struct culprit_path path = {
		.frame = t->frame,
		.n = 0,
		.max = (int)culprit_config.max_depth,
		.root_kind = MFILE_NODE_ROOT,
		.ucontext = uc,
	};
	struct culprit_ctx *ctx = atomic_load_explicit(&t->ctx, memory_order_acquire);
	enum unwind_status status = culprit_unwind(t, uc, &path, ctx);
	if (ours)
		cut_ours(&path);
	/* Under a record, the work's own frames end at its boundary (-1: not
	 * among these frames). */
	int b = -1;
	if (ctx) {
		b = ctx_boundary(ctx, path.frame, path.n, 0);
		if (b >= path.n && status != UNWIND_COMPLETE)
			b = -1;
	}
	/* An interpreter's frames as the functions it runs (plugins). */
	if (plugins_rewrite()) {
		int own = plugins_logical_frames(&path, b >= 0 ? b : path.n,
						 status == UNWIND_COMPLETE);
		if (b >= 0)
			b = own;
	}
	/* Under a record whose boundary is among the frames, the fast way. */
	if (b >= 0) {
		uint32_t leaf = insert_under_records(t, &path, b, ctx);
		if (leaf != RECORDS_NO) {
			*marker = ctx_complete(ctx) ? 0 : MFILE_MARKER_PARTIAL;
			if (leaf == CCT_NONE)
				t->counter[CNT_DROP_MEMORY]++;
			return leaf;
		}
	}
	place(t, &path, status, ctx, b);
	uint32_t leaf = insert_path(t, &path);
	if (leaf == CCT_NONE)
		t->counter[CNT_DROP_MEMORY]++;
	*marker = path.root_kind == MFILE_NODE_MARKER ? (enum mfile_marker)path.root_key
		  : path.cut ? MFILE_MARKER_TRUNCATED : 0;
	return leaf;
}

