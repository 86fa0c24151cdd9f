/* plan.c - rank 0's plan for the other ranks of `culprit prof --mpi`
 * (plan.h). */
#define _GNU_SOURCE
#include "plan.h"

#include "bytes.h"
#include "experiment.h"
#include "hash.h"
#include "overhead.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

#define PLAN_MAGIC 0x4e414c50u	/* "PLAN" */

uint64_t plan_rules_fingerprint(const struct ovh_rules *rules)
{
	uint64_t h = rules->n;
	for (size_t i = 0; i < rules->n; i++) {
		const struct ovh_rule *r = &rules->rule[i];
		h = hash_mix(h ^ (uint64_t)r->field);
		h = hash_string(h, r->pattern);
		h = hash_string(h, r->type);
		h = hash_string(h, r->origin);
	}
	return h;
}

/* The columns, each (event, metric) once: a few kinds among however many
 * threads. */
static void pack_columns(struct pack *p, const struct experiment *e)
{
	const char **col = NULL;
	size_t ncol = 0, capcol = 0;
	for (size_t i = 0; i < e->nthread; i++) {
		const struct exp_thread *t = e->thread[i];
		for (uint32_t c = 0; c < t->t->ncolumns; c++) {
			const char *ev = t->proc->p->events[t->t->columns[c].event].name;
			const char *metric = t->t->columns[c].metric;
			size_t k = 0;
			while (k < ncol && (strcmp(col[k], ev) || strcmp(col[k + 1], metric)))
				k += 2;
			if (k < ncol)
				continue;
			grow_array(&col, &capcol, ncol + 2, sizeof *col);
			col[ncol++] = ev;
			col[ncol++] = metric;
		}
	}
	put_u32(p, (uint32_t)(ncol / 2));
	for (size_t k = 0; k < ncol; k++)
		put_str(p, col[k]);
	free(col);
}

/* The tree's logical names, one per (namespace, ident): rank 0 chose
 * among colliding idents as serial prof does. */
static void pack_lnames(struct pack *p, const struct ctree *t)
{
	put_u32(p, (uint32_t)t->nlname);
	for (size_t i = 0; i < t->nlname; i++) {
		const struct logical_name *l = &t->lname[i];
		put_u32(p, l->ns);
		put_u32(p, l->line_bits);
		put_u64(p, l->ident);
		put_u32(p, l->first_line);
		put_str(p, strtab_get(t->str, l->name));
		put_str(p, strtab_get(t->str, l->file));
	}
}

unsigned char *plan_pack(const struct experiment *e, const struct ctree *tree,
			 const struct ovh_rules *rules, const int *owner, size_t *len)
{
	struct pack p = { NULL, 0, 0 };
	put_u32(&p, PLAN_MAGIC);
	put_u32(&p, (uint32_t)tree->notype);
	for (size_t i = 0; i < tree->notype; i++)
		put_str(&p, strtab_get(tree->str, tree->otype[i]));
	pack_columns(&p, e);
	pack_lnames(&p, tree);
	put_u64(&p, plan_rules_fingerprint(rules));
	put_u32(&p, (uint32_t)e->nthread);
	for (size_t i = 0; i < e->nthread; i++) {
		put_u32(&p, e->thread[i]->id);
		put_u32(&p, (uint32_t)owner[i]);
		put_str(&p, e->thread[i]->path);
	}
	*len = p.n;
	return p.b;
}

static int by_path(const void *a, const void *b)
{
	const struct plan_thread *x = a, *y = b;
	return strcmp(x->path, y->path);
}

static void unpack_lnames(struct unpack *u, struct plan *plan)
{
	uint32_t n = get_u32(u);
	if ((uint64_t)n * 26 > (uint64_t)(u->end - u->p)) {
		u->bad = 1;
		return;
	}
	plan->lname = xcalloc((size_t)n + 1, sizeof *plan->lname);
	for (uint32_t i = 0; i < n && !u->bad; i++) {
		struct logical_name_text *l = &plan->lname[plan->nlname++];
		l->ns = get_u32(u);
		l->line_bits = get_u32(u);
		l->ident = get_u64(u);
		l->first_line = get_u32(u);
		l->name = get_str(u);
		l->file = get_str(u);
	}
}

int plan_unpack(struct plan *plan, const unsigned char *bytes, size_t len, int rank)
{
	struct unpack u = { bytes, bytes + len, 0 };
	size_t cap = 0;
	memset(plan, 0, sizeof *plan);
	if (get_u32(&u) != PLAN_MAGIC)
		return -1;
	uint32_t n = get_u32(&u);
	for (uint32_t i = 0; i < n && !u.bad; i++) {
		char *t = get_str(&u);
		if (!t)
			break;
		grow_array(&plan->type, &cap, plan->ntype + 1, sizeof *plan->type);
		plan->type[plan->ntype++] = t;
	}
	n = get_u32(&u);
	for (uint32_t i = 0; i < n && !u.bad; i++) {
		char *ev = get_str(&u), *metric = get_str(&u);
		struct ctree_columns *c = &plan->columns;
		c->event = xrealloc(c->event, (c->n + 1) * sizeof *c->event);
		c->metric = xrealloc(c->metric, (c->n + 1) * sizeof *c->metric);
		c->event[c->n] = ev;
		c->metric[c->n++] = metric;
		if (!ev || !metric)
			u.bad = 1;
	}
	unpack_lnames(&u, plan);
	plan->rules = get_u64(&u);
	/* This rank's files, with their ids, sorted by path for lookups. */
	n = get_u32(&u);
	plan->threads = n;
	cap = 0;
	for (uint32_t i = 0; i < n && !u.bad; i++) {
		uint32_t id = get_u32(&u), owner = get_u32(&u);
		char *path = get_str(&u);
		if (!path)
			break;
		if (id == 0 || id > n) {
			free(path);
			u.bad = 1;
			break;
		}
		if ((int)owner != rank) {
			free(path);
			continue;
		}
		grow_array(&plan->thread, &cap, plan->nthread + 1, sizeof *plan->thread);
		plan->thread[plan->nthread++] = (struct plan_thread){ path, id };
	}
	if (plan->nthread)
		qsort(plan->thread, plan->nthread, sizeof *plan->thread, by_path);
	if (u.bad || u.p != u.end) {
		plan_free(plan);
		return -1;
	}
	return 0;
}

static const struct plan_thread *plan_find(const struct plan *plan, const char *path)
{
	if (!plan->nthread)
		return NULL;
	struct plan_thread key = { (char *)path, 0 };
	return bsearch(&key, plan->thread, plan->nthread, sizeof key, by_path);
}

int plan_keeps(void *plan, const char *path)
{
	return plan_find(plan, path) != NULL;
}

uint32_t plan_id(const struct plan *plan, const char *path)
{
	const struct plan_thread *t = plan_find(plan, path);
	return t ? t->id : 0;
}

void plan_free(struct plan *plan)
{
	for (size_t i = 0; i < plan->ntype; i++)
		free(plan->type[i]);
	free(plan->type);
	for (size_t i = 0; i < plan->columns.n; i++) {
		free(plan->columns.event[i]);
		free(plan->columns.metric[i]);
	}
	free(plan->columns.event);
	free(plan->columns.metric);
	for (size_t i = 0; i < plan->nlname; i++) {
		free(plan->lname[i].name);
		free(plan->lname[i].file);
	}
	free(plan->lname);
	for (size_t i = 0; i < plan->nthread; i++)
		free(plan->thread[i].path);
	free(plan->thread);
	memset(plan, 0, sizeof *plan);
}
