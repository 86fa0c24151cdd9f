/* procedures.c - a procedure's totals over the merged tree (merge.h's
 * ctree_procedures): the sum of its frames' values, each procedure being
 * a name, a module and a definition file, with recursion counted once in
 * inclusive values.  Run once, after every thread is merged. */
#include "hash.h"
#include "hindex.h"
#include "merge.h"
#include "tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A procedure: its name, module and definition file. */
struct proc_key {
	uint32_t procedure, module, file;
};

/* The procedures found so far, numbered in order, with a hash index. */
struct proc_table {
	struct proc_key *key;	/* procedure number -> key */
	size_t n, cap;
	struct hindex index;	/* key -> procedure number */
};

static uint64_t proc_hash(const struct proc_key *k)
{
	return hash_mix((uint64_t)k->procedure << 32 ^ k->module ^ (uint64_t)k->file << 16);
}

static int proc_same(const struct proc_key *a, const struct proc_key *b)
{
	return a->procedure == b->procedure && a->module == b->module && a->file == b->file;
}

/* The number of procedure K, adding it if new. */
static uint32_t proc_number(struct proc_table *pt, const struct proc_key *k)
{
	struct hindex_pos pos;
	for (uint32_t q = hindex_find(&pt->index, proc_hash(k), &pos); q != HINDEX_NONE;
	     q = hindex_next(&pt->index, &pos))
		if (proc_same(&pt->key[q], k))
			return q;
	grow_array(&pt->key, &pt->cap, pt->n + 1, sizeof *pt->key);
	pt->key[pt->n] = *k;
	hindex_add(&pt->index, &pos, (uint32_t)pt->n);
	return (uint32_t)pt->n++;
}

/* Sums each procedure's values over T's contexts, by metric, into INCL
 * and EXCL (procedure * nmetric + metric); PROC maps a context to its
 * procedure (CTX_NONE for none).  A frame's inclusive value counts only
 * where no frame of the same procedure is above it (recursion counted
 * once: mark_nested). */
static void sum_procedures(const struct ctree *t, const uint32_t *proc, size_t nproc,
			   double *incl, double *excl)
{
	size_t n = t->n, nm = t->nmetric;
	uint32_t *parent = xmalloc((n + 1) * sizeof *parent);
	uint8_t *nested = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		parent[i] = i ? t->node[i].parent : UINT32_MAX;
	mark_nested(n, parent, proc, (uint32_t)nproc, nested);
	for (size_t i = 0; i < n; i++) {
		uint32_t q = proc[i];
		if (q == CTX_NONE)
			continue;
		for (size_t m = 0; m < nm; m++) {
			const struct ctx_stat *s = ctree_stat(t, (uint32_t)i, (uint32_t)m);
			if (!nested[i])
				incl[q * nm + m] += s->incl;
			excl[q * nm + m] += s->excl;
		}
	}
	free(nested);
	free(parent);
}

void ctree_procedures(const struct ctree *t, ctx_procedure_sink sink, void *arg)
{
	size_t n = t->n, nm = t->nmetric;
	uint32_t *proc = xmalloc(n * sizeof *proc);	/* node -> procedure number */
	struct proc_table pt = { 0 };
	hindex_reserve(&pt.index, 512);

	/* Number the procedures: (name, module, definition file). */
	for (size_t i = 0; i < n; i++) {
		const struct ctx_node *c = &t->node[i];
		proc[i] = CTX_NONE;
		if (c->kind != CTX_FRAME && c->kind != CTX_INLINED)
			continue;
		struct proc_key k = { c->procedure, c->module, c->file };
		proc[i] = proc_number(&pt, &k);
	}
	double *incl = xcalloc(pt.n * nm + 1, sizeof *incl);
	double *excl = xcalloc(pt.n * nm + 1, sizeof *excl);
	sum_procedures(t, proc, pt.n, incl, excl);
	for (size_t q = 0; q < pt.n; q++)
		for (size_t m = 0; m < nm; m++)
			if (incl[q * nm + m] != 0 || excl[q * nm + m] != 0)
				sink(arg, pt.key[q].procedure, pt.key[q].module, pt.key[q].file,
				     (uint32_t)m, incl[q * nm + m], excl[q * nm + m]);
	free(incl);
	free(excl);
	free(pt.key);
	hindex_free(&pt.index);
	free(proc);
}

int ctree_check_exclusive(const struct ctree *t, uint32_t *metric, double *owned, double *total)
{
	for (uint32_t m = 0; m < t->nmetric; m++) {
		if (!t->mstat[m])
			continue;
		double sum = 0;
		for (size_t c = 0; c < t->n; c++) {
			int kind = t->node[c].kind;
			if (kind == CTX_FRAME || kind == CTX_INLINED)
				sum += t->mstat[m][c].excl;
		}
		double all = t->mstat[m][0].incl;
		if (fabs(sum - all) > 1e-9 * fmax(fabs(sum), fabs(all))) {
			*metric = m;
			*owned = sum;
			*total = all;
			return -1;
		}
	}
	return 0;
}
