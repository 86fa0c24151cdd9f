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

/* The viewer's metrics as an SQL list, for the few queries of its own. */
#define METRIC_LIST "('" MET_WORK "', '" MET_IDLENESS "', '" MET_OVERHEAD "', '" MET_USEFUL \
	"', '" MET_EFFORT "', '" MET_SAMPLES "')"

static int metric_index(const char *name)
{
	return dbr_metric_index(vmetric_name, VM_COUNT, name);
}

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

static void set_sql_error(struct vmodel *m, const char *what)
{
	free(m->error);
	m->error = xasprintf("%s: %s", what, sqlite3_errmsg(m->db->db));
}

static sqlite3_stmt *prepare(struct vmodel *m, const char *sql)
{
	sqlite3_stmt *s = dbr_prepare(m->db, sql);
	if (!s)
		model_set_error(m);
	return s;
}

static void bind_event(struct vmodel *m, sqlite3_stmt *s, int i)
{
	sqlite3_bind_text(s, i, event_name(m), -1, SQLITE_STATIC);
}

/* From schema 6 the values are read as stored, by number (dbr_recipe):
 * the views that name them, and from schema 9 compute effort and
 * useful_work, are far slower to join.  RC gets the recipe for METRICS
 * (N) of the event shown; 0, or -1 after setting the error. */
static int by_number(struct vmodel *m, const char *const *metrics, size_t n,
		     struct dbr_recipe *rc)
{
	memset(rc, 0, sizeof *rc);
	if (m->db->schema < 6)
		return 0;
	return dbr_recipe_init(m->db, event_name(m), metrics, n, rc) < 0 ? model_set_error(m) : 1;
}

/* SQL_FORMAT with the stored values' table and the recipe's ids for its
 * two %s, prepared. */
static sqlite3_stmt *prepare_stored(struct vmodel *m, const char *sql_format,
				    const struct dbr_recipe *rc)
{
	sqlite3_stmt *s = dbr_recipe_prepare(m->db, sql_format, rc);
	if (!s)
		model_set_error(m);
	return s;
}

/* The viewer's metrics: STORED_SQL (its two %s as prepare_stored's) from
 * schema 6, with *STORED set and RC the recipe; NAMED_SQL before.  NULL
 * after setting the error, RC freed. */
static sqlite3_stmt *prepare_values(struct vmodel *m, const char *stored_sql,
				    const char *named_sql, struct dbr_recipe *rc, int *stored)
{
	*stored = by_number(m, vmetric_name, VM_COUNT, rc);
	if (*stored < 0)
		return NULL;
	sqlite3_stmt *s = *stored ? prepare_stored(m, stored_sql, rc) : prepare(m, named_sql);
	if (!s)
		dbr_recipe_free(rc);
	return s;
}

/* A query summing METRIC's inclusive values: STORED_SQL from schema 6,
 * its three %s the sum, the stored values' table and the ids it sums;
 * NAMED_SQL before.  NULL after setting the error. */
static sqlite3_stmt *prepare_sum(struct vmodel *m, int metric, const char *stored_sql,
				 const char *named_sql)
{
	struct dbr_recipe rc;
	sqlite3_stmt *s = NULL;
	int stored = by_number(m, &vmetric_name[metric], 1, &rc);
	if (stored > 0) {
		char *sum = dbr_recipe_sum_sql(&rc, 0, "m.metric_id", "m.inclusive");
		char *sql = xasprintf(stored_sql, sum, rc.table, rc.ids);
		s = prepare(m, sql);
		free(sql);
		free(sum);
	} else if (stored == 0) {
		s = prepare(m, named_sql);
	}
	dbr_recipe_free(&rc);
	return s;
}

