/* tree.c - the calling-context tree in memory, and the one definition of
 * a frame's caller that every reader uses. */
#include "hash.h"
#include "hindex.h"
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

static const char *name(struct dbr_tree *t, sqlite3_stmt *s, int i)
{
	const unsigned char *v = sqlite3_column_text(s, i);
	return strtab_get(t->names, strtab_intern(t->names, (const char *)v));
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

/* The contexts as the view spells them: every schema. */
static int read_named(struct dbr *r, struct dbr_tree *t)
{
	sqlite3_stmt *s = dbr_prepare(r, r->schema >= 5
		? "SELECT id, parent_id, depth, kind, procedure, module, file, line, folded FROM "
		  TBL_CONTEXTS
		: "SELECT id, parent_id, depth, kind, procedure, module, file, line, NULL FROM "
		  TBL_CONTEXTS);
	if (!s)
		return -1;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct dbr_ctx *c = read_ctx(t, s);
		if (!c)
			continue;
		const unsigned char *k = sqlite3_column_text(s, 3);
		c->kind = k ? (char)k[0] : '?';
		c->procedure = name(t, s, 4);
		c->module = name(t, s, 5);
		c->file = name(t, s, 6);
		c->line = sqlite3_column_int(s, 7);
		c->folded = sqlite3_column_type(s, 8) == SQLITE_NULL ? NULL : name(t, s, 8);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : dbr_fail_sql(r);
}

/* The name in id column I of row S (dbr_name), NULL for none. */
static const char *name_of(struct dbr *r, sqlite3_stmt *s, int i)
{
	return dbr_name(r, sqlite3_column_int64(s, i));
}

/* The contexts as stored from schema 7: names by number, read once. */
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
	if ((r->schema >= 7 ? read_numbered(r, t) : read_named(r, t)) < 0) {
		dbr_tree_free(t);
		return NULL;
	}
	t->bodies_in_frames = r->schema >= 11;
	link_children(t);
	return t;
}

