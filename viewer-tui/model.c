/* model.c - what the viewer reads from the database, and when, through
 * the read layer (dbread/).
 *
 * Nothing is read until it is shown: opening reads the events and the
 * root's children; expanding a context reads its children, and the
 * callers and flat views read the procedure list when first shown.  The
 * callers view goes up from a procedure's frames with dbr_callers, the
 * rule culprit report uses (dbr_caller). */
#define _GNU_SOURCE
#include "hash.h"
#include "hindex.h"
#include "tools.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vmetric_name[VM_COUNT] = {
	[VM_WORK] = MET_WORK, [VM_IDLENESS] = MET_IDLENESS, [VM_OVERHEAD] = MET_OVERHEAD,
	[VM_USEFUL] = MET_USEFUL, [VM_EFFORT] = MET_EFFORT, [VM_SAMPLES] = MET_SAMPLES,
};

static const char *event_name(const struct vmodel *m)
{
	return m->event[m->ev].name;
}

int model_set_error(struct vmodel *m)
{
	free(m->error);
	m->error = xstrdup(dbr_error(m->db));
	return -1;
}

int model_open(struct vmodel *m, const char *path, char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	m->path = path;
	m->db = dbr_open(path, err, errlen);
	if (!m->db)
		return -1;
	m->nevents = dbr_nevents(m->db);
	m->event = xcalloc(m->nevents, sizeof *m->event);
	for (size_t i = 0; i < m->nevents; i++) {
		struct vevent *e = &m->event[i];
		const char *unit = dbr_event_unit(m->db, i);
		e->name = xstrdup(dbr_event_name(m->db, i));
		e->unit = xstrdup(unit ? unit : "");
		for (int k = 0; k < VM_COUNT; k++)
			e->total[k] = dbr_metric_total(m->db, e->name, vmetric_name[k], NULL);
		struct dbr_choice ch;
		if (dbr_choose(m->db, e->name, MET_WORK, &ch) == 0)
			e->effort = ch.base;
		dbr_choice_free(&ch);
	}
	m->max_id = dbr_ncontexts(m->db);
	model_load_diagnoses(m);
	return 0;
}

void model_close(struct vmodel *m)
{
	for (size_t i = 0; i < m->nevents; i++) {
		free(m->event[i].name);
		free(m->event[i].unit);
	}
	free(m->event);
	free(m->diag_id);
	free(m->error);
	dbr_close(m->db);
	memset(m, 0, sizeof *m);
}

static int by_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void model_load_diagnoses(struct vmodel *m)
{
	free(m->diag_id);
	m->diag_id = NULL;
	m->ndiag = 0;
	struct dbr_diagnosis *d;
	size_t n;
	if (dbr_diagnoses(m->db, event_name(m), &d, &n) < 0) {
		model_set_error(m);
		return;
	}
	m->diag_id = xcalloc(n + 1, sizeof *m->diag_id);
	for (size_t i = 0; i < n; i++)
		m->diag_id[m->ndiag++] = d[i].context_id;
	dbr_diagnoses_free(d, n);
	qsort(m->diag_id, m->ndiag, sizeof *m->diag_id, by_id);
}

int model_is_diagnosed(const struct vmodel *m, int64_t id)
{
	return m->ndiag && bsearch(&id, m->diag_id, m->ndiag, sizeof id, by_id) != NULL;
}

/* ---- the calling-context view ---------------------------------------- */

static uint8_t row_kind(char kind)
{
	switch (kind) {
	case 'f': return VK_FRAME;
	case 'i': return VK_INLINED;
	case 's': return VK_STATEMENT;
	default: return VK_ROOT;
	}
}

static void copy_values(struct vrow *row, const double *incl, const double *excl)
{
	memcpy(row->incl, incl, sizeof row->incl);
	memcpy(row->excl, excl, sizeof row->excl);
}

double model_percent_base(const struct vmodel *m, int metric)
{
	const struct vevent *e = &m->event[m->ev];
	/* In a range, the program root's values there: parents come first. */
	if (m->range_incl)
		return m->range_incl[metric == VM_SAMPLES ? VM_SAMPLES : VM_EFFORT];
	return metric == VM_SAMPLES ? e->total[VM_SAMPLES] : e->effort;
}

/* A context row's values in the timeline's range, when one is chosen;
 * 0 when it has none there (it is then not shown). */
static int row_in_range(const struct vmodel *m, struct vrow *row)
{
	if (!m->range_incl)
		return 1;
	if (row->id < 1 || row->id > m->max_id)
		return 0;
	size_t at = (size_t)(row->id - 1) * VM_COUNT;
	copy_values(row, m->range_incl + at, m->range_excl + at);
	for (int k = 0; k < VM_COUNT; k++)
		if (row->incl[k] != 0)
			return 1;
	return 0;
}