int model_open(struct vmodel *m, const char *path, char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	m->path = path;
	m->db = dbr_open(path, err, errlen);
	if (!m->db)
		return -1;
	m->nevents = m->db->nevents;
	m->event = xcalloc(m->nevents, sizeof *m->event);
	for (size_t i = 0; i < m->nevents; i++) {
		struct vevent *e = &m->event[i];
		e->name = xstrdup(m->db->event[i].name);
		e->unit = xstrdup(m->db->event[i].unit ? m->db->event[i].unit : "");
		for (int k = 0; k < VM_COUNT; k++)
			e->total[k] = dbr_metric_total(m->db, e->name, vmetric_name[k], NULL);
		struct dbr_choice ch;
		if (dbr_choose(m->db, e->name, MET_WORK, &ch) == 0)
			e->effort = ch.base;
		dbr_choice_free(&ch);
	}
	m->max_id = m->db->ncontexts;
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
	if (!dbr_has(m->db, TBL_DIAGNOSES) || dbr_diagnoses(m->db, event_name(m), &d, &n) < 0)
		return;
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
#define LINES_SQL(values, which)                                               \
	"SELECT c.file, c.line, m.metric, sum(m.exclusive) FROM contexts c JOIN " values \
	" m ON m.context_id = c.id AND " which " WHERE c.procedure = ?2 AND c.module IS ?3 " \
	"AND c.kind = '" KIND_STATEMENT "' GROUP BY c.file, c.line, m.metric "      \
	"ORDER BY c.file, c.line"
	struct dbr_recipe rc;
	int stored;
	sqlite3_stmt *s = prepare_values(m, LINES_SQL("(SELECT context_id, metric_id AS metric, "
		"exclusive FROM %s)", "m.metric IN %s"), LINES_SQL("context_metrics",
		"m.event = ?1 AND m.metric IN " METRIC_LIST), &rc, &stored);
	if (!s)
		return -1;
	bind_event(m, s, 1);
	sqlite3_bind_text(s, 2, p->procedure, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, p->module, -1, SQLITE_STATIC);
	struct vrow *cur = NULL;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(s, 0);
		int line = sqlite3_column_int(s, 1);
		if (!cur || cur->line != line || !f || !cur->file || strcmp(cur->file, f) != 0) {
			cur = row_new(p, VK_LINE);
			cur->file = f ? xstrdup(f) : NULL;
			cur->line = line;
			cur->procedure = p->procedure ? xstrdup(p->procedure) : NULL;
			cur->module = p->module ? xstrdup(p->module) : NULL;
			cur->leaf = 1;
			row_add_kid(p, cur);
		}
		double sum = sqlite3_column_double(s, 3);
		if (stored) {
			dbr_recipe_add(&rc, sqlite3_column_int64(s, 2), sum, sum, cur->incl, cur->excl);
			continue;
		}
		int k = metric_index((const char *)sqlite3_column_text(s, 2));
		if (k >= 0)
			cur->incl[k] = cur->excl[k] = sum;
	}
	if (step != SQLITE_DONE)
		set_sql_error(m, "reading a procedure's lines");
	sqlite3_finalize(s);
	dbr_recipe_free(&rc);
	return step == SQLITE_DONE ? 0 : -1;
}

int model_load_top(struct vmodel *m, enum vview view, struct vrow *root)
{
	root->loaded = 1;
	root->expanded = 1;
	if (view != VIEW_CCT)
		return load_procedures(m, root);
	/* The program root itself, then its children. */
#define ROOT_SQL(values, which)                                                \
	"SELECT c.id, c.procedure, m.metric, m.inclusive, m.exclusive FROM contexts c "  \
	"LEFT JOIN " values " m ON m.context_id = c.id AND " which " WHERE c.id = 1"
	struct dbr_recipe rc;
	int stored;
	sqlite3_stmt *s = prepare_values(m, ROOT_SQL("(SELECT context_id, metric_id AS metric, "
		"inclusive, exclusive FROM %s)", "m.metric IN %s"), ROOT_SQL("context_metrics",
		"m.event = ?1 AND m.metric IN " METRIC_LIST), &rc, &stored);
	if (!s)
		return -1;
	bind_event(m, s, 1);
	struct vrow *r = row_new(root, VK_ROOT);
	r->id = 1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (!r->procedure)
			r->procedure = dbr_text(s, 1);
		if (stored) {
			if (sqlite3_column_type(s, 2) != SQLITE_NULL)
				dbr_recipe_add(&rc, sqlite3_column_int64(s, 2),
					       sqlite3_column_double(s, 3),
					       sqlite3_column_double(s, 4), r->incl, r->excl);
			continue;
		}
		int k = metric_index((const char *)sqlite3_column_text(s, 2));
		if (k >= 0) {
			r->incl[k] = sqlite3_column_double(s, 3);
			r->excl[k] = sqlite3_column_double(s, 4);
		}
	}
	sqlite3_finalize(s);
	dbr_recipe_free(&rc);
	row_in_range(m, r);
	row_add_kid(root, r);
	r->expanded = 1;
	return model_load_children(m, view, r);
}

