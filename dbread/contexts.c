/* contexts.c - a context's children, read on demand, and its path from
 * the root. */
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

struct kids {
	struct dbr_child *c;
	size_t n, cap, nmetrics;
	struct dbr_recipe recipe;	/* the values, by metric number */
};

/* Call sites met among the children, to look through after the scan. */
struct site {
	int64_t id;
	char *file;
	int line;
};

struct sites {
	struct site *s;
	size_t n, cap;
};

static int has_value(const struct dbr_child *c, size_t nmetrics)
{
	for (size_t k = 0; k < nmetrics; k++)
		if (c->incl[k] != 0)
			return 1;
	return 0;
}

static void free_child(struct dbr_child *c)
{
	free(c->procedure);
	free(c->module);
	free(c->file);
	free(c->site_file);
	free(c->incl);
	free(c->excl);
}

/* A child without any value (below every metric shown) is not shown. */
static void drop_last_if_empty(struct kids *k)
{
	if (k->n && !has_value(&k->c[k->n - 1], k->nmetrics))
		free_child(&k->c[--k->n]);
}

static struct dbr_child *add_child(struct kids *k, sqlite3_stmt *s, int64_t id, const char *site_file,
				   int site_line)
{
	drop_last_if_empty(k);
	grow_array(&k->c, &k->cap, k->n + 1, sizeof *k->c);
	struct dbr_child *c = &k->c[k->n++];
	memset(c, 0, sizeof *c);
	c->id = id;
	const unsigned char *kind = sqlite3_column_text(s, 1);
	c->kind = kind ? (char)kind[0] : KIND_ROOT[0];
	c->procedure = dbr_text(s, 2);
	c->module = dbr_text(s, 3);
	c->file = dbr_text(s, 4);
	c->line = sqlite3_column_int(s, 5);
	c->site_file = site_file ? xstrdup(site_file) : NULL;
	c->site_line = site_line;
	c->incl = xcalloc(k->nmetrics, sizeof *c->incl);
	c->excl = xcalloc(k->nmetrics, sizeof *c->excl);
	return c;
}

static void add_site(struct sites *st, sqlite3_stmt *s, int64_t id)
{
	if (st->n && st->s[st->n - 1].id == id)
		return;		/* the same call site, another metric */
	grow_array(&st->s, &st->cap, st->n + 1, sizeof *st->s);
	st->s[st->n++] = (struct site){ id, dbr_text(s, 4), sqlite3_column_int(s, 5) };
}

static int read_children(struct dbr *r, struct kids *k, int64_t parent, const char *site_file,
			 int site_line)
{
#define CHILDREN_SQL(values, which)                                            \
	"SELECT c.id, c.kind, c.procedure, c.module, c.file, c.line, m.metric, m.inclusive, " \
	"m.exclusive FROM " TBL_CONTEXTS " c LEFT JOIN " values " m ON m.context_id = c.id " \
	"AND " which " WHERE c.parent_id = ?2 ORDER BY c.id"
	/* The stored rows, not the views that compute some of them. */
	sqlite3_stmt *s = dbr_recipe_prepare(r, CHILDREN_SQL("(SELECT context_id, metric_id AS "
		"metric, inclusive, exclusive FROM %s)", "m.metric IN %s"), &k->recipe);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 2, parent);
	struct sites st = { 0 };
	struct dbr_child *cur = NULL;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		const unsigned char *kind = sqlite3_column_text(s, 1);
		if (kind && kind[0] == KIND_CALLSITE[0]) {
			add_site(&st, s, id);
			continue;
		}
		if (!cur || cur->id != id)
			cur = add_child(k, s, id, site_file, site_line);
		if (sqlite3_column_type(s, 6) != SQLITE_NULL)
			dbr_recipe_add(&k->recipe, sqlite3_column_int64(s, 6),
				       sqlite3_column_double(s, 7), sqlite3_column_double(s, 8),
				       cur->incl, cur->excl);
	}
	drop_last_if_empty(k);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		dbr_fail_sql(r);
	for (size_t i = 0; i < st.n; i++) {
		if (rc == SQLITE_DONE &&
		    read_children(r, k, st.s[i].id, st.s[i].file, st.s[i].line) < 0)
			rc = SQLITE_ERROR;
		free(st.s[i].file);
	}
	free(st.s);
	return rc == SQLITE_DONE ? 0 : -1;
}

