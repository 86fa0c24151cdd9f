/* context.c - logical context records: where work running on a thread was
 * created (see plugin.h for the idea; capture.c makes them).
 *
 * A record is immutable once made, so any thread's sample handler may read
 * the chain of records its current work runs under.  Records are reference
 * counted: the work running under a record holds one reference, and every
 * record holds one on its parent, so a chain outlives its use.  They come
 * from per-thread pools of mmap'd memory in size classes; a record freed on
 * its own thread goes straight back to the free list, one freed on another
 * thread goes back to its owner through a lock-free stack.  No malloc, no
 * locks: OpenMP creates records millions of times a second, and handlers
 * read them.
 */
#define _GNU_SOURCE
#include "collector.h"
#include "hash.h"

#include <string.h>

#define CHUNK_SIZE (256 * 1024)
#define MIN_FRAMES 8		/* size classes: 8, 16, ... 512 frames */
#define NCLASSES 7
#define LARGE 0xff		/* size class of longer records */

struct culprit_ctx {
	_Atomic uint32_t refs;
	uint32_t nframes;	/* frames used */
	uint64_t chain;		/* hash of the chain's frames and completeness */
	uint8_t size_class;	/* LARGE: a mapping of its own, not in a pool */
	uint8_t complete;	/* the chain ends at a thread's real root */
	uint8_t flags;		/* CULPRIT_CTX_* */
	_Atomic uint8_t claimed;	/* culprit_ctx_claim() was called */
	culprit_boundary_fn boundary;
	struct culprit_ctx *parent;
	struct ctx_pool *pool;	/* where it returns when freed */
	struct culprit_ctx *next_free;
	uint64_t frame[];	/* creation frames, innermost first: return addresses,
			   or logical frames (frame_word) */
};

struct ctx_pool {
	struct culprit_ctx *free[NCLASSES];		/* owner only */
	_Atomic(struct culprit_ctx *) remote;		/* freed by others */
	unsigned char *chunk;
	size_t used;
};

static size_t class_bytes(int c)
{
	return sizeof(struct culprit_ctx) + ((size_t)MIN_FRAMES << c) * sizeof(uint64_t);
}

/* A record longer than the largest class (a thread created deep in a
 * recursion) is a mapping of its own, freed when it is. */
static size_t large_bytes(uint32_t nframes)
{
	return sizeof(struct culprit_ctx) + (size_t)nframes * sizeof(uint64_t);
}

static int class_for(int nframes)
{
	int c = 0;
	while (c < NCLASSES - 1 && (MIN_FRAMES << c) < nframes)
		c++;
	return c;
}

/* The calling thread's pool (made on first use).  Not in handlers. */
static struct ctx_pool *my_pool(struct culprit_thread *t)
{
	if (!t->ctx_pool) {
		struct ctx_pool *p = culprit_map(sizeof *p);
		if (!p)
			return NULL;
		t->ctx_pool = p;
	}
	return t->ctx_pool;
}

static struct culprit_ctx *pool_alloc(struct ctx_pool *p, int c)
{
	struct culprit_ctx *r = p->free[c];
	if (!r && atomic_load_explicit(&p->remote, memory_order_relaxed)) {
		/* Take everything others returned, sorted into our lists. */
		struct culprit_ctx *list = atomic_exchange(&p->remote, NULL);
		while (list) {
			struct culprit_ctx *next = list->next_free;
			list->next_free = p->free[list->size_class];
			p->free[list->size_class] = list;
			list = next;
		}
		r = p->free[c];
	}
	if (r) {
		p->free[c] = r->next_free;
		return r;
	}
	size_t need = class_bytes(c);
	if (!p->chunk || p->used + need > CHUNK_SIZE) {
		/* The rest of an old chunk is given up: chunks are never freed,
		 * since records from them may still be referenced. */
		p->chunk = culprit_map(CHUNK_SIZE);
		p->used = 0;
		if (!p->chunk)
			return NULL;
	}
	r = (struct culprit_ctx *)(p->chunk + p->used);
	p->used += (need + 15) & ~(size_t)15;
	return r;
}

