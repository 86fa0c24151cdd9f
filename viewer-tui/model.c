/* model.c - what the viewer reads from the database, and when.
 *
 * Nothing is read until it is shown: opening reads the events and the
 * root's children; expanding a context reads its children (through the
 * contexts_parent index), and the callers and flat views read the
 * procedure list when first shown.  Every query goes through a prepared
 * statement cached for the session. */
#define _GNU_SOURCE
#include "database.h"
#include "tools.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vmetric_name[VM_COUNT] = {
	[VM_WORK] = "work", [VM_IDLENESS] = "idleness", [VM_OVERHEAD] = "overhead",
	[VM_USEFUL] = "useful_work", [VM_EFFORT] = "effort", [VM_SAMPLES] = "samples",
};

#define METRIC_LIST "('work', 'idleness', 'overhead', 'useful_work', 'effort', 'samples')"

static int metric_index(const char *name)
{
	for (int i = 0; name && i < VM_COUNT; i++)
		if (strcmp(name, vmetric_name[i]) == 0)
			return i;
	return -1;
}

static char *text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? xstrdup((const char *)t) : NULL;
}

static void set_error(struct vmodel *m, const char *what)
{
	free(m->error);
	m->error = xasprintf("%s: %s", what, sqlite3_errmsg(m->db));
}