int dbr_children(struct dbr *r, int64_t parent, const char *event, const char *const *metrics,
		 size_t n, struct dbr_child **out, size_t *count)
{
	struct kids k = { .nmetrics = n };
	*out = NULL;
	*count = 0;
	if (dbr_recipe_init(r, event, metrics, n, &k.recipe) < 0)
		return -1;
	int rc = read_children(r, &k, parent, NULL, 0);
	dbr_recipe_free(&k.recipe);
	if (rc < 0) {
		dbr_children_free(k.c, k.n);
		k.c = NULL;
		k.n = 0;
	}
	*out = k.c;
	*count = k.n;
	return rc;
}

void dbr_child_clear(struct dbr_child *c)
{
	free_child(c);
	memset(c, 0, sizeof *c);
}

void dbr_children_free(struct dbr_child *c, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free_child(&c[i]);
	free(c);
}

/* Parents have smaller ids than their children: going up only to
 * smaller ids ends even on a damaged database whose parents loop (the
 * tree reader takes such a context for a root, too). */
static const char up_sql[] =
	"WITH RECURSIVE up(id, parent_id, kind, procedure, depth) AS ("
	"  SELECT id, parent_id, kind, procedure, 0 FROM " TBL_CONTEXTS " WHERE id = ?1"
	"  UNION ALL SELECT c.id, c.parent_id, c.kind, c.procedure, up.depth + 1"
	"  FROM " TBL_CONTEXTS " c JOIN up ON c.id = up.parent_id AND c.id < up.id)"
	" SELECT id, kind, procedure FROM up ORDER BY depth DESC";

char *dbr_path(struct dbr *r, int64_t id)
{
	sqlite3_stmt *s = dbr_prepare(r, up_sql);
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	char *out = xstrdup("");
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(s, 1);
		const char *p = (const char *)sqlite3_column_text(s, 2);
		if (!k || k[0] == KIND_CALLSITE[0] || k[0] == KIND_STATEMENT[0])
			continue;
		char *next = xasprintf("%s%s%s%s", out, out[0] ? " > " : "",
				       k[0] == KIND_INLINED[0] ? "[inlined] " : "", p ? p : "?");
		free(out);
		out = next;
	}
	sqlite3_finalize(s);
	return out;
}

size_t dbr_ancestors(struct dbr *r, int64_t id, int64_t *ids, size_t max)
{
	sqlite3_stmt *s = dbr_prepare(r, up_sql);
	size_t n = 0;
	if (!s)
		return 0;
	sqlite3_bind_int64(s, 1, id);
	while (sqlite3_step(s) == SQLITE_ROW && n < max) {
		const char *k = (const char *)sqlite3_column_text(s, 1);
		if (k && k[0] == KIND_CALLSITE[0])
			continue;	/* call sites are looked through */
		ids[n++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	return n;
}

int dbr_modules(struct dbr *r, struct dbr_module **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT path, build_id FROM " TBL_MODULES " ORDER BY id");
	if (!s)
		return -1;
	size_t n = 0, cap = 0;
	struct dbr_module *m = NULL;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		char *path = dbr_text(s, 0);
		if (!path)
			continue;
		grow_array(&m, &cap, n + 1, sizeof *m);
		m[n].path = path;
		m[n++].build_id = dbr_text(s, 1);
	}
	sqlite3_finalize(s);
	if (step != SQLITE_DONE) {
		dbr_modules_free(m, n);
		return dbr_fail_sql(r);
	}
	*out = m;
	*count = n;
	return 0;
}

void dbr_modules_free(struct dbr_module *m, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(m[i].path);
		free(m[i].build_id);
	}
	free(m);
}
