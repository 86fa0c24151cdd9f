/* range.c - the callers and flat views in a time range chosen in the
 * timeline: each procedure's values summed from its frames' values in the
 * range (vmodel.range_incl, range_excl), as culprit prof sums the whole
 * run's into procedure_metrics: a procedure is a name, a module and a
 * definition file; its exclusive value is its frames' self cost, its
 * inclusive value its frames' with recursion counted once.  The tree's
 * names are interned (dbr_tree), so a name is known by its pointer. */
#define _GNU_SOURCE
#include "hash.h"
#include "hindex.h"
#include "tools.h"
#include "view.h"

#include <stdlib.h>
#include <string.h>

struct proc {
	const char *procedure, *module, *file;
	double incl[VM_COUNT], excl[VM_COUNT];
};

struct procs {
	struct proc *p;
	size_t n, cap;
	struct hindex index;		/* (procedure, module, file) -> index */
};

/* The procedure of frame C, added the first time. */
static struct proc *proc_of(struct procs *ps, const struct dbr_ctx *c)
{
	uint64_t h = hash_mix((uint64_t)(uintptr_t)c->procedure ^
			      (uint64_t)(uintptr_t)c->module * 31 ^
			      (uint64_t)(uintptr_t)c->file * 131);
	struct hindex_pos pos;
	for (uint32_t q = hindex_find(&ps->index, h, &pos); q != HINDEX_NONE;
	     q = hindex_next(&ps->index, &pos)) {
		struct proc *p = &ps->p[q];
		if (p->procedure == c->procedure && p->module == c->module && p->file == c->file)
			return p;
	}
	grow_array(&ps->p, &ps->cap, ps->n + 1, sizeof *ps->p);
	struct proc *p = &ps->p[ps->n];
	memset(p, 0, sizeof *p);
	p->procedure = c->procedure;
	p->module = c->module;
	p->file = c->file;
	hindex_add(&ps->index, &pos, (uint32_t)ps->n++);
	return p;
}

/* Sums each frame's values of the range into its procedure: inclusive
 * only where no frame of the same procedure is above it (dbr_recursive).
 * -1 after setting the model's error. */
static int sum_frames(struct vmodel *m, const struct dbr_tree *t, struct procs *ps)
{
	const uint8_t *recursive = dbr_recursive(m->db);
	if (!recursive)
		return model_set_error(m);
	for (size_t i = 0; i < t->n; i++) {
		const struct dbr_ctx *c = &t->c[i];
		if (!dbr_is_frame(c->kind))
			continue;
		struct proc *p = proc_of(ps, c);
		const double *in = m->range_incl + i * VM_COUNT;
		const double *ex = m->range_excl + i * VM_COUNT;
		for (int k = 0; k < VM_COUNT; k++) {
			if (!recursive[i])
				p->incl[k] += in[k];
			p->excl[k] += ex[k];
		}
	}
	return 0;
}

static int has_value(const double *v)
{
	for (int k = 0; k < VM_COUNT; k++)
		if (v[k] != 0)
			return 1;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

int range_procedures(struct vmodel *m, struct vrow *root)
{
	const struct dbr_tree *t = dbr_tree(m->db);
	if (!t)
		return model_set_error(m);
	struct procs ps = { 0 };
	if (sum_frames(m, t, &ps) < 0) {
		free(ps.p);
		hindex_free(&ps.index);
		return -1;
	}
	for (size_t q = 0; q < ps.n; q++) {
		const struct proc *p = &ps.p[q];
		if (!has_value(p->incl) && !has_value(p->excl))
			continue;
		struct vrow *k = row_new(root, VK_PROCEDURE);
		k->procedure = dup_or_null(p->procedure);
		k->module = dup_or_null(p->module);
		k->file = dup_or_null(p->file);
		memcpy(k->incl, p->incl, sizeof k->incl);
		memcpy(k->excl, p->excl, sizeof k->excl);
		row_add_kid(root, k);
	}
	free(ps.p);
	hindex_free(&ps.index);
	return 0;
}

int range_lines(struct vmodel *m, struct vrow *p)
{
	const struct dbr_tree *t = dbr_tree(m->db);
	if (!t)
		return model_set_error(m);
	for (size_t i = 0; i < t->n; i++) {
		const struct dbr_ctx *c = &t->c[i];
		const double *ex = m->range_excl + i * VM_COUNT;
		if (c->kind != KIND_STATEMENT[0] || !has_value(ex) || !dbr_same_name(c->procedure, p->procedure) ||
		    !dbr_same_name(c->module, p->module))
			continue;
		struct vrow *row = NULL;
		for (size_t k = 0; k < p->nkids && !row; k++)
			if (p->kid[k]->line == c->line && dbr_same_name(p->kid[k]->file, c->file))
				row = p->kid[k];
		if (!row) {
			row = row_new(p, VK_LINE);
			row->file = dup_or_null(c->file);
			row->line = c->line;
			row->procedure = dup_or_null(p->procedure);
			row->module = dup_or_null(p->module);
			row->leaf = 1;
			row_add_kid(p, row);
		}
		for (int k = 0; k < VM_COUNT; k++) {
			row->incl[k] += ex[k];
			row->excl[k] += ex[k];
		}
	}
	return 0;
}

void range_instances(const struct vmodel *m, struct vrow *p)
{
	for (size_t i = 0; i < p->ninst; i++) {
		int64_t id = p->inst[i];
		if (id < 1 || id > m->max_id)
			continue;
		memcpy(p->ivals[i].incl, m->range_incl + (size_t)(id - 1) * VM_COUNT,
		       sizeof p->ivals[i].incl);
		memcpy(p->ivals[i].excl, m->range_excl + (size_t)(id - 1) * VM_COUNT,
		       sizeof p->ivals[i].excl);
	}
}
