/* ctree.c - the experiment's calling-context tree: each context's
 * identity (its parent, kind, procedure, module, file and line), found or
 * added in one hash index; the events and metrics it has values of; and
 * the marks partial.c sets from another tree's state.  merge.c translates
 * threads into it, classify.c says what of it is overhead, values.c adds
 * the threads' values. */
#define _GNU_SOURCE
#include "experiment.h"
#include "hash.h"
#include "logical.h"
#include "merge.h"
#include "schema.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

const char *const ctx_kind_name[CTX_KINDS] = {
	[CTX_ROOT] = KIND_ROOT,
	[CTX_FRAME] = KIND_FRAME,
	[CTX_INLINED] = KIND_INLINED,
	[CTX_CALLSITE] = KIND_CALLSITE,
	[CTX_STATEMENT] = KIND_STATEMENT,
};


static uint64_t node_hash(const struct ctx_node *n)
{
	return hash_mix(((uint64_t)n->parent << 32 | n->procedure) ^
		   hash_mix((uint64_t)n->module << 32 | n->file) ^
		   hash_mix((uint64_t)n->line << 8 | n->kind));
}

static int same(const struct ctx_node *a, const struct ctx_node *b)
{
	return a->parent == b->parent && a->procedure == b->procedure && a->module == b->module &&
	       a->file == b->file && a->line == b->line && a->kind == b->kind;
}

uint32_t ctree_child(struct ctree *t, uint32_t parent, int kind, uint32_t procedure,
		     uint32_t module, uint32_t file, uint32_t line)
{
	struct ctx_node key = { parent, 0, procedure, module, file, line, (uint8_t)kind, 0 };
	struct hindex_pos pos;
	for (uint32_t id = hindex_find(&t->index, node_hash(&key), &pos); id != HINDEX_NONE;
	     id = hindex_next(&t->index, &pos))
		if (same(&t->node[id], &key))
			return id;
	if (t->n == t->cap) {
		size_t cap = t->cap;
		grow_array(&t->node, &cap, t->n + 1, sizeof *t->node);
		for (size_t m = 0; m < t->nmetric; m++)
			if (t->mstat[m])
				t->mstat[m] = xrealloc(t->mstat[m], cap * sizeof *t->mstat[m]);
		t->cap = cap;
	}
	uint32_t id = (uint32_t)t->n++;
	key.depth = parent == CTX_NONE ? 0 : t->node[parent].depth + 1;
	t->node[id] = key;
	for (size_t m = 0; m < t->nmetric; m++)
		if (t->mstat[m])
			t->mstat[m][id] = (struct ctx_stat){ 0, 0 };
	hindex_add(&t->index, &pos, id);
	return id;
}

uint32_t ctree_intern(struct ctree *t, const char *s)
{
	return strtab_intern(t->str, s);
}

/* ---- events and metrics ------------------------------------------------ */

uint32_t ctree_event(const struct ctree *t, const char *name)
{
	for (size_t i = 0; i < t->nevent; i++)
		if (strcmp(t->event[i].name, name) == 0)
			return (uint32_t)i;
	return CTX_NONE;
}

uint32_t ctree_find_metric(const struct ctree *t, uint32_t event, const char *name)
{
	for (size_t i = 0; i < t->nmetric; i++)
		if (t->metric[i].event == event && strcmp(t->metric[i].name, name) == 0)
			return (uint32_t)i;
	return CTX_NONE;
}

/* Metrics in a fixed order: by event, then samples, work, idleness,
 * overhead, useful_work, effort, and the rest by name. */
static int metric_rank(const char *name)
{
	static const char *const first[] = { MET_SAMPLES, MET_WORK, MET_IDLENESS, MET_OVERHEAD,
					     MET_USEFUL, MET_EFFORT };
	for (int i = 0; i < 6; i++)
		if (strcmp(name, first[i]) == 0)
			return i;
	return 6;
}

static int by_metric(const void *a, const void *b)
{
	const struct ctx_metric *x = a, *y = b;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	int rx = metric_rank(x->name), ry = metric_rank(y->name);
	if (rx != ry)
		return rx - ry;
	return strcmp(x->name, y->name);
}

static void add_metric(struct ctree *t, size_t *cap, uint32_t ev, const char *name)
{
	if (ctree_find_metric(t, ev, name) != CTX_NONE)
		return;
	grow_array(&t->metric, cap, t->nmetric + 1, sizeof *t->metric);
	struct ctx_metric *m = &t->metric[t->nmetric++];
	int samples = strcmp(name, MET_SAMPLES) == 0;
	m->event = ev;
	m->name = xstrdup(name);
	m->unit = xstrdup(samples ? "samples" : t->event[ev].unit);
	m->scale = samples ? 1 : t->event[ev].scale;
	m->total = 0;
}

