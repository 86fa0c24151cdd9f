/* thread_acc.c - one thread's values, gathered by context (thread_acc.h). */
#include "thread_acc.h"
#include "hash.h"
#include "hindex.h"
#include "merge.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

struct acc {
	uint32_t *ctx;		/* entry -> context */
	size_t n, cap;
	struct hindex index;	/* context -> entry */
	size_t nmetric;
	/* By metric, per entry, NULL while the thread has none of it: what
	 * was sampled at the context itself, then the results. */
	double **own, **incl, **excl;
};

struct acc *acc_new(size_t nmetric)
{
	struct acc *a = xcalloc(1, sizeof *a);
	a->nmetric = nmetric;
	hindex_reserve(&a->index, 128);
	a->own = xcalloc(nmetric + 1, sizeof *a->own);
	a->incl = xcalloc(nmetric + 1, sizeof *a->incl);
	a->excl = xcalloc(nmetric + 1, sizeof *a->excl);
	return a;
}

void acc_free(struct acc *a)
{
	if (!a)
		return;
	for (size_t m = 0; m < a->nmetric; m++) {
		free(a->own[m]);
		free(a->incl[m]);
		free(a->excl[m]);
	}
	free(a->own);
	free(a->incl);
	free(a->excl);
	free(a->ctx);
	hindex_free(&a->index);
	free(a);
}

/* The entry of context CTX, added (with zero values) if new. */
static size_t entry(struct acc *a, uint32_t ctx)
{
	struct hindex_pos pos;
	for (uint32_t e = hindex_find(&a->index, hash_mix(ctx), &pos); e != HINDEX_NONE;
	     e = hindex_next(&a->index, &pos))
		if (a->ctx[e] == ctx)
			return e;
	if (a->n == a->cap) {
		size_t cap = a->cap;
		grow_array(&a->ctx, &cap, a->n + 1, sizeof *a->ctx);
		for (size_t m = 0; m < a->nmetric; m++)
			if (a->own[m])
				a->own[m] = xrealloc(a->own[m], cap * sizeof **a->own);
		a->cap = cap;
	}
	size_t e = a->n++;
	a->ctx[e] = ctx;
	for (size_t m = 0; m < a->nmetric; m++)
		if (a->own[m])
			a->own[m][e] = 0;
	hindex_add(&a->index, &pos, (uint32_t)e);
	return e;
}

void acc_sample(struct acc *a, uint32_t ctx, const double *v)
{
	size_t e = entry(a, ctx);
	for (size_t m = 0; m < a->nmetric; m++) {
		if (v[m] == 0)
			continue;
		if (!a->own[m])
			a->own[m] = xcalloc(a->cap, sizeof **a->own);
		a->own[m][e] += v[m];
	}
}

/* Entries deepest first, so that each comes before its parent: a
 * counting sort by depth. */
static uint32_t *deepest_first(const struct acc *a, const struct ctx_node *nodes)
{
	uint32_t maxdepth = 0;
	for (size_t e = 0; e < a->n; e++)
		if (nodes[a->ctx[e]].depth > maxdepth)
			maxdepth = nodes[a->ctx[e]].depth;
	size_t *start = xcalloc((size_t)maxdepth + 2, sizeof *start);
	for (size_t e = 0; e < a->n; e++)
		start[maxdepth - nodes[a->ctx[e]].depth + 1]++;
	for (size_t d = 1; d <= (size_t)maxdepth + 1; d++)
		start[d] += start[d - 1];
	uint32_t *order = xmalloc((a->n + 1) * sizeof *order);
	for (size_t e = 0; e < a->n; e++)
		order[start[maxdepth - nodes[a->ctx[e]].depth]++] = (uint32_t)e;
	free(start);
	return order;
}

void acc_finish(struct acc *a, const struct ctx_node *nodes)
{
	/* Every context above one sampled (the list grows as it goes), each
	 * entry's parent entry, and for a statement or call site the entry of
	 * the frame its value counts for. */
	uint32_t *parent = NULL, *owner;
	size_t cap = 0;
	for (size_t e = 0; e < a->n; e++) {
		const struct ctx_node *n = &nodes[a->ctx[e]];
		grow_array(&parent, &cap, e + 1, sizeof *parent);
		parent[e] = n->parent == CTX_NONE ? UINT32_MAX : (uint32_t)entry(a, n->parent);
	}
	/* Owners (ctree_owner) are above their statements and call sites:
	 * entries already. */
	owner = xmalloc((a->n + 1) * sizeof *owner);
	for (size_t e = 0; e < a->n; e++) {
		uint32_t c = a->ctx[e], f = ctree_owner(nodes, c);
		owner[e] = f == c || f == CTX_NONE ? UINT32_MAX : (uint32_t)entry(a, f);
	}
	uint32_t *order = deepest_first(a, nodes);
	for (size_t m = 0; m < a->nmetric; m++) {
		const double *own = a->own[m];
		if (!own)
			continue;
		double *in = xmalloc((a->n + 1) * sizeof *in);
		double *ex = xmalloc((a->n + 1) * sizeof *ex);
		memcpy(in, own, a->n * sizeof *in);
		memcpy(ex, own, a->n * sizeof *ex);
		for (size_t k = 0; k < a->n; k++) {
			uint32_t e = order[k], p = parent[e];
			if (p != UINT32_MAX)
				in[p] += in[e];
			if (owner[e] != UINT32_MAX) {
				ex[owner[e]] += own[e];
				/* A call site has no exclusive value of its own. */
				if (nodes[a->ctx[e]].kind == CTX_CALLSITE)
					ex[e] = 0;
			}
		}
		a->incl[m] = in;
		a->excl[m] = ex;
	}
	free(order);
	free(owner);
	free(parent);
}

size_t acc_count(const struct acc *a)
{
	return a->n;
}

uint32_t acc_context(const struct acc *a, size_t e)
{
	return a->ctx[e];
}

const double *acc_inclusive(const struct acc *a, size_t metric)
{
	return a->incl[metric];
}

const double *acc_exclusive(const struct acc *a, size_t metric)
{
	return a->excl[metric];
}