/* async-signal-safe */
void culprit_ctx_hold(struct culprit_ctx *ctx)
{
	if (ctx)
		atomic_fetch_add_explicit(&ctx->refs, 1, memory_order_relaxed);
}

/* async-signal-safe */
void culprit_ctx_release(struct culprit_ctx *ctx)
{
	struct culprit_thread *t = ctx ? culprit_thread_self() : NULL;
	struct ctx_pool *mine = t ? t->ctx_pool : NULL;

	while (ctx && atomic_fetch_sub_explicit(&ctx->refs, 1, memory_order_acq_rel) == 1) {
		struct culprit_ctx *parent = ctx->parent;
		struct ctx_pool *p = ctx->pool;
		/* Counted by the thread that frees (its own counter): the
		 * threads' captures less their frees are the records alive. */
		if (t)
			t->counter[CNT_CTX_FREED]++;
		if (ctx->size_class == LARGE) {
			culprit_unmap(ctx, large_bytes(ctx->nframes));
		} else if (p == mine) {
			/* Ours: no other thread touches the free list.  (A
			 * signal handler never frees.) */
			ctx->next_free = p->free[ctx->size_class];
			p->free[ctx->size_class] = ctx;
		} else {
			struct culprit_ctx *head = atomic_load_explicit(&p->remote,
									memory_order_relaxed);
			do
				ctx->next_free = head;
			while (!atomic_compare_exchange_weak(&p->remote, &head, ctx));
		}
		ctx = parent;	/* its reference on the parent goes too */
	}
}

unsigned culprit_ctx_flags(const struct culprit_ctx *ctx)
{
	return ctx ? ctx->flags : 0;
}

/* async-signal-safe */
uint64_t culprit_ctx_site(const struct culprit_ctx *ctx)
{
	/* A logical frame is no call's return address. */
	return ctx && ctx->nframes && !(ctx->frame[0] & FRAME_WORD_LOGICAL) ? ctx->frame[0] : 0;
}

/* async-signal-safe */
int culprit_ctx_claim(struct culprit_ctx *ctx)
{
	return ctx && !atomic_load_explicit(&ctx->claimed, memory_order_relaxed) &&
	       !atomic_exchange(&ctx->claimed, 1);
}

/* async-signal-safe */
struct culprit_ctx *culprit_ctx_get(void)
{
	struct culprit_thread *t = culprit_thread_self();
	return t ? atomic_load_explicit(&t->ctx, memory_order_acquire) : NULL;
}

/* async-signal-safe */
struct culprit_ctx *culprit_ctx_set(struct culprit_ctx *ctx)
{
	struct culprit_thread *t = culprit_thread_self();
	if (!t)
		return NULL;
	/* Only the thread itself writes its record (its handler reads it):
	 * no read-modify-write needed. */
	struct culprit_ctx *old = atomic_load_explicit(&t->ctx, memory_order_relaxed);
	atomic_store_explicit(&t->ctx, ctx, memory_order_release);
	return old;
}

int culprit_collecting(void)
{
	return culprit_config.active && !atomic_load(&culprit_process.finishing);
}

/* async-signal-safe */
int culprit_in_collector(uint64_t addr)
{
	return addr - culprit_process.text_start <
	       culprit_process.text_end - culprit_process.text_start;
}

/* async-signal-safe */
int culprit_boundary_collector(const struct culprit_frame *frame, int n, int partial)
{
	/* Past our frames at the innermost end: a capture's own. */
	int i = 1;
	while (i < n && (frame[i - 1].flags & CULPRIT_FRAME_OURS))
		i++;
	for (; i < n; i++)
		if (frame[i].flags & CULPRIT_FRAME_OURS)
			return i;
	return partial ? -1 : n;
}

/* async-signal-safe */
int ctx_boundary(const struct culprit_ctx *ctx, const struct culprit_frame *frame, int n,
		 int partial)
{
	return ctx->boundary ? ctx->boundary(frame, n, partial)
			     : culprit_boundary_collector(frame, n, partial);
}