static sqlite3_stmt *prepare(struct vmodel *m, const char *sql)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(m->db, sql, -1, &s, NULL) != SQLITE_OK) {
		set_error(m, "database");
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

static void bind_event(struct vmodel *m, sqlite3_stmt *s, int i)
{
	sqlite3_bind_text(s, i, m->event[m->ev].name, -1, SQLITE_STATIC);
}

int model_open(struct vmodel *m, const char *path, char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	m->path = path;
	m->db = db_open_read(path, err, errlen);
	if (!m->db)
		return -1;
	sqlite3_stmt *s = prepare(m, "PRAGMA user_version");
	if (s && sqlite3_step(s) == SQLITE_ROW)
		m->schema = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);

	s = prepare(m, "SELECT event, unit FROM events ORDER BY rowid");
	size_t cap = 0;
	while (s && sqlite3_step(s) == SQLITE_ROW) {
		grow_array(&m->event, &cap, m->nevents + 1, sizeof *m->event);
		struct vevent *e = &m->event[m->nevents++];
		memset(e, 0, sizeof *e);
		e->name = text(s, 0);
		e->unit = text(s, 1);
	}
	sqlite3_finalize(s);
	if (m->nevents == 0) {
		snprintf(err, errlen, "%s holds no samples: it has no events", path);
		model_close(m);
		return -1;
	}
	s = prepare(m, "SELECT metric, total FROM metrics WHERE event = ?");
	for (size_t i = 0; s && i < m->nevents; i++) {
		struct vevent *e = &m->event[i];
		sqlite3_bind_text(s, 1, e->name, -1, SQLITE_STATIC);
		while (sqlite3_step(s) == SQLITE_ROW) {
			int k = metric_index((const char *)sqlite3_column_text(s, 0));
			if (k >= 0)
				e->total[k] = sqlite3_column_double(s, 1);
		}
		sqlite3_reset(s);
		/* A database from before effort existed: percentages of work. */
		e->effort = e->total[VM_EFFORT] > 0 ? e->total[VM_EFFORT] : e->total[VM_WORK];
	}
	sqlite3_finalize(s);
	s = prepare(m, "SELECT max(id) FROM contexts");
	if (s && sqlite3_step(s) == SQLITE_ROW)
		m->max_id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (m->max_id < 1) {
		snprintf(err, errlen, "%s has no calling contexts: nothing was sampled", path);
		model_close(m);
		return -1;
	}
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
	if (m->db)
		sqlite3_close(m->db);
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
	if (m->schema < 2)
		return;
	sqlite3_stmt *s = prepare(m, "SELECT context_id FROM diagnoses WHERE event = ? AND "
				     "rank IS NOT NULL");
	size_t cap = 0;
	if (s)
		bind_event(m, s, 1);
	while (s && sqlite3_step(s) == SQLITE_ROW) {
		grow_array(&m->diag_id, &cap, m->ndiag + 1, sizeof *m->diag_id);
		m->diag_id[m->ndiag++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	if (m->ndiag)
		qsort(m->diag_id, m->ndiag, sizeof *m->diag_id, by_id);
}

int model_is_diagnosed(const struct vmodel *m, int64_t id)
{
	return m->ndiag && bsearch(&id, m->diag_id, m->ndiag, sizeof id, by_id) != NULL;
}

/* ---- the calling-context view ---------------------------------------- */

static uint8_t context_kind(const char *k)
{
	if (!k)
		return VK_ROOT;
	switch (k[0]) {
	case 'f': return VK_FRAME;
	case 'i': return VK_INLINED;
	case 's': return VK_STATEMENT;
	case 'c': return 0xff;	/* a call site: looked through */
	default: return VK_ROOT;
	}
}

static int nonzero(const struct vrow *r)
{
	for (int k = 0; k < VM_COUNT; k++)
		if (r->incl[k] != 0)
			return 1;
	return 0;
}

/* Reads the children of context PARENT_ID below row R.  Call sites are
 * looked through: their frames become R's children, with the call site's
 * line.  SITE_FILE/SITE_LINE are those of the call site being looked
 * through, if any. */
static int load_context_kids(struct vmodel *m, struct vrow *r, int64_t parent_id,
			     const char *site_file, int site_line)
{
	sqlite3_stmt *s = prepare(m,
		"SELECT c.id, c.kind, c.procedure, c.module, c.file, c.line, m.metric, m.inclusive, "
		"m.exclusive FROM contexts c LEFT JOIN context_metrics m ON m.context_id = c.id AND "
		"m.event = ?1 AND m.metric IN " METRIC_LIST " WHERE c.parent_id = ?2 ORDER BY c.id");
	if (!s)
		return -1;
	bind_event(m, s, 1);
	sqlite3_bind_int64(s, 2, parent_id);
	struct vrow *cur = NULL;
	int64_t *sites = NULL;
	char **site_files = NULL;
	int *site_lines = NULL;
	size_t nsites = 0, capsites = 0, cap2 = 0, cap3 = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		uint8_t kind = context_kind((const char *)sqlite3_column_text(s, 1));
		if (kind == 0xff) {
			if (nsites && sites[nsites - 1] == id)
				continue;
			grow_array(&sites, &capsites, nsites + 1, sizeof *sites);
			grow_array(&site_files, &cap2, nsites + 1, sizeof *site_files);
			grow_array(&site_lines, &cap3, nsites + 1, sizeof *site_lines);
			sites[nsites] = id;
			site_files[nsites] = text(s, 4);
			site_lines[nsites] = sqlite3_column_int(s, 5);
			nsites++;
			continue;
		}
		if (!cur || cur->id != id) {
			if (cur && !nonzero(cur)) {
				r->nkids--;
				row_free(cur);
			}
			cur = row_new(r, kind);
			cur->id = id;
			cur->procedure = text(s, 2);
			cur->module = text(s, 3);
			cur->file = text(s, 4);
			cur->line = sqlite3_column_int(s, 5);
			cur->leaf = kind == VK_STATEMENT;
			cur->diagnosed = model_is_diagnosed(m, id);
			if (site_file) {
				cur->site_file = xstrdup(site_file);
				cur->site_line = site_line;
			}
			row_add_kid(r, cur);
		}
		int k = metric_index((const char *)sqlite3_column_text(s, 6));
		if (k >= 0) {
			cur->incl[k] = sqlite3_column_double(s, 7);
			cur->excl[k] = sqlite3_column_double(s, 8);
		}
	}
	if (cur && !nonzero(cur)) {
		r->nkids--;
		row_free(cur);
	}
	if (rc != SQLITE_DONE)
		set_error(m, "reading contexts");
	sqlite3_finalize(s);
	for (size_t i = 0; i < nsites; i++) {
		if (rc == SQLITE_DONE &&
		    load_context_kids(m, r, sites[i], site_files[i], site_lines[i]) < 0)
			rc = SQLITE_ERROR;
		free(site_files[i]);
	}
	free(sites);
	free(site_files);
	free(site_lines);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- procedures: the callers and flat views ----------------------------- */

static int load_procedures(struct vmodel *m, struct vrow *root)
{
	sqlite3_stmt *s = prepare(m,
		"SELECT procedure, module, file, metric, inclusive, exclusive FROM procedure_metrics "
		"WHERE event = ? AND metric IN " METRIC_LIST " ORDER BY procedure, module, file");
	if (!s)
		return -1;
	bind_event(m, s, 1);
	struct vrow *cur = NULL;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(s, 0);
		const char *mod = (const char *)sqlite3_column_text(s, 1);
		const char *f = (const char *)sqlite3_column_text(s, 2);
#define SAME(a, b) ((!(a) && !(b)) || ((a) && (b) && strcmp(a, b) == 0))
		if (!cur || !SAME(cur->procedure, p) || !SAME(cur->module, mod) || !SAME(cur->file, f)) {
			cur = row_new(root, VK_PROCEDURE);
			cur->procedure = p ? xstrdup(p) : NULL;
			cur->module = mod ? xstrdup(mod) : NULL;
			cur->file = f ? xstrdup(f) : NULL;
			row_add_kid(root, cur);
		}
#undef SAME
		int k = metric_index((const char *)sqlite3_column_text(s, 3));
		if (k >= 0) {
			cur->incl[k] = sqlite3_column_double(s, 4);
			cur->excl[k] = sqlite3_column_double(s, 5);
		}
	}
	if (rc != SQLITE_DONE)
		set_error(m, "reading procedures");
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The procedure row a callers row belongs to. */
static struct vrow *procedure_of(struct vrow *r)
{
	while (r && r->kind != VK_PROCEDURE)
		r = r->parent;
	return r;
}

/* SQL about procedure row P, with the event as ?1, P's procedure, module
 * and (if the statement has a ?4) file as ?2, ?3 and ?4. */
static sqlite3_stmt *prepare_procedure(struct vmodel *m, const char *sql, const struct vrow *p)
{
	sqlite3_stmt *s = prepare(m, sql);
	if (!s)
		return NULL;
	bind_event(m, s, 1);
	sqlite3_bind_text(s, 2, p->procedure, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, p->module, -1, SQLITE_STATIC);
	if (sqlite3_bind_parameter_count(s) >= 4)
		sqlite3_bind_text(s, 4, p->file, -1, SQLITE_STATIC);
	return s;
}

/* Callers view, a procedure: its frames and their values. */
static int load_instances(struct vmodel *m, struct vrow *p)
{
	struct vinst **iv = &p->ivals;
	sqlite3_stmt *s = prepare_procedure(m,
		"SELECT c.id, m.metric, m.inclusive, m.exclusive FROM contexts c "
		"JOIN context_metrics m ON m.context_id = c.id AND m.event = ?1 AND m.metric IN "
		METRIC_LIST " WHERE c.procedure IS ?2 AND c.module IS ?3 AND c.file IS ?4 AND "
		"c.kind IN ('frame', 'inlined') ORDER BY c.id", p);
	if (!s)
		return -1;
	size_t cap = 0, capv = 0;
	int rc;
	p->ninst = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		if (!p->ninst || p->inst[p->ninst - 1] != id) {
			grow_array(&p->inst, &cap, p->ninst + 1, sizeof *p->inst);
			grow_array(iv, &capv, p->ninst + 1, sizeof **iv);
			memset(&(*iv)[p->ninst], 0, sizeof **iv);
			p->inst[p->ninst++] = id;
		}
		int k = metric_index((const char *)sqlite3_column_text(s, 1));
		if (k >= 0) {
			(*iv)[p->ninst - 1].incl[k] = sqlite3_column_double(s, 2);
			(*iv)[p->ninst - 1].excl[k] = sqlite3_column_double(s, 3);
		}
	}
	if (rc != SQLITE_DONE)
		set_error(m, "reading a procedure's frames");
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* For each context id in IDS (N), the nearest frame above it, with its
 * procedure name: CALLER[i] (0 at a root), NAME[i] (malloc'd, or NULL). */
static int callers_of(struct vmodel *m, const int64_t *ids, size_t n, int64_t *caller, char **name)
{
	/* A frame's parent is the call site in its caller (then the caller
	 * is the call site's parent), or a root; one query gives both. */
	sqlite3_stmt *s = prepare(m,
		"SELECT p.kind, p.procedure, g.id, g.kind, g.procedure FROM contexts f "
		"JOIN contexts p ON p.id = f.parent_id LEFT JOIN contexts g ON g.id = p.parent_id "
		"WHERE f.id = ?");
	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++) {
		caller[i] = 0;
		name[i] = NULL;
		sqlite3_bind_int64(s, 1, ids[i]);
		if (sqlite3_step(s) == SQLITE_ROW) {
			const char *pk = (const char *)sqlite3_column_text(s, 0);
			const char *gk = (const char *)sqlite3_column_text(s, 3);
			if (pk && pk[0] == 'r') {
				name[i] = text(s, 1);	/* a root: the program, a partial unwind */
			} else if (pk && pk[0] == 'c' && gk && (gk[0] == 'f' || gk[0] == 'i')) {
				caller[i] = sqlite3_column_int64(s, 2);
				name[i] = text(s, 4);
			}
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return 0;
}

/* Groups the frames of group G (instance indices IDX with caller frames
 * FRONT) by the procedure of their next callers, as G's children. */
static int load_caller_groups(struct vmodel *m, struct vrow *g, const struct vinst *iv,
			      const uint32_t *idx, const int64_t *front, size_t n)
{
	int64_t *caller = xcalloc(n + 1, sizeof *caller);
	char **name = xcalloc(n + 1, sizeof *name);
	if (callers_of(m, front, n, caller, name) < 0) {
		free(caller);
		free(name);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!name[i])
			continue;
		struct vrow *k = NULL;
		for (size_t j = 0; j < g->nkids && !k; j++)
			if (g->kid[j]->procedure && strcmp(g->kid[j]->procedure, name[i]) == 0)
				k = g->kid[j];
		if (!k) {
			k = row_new(g, VK_CALLER);
			k->procedure = xstrdup(name[i]);
			row_add_kid(g, k);
		}
		/* ninst counts; inst holds instance indices; front the callers */
		k->inst = xrealloc(k->inst, (k->ninst + 1) * sizeof *k->inst);
		k->front = xrealloc(k->front, (k->ninst + 1) * sizeof *k->front);
		k->inst[k->ninst] = idx[i];
		k->front[k->ninst] = caller[i];
		k->ninst++;
		for (int v = 0; v < VM_COUNT; v++) {
			k->incl[v] += iv[idx[i]].incl[v];
			k->excl[v] += iv[idx[i]].excl[v];
		}
		if (!caller[i])
			k->leaf = 1;	/* a root: nothing called it */
	}
	for (size_t i = 0; i < n; i++)
		free(name[i]);
	free(name);
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
	sqlite3_stmt *s = prepare_procedure(m,
		"SELECT c.file, c.line, m.metric, sum(m.exclusive) FROM contexts c "
		"JOIN context_metrics m ON m.context_id = c.id AND m.event = ?1 AND m.metric IN "
		METRIC_LIST " WHERE c.procedure IS ?2 AND c.module IS ?3 AND c.kind = 'statement' "
		"GROUP BY c.file, c.line, m.metric ORDER BY c.file, c.line", p);
	if (!s)
		return -1;
	struct vrow *cur = NULL;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
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
		int k = metric_index((const char *)sqlite3_column_text(s, 2));
		if (k >= 0)
			cur->incl[k] = cur->excl[k] = sqlite3_column_double(s, 3);
	}
	if (rc != SQLITE_DONE)
		set_error(m, "reading a procedure's lines");
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

int model_load_top(struct vmodel *m, enum vview view, struct vrow *root)
{
	root->loaded = 1;
	root->expanded = 1;
	if (view != VIEW_CCT)
		return load_procedures(m, root);
	/* The program root itself, then its children. */
	sqlite3_stmt *s = prepare(m,
		"SELECT c.id, c.procedure, m.metric, m.inclusive, m.exclusive FROM contexts c "
		"LEFT JOIN context_metrics m ON m.context_id = c.id AND m.event = ?1 AND m.metric IN "
		METRIC_LIST " WHERE c.id = 1");
	if (!s)
		return -1;
	bind_event(m, s, 1);
	struct vrow *r = row_new(root, VK_ROOT);
	r->id = 1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (!r->procedure)
			r->procedure = text(s, 1);
		int k = metric_index((const char *)sqlite3_column_text(s, 2));
		if (k >= 0) {
			r->incl[k] = sqlite3_column_double(s, 3);
			r->excl[k] = sqlite3_column_double(s, 4);
		}
	}
	sqlite3_finalize(s);
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
		rc = r->kind == VK_STATEMENT ? 0 : load_context_kids(m, r, r->id, NULL, 0);
	else if (view == VIEW_CALLERS)
		rc = r->leaf ? 0 : load_callers(m, r);
	else
		rc = r->kind == VK_PROCEDURE ? load_lines(m, r) : 0;
	if (r->nkids == 0)
		r->leaf = 1;
	return rc;
}

/* ---- details ---------------------------------------------------------------- */

static const char up_sql[] =
	"WITH RECURSIVE up(id, parent_id, kind, procedure, depth) AS ("
	"  SELECT id, parent_id, kind, procedure, 0 FROM contexts WHERE id = ?1"
	"  UNION ALL SELECT c.id, c.parent_id, c.kind, c.procedure, up.depth + 1"
	"  FROM contexts c JOIN up ON c.id = up.parent_id)"
	" SELECT id, kind, procedure FROM up ORDER BY depth DESC";

char *model_path(struct vmodel *m, int64_t id)
{
	sqlite3_stmt *s = prepare(m, up_sql);
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	char *out = xstrdup("");
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(s, 1);
		const char *p = (const char *)sqlite3_column_text(s, 2);
		if (!k || k[0] == 'c' || k[0] == 's')
			continue;
		char *next = xasprintf("%s%s%s%s", out, out[0] ? " > " : "",
				       k[0] == 'i' ? "[inlined] " : "", p ? p : "?");
		free(out);
		out = next;
	}
	sqlite3_finalize(s);
	return out;
}

size_t model_ancestors(struct vmodel *m, int64_t id, int64_t *ids, size_t max)
{
	sqlite3_stmt *s = prepare(m, up_sql);
	size_t n = 0;
	if (!s)
		return 0;
	sqlite3_bind_int64(s, 1, id);
	while (sqlite3_step(s) == SQLITE_ROW && n < max) {
		const char *k = (const char *)sqlite3_column_text(s, 1);
		if (k && k[0] == 'c')
			continue;	/* call sites are looked through */
		ids[n++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	return n;
}

char *model_diagnosis(struct vmodel *m, int64_t id, char **calls)
{
	*calls = NULL;
	if (m->schema < 2 || !id)
		return NULL;
	/* Databases from before the scope and runtime columns: the second. */
	static const char *const sql[] = {
		"SELECT diagnosis, advice, rank, idleness_percent, overhead_percent, waste_percent, "
		"scope, runtime FROM diagnoses WHERE context_id = ? AND event = ?",
		"SELECT diagnosis, advice, rank, idleness_percent, overhead_percent, waste_percent, "
		"NULL, NULL FROM diagnoses WHERE context_id = ? AND event = ?",
	};
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(m->db, sql[0], -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		s = prepare(m, sql[1]);
	}
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	bind_event(m, s, 2);
	char *out = NULL;
	if (sqlite3_step(s) == SQLITE_ROW) {
		char rank[32] = "";
		if (sqlite3_column_type(s, 2) != SQLITE_NULL)
			snprintf(rank, sizeof rank, " (#%d)", sqlite3_column_int(s, 2));
		const char *scope = (const char *)sqlite3_column_text(s, 6);
		int runtime = scope && strcmp(scope, "runtime") == 0;
		out = xasprintf("%s%s%s: idleness %.1f%%, overhead %.1f%% of %s effort; %.1f%% of "
				"all effort -> %s", sqlite3_column_text(s, 0), rank,
				runtime ? " in its runtime calls" : "", sqlite3_column_double(s, 3),
				sqlite3_column_double(s, 4), runtime ? "their" : "its",
				sqlite3_column_double(s, 5), sqlite3_column_text(s, 1));
		*calls = text(s, 7);
	}
	sqlite3_finalize(s);
	return out;
}

/* SQL about one metric at one context: ?1 context, ?2 event, ?3 metric. */
static sqlite3_stmt *prepare_context_metric(struct vmodel *m, const char *sql, int64_t id,
					    int metric)
{
	sqlite3_stmt *s = prepare(m, sql);
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	bind_event(m, s, 2);
	sqlite3_bind_text(s, 3, vmetric_name[metric], -1, SQLITE_STATIC);
	return s;
}

void model_thread_values(struct vmodel *m, int64_t id, int metric, int exclusive,
			 struct vstats *out)
{
	const char *which = exclusive ? "exclusive" : "inclusive";
	memset(out, 0, sizeof *out);
	char *sql = xasprintf("SELECT %s_mean, %s_min, %s_max, %s_stddev FROM context_metrics "
			      "WHERE context_id = ?1 AND event = ?2 AND metric = ?3",
			      which, which, which, which);
	sqlite3_stmt *s = prepare_context_metric(m, sql, id, metric);
	free(sql);
	if (!s)
		return;
	if (sqlite3_step(s) == SQLITE_ROW) {
		out->have = 1;
		out->mean = sqlite3_column_double(s, 0);
		out->min = sqlite3_column_double(s, 1);
		out->max = sqlite3_column_double(s, 2);
		out->stddev = sqlite3_column_double(s, 3);
	}
	sqlite3_finalize(s);
	sql = xasprintf("SELECT t.id, t.tid || ' ' || coalesce(t.name, ''), coalesce(v.%s, 0) "
			"FROM threads t LEFT JOIN context_thread_metrics v ON v.thread_id = t.id AND "
			"v.context_id = ?1 AND v.event = ?2 AND v.metric = ?3 ORDER BY t.id LIMIT 256",
			which);
	s = prepare_context_metric(m, sql, id, metric);
	free(sql);
	if (!s)
		return;
	size_t cap = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		grow_array(&out->thread, &cap, out->nthreads + 1, sizeof *out->thread);
		struct vthread_value *t = &out->thread[out->nthreads++];
		t->thread_id = sqlite3_column_int64(s, 0);
		t->name = text(s, 1);
		t->value = sqlite3_column_double(s, 2);
	}
	sqlite3_finalize(s);
}

void vstats_free(struct vstats *s)
{
	for (size_t i = 0; i < s->nthreads; i++)
		free(s->thread[i].name);
	free(s->thread);
	memset(s, 0, sizeof *s);
}

size_t model_line_values(struct vmodel *m, const char *procedure, const char *file, int metric,
			 int **lines, double **values)
{
	*lines = NULL;
	*values = NULL;
	sqlite3_stmt *s = prepare(m,
		"SELECT c.line, sum(m.inclusive) FROM contexts c JOIN context_metrics m ON "
		"m.context_id = c.id AND m.event = ?1 AND m.metric = ?2 WHERE c.procedure IS ?3 AND "
		"c.kind IN ('statement', 'callsite') AND c.file IS ?4 GROUP BY c.line ORDER BY c.line");
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
	sqlite3_stmt *s = prepare(m,
		"SELECT c.id FROM contexts c LEFT JOIN context_metrics m ON m.context_id = c.id AND "
		"m.event = ?1 AND m.metric = ?2 WHERE c.kind IN ('frame', 'inlined') AND "
		"instr(lower(c.procedure), lower(?3)) > 0 AND coalesce(m.inclusive, 0) > 0 "
		"ORDER BY m.inclusive DESC, c.id LIMIT ?4");
	size_t n = 0;
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
