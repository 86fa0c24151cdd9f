/* tree.c - the calling-context tree in memory, and the one definition of
 * a frame's caller that every reader uses. */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dbr_tree_free(struct dbr_tree *t)
{
	if (!t)
		return;
	free(t->recursive);
	free(t->c);
	strtab_free(t->names);
	free(t);
}

/* Links each context into its parent's list of children, in id order. */
static void link_children(struct dbr_tree *t)
{
	for (size_t i = t->n; i-- > 0;) {
		struct dbr_ctx *c = &t->c[i];
		if (c->parent != UINT32_MAX) {
			c->next = t->c[c->parent].first;
			t->c[c->parent].first = (uint32_t)i;
		}
	}
}

/* A new tree of R's contexts, none linked yet. */
static struct dbr_tree *tree_new(struct dbr *r)
{
	struct dbr_tree *t = xcalloc(1, sizeof *t);
	t->n = (size_t)r->ncontexts;
	t->c = xcalloc(t->n, sizeof *t->c);
	t->names = strtab_new();
	for (size_t i = 0; i < t->n; i++)
		t->c[i].parent = t->c[i].first = t->c[i].next = UINT32_MAX;
	return t;
}

/* Column COL of S, an id, as an index (id - 1); -1 for an id below 1
 * (INT64_MIN in a hostile database included: no overflow). */
static sqlite3_int64 id_index(sqlite3_stmt *s, int col)
{
	sqlite3_int64 v = sqlite3_column_int64(s, col);
	return v >= 1 ? v - 1 : -1;
}

/* The context of row S's id (column 0), with its parent (column 1) and
 * depth (column 2) set; NULL for an id out of range. */
static struct dbr_ctx *read_ctx(struct dbr_tree *t, sqlite3_stmt *s)
{
	sqlite3_int64 id = id_index(s, 0);
	if (id < 0 || (size_t)id >= t->n)
		return NULL;
	struct dbr_ctx *c = &t->c[id];
	/* A parent after its child is not a database we made: such a
	 * context is read as a root. */
	if (sqlite3_column_type(s, 1) != SQLITE_NULL) {
		sqlite3_int64 p = id_index(s, 1);
		if (p >= 0 && p < id)
			c->parent = (uint32_t)p;
	}
	c->depth = (uint32_t)sqlite3_column_int(s, 2);
	return c;
}

/* The name in id column I of row S (dbr_name), NULL for none. */
static const char *name_of(struct dbr *r, sqlite3_stmt *s, int i)
{
	return dbr_name(r, sqlite3_column_int64(s, i));
}

/* The contexts as stored: names by number, read once. */
static int read_numbered(struct dbr *r, struct dbr_tree *t)
{
	sqlite3_stmt *s = dbr_prepare(r, "SELECT id, parent_id, depth, kind_id, procedure_id, "
				      "module_id, file_id, line, folded_id FROM " TBL_CONTEXT_TREE);
	if (!s)
		return -1;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct dbr_ctx *c = read_ctx(t, s);
		if (!c)
			continue;
		const char *k = name_of(r, s, 3);
		c->kind = k ? k[0] : '?';
		c->procedure = name_of(r, s, 4);
		c->module = name_of(r, s, 5);
		c->file = name_of(r, s, 6);
		c->line = sqlite3_column_int(s, 7);
		c->folded = name_of(r, s, 8);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : dbr_fail_sql(r);
}

static struct dbr_tree *read_tree(struct dbr *r)
{
	struct dbr_tree *t = tree_new(r);
	if (read_numbered(r, t) < 0) {
		dbr_tree_free(t);
		return NULL;
	}
	link_children(t);
	return t;
}

const struct dbr_tree *dbr_tree(struct dbr *r)
{
	if (!r->tree)
		r->tree = read_tree(r);
	return r->tree;
}

