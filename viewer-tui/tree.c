/* tree.c - the rows of a view: their tree, order, filter and the list of
 * rows on screen. */
#define _GNU_SOURCE
#include "tools.h"
#include "view.h"

#include <stdlib.h>
#include <string.h>

struct vrow *row_new(struct vrow *parent, uint8_t kind)
{
	struct vrow *r = xcalloc(1, sizeof *r);
	r->kind = kind;
	r->parent = parent;
	r->depth = parent ? (uint16_t)(parent->depth + 1) : 0;
	return r;
}

void row_free(struct vrow *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nkids; i++)
		row_free(r->kid[i]);
	free(r->kid);
	free(r->procedure);
	free(r->module);
	free(r->file);
	free(r->site_file);
	free(r->inst);
	free(r->front);
	free(r->ivals);
	free(r->icallers);
	free(r);
}

void row_add_kid(struct vrow *parent, struct vrow *kid)
{
	grow_array(&parent->kid, &parent->capkids, parent->nkids + 1, sizeof *parent->kid);
	parent->kid[parent->nkids++] = kid;
}

double row_value(const struct vrow *r, const struct vcolumn *c)
{
	return c->exclusive ? r->excl[c->metric] : r->incl[c->metric];
}

static void add_visible(struct vlist *l, struct vrow *r)
{
	for (size_t i = 0; i < r->nkids; i++) {
		struct vrow *k = r->kid[i];
		if (k->hidden)
			continue;
		grow_array(&l->row, &l->cap, l->n + 1, sizeof *l->row);
		l->row[l->n++] = k;
		if (k->expanded)
			add_visible(l, k);
	}
}

void list_build(struct vlist *l, struct vrow *root)
{
	l->n = 0;
	add_visible(l, root);
}

static int by_value(const void *a, const void *b, void *arg)
{
	const struct vcolumn *c = arg;
	const struct vrow *x = *(struct vrow *const *)a, *y = *(struct vrow *const *)b;
	double vx = row_value(x, c), vy = row_value(y, c);
	if (vx != vy)
		return vx < vy ? 1 : -1;
	/* Then by inclusive work, then by name: a stable, readable order. */
	if (x->incl[VM_WORK] != y->incl[VM_WORK])
		return x->incl[VM_WORK] < y->incl[VM_WORK] ? 1 : -1;
	if (x->line != y->line && x->kind == VK_LINE)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->procedure ? x->procedure : "", y->procedure ? y->procedure : "");
}

void tree_sort(struct vrow *root, const struct vcolumn *c)
{
	if (root->nkids > 1)
		qsort_r(root->kid, root->nkids, sizeof *root->kid, by_value, (void *)c);
	for (size_t i = 0; i < root->nkids; i++)
		if (root->kid[i]->loaded)
			tree_sort(root->kid[i], c);
}

void tree_filter(struct vrow *root, const struct vcolumn *c, double threshold)
{
	for (size_t i = 0; i < root->nkids; i++) {
		struct vrow *k = root->kid[i];
		k->hidden = threshold > 0 && row_value(k, c) < threshold && k->kind != VK_ROOT;
		if (k->loaded)
			tree_filter(k, c, threshold);
	}
}