/* Before schema 6 the values are a table by name. */
static int tree_values_before_6(struct dbr *r, const char *event, const char *metric,
				double *incl, double *excl)
{
	sqlite3_stmt *s = dbr_prepare(r, "SELECT context_id, inclusive, exclusive FROM "
				      TBL_CONTEXT_METRICS " WHERE event = ? AND metric = ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, metric, -1, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_int64 id = id_index(s, 0);
		if (id < 0 || id >= r->ncontexts)
			continue;
		incl[id] = sqlite3_column_double(s, 1);
		excl[id] = sqlite3_column_double(s, 2);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : dbr_fail_sql(r);
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
	if (r->schema < 6)
		return tree_values_before_6(r, event, metric, incl, excl);
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
	int rc = 0;
	if (r->schema < 6) {
		/* No stored order to stream in: the whole metric, then each
		 * context (databases of before schema 6 are small). */
		size_t nc = (size_t)r->ncontexts;
		double *in = xcalloc(n * nc + 1, sizeof *in), *ex = xcalloc(n * nc + 1, sizeof *ex);
		for (size_t k = 0; k < n && rc == 0; k++)
			rc = tree_values_before_6(r, event, metrics[k], in + k * nc, ex + k * nc);
		for (size_t i = 0; i < nc && rc == 0; i++) {
			int any = 0;
			for (size_t k = 0; k < n; k++) {
				incl[k] = in[k * nc + i];
				excl[k] = ex[k * nc + i];
				any |= incl[k] != 0 || excl[k] != 0;
			}
			if (any)
				fn(arg, (int64_t)i + 1, incl, excl);
		}
		free(in);
		free(ex);
	} else {
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
		rc = !s ? -1 : step == SQLITE_DONE ? 0 : dbr_fail_sql(r);
	}
	free(incl);
	free(excl);
	return rc;
}

uint32_t dbr_own_frame(const struct dbr_tree *t, uint32_t i)
{
	const struct dbr_ctx *c = t->c;
	if (c[i].kind == KIND_CALLSITE[0])
		return UINT32_MAX;
	if (c[i].kind != KIND_STATEMENT[0])
		return i;
	if (t->bodies_in_frames)
		return UINT32_MAX;
	/* Before schema 11 an outlined body's statements were in no
	 * frame's value. */
	uint32_t site = c[i].parent;
	if (site == UINT32_MAX || c[site].kind != KIND_CALLSITE[0])
		return UINT32_MAX;
	return c[site].parent;
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
 * above its call site.  Schema 7 on by numbers, with the names read once
 * (dbr_name); before, through the contexts table. */
static sqlite3_stmt *prepare_callers(struct dbr *r)
{
	char *sql = xmalloc(600 + CALLERS_CHUNK * 2);
	char *p = sql + sprintf(sql, r->schema >= 7
		? "SELECT f.id, k.id, k.kind_id, k.procedure_id FROM " TBL_CONTEXT_TREE " f "
		  "JOIN " TBL_CONTEXT_TREE " s ON s.id = f.parent_id "
		  "JOIN " TBL_CONTEXT_TREE " k ON k.id = CASE WHEN s.kind_id IN (SELECT id FROM "
		  TBL_NAMES " WHERE name IN ('" KIND_CALLSITE "', '" KIND_STATEMENT "')) "
		  "THEN s.parent_id ELSE s.id END WHERE f.id IN ("
		: "SELECT f.id, k.id, k.kind, k.procedure FROM " TBL_CONTEXTS " f "
		  "JOIN " TBL_CONTEXTS " s ON s.id = f.parent_id "
		  "JOIN " TBL_CONTEXTS " k ON k.id = CASE WHEN s.kind IN ('" KIND_CALLSITE "', '"
		  KIND_STATEMENT "') THEN s.parent_id ELSE s.id END WHERE f.id IN (");
	for (size_t i = 0; i < CALLERS_CHUNK; i++)
		p += sprintf(p, i ? ",?" : "?");
	strcpy(p, ")");
	sqlite3_stmt *s = dbr_prepare(r, sql);
	free(sql);
	return s;
}

/* Column I of row S: a name (schema 7 on: its number), interned in R. */
static const char *row_name(struct dbr *r, sqlite3_stmt *s, int i)
{
	if (r->schema >= 7)
		return dbr_name(r, sqlite3_column_int64(s, i));
	const char *v = (const char *)sqlite3_column_text(s, i);
	return v ? strtab_get(r->names, strtab_intern(r->names, v)) : NULL;
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
		const char *kind = row_name(r, s, 2);
		int walk = !kind || (!dbr_is_frame(kind[0]) && kind[0] != KIND_ROOT[0]);
		const char *proc = row_name(r, s, 3);
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

/* How many frames of each procedure are on the walk's path, by the
 * procedure's identity (name, module, file: interned, so compared as
 * pointers).  Entries stay once made. */
struct active {
	const char *procedure, *module, *file;
	uint32_t count;
};

struct active_table {
	struct active *a;
	size_t n, cap;
	struct hindex index;	/* identity -> entry */
};

/* C's procedure's entry, made if new. */
static struct active *active_entry(struct active_table *t, const struct dbr_ctx *c)
{
	uint64_t h = hash_mix((uint64_t)(uintptr_t)c->procedure ^ (uint64_t)(uintptr_t)c->module << 7 ^
			      (uint64_t)(uintptr_t)c->file << 13);
	struct hindex_pos pos;
	for (uint32_t i = hindex_find(&t->index, h, &pos); i != HINDEX_NONE;
	     i = hindex_next(&t->index, &pos)) {
		struct active *e = &t->a[i];
		if (e->procedure == c->procedure && e->module == c->module && e->file == c->file)
			return e;
	}
	grow_array(&t->a, &t->cap, t->n + 1, sizeof *t->a);
	t->a[t->n] = (struct active){ c->procedure, c->module, c->file, 0 };
	hindex_add(&t->index, &pos, (uint32_t)t->n);
	return &t->a[t->n++];
}

const uint8_t *dbr_recursive(struct dbr *r)
{
	struct dbr_tree *t = r->tree ? r->tree : (struct dbr_tree *)dbr_tree(r);
	if (!t || t->recursive)
		return t ? t->recursive : NULL;
	t->recursive = xcalloc(t->n + 1, 1);
	struct active_table at = { 0 };
	/* Depth first without recursion (a tree may be a million deep): a
	 * context's index to enter it, its complement to leave it after its
	 * children. */
	uint32_t *stack = NULL;
	size_t sp = 0, cap = 0;
	for (size_t root = 0; root < t->n; root++) {
		if (t->c[root].parent != UINT32_MAX)
			continue;
		grow_array(&stack, &cap, sp + 1, sizeof *stack);
		stack[sp++] = (uint32_t)root;
		while (sp) {
			uint32_t i = stack[--sp];
			int leaving = i >= (uint32_t)t->n;
			if (leaving)
				i = ~i;
			const struct dbr_ctx *c = &t->c[i];
			if (leaving) {
				active_entry(&at, c)->count--;
				continue;
			}
			if (dbr_is_frame(c->kind)) {
				struct active *e = active_entry(&at, c);
				t->recursive[i] = e->count++ > 0;
				grow_array(&stack, &cap, sp + 1, sizeof *stack);
				stack[sp++] = ~i;
			}
			for (uint32_t k = c->first; k != UINT32_MAX; k = t->c[k].next) {
				grow_array(&stack, &cap, sp + 1, sizeof *stack);
				stack[sp++] = k;
			}
		}
	}
	free(stack);
	free(at.a);
	hindex_free(&at.index);
	return t->recursive;
}
