/* values.c - a thread's values into the tree: each node's columns as the
 * tree's metrics, scaled, with the derived metrics of its context, gathered
 * sparsely by context (thread_acc.h: a thread costs memory in proportion
 * to the contexts it touched), summed into the tree and passed on; and
 * whether the database may leave effort and useful_work to its views. */
#define _GNU_SOURCE
#include "experiment.h"
#include "merge.h"
#include "thread_acc.h"
#include "tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void gather_thread_values(struct ctree *t, const struct exp_thread *th, struct acc *a,
				 double *totals)
{
	const struct mfile_thread *mt = th->t;
	const struct exp_process *p = th->proc;
	size_t nm = t->nmetric;

	/* Which of our metrics each column is, and its scale. */
	uint32_t *col = xmalloc((mt->ncolumns + 1) * sizeof *col);
	for (uint32_t c = 0; c < mt->ncolumns; c++) {
		uint32_t ev = ctree_event(t, p->p->events[mt->columns[c].event].name);
		col[c] = ctree_find_metric(t, ev, mt->columns[c].metric);
	}
	double *v = xcalloc(nm, sizeof *v);
	memset(totals, 0, nm * sizeof *totals);
	/* Values come grouped by node; add each node's values at once. */
	for (uint32_t i = 0; i < mt->nvalues;) {
		uint32_t node = mt->values[i].node;
		memset(v, 0, nm * sizeof *v);
		for (; i < mt->nvalues && mt->values[i].node == node; i++) {
			uint32_t m = col[mt->values[i].column];
			if (m == CTX_NONE)
				continue;
			v[m] += mt->values[i].value * t->metric[m].scale;
		}
		uint32_t ctx = ctree_value_context(t, th, node);
		ctree_derive(t, ctx, v);
		for (size_t m = 0; m < nm; m++)
			totals[m] += v[m];
		acc_sample(a, ctx, v);
	}
	free(v);
	free(col);
}

int ctree_derived_metric(const struct ctree *t, uint32_t m, uint32_t *from, uint32_t *plus,
			 uint32_t *minus)
{
	const struct ctx_derived *d = &t->derived[t->metric[m].event];
	*from = *plus = *minus = CTX_NONE;
	if (d->work == CTX_NONE || d->overhead == CTX_NONE || (m != d->effort && m != d->useful))
		return 0;
	*from = d->work;
	if (m == d->effort)
		*plus = d->idleness;
	else
		*minus = d->overhead;
	return 1;
}

/* Equal but for the rounding of sums taken in another order. */
static int nearly(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

int ctree_derived_matches(const double from[2], const double plus[2], const double minus[2],
			  const double value[2])
{
	/* As SQLite computes it: (from + plus) - minus, in doubles. */
	double in = from[0] + plus[0] - minus[0], ex = from[1] + plus[1] - minus[1];
	int computed = (from[0] != 0 || from[1] != 0) && (in != 0 || ex != 0);
	int stored = value[0] != 0 || value[1] != 0;
	if (computed != stored)
		return 0;
	return !stored || (nearly(in, value[0]) && nearly(ex, value[1]));
}

/* Metric M's pair at entry E of A, zeros where the thread has none. */
static void acc_pair(const struct acc *a, uint32_t m, size_t e, double out[2])
{
	const double *in = m == CTX_NONE ? NULL : acc_inclusive(a, m);
	out[0] = in ? in[e] : 0;
	out[1] = in ? acc_exclusive(a, m)[e] : 0;
}

/* Clears T->thread_derivable unless the views would give this thread's
 * effort and useful_work from its other values, at every context. */
static void check_derivable(struct ctree *t, const struct acc *a)
{
	size_t n = acc_count(a);
	for (uint32_t m = 0; m < t->nmetric && t->thread_derivable; m++) {
		uint32_t from, plus, minus;
		if (!ctree_derived_metric(t, m, &from, &plus, &minus))
			continue;
		for (size_t e = 0; e < n; e++) {
			double f[2], p[2], x[2], v[2];
			acc_pair(a, from, e, f);
			acc_pair(a, plus, e, p);
			acc_pair(a, minus, e, x);
			acc_pair(a, m, e, v);
			if (!ctree_derived_matches(f, p, x, v)) {
				t->thread_derivable = 0;
				break;
			}
		}
	}
}

/* Adds the thread's values gathered in A to T's, and passes each to SINK. */
static void add_values(struct ctree *t, const struct exp_thread *th, const struct acc *a,
		       ctx_thread_sink sink, void *arg)
{
	size_t n = acc_count(a);
	for (size_t m = 0; m < t->nmetric; m++) {
		const double *in = acc_inclusive(a, m), *ex = acc_exclusive(a, m);
		if (!in)
			continue;
		if (!t->mstat[m])
			t->mstat[m] = xcalloc(t->cap, sizeof *t->mstat[m]);
		struct ctx_stat *stat = t->mstat[m];
		for (size_t e = 0; e < n; e++) {
			if (in[e] == 0 && ex[e] == 0)
				continue;
			uint32_t ctx = acc_context(a, e);
			stat[ctx].incl += in[e];
			stat[ctx].excl += ex[e];
			if (sink)
				sink(arg, th, ctx, (uint32_t)m, in[e], ex[e]);
		}
	}
}

void ctree_add_thread(struct ctree *t, struct exp_thread *th, ctx_thread_sink sink,
		      void *arg, double *totals)
{
	ctree_map_thread(t, th);	/* kept with TH: th->ctx_map */
	struct acc *a = acc_new(t->nmetric);
	gather_thread_values(t, th, a, totals);
	acc_finish(a, t->node);

	t->nthreads++;
	size_t n = acc_count(a);
	if (th->seq != 0 && n) {
		if (t->nsecondary < t->n) {
			size_t old = t->nsecondary;
			grow_array(&t->secondary, &t->nsecondary, t->n, 1);
			memset(t->secondary + old, 0, t->nsecondary - old);
		}
		for (size_t e = 0; e < n; e++)
			t->secondary[acc_context(a, e)] = 1;
	}
	check_derivable(t, a);
	add_values(t, th, a, sink, arg);
	for (size_t m = 0; m < t->nmetric; m++)
		t->metric[m].total += totals[m];
	acc_free(a);
}