/* async-signal-safe */
size_t ctx_chain_frames(const struct culprit_ctx *ctx)
{
	size_t total = 0;
	for (; ctx; ctx = ctx->parent)
		total += ctx->nframes;
	return total;
}

/* async-signal-safe */
void ctx_append(const struct culprit_ctx *ctx, struct culprit_path *path)
{
	size_t total = ctx_chain_frames(ctx);
	size_t room = path->max > path->n ? (size_t)(path->max - path->n) : 0;
	/* All of them, or the innermost and the outermost around a marker. */
	size_t head = total, skip = 0;
	if (total > room) {
		size_t outer = room > 2 * CULPRIT_PATH_OUTER ? CULPRIT_PATH_OUTER : room / 2;
		head = room > outer ? room - outer - 1 : 0;
		skip = total - head - outer;
	}
	size_t seen = 0;
	for (; ctx; ctx = ctx->parent)
		for (uint32_t i = 0; i < ctx->nframes; i++, seen++) {
			if (seen >= head && seen < head + skip) {
				if (seen == head) {
					path->frame[path->n++] = (struct culprit_frame){
						MFILE_MARKER_TRUNCATED, 0, MFILE_NODE_MARKER, 0
					};
					path->cut = 1;
				}
				continue;
			}
			path->frame[path->n++] = word_frame(ctx->frame[i]);
		}
}

/* async-signal-safe */
int ctx_complete(const struct culprit_ctx *ctx)
{
	return ctx->complete;
}

struct culprit_ctx *ctx_new(struct culprit_thread *t, const uint64_t *frame, int n,
			   int complete, culprit_boundary_fn boundary, unsigned flags)
{
	struct ctx_pool *pool = my_pool(t);
	if (!pool)
		return NULL;
	int large = n > (MIN_FRAMES << (NCLASSES - 1));
	int c = large ? LARGE : class_for(n);
	struct culprit_ctx *r = large ? culprit_map(large_bytes((uint32_t)n)) : pool_alloc(pool, c);
	if (!r)
		return NULL;
	struct culprit_ctx *parent = atomic_load_explicit(&t->ctx, memory_order_relaxed);
	atomic_init(&r->refs, 1);
	r->size_class = (uint8_t)c;
	r->pool = pool;
	r->flags = (uint8_t)flags;
	atomic_init(&r->claimed, 0);
	r->boundary = boundary;
	r->complete = (uint8_t)(parent ? parent->complete : complete);
	r->nframes = (uint32_t)n;
	/* Chains of the same frames place work in the same tree nodes, in
	 * whatever records: path.c remembers nodes by this (64 bits: chains
	 * that differ and hash alike are vanishingly rare). */
	uint64_t h = parent ? parent->chain : hash_mix(0x63756c7072697400ull + r->complete);
	for (int i = 0; i < n; i++)
		h = hash_mix(h ^ frame[i]) + (uint64_t)i;
	r->chain = h ? h : 1;
	memcpy(r->frame, frame, (size_t)n * sizeof *frame);
	culprit_ctx_hold(parent);
	r->parent = parent;
	r->next_free = NULL;
	return r;
}

/* async-signal-safe */
const struct culprit_ctx *ctx_parent(const struct culprit_ctx *ctx)
{
	return ctx->parent;
}

/* async-signal-safe */
uint64_t ctx_chain(const struct culprit_ctx *ctx)
{
	return ctx->chain;
}

/* async-signal-safe */
uint32_t ctx_nframes(const struct culprit_ctx *ctx)
{
	return ctx->nframes;
}

/* async-signal-safe */
const uint64_t *ctx_frames(const struct culprit_ctx *ctx, uint32_t *n)
{
	*n = ctx->nframes;
	return ctx->frame;
}

culprit_boundary_fn ctx_rule(const struct culprit_ctx *ctx)
{
	return ctx ? (ctx->boundary ? ctx->boundary : culprit_boundary_collector) : NULL;
}