struct ctree *ctree_new(const struct experiment *e, const struct ovh_rules *rules,
			char *const *types, size_t ntypes, const struct ctree_columns *more)
{
	struct ctree *t = xcalloc(1, sizeof *t);
	size_t cap = 0;

	t->thread_derivable = 1;

	t->str = strtab_new();
	for (int k = 0; k < CTX_KINDS; k++)
		t->kind_name[k] = ctree_intern(t, ctx_kind_name[k]);
	for (size_t i = 0; i < e->nproc; i++) {
		const struct mfile_process *p = e->proc[i]->p;
		for (uint32_t k = 0; k < p->nevents; k++) {
			if (ctree_event(t, p->events[k].name) != CTX_NONE)
				continue;
			grow_array(&t->event, &cap, t->nevent + 1, sizeof *t->event);
			struct ctx_event *ev = &t->event[t->nevent++];
			int ns = strcmp(p->events[k].unit, "ns") == 0;
			ev->name = xstrdup(p->events[k].name);
			ev->unit = xstrdup(ns ? "seconds" : "count");
			ev->scale = ns ? 1e-9 : 1;
			ev->source = p->events[k].source;
			ev->flags = p->events[k].flags;
			ev->period = p->events[k].period;
		}
	}
	cap = 0;
	for (size_t i = 0; i < e->nproc; i++) {
		const struct mfile_process *p = e->proc[i]->p;
		for (uint32_t k = 0; k < p->nmodules; k++) {
			if (!(p->modules[k].flags & MFILE_MOD_MAIN) || !p->modules[k].path)
				continue;
			size_t j = 0;
			while (j < t->nexecutable && strcmp(t->executable[j], p->modules[k].path))
				j++;
			if (j == t->nexecutable) {
				grow_array(&t->executable, &cap, t->nexecutable + 1,
					   sizeof *t->executable);
				t->executable[t->nexecutable++] = xstrdup(p->modules[k].path);
			}
		}
	}
	cap = 0;
	for (size_t i = 0; i < e->nthread; i++) {
		const struct mfile_thread *th = e->thread[i]->t;
		const struct mfile_process *p = e->thread[i]->proc->p;
		for (uint32_t c = 0; c < th->ncolumns; c++) {
			uint32_t ev = ctree_event(t, p->events[th->columns[c].event].name);
			add_metric(t, &cap, ev, th->columns[c].metric);
		}
	}
	for (size_t i = 0; more && i < more->n; i++) {
		uint32_t ev = ctree_event(t, more->event[i]);
		if (ev != CTX_NONE)
			add_metric(t, &cap, ev, more->metric[i]);
	}
	/* The overhead metrics of every event that has work. */
	t->rules = rules;
	t->otype = xcalloc(ntypes + 1, sizeof *t->otype);
	for (size_t k = 0; k < ntypes; k++)
		t->otype[t->notype++] = ctree_intern(t, types[k]);
	for (uint32_t ev = 0; ev < t->nevent; ev++) {
		if (ctree_find_metric(t, ev, MET_WORK) == CTX_NONE)
			continue;
		add_metric(t, &cap, ev, MET_OVERHEAD);
		add_metric(t, &cap, ev, MET_USEFUL);
		add_metric(t, &cap, ev, MET_EFFORT);
		for (size_t k = 0; k < ntypes; k++) {
			char *name = xasprintf(MET_OVERHEAD_PREFIX "%s", types[k]);
			add_metric(t, &cap, ev, name);
			free(name);
		}
	}
	qsort(t->metric, t->nmetric, sizeof *t->metric, by_metric);
	t->derived = xcalloc(t->nevent + 1, sizeof *t->derived);
	for (uint32_t ev = 0; ev < t->nevent; ev++) {
		struct ctx_derived *d = &t->derived[ev];
		d->work = ctree_find_metric(t, ev, MET_WORK);
		d->idleness = ctree_find_metric(t, ev, MET_IDLENESS);
		d->overhead = ctree_find_metric(t, ev, MET_OVERHEAD);
		d->useful = ctree_find_metric(t, ev, MET_USEFUL);
		d->effort = ctree_find_metric(t, ev, MET_EFFORT);
		d->typed = xcalloc(ntypes + 1, sizeof *d->typed);
		for (size_t k = 0; k < ntypes; k++) {
			char *name = xasprintf(MET_OVERHEAD_PREFIX "%s", types[k]);
			d->typed[k] = ctree_find_metric(t, ev, name);
			free(name);
		}
	}

	t->mstat = xcalloc(t->nmetric + 1, sizeof *t->mstat);
	hindex_reserve(&t->index, 2048);
	ctree_child(t, CTX_NONE, CTX_ROOT, ctree_intern(t, "<program root>"), 0, 0, 0);
	logical_names_build(t, e);
	return t;
}

void ctree_free(struct ctree *t)
{
	if (!t)
		return;
	free(t->fold);
	for (size_t i = 0; i < t->nexecutable; i++)
		free(t->executable[i]);
	free(t->executable);
	logical_names_free(t);
	for (size_t i = 0; i < t->nevent; i++) {
		free(t->event[i].name);
		free(t->event[i].unit);
	}
	for (size_t i = 0; i < t->nmetric; i++) {
		free(t->metric[i].name);
		free(t->metric[i].unit);
	}
	for (size_t i = 0; i < t->nevent; i++)
		free(t->derived[i].typed);
	free(t->derived);
	free(t->otype);
	free(t->cls);
	free(t->cls_done);
	free(t->transparent);
	free(t->secondary);
	free(t->event);
	free(t->metric);
	free(t->node);
	for (size_t m = 0; m < t->nmetric; m++)
		free(t->mstat[m]);
	free(t->mstat);
	hindex_free(&t->index);
	strtab_free(t->str);
	free(t);
}

/* ---- another tree's state (partial.c) ----------------------------------- */

void ctree_mark_secondary(struct ctree *t, uint32_t node)
{
	if (t->nsecondary <= node) {
		size_t old = t->nsecondary;
		grow_array(&t->secondary, &t->nsecondary, t->n, 1);
		memset(t->secondary + old, 0, t->nsecondary - old);
	}
	t->secondary[node] = 1;
}

int ctree_secondary(const struct ctree *t, uint32_t node)
{
	return node < t->nsecondary && t->secondary[node];
}