/* The children of row R's context (call sites looked through). */
static int load_context_kids(struct vmodel *m, struct vrow *r)
{
	struct dbr_child *c;
	size_t n;
	if (dbr_children(m->db, r->id, event_name(m), vmetric_name, VM_COUNT, &c, &n) < 0)
		return model_set_error(m);
	for (size_t i = 0; i < n; i++) {
		struct vrow *k = row_new(r, row_kind(c[i].kind));
		k->id = c[i].id;
		k->procedure = c[i].procedure;
		k->module = c[i].module;
		k->file = c[i].file;
		k->site_file = c[i].site_file;
		c[i].procedure = c[i].module = c[i].file = c[i].site_file = NULL;
		k->line = c[i].line;
		k->site_line = c[i].site_line;
		k->leaf = k->kind == VK_STATEMENT;
		k->diagnosed = model_is_diagnosed(m, k->id);
		copy_values(k, c[i].incl, c[i].excl);
		if (row_in_range(m, k))
			row_add_kid(r, k);
		else
			row_free(k);
	}
	dbr_children_free(c, n);
	return 0;
}

/* ---- procedures: the callers and flat views ----------------------------- */

static int load_procedures(struct vmodel *m, struct vrow *root)
{
	struct dbr_procedure *p;
	size_t n;
	if (m->range_incl)
		return range_procedures(m, root);
	if (dbr_procedures(m->db, event_name(m), vmetric_name, VM_COUNT, &p, &n) < 0)
		return model_set_error(m);
	for (size_t i = 0; i < n; i++) {
		struct vrow *k = row_new(root, VK_PROCEDURE);
		k->procedure = p[i].procedure;
		k->module = p[i].module;
		k->file = p[i].file;
		p[i].procedure = p[i].module = p[i].file = NULL;
		copy_values(k, p[i].incl, p[i].excl);
		row_add_kid(root, k);
	}
	dbr_procedures_free(p, n);
	return 0;
}

/* The procedure row a callers row belongs to. */
static struct vrow *procedure_of(struct vrow *r)
{
	while (r && r->kind != VK_PROCEDURE)
		r = r->parent;
	return r;
}

/* Callers view, a procedure: its frames and their values. */
static int load_instances(struct vmodel *m, struct vrow *p)
{
	struct dbr_procedure q = { .procedure = p->procedure, .module = p->module, .file = p->file };
	struct dbr_procedure *v;
	size_t n;
	if (dbr_procedure_frames(m->db, &q, event_name(m), vmetric_name, VM_COUNT, &p->inst, &v,
				 &p->icallers, &n) < 0)
		return model_set_error(m);
	p->ninst = n;
	p->ivals = xcalloc(n + 1, sizeof *p->ivals);
	for (size_t i = 0; i < n; i++) {
		memcpy(p->ivals[i].incl, v[i].incl, sizeof p->ivals[i].incl);
		memcpy(p->ivals[i].excl, v[i].excl, sizeof p->ivals[i].excl);
	}
	dbr_procedures_free(v, n);
	if (m->range_incl)
		range_instances(m, p);
	return 0;
}

/* Groups the frames of group G (instance indices IDX, whose callers so
 * far are FRONT) by the procedure of their next callers, as G's
 * children.  A root ends a chain: nothing called it.  The callers come
 * from dbr_callers, which looks up only these frames (not the whole
 * tree) and interns the names, so a caller's procedure is found by its
 * pointer in a hash: a procedure with 100,000 frames and thousands of
 * callers is grouped in one pass. */