int dbr_tree_values(struct dbr *r, const char *event, const char *metric, double *incl,
		    double *excl)
{
	struct dbr_recipe recipe;
	if (dbr_recipe_init(r, event, &metric, 1, &recipe) < 0)
		return -1;
	sqlite3_stmt *s = dbr_recipe_prepare(r, "SELECT context_id, metric_id, inclusive, "
					     "exclusive FROM %s WHERE metric_id IN %s", &recipe);
	int step = SQLITE_ERROR;
	while (s && (step = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_int64 id = id_index(s, 0);
		if (id < 0 || id >= r->ncontexts)
			continue;
		dbr_recipe_add(&recipe, sqlite3_column_int64(s, 1), sqlite3_column_double(s, 2),
			       sqlite3_column_double(s, 3), &incl[id], &excl[id]);
	}
	sqlite3_finalize(s);
	dbr_recipe_free(&recipe);
	if (!s)
		return -1;
	return step == SQLITE_DONE ? 0 : dbr_fail_sql(r);
}

int dbr_values_by_context(struct dbr *r, const char *event, const char *const *metrics, size_t n,
			  dbr_context_values_fn fn, void *arg)
{
	double *incl = xcalloc(n + 1, sizeof *incl), *excl = xcalloc(n + 1, sizeof *excl);
	struct dbr_recipe recipe;
	if (dbr_recipe_init(r, event, metrics, n, &recipe) < 0) {
		free(incl);
		free(excl);
		return -1;
	}
	/* The stored values' key order: context, then metric. */
	sqlite3_stmt *s = dbr_recipe_prepare(r, "SELECT context_id, metric_id, inclusive, "
					     "exclusive FROM %s WHERE metric_id IN %s "
					     "ORDER BY context_id", &recipe);
	int step = SQLITE_ERROR;
	int64_t at = 0;
	while (s && (step = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		if (id < 1 || id > r->ncontexts)
			continue;
		if (id != at && at) {
			fn(arg, at, incl, excl);
			memset(incl, 0, n * sizeof *incl);
			memset(excl, 0, n * sizeof *excl);
		}
		at = id;
		dbr_recipe_add(&recipe, sqlite3_column_int64(s, 1), sqlite3_column_double(s, 2),
			       sqlite3_column_double(s, 3), incl, excl);
	}
	if (at && step == SQLITE_DONE)
		fn(arg, at, incl, excl);
	sqlite3_finalize(s);
	dbr_recipe_free(&recipe);
	int rc = !s ? -1 : step == SQLITE_DONE ? 0 : dbr_fail_sql(r);
	free(incl);
	free(excl);
	return rc;
}

uint32_t dbr_own_frame(const struct dbr_tree *t, uint32_t i)
{
	char kind = t->c[i].kind;
	return kind == KIND_CALLSITE[0] || kind == KIND_STATEMENT[0] ? UINT32_MAX : i;
}

int dbr_is_frame(char kind)
{
	return kind == KIND_FRAME[0] || kind == KIND_INLINED[0];
}

int64_t dbr_caller(struct dbr *r, int64_t id)
{
	const struct dbr_tree *t = dbr_tree(r);
	if (!t || id < 1 || id > (int64_t)t->n || t->c[id - 1].kind == KIND_ROOT[0])
		return 0;
	/* Up through call sites and statements to the frame that holds them,
	 * stopping at a root: frames hang under a call site or a root. */
	uint32_t p = t->c[id - 1].parent;
	while (p != UINT32_MAX && !dbr_is_frame(t->c[p].kind) && t->c[p].kind != KIND_ROOT[0])
		p = t->c[p].parent;
	return p == UINT32_MAX ? 0 : (int64_t)p + 1;
}

/* Ids per statement of dbr_callers (SQLite takes up to 32766 parameters);
 * the last chunk is padded with 0, which is no context. */
#define CALLERS_CHUNK 500

/* The caller of each context asked for: the frame or root above it, or
 * above its call site, by numbers, with the names read once (dbr_name). */
static sqlite3_stmt *prepare_callers(struct dbr *r)
{
	char *sql = xmalloc(600 + CALLERS_CHUNK * 2);
	char *p = sql + sprintf(sql, "SELECT f.id, k.id, k.kind_id, k.procedure_id FROM "
				TBL_CONTEXT_TREE " f JOIN " TBL_CONTEXT_TREE " s ON s.id = f.parent_id "
				"JOIN " TBL_CONTEXT_TREE " k ON k.id = CASE WHEN s.kind_id IN (SELECT "
				"id FROM " TBL_NAMES " WHERE name IN ('" KIND_CALLSITE "', '"
				KIND_STATEMENT "')) THEN s.parent_id ELSE s.id END WHERE f.id IN (");
	for (size_t i = 0; i < CALLERS_CHUNK; i++)
		p += sprintf(p, i ? ",?" : "?");
	strcpy(p, ")");
	sqlite3_stmt *s = dbr_prepare(r, sql);
	free(sql);
	return s;
}

/* The callers of IDS (N, at most CALLERS_CHUNK) with statement S.  A
 * context whose parent is neither a frame nor a root, nor under a call
 * site of one (not a tree prof makes), gets -1: dbr_caller walks on. */
static int callers_chunk(struct dbr *r, sqlite3_stmt *s, const int64_t *ids, size_t n,
			 struct dbr_caller_of *out)
{
	for (size_t i = 0; i < CALLERS_CHUNK; i++)
		sqlite3_bind_int64(s, (int)i + 1, i < n ? ids[i] : 0);
	for (size_t i = 0; i < n; i++)
		out[i] = (struct dbr_caller_of){ 0, 0, NULL };
	int rc;
	size_t at = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		/* Rows come in any order; ids are usually ascending. */
		size_t i = at < n && ids[at] == id ? at : 0;
		while (i < n && ids[i] != id)
			i++;
		at = i + 1;
		const char *kind = dbr_name(r, sqlite3_column_int64(s, 2));
		int walk = !kind || (!dbr_is_frame(kind[0]) && kind[0] != KIND_ROOT[0]);
		const char *proc = dbr_name(r, sqlite3_column_int64(s, 3));
		for (size_t j = i; j < n; j++) {	/* an id asked for twice */
			if (ids[j] != id)
				continue;
			out[j].caller = walk ? -1 : sqlite3_column_int64(s, 1);
			out[j].kind = kind ? kind[0] : 0;
			out[j].procedure = proc;
		}
	}
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : dbr_fail_sql(r);
}

int dbr_callers(struct dbr *r, const int64_t *ids, size_t n, struct dbr_caller_of *out)
{
	if (!r->tree) {
		if (!r->names)
			r->names = strtab_new();
		sqlite3_stmt *s = prepare_callers(r);
		if (!s)
			return -1;
		for (size_t i = 0; i < n; i += CALLERS_CHUNK) {
			size_t k = n - i < CALLERS_CHUNK ? n - i : CALLERS_CHUNK;
			if (callers_chunk(r, s, ids + i, k, out + i) < 0) {
				sqlite3_finalize(s);
				return -1;
			}
		}
		sqlite3_finalize(s);
	}
	return dbr_callers_walk(r, ids, n, out);
}

int dbr_callers_walk(struct dbr *r, const int64_t *ids, size_t n, struct dbr_caller_of *out)
{
	for (size_t i = 0; i < n; i++) {
		if (r->tree || out[i].caller < 0) {
			const struct dbr_tree *t = dbr_tree(r);
			if (!t)
				return -1;
			out[i].caller = dbr_caller(r, ids[i]);
			const struct dbr_ctx *c = out[i].caller ? &t->c[out[i].caller - 1] : NULL;
			out[i].kind = c ? c->kind : 0;
			out[i].procedure = c ? c->procedure : NULL;
		}
	}
	return 0;
}

const char *dbr_name(struct dbr *r, int64_t id)
{
	if (!r->names)
		r->names = strtab_new();
	if (!r->name_by_id) {
		/* A table indexed by id.  prof's ids have a few gaps; a
		 * hostile id (2^32) must not size the table: ids beyond a few
		 * times the count have no name. */
		sqlite3_int64 count = 0, top = 0;
		sqlite3_stmt *s = dbr_prepare(r, "SELECT count(*), max(id) FROM " TBL_NAMES);
		if (s && sqlite3_step(s) == SQLITE_ROW) {
			count = sqlite3_column_int64(s, 0);
			top = sqlite3_column_int64(s, 1);
		}
		sqlite3_finalize(s);
		if (count < 0 || count > INT32_MAX)
			count = 0;
		if (top > 4 * count + 4096 || top < 0)
			top = 4 * count + 4096;
		r->nnames = (size_t)top + 1;
		r->name_by_id = xcalloc(r->nnames, sizeof *r->name_by_id);
		s = dbr_prepare(r, "SELECT id, name FROM " TBL_NAMES);
		while (s && sqlite3_step(s) == SQLITE_ROW) {
			sqlite3_int64 k = sqlite3_column_int64(s, 0);
			if (k < 1 || k >= (sqlite3_int64)r->nnames)
				continue;
			const char *v = (const char *)sqlite3_column_text(s, 1);
			r->name_by_id[k] = v ? strtab_get(r->names, strtab_intern(r->names, v)) : NULL;
		}
		sqlite3_finalize(s);
	}
	return id > 0 && (size_t)id < r->nnames ? r->name_by_id[id] : NULL;
}

const char *dbr_kind_name(char kind)
{
	static const char *const kinds[] = { KIND_ROOT, KIND_FRAME, KIND_INLINED, KIND_CALLSITE,
					      KIND_STATEMENT };
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (kinds[i][0] == kind)
			return kinds[i];
	return KIND_ROOT;
}

/* Frames by procedure, module and file (the tree's interned names: one
 * pointer per name), then by index. */
static int by_procedure(const void *a, const void *b, void *arg)
{
	const struct dbr_ctx *c = arg, *x = &c[*(const uint32_t *)a], *y = &c[*(const uint32_t *)b];
	if (x->procedure != y->procedure)
		return (uintptr_t)x->procedure < (uintptr_t)y->procedure ? -1 : 1;
	if (x->module != y->module)
		return (uintptr_t)x->module < (uintptr_t)y->module ? -1 : 1;
	if (x->file != y->file)
		return (uintptr_t)x->file < (uintptr_t)y->file ? -1 : 1;
	return 0;
}

const uint8_t *dbr_recursive(struct dbr *r)
{
	struct dbr_tree *t = r->tree ? r->tree : (struct dbr_tree *)dbr_tree(r);
	if (!t || t->recursive)
		return t ? t->recursive : NULL;
	/* A key per procedure (frames of the same procedure, module and file
	 * share one), then the walk that marks those below another. */
	uint32_t *frame = xmalloc((t->n + 1) * sizeof *frame);
	uint32_t *key = xmalloc((t->n + 1) * sizeof *key);
	uint32_t *parent = xmalloc((t->n + 1) * sizeof *parent);
	size_t nf = 0;
	for (size_t i = 0; i < t->n; i++) {
		parent[i] = t->c[i].parent;
		key[i] = UINT32_MAX;
		if (dbr_is_frame(t->c[i].kind))
			frame[nf++] = (uint32_t)i;
	}
	qsort_r(frame, nf, sizeof *frame, by_procedure, t->c);
	uint32_t nkeys = 0;
	for (size_t k = 0; k < nf; k++) {
		if (k && by_procedure(&frame[k - 1], &frame[k], t->c) != 0)
			nkeys++;
		key[frame[k]] = nkeys;
	}
	t->recursive = xcalloc(t->n + 1, 1);
	mark_nested(t->n, parent, key, nf ? nkeys + 1 : 0, t->recursive);
	free(parent);
	free(key);
	free(frame);
	return t->recursive;
}
