/* diagnose.c - per-context diagnoses and the ranked list (diagnose.h). */
#define _GNU_SOURCE
#include "diagnose.h"
#include "database.h"
#include "merge.h"
#include "pm.h"

#include <stdlib.h>
#include <string.h>

enum diagnosis { DIAG_NONE, DIAG_MORE_PARALLELISM, DIAG_TOO_FINE, DIAG_INEFFICIENT };

static const char *const diag_name[] = {
	[DIAG_MORE_PARALLELISM] = "needs more parallelism",
	[DIAG_TOO_FINE] = "too fine-grained",
	[DIAG_INEFFICIENT] = "inefficient parallelization",
};

static const char *const diag_advice[] = {
	[DIAG_MORE_PARALLELISM] = "finer grain: more, smaller tasks or chunks, so idle workers "
				  "find work",
	[DIAG_TOO_FINE] = "coarser grain: fewer, larger tasks or chunks, so the runtime's "
			  "overhead is paid less often",
	[DIAG_INEFFICIENT] = "a different parallelization: no grain size fixes both idleness "
			     "and overhead",
};

struct candidate {
	uint8_t diag;		/* enum diagnosis; DIAG_NONE: not a candidate */
	uint8_t recursive;	/* its procedure recurs below it */
	uint32_t rank;
	double effort, idle, ovh;
};

struct walk {
	const struct ctree *t;
	struct candidate *c;	/* per node */
	uint32_t *first, *next;	/* children */
	uint32_t *listed;	/* nodes listed, in order found */
	size_t nlisted, caplisted;
};

/* Calls FN for each frame nearest below NODE (through call sites, inlined
 * frames and statements). */
static void each_frame_below(struct walk *w, uint32_t node, void (*fn)(struct walk *, uint32_t, void *),
			     void *arg)
{
	for (uint32_t k = w->first[node]; k != CTX_NONE; k = w->next[k]) {
		if (w->t->node[k].kind == CTX_FRAME)
			fn(w, k, arg);
		else
			each_frame_below(w, k, fn, arg);
	}
}

struct cover {
	uint8_t diag;
	double waste;
};

static void add_cover(struct walk *w, uint32_t k, void *arg)
{
	struct cover *cv = arg;
	if (w->c[k].diag == cv->diag)
		cv->waste += w->c[k].idle + w->c[k].ovh;
}

static void visit(struct walk *w, uint32_t node, uint8_t inherited);

static void visit_frame(struct walk *w, uint32_t k, void *arg)
{
	visit(w, k, *(uint8_t *)arg);
}

static void list(struct walk *w, uint32_t node)
{
	grow_array(&w->listed, &w->caplisted, w->nlisted + 1, sizeof *w->listed);
	w->listed[w->nlisted++] = node;
}

/* Top down: a problem is listed at the frame where it stops being
 * explained by the frames below it; frames below a listed one are listed
 * only for a different problem. */
static void visit(struct walk *w, uint32_t node, uint8_t inherited)
{
	const struct candidate *c = &w->c[node];
	uint8_t pass = inherited;
	if (c->diag != DIAG_NONE && c->diag != inherited && w->t->node[node].kind == CTX_FRAME) {
		struct cover cv = { c->diag, 0 };
		if (!c->recursive)
			each_frame_below(w, node, add_cover, &cv);
		if (c->recursive || cv.waste < 0.8 * (c->idle + c->ovh)) {
			list(w, node);
			pass = c->diag;
		}
	}
	each_frame_below(w, node, visit_frame, &pass);
}

static int most_waste_first(const void *a, const void *b, void *arg)
{
	const struct candidate *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	double wx = c[x].idle + c[x].ovh, wy = c[y].idle + c[y].ovh;
	return wx != wy ? (wx > wy ? -1 : 1) : (x < y ? -1 : x > y);
}

static double incl(const struct ctree *t, uint32_t node, uint32_t metric)
{
	return metric == CTX_NONE ? 0 : ctree_stat(t, node, metric)->incl;
}