int model_load_children(struct vmodel *m, enum vview view, struct vrow *r)
{
	if (r->loaded)
		return 0;
	r->loaded = 1;
	int rc;
	if (view == VIEW_CCT)
		rc = r->kind == VK_STATEMENT ? 0 : load_context_kids(m, r);
	else if (view == VIEW_CALLERS)
		rc = r->leaf ? 0 : load_callers(m, r);
	else
		rc = r->kind == VK_PROCEDURE ? load_lines(m, r) : 0;
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
	if (!id || !dbr_has(m->db, TBL_DIAGNOSES) || dbr_diagnosis_of(m->db, event_name(m), id, &d) <= 0)
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
	if (!procedure || !dbr_has(m->db, VIEW_WAIT_SITES))
		return NULL;
	sqlite3_stmt *s = prepare(m,
		"SELECT kind, sum(count), sum(seconds), max(max_seconds) FROM " VIEW_WAIT_SITES
		" WHERE procedure = ?1 AND (?2 IS NULL OR file IS ?2) AND (?3 <= 0 OR line = ?3)"
		" GROUP BY kind ORDER BY 3 DESC");
	if (!s)
		return NULL;
	sqlite3_bind_text(s, 1, procedure, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, file, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, line);
	char out[512] = "";
	size_t len = 0;
	while (sqlite3_step(s) == SQLITE_ROW && len + 64 < sizeof out) {
		char total[32], longest[32];
		short_seconds(sqlite3_column_double(s, 2), total, sizeof total);
		short_seconds(sqlite3_column_double(s, 3), longest, sizeof longest);
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s %lldx %s (longest %s)",
					len ? "; " : "", (const char *)sqlite3_column_text(s, 0),
					sqlite3_column_int64(s, 1), total, longest);
	}
	sqlite3_finalize(s);
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

size_t model_line_values(struct vmodel *m, const char *procedure, const char *file, int metric,
			 int **lines, double **values)
{
	*lines = NULL;
	*values = NULL;
#define LINE_VALUES_SQL(value, values, which)                                  \
	"SELECT c.line, " value " FROM contexts c JOIN " values " m ON m.context_id = c.id " \
	"AND " which " WHERE c.procedure = ?3 AND c.kind IN ('statement', 'callsite') AND " \
	"c.file IS ?4 GROUP BY c.line ORDER BY c.line"
	sqlite3_stmt *s = prepare_sum(m, metric, LINE_VALUES_SQL("%s", "%s", "m.metric_id IN %s"),
				      LINE_VALUES_SQL("sum(m.inclusive)", "context_metrics",
						      "m.event = ?1 AND m.metric = ?2"));
	if (!s)
		return 0;
	bind_event(m, s, 1);
	sqlite3_bind_text(s, 2, vmetric_name[metric], -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, procedure, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, file, -1, SQLITE_STATIC);
	size_t n = 0, cap = 0, capv = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		grow_array(lines, &cap, n + 1, sizeof **lines);
		grow_array(values, &capv, n + 1, sizeof **values);
		(*lines)[n] = sqlite3_column_int(s, 0);
		(*values)[n] = sqlite3_column_double(s, 1);
		n++;
	}
	sqlite3_finalize(s);
	return n;
}

size_t model_search(struct vmodel *m, const char *what, int metric, int64_t *ids, size_t max)
{
	/* Frames with a value above zero: a join, grouped by context. */
#define SEARCH_SQL(value, values, which)                                       \
	"SELECT c.id, " value " AS v FROM contexts c JOIN " values " m ON m.context_id = c.id " \
	"AND " which " WHERE c.kind IN ('frame', 'inlined') AND "                    \
	"instr(lower(c.procedure), lower(?3)) > 0 GROUP BY c.id HAVING v > 0 "       \
	"ORDER BY v DESC, c.id LIMIT ?4"
	size_t n = 0;
	sqlite3_stmt *s = prepare_sum(m, metric, SEARCH_SQL("%s", "%s", "m.metric_id IN %s"),
				      SEARCH_SQL("sum(m.inclusive)", "context_metrics",
						 "m.event = ?1 AND m.metric = ?2"));
	if (!s)
		return 0;
	bind_event(m, s, 1);
	sqlite3_bind_text(s, 2, vmetric_name[metric], -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, what, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)max);
	while (sqlite3_step(s) == SQLITE_ROW && n < max)
		ids[n++] = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}