static int load_caller_groups(struct vmodel *m, struct vrow *g, const struct vinst *iv,
			      const uint32_t *idx, const int64_t *front, size_t n)
{
	/* A procedure's first callers came with its frames. */
	struct dbr_caller_of *of = g->icallers;
	g->icallers = NULL;
	if (!of) {
		of = xcalloc(n + 1, sizeof *of);
		if (dbr_callers(m->db, front, n, of) < 0) {
			free(of);
			return model_set_error(m);
		}
	}
	/* The groups by their procedure's name (interned: its pointer). */
	const char **group_name = xcalloc(n + 1, sizeof *group_name);
	struct vrow **group_row = xcalloc(n + 1, sizeof *group_row);
	uint32_t ngroups = 0;
	struct hindex index = { 0 };
	hindex_reserve(&index, n);
	struct vrow **group = xcalloc(n + 1, sizeof *group);
	int64_t *caller = xcalloc(n + 1, sizeof *caller);

	/* First pass: each frame's caller and its group, and the groups'
	 * sizes (in ninst); the second fills them. */
	for (size_t i = 0; i < n; i++) {
		caller[i] = of[i].caller;
		if (!caller[i])
			continue;
		const char *name = of[i].procedure ? of[i].procedure : "?";
		struct hindex_pos pos;
		uint32_t q = hindex_find(&index, hash_mix((uint64_t)(uintptr_t)name), &pos);
		while (q != HINDEX_NONE && group_name[q] != name)
			q = hindex_next(&index, &pos);
		if (q == HINDEX_NONE) {
			struct vrow *k = row_new(g, VK_CALLER);
			k->procedure = xstrdup(name);
			row_add_kid(g, k);
			q = ngroups++;
			group_name[q] = name;
			group_row[q] = k;
			hindex_add(&index, &pos, q);
		}
		struct vrow *k = group[i] = group_row[q];
		k->ninst++;
		if (of[i].kind == KIND_ROOT[0])
			k->leaf = 1;
	}
	free(of);
	for (size_t j = 0; j < g->nkids; j++) {
		struct vrow *k = g->kid[j];
		k->inst = xcalloc(k->ninst + 1, sizeof *k->inst);
		k->front = xcalloc(k->ninst + 1, sizeof *k->front);
		k->ninst = 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct vrow *k = group[i];
		if (!k)
			continue;
		/* ninst counts; inst holds instance indices; front the callers */
		k->inst[k->ninst] = idx[i];
		k->front[k->ninst] = caller[i];
		k->ninst++;
		for (int v = 0; v < VM_COUNT; v++) {
			k->incl[v] += iv[idx[i]].incl[v];
			k->excl[v] += iv[idx[i]].excl[v];
		}
	}
	hindex_free(&index);
	free(group_name);
	free(group_row);
	free(group);
	free(caller);
	return 0;
}

static int load_callers(struct vmodel *m, struct vrow *r)
{
	struct vrow *p = procedure_of(r);
	if (!p)
		return 0;
	if (r == p && (!p->ivals || !p->inst) && load_instances(m, p) < 0)
		return -1;
	uint32_t *idx = xcalloc(r->ninst + 1, sizeof *idx);
	for (size_t i = 0; i < r->ninst; i++)
		idx[i] = r == p ? (uint32_t)i : (uint32_t)r->inst[i];
	int rc = load_caller_groups(m, r, p->ivals, idx, r == p ? p->inst : r->front, r->ninst);
	free(idx);
	return rc;
}

static int load_lines(struct vmodel *m, struct vrow *p)
{
	if (m->range_incl)
		return range_lines(m, p);
	struct dbr_child *line;
	size_t n;
	if (dbr_procedure_lines(m->db, event_name(m), vmetric_name, VM_COUNT, p->procedure,
				p->module, &line, &n) < 0)
		return model_set_error(m);
	for (size_t i = 0; i < n; i++) {
		struct vrow *cur = row_new(p, VK_LINE);
		cur->file = line[i].file ? xstrdup(line[i].file) : NULL;
		cur->line = line[i].line;
		cur->procedure = p->procedure ? xstrdup(p->procedure) : NULL;
		cur->module = p->module ? xstrdup(p->module) : NULL;
		cur->leaf = 1;
		memcpy(cur->incl, line[i].incl, sizeof cur->incl);
		memcpy(cur->excl, line[i].excl, sizeof cur->excl);
		row_add_kid(p, cur);
	}
	dbr_children_free(line, n);
	return 0;
}

/* The calling-context view: the program root itself, then its children. */
static int load_cct_top(struct vmodel *m, struct vrow *root)
{
	struct dbr_child c;
	int rc = dbr_context(m->db, 1, event_name(m), vmetric_name, VM_COUNT, &c);
	struct vrow *r = row_new(root, VK_ROOT);
	r->id = 1;
	r->procedure = c.procedure;
	c.procedure = NULL;
	memcpy(r->incl, c.incl, sizeof r->incl);
	memcpy(r->excl, c.excl, sizeof r->excl);
	dbr_child_clear(&c);
	if (rc < 0)
		return model_set_error(m);
	row_in_range(m, r);
	row_add_kid(root, r);
	r->expanded = 1;
	return model_load_children(m, VIEW_CCT, r);
}

static int load_cct_children(struct vmodel *m, struct vrow *r)
{
	return r->kind == VK_STATEMENT ? 0 : load_context_kids(m, r);
}

static int load_caller_children(struct vmodel *m, struct vrow *r)
{
	return r->leaf ? 0 : load_callers(m, r);
}

static int load_line_children(struct vmodel *m, struct vrow *r)
{
	return r->kind == VK_PROCEDURE ? load_lines(m, r) : 0;
}

const struct vview_ops vviews[VIEW_COUNT] = {
	[VIEW_CCT] = { "calling context", "calling-context", "calling context", load_cct_top,
		       load_cct_children },
	[VIEW_CALLERS] = { "callers", "callers", "procedure, and who called it (share of its value)",
			   load_procedures, load_caller_children },
	[VIEW_FLAT] = { "flat", "flat", "procedure, and its lines", load_procedures,
			load_line_children },
};