static void diagnose_event(sqlite3 *db, sqlite3_stmt *ins, const struct ctree *t, uint32_t ev,
			   const struct diag_thresholds *th)
{
	const struct ctx_derived *d = &t->derived[ev];
	if (d->effort == CTX_NONE)
		return;
	double total = t->metric[d->effort].total;
	if (total <= 0)
		return;

	struct walk w = { .t = t };
	w.c = xcalloc(t->n + 1, sizeof *w.c);
	w.first = xmalloc((t->n + 1) * sizeof *w.first);
	w.next = xmalloc((t->n + 1) * sizeof *w.next);
	memset(w.first, 0xff, (t->n + 1) * sizeof *w.first);
	for (uint32_t i = (uint32_t)t->n; i-- > 1;) {
		w.next[i] = w.first[t->node[i].parent];
		w.first[t->node[i].parent] = i;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		struct candidate *c = &w.c[i];
		if (t->node[i].kind != CTX_FRAME && t->node[i].kind != CTX_INLINED)
			continue;
		c->effort = incl(t, i, d->effort);
		if (c->effort <= 0)
			continue;
		c->idle = incl(t, i, d->idleness);
		c->ovh = incl(t, i, d->overhead);
		if ((c->idle + c->ovh) / total < th->share)
			continue;
		int hi = c->idle / c->effort >= th->idleness, ho = c->ovh / c->effort >= th->overhead;
		c->diag = (uint8_t)(hi && ho ? DIAG_INEFFICIENT : hi ? DIAG_MORE_PARALLELISM
						   : ho ? DIAG_TOO_FINE : DIAG_NONE);
	}
	/* A recursion is one problem, listed at its outermost level. */
	for (uint32_t i = 0; i < t->n; i++) {
		const struct ctx_node *n = &t->node[i];
		if (n->kind != CTX_FRAME)
			continue;
		for (uint32_t a = n->parent; a != CTX_NONE; a = t->node[a].parent)
			if (t->node[a].kind == CTX_FRAME && t->node[a].procedure == n->procedure &&
			    t->node[a].module == n->module) {
				w.c[a].recursive = 1;
				break;
			}
	}
	visit(&w, 0, DIAG_NONE);
	if (w.nlisted)
		qsort_r(w.listed, w.nlisted, sizeof *w.listed, most_waste_first, w.c);
	for (size_t k = 0; k < w.nlisted; k++)
		w.c[w.listed[k]].rank = (uint32_t)k + 1;

	for (uint32_t i = 0; i < t->n; i++) {
		const struct candidate *c = &w.c[i];
		if (c->diag == DIAG_NONE)
			continue;
		sqlite3_bind_int64(ins, 1, (sqlite3_int64)i + 1);
		sqlite3_bind_text(ins, 2, t->event[ev].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, diag_name[c->diag], -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, diag_advice[c->diag], -1, SQLITE_STATIC);
		if (c->rank)
			sqlite3_bind_int64(ins, 5, c->rank);
		else
			sqlite3_bind_null(ins, 5);
		sqlite3_bind_double(ins, 6, c->effort);
		sqlite3_bind_double(ins, 7, 100 * c->effort / total);
		sqlite3_bind_double(ins, 8, 100 * c->idle / c->effort);
		sqlite3_bind_double(ins, 9, 100 * c->ovh / c->effort);
		sqlite3_bind_double(ins, 10, 100 * (c->idle + c->ovh) / total);
		db_step_reset(db, ins);
	}
	free(w.listed);
	free(w.first);
	free(w.next);
	free(w.c);
}

void diagnose_write(sqlite3 *db, const struct ctree *t, const struct diag_thresholds *th)
{
	sqlite3_stmt *ins = db_prepare(db, "INSERT INTO diagnoses VALUES (?,?,?,?,?,?,?,?,?,?)");
	for (uint32_t ev = 0; ev < t->nevent; ev++)
		diagnose_event(db, ins, t, ev, th);
	sqlite3_finalize(ins);
}