int model_load_top(struct vmodel *m, enum vview view, struct vrow *root)
{
	root->loaded = 1;
	root->expanded = 1;
	return vviews[view].load_top(m, root);
}

int model_load_children(struct vmodel *m, enum vview view, struct vrow *r)
{
	if (r->loaded)
		return 0;
	r->loaded = 1;
	int rc = vviews[view].load_children(m, r);
	if (r->nkids == 0)
		r->leaf = 1;
	return rc;
}

/* ---- details ---------------------------------------------------------------- */

char *model_path(struct vmodel *m, int64_t id)
{
	return dbr_path(m->db, id);
}

const char *model_folded(struct vmodel *m, int64_t id)
{
	const struct dbr_tree *t = id > 0 ? dbr_tree(m->db) : NULL;
	return t && (size_t)id <= t->n ? t->c[id - 1].folded : NULL;
}

size_t model_ancestors(struct vmodel *m, int64_t id, int64_t *ids, size_t max)
{
	return dbr_ancestors(m->db, id, ids, max);
}

char *model_diagnosis(struct vmodel *m, int64_t id, char **calls)
{
	*calls = NULL;
	struct dbr_diagnosis d;
	int found = id ? dbr_diagnosis_of(m->db, event_name(m), id, &d) : 0;
	if (found < 0)
		model_set_error(m);
	if (found <= 0)
		return NULL;
	char rank[32] = "";
	if (d.rank)
		snprintf(rank, sizeof rank, " (#%d)", d.rank);
	int runtime = d.scope && strcmp(d.scope, DIAG_SCOPE_RUNTIME) == 0;
	char *out = xasprintf("%s%s%s: idleness %.1f%%, overhead %.1f%% of %s effort; %.1f%% of "
			      "all effort -> %s", d.diagnosis ? d.diagnosis : "?", rank,
			      runtime ? " in its runtime calls" : "", d.idleness_percent,
			      d.overhead_percent, runtime ? "their" : "its", d.waste_percent,
			      d.advice ? d.advice : "");
	*calls = d.runtime;
	d.runtime = NULL;
	dbr_diagnosis_clear(&d);
	return out;
}

/* A duration, short: "0.163 s", "31 ms", "12 us". */
static void short_seconds(double sec, char *buf, size_t size)
{
	if (sec >= 1 || sec == 0)
		snprintf(buf, size, "%.3g s", sec);
	else if (sec >= 1e-3)
		snprintf(buf, size, "%.3g ms", sec * 1e3);
	else
		snprintf(buf, size, "%.3g us", sec * 1e6);
}

char *model_waits(struct vmodel *m, const char *procedure, const char *file, int line)
{
	struct dbr_wait_site *w;
	size_t n;
	if (!procedure)
		return NULL;
	if (dbr_wait_totals(m->db, procedure, file, line, &w, &n) < 0) {
		model_set_error(m);
		return NULL;
	}
	char out[512] = "";
	size_t len = 0;
	for (size_t i = 0; i < n && len + 64 < sizeof out; i++) {
		char total[32], longest[32];
		short_seconds(w[i].seconds, total, sizeof total);
		short_seconds(w[i].max_seconds, longest, sizeof longest);
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s %lldx %s (longest %s)",
					len ? "; " : "", w[i].kind ? w[i].kind : "?",
					(long long)w[i].count, total, longest);
	}
	dbr_wait_sites_free(w, n);
	return len ? xstrdup(out) : NULL;
}

void model_rank_values(struct vmodel *m, int64_t id, int metric, int exclusive,
		       struct dbr_rank_stat *out)
{
	if (dbr_rank_values(m->db, id, event_name(m), vmetric_name[metric], exclusive, out) < 0)
		model_set_error(m);
}

void model_thread_values(struct vmodel *m, int64_t id, int metric, int exclusive,
			 struct dbr_spread *out)
{
	if (dbr_thread_values(m->db, id, event_name(m), vmetric_name[metric], exclusive, out) < 0)
		model_set_error(m);
}

int model_line_values(struct vmodel *m, const char *procedure, const char *file, int metric,
		      int **lines, double **values, size_t *count)
{
	if (dbr_line_values(m->db, event_name(m), vmetric_name[metric], procedure, file, lines,
			    values, count) < 0)
		return model_set_error(m);
	return 0;
}

int model_search(struct vmodel *m, const char *what, int metric, int64_t *ids, size_t max,
		 size_t *count)
{
	if (dbr_search(m->db, event_name(m), vmetric_name[metric], what, ids, max, count) < 0)
		return model_set_error(m);
	return 0;
}
