/* source.c - values by source line and by name: a procedure's lines, the
 * values of one file's lines, a context on its own, and the frames whose
 * procedure matches a search.  Each reads the stored values by metric
 * number (dbr_recipe): the views that name them are far slower to join. */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

/* A recipe for METRICS (N) of EVENT and SQL_FORMAT prepared with it (its
 * two %s the stored table and the ids); NULL after setting the error, RC
 * freed. */
static sqlite3_stmt *prepare_by_recipe(struct dbr *r, const char *event, const char *const *metrics,
				       size_t n, const char *sql_format, struct dbr_recipe *rc)
{
	if (dbr_recipe_init(r, event, metrics, n, rc) < 0)
		return NULL;
	sqlite3_stmt *s = dbr_recipe_prepare(r, sql_format, rc);
	if (!s)
		dbr_recipe_free(rc);
	return s;
}

int dbr_procedure_lines(struct dbr *r, const char *event, const char *const *metrics, size_t n,
			const char *procedure, const char *module, struct dbr_child **out,
			size_t *count)
{
	*out = NULL;
	*count = 0;
	struct dbr_recipe rc;
	sqlite3_stmt *s = prepare_by_recipe(r, event, metrics, n,
		"SELECT c.file, c.line, m.metric_id, sum(m.exclusive) FROM " TBL_CONTEXTS " c JOIN "
		"%s m ON m.context_id = c.id AND m.metric_id IN %s WHERE c.procedure = ?1 AND "
		"c.module IS ?2 AND c.kind = '" KIND_STATEMENT "' GROUP BY c.file, c.line, "
		"m.metric_id ORDER BY c.file, c.line", &rc);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, procedure, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, module, -1, SQLITE_STATIC);
	size_t cap = 0;
	struct dbr_child *cur = NULL;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(s, 0);
		int line = sqlite3_column_int(s, 1);
		if (!cur || cur->line != line || !dbr_same_name(cur->file, f)) {
			grow_array(out, &cap, *count + 1, sizeof **out);
			cur = &(*out)[(*count)++];
			memset(cur, 0, sizeof *cur);
			cur->kind = KIND_STATEMENT[0];
			cur->file = f ? xstrdup(f) : NULL;
			cur->line = line;
			cur->procedure = procedure ? xstrdup(procedure) : NULL;
			cur->module = module ? xstrdup(module) : NULL;
			cur->incl = xcalloc(n + 1, sizeof *cur->incl);
			cur->excl = xcalloc(n + 1, sizeof *cur->excl);
		}
		double sum = sqlite3_column_double(s, 3);
		dbr_recipe_add(&rc, sqlite3_column_int64(s, 2), sum, sum, cur->incl, cur->excl);
	}
	sqlite3_finalize(s);
	dbr_recipe_free(&rc);
	if (step == SQLITE_DONE)
		return 0;
	dbr_children_free(*out, *count);
	*out = NULL;
	*count = 0;
	return dbr_fail_sql(r);
}

int dbr_context(struct dbr *r, int64_t id, const char *event, const char *const *metrics,
		size_t n, struct dbr_child *out)
{
	memset(out, 0, sizeof *out);
	out->id = id;
	out->incl = xcalloc(n + 1, sizeof *out->incl);
	out->excl = xcalloc(n + 1, sizeof *out->excl);
	struct dbr_recipe rc;
	sqlite3_stmt *s = prepare_by_recipe(r, event, metrics, n,
		"SELECT c.kind, c.procedure, c.module, c.file, c.line, m.metric_id, m.inclusive, "
		"m.exclusive FROM " TBL_CONTEXTS " c LEFT JOIN %s m ON m.context_id = c.id AND "
		"m.metric_id IN %s WHERE c.id = ?1", &rc);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	int step, found = 0;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (!found++) {
			const unsigned char *kind = sqlite3_column_text(s, 0);
			out->kind = kind ? (char)kind[0] : KIND_ROOT[0];
			out->procedure = dbr_text(s, 1);
			out->module = dbr_text(s, 2);
			out->file = dbr_text(s, 3);
			out->line = sqlite3_column_int(s, 4);
		}
		if (sqlite3_column_type(s, 5) != SQLITE_NULL)
			dbr_recipe_add(&rc, sqlite3_column_int64(s, 5), sqlite3_column_double(s, 6),
				       sqlite3_column_double(s, 7), out->incl, out->excl);
	}
	sqlite3_finalize(s);
	dbr_recipe_free(&rc);
	if (step != SQLITE_DONE)
		return dbr_fail_sql(r);
	if (!found) {
		dbr_fail(r, "%s: no context %lld", r->path, (long long)id);
		return -1;
	}
	return 0;
}

/* SQL_FORMAT, whose %s are METRIC's sum (the recipe's, of inclusive
 * values), the stored table and its ids, prepared for EVENT; NULL after
 * setting the error. */
static sqlite3_stmt *prepare_sum(struct dbr *r, const char *event, const char *metric,
				 const char *sql_format)
{
	struct dbr_recipe rc;
	if (dbr_recipe_init(r, event, &metric, 1, &rc) < 0)
		return NULL;
	char *sum = dbr_recipe_sum_sql(&rc, 0, "m.metric_id", "m.inclusive");
	char *sql = xasprintf(sql_format, sum, rc.table, rc.ids);
	sqlite3_stmt *s = dbr_prepare(r, sql);
	free(sql);
	free(sum);
	dbr_recipe_free(&rc);
	return s;
}

int dbr_line_values(struct dbr *r, const char *event, const char *metric, const char *procedure,
		    const char *file, int **lines, double **values, size_t *count)
{
	*lines = NULL;
	*values = NULL;
	*count = 0;
	sqlite3_stmt *s = prepare_sum(r, event, metric,
		"SELECT c.line, %s FROM " TBL_CONTEXTS " c JOIN %s m ON m.context_id = c.id AND "
		"m.metric_id IN %s WHERE c.procedure = ?1 AND c.kind IN ('" KIND_STATEMENT "', '"
		KIND_CALLSITE "') AND c.file IS ?2 GROUP BY c.line ORDER BY c.line");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, procedure, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, file, -1, SQLITE_STATIC);
	size_t cap = 0, capv = 0;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		grow_array(lines, &cap, *count + 1, sizeof **lines);
		grow_array(values, &capv, *count + 1, sizeof **values);
		(*lines)[*count] = sqlite3_column_int(s, 0);
		(*values)[*count] = sqlite3_column_double(s, 1);
		(*count)++;
	}
	sqlite3_finalize(s);
	if (step == SQLITE_DONE)
		return 0;
	free(*lines);
	free(*values);
	*lines = NULL;
	*values = NULL;
	*count = 0;
	return dbr_fail_sql(r);
}

int dbr_search(struct dbr *r, const char *event, const char *metric, const char *what,
	       int64_t *ids, size_t max, size_t *count)
{
	*count = 0;
	/* Frames with a value above zero: a join, grouped by context. */
	sqlite3_stmt *s = prepare_sum(r, event, metric,
		"SELECT c.id, %s AS v FROM " TBL_CONTEXTS " c JOIN %s m ON m.context_id = c.id AND "
		"m.metric_id IN %s WHERE c.kind IN ('" KIND_FRAME "', '" KIND_INLINED "') AND "
		"instr(lower(c.procedure), lower(?1)) > 0 GROUP BY c.id HAVING v > 0 "
		"ORDER BY v DESC, c.id LIMIT ?2");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, what, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)max);
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW && *count < max)
		ids[(*count)++] = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return step == SQLITE_DONE || step == SQLITE_ROW ? 0 : dbr_fail_sql(r);
}

const char **dbr_overhead_types(struct dbr *r)
{
	const char **type = xcalloc((size_t)r->ncontexts + 1, sizeof *type);
	sqlite3_stmt *s = dbr_prepare(r, "SELECT id, overhead_id FROM " TBL_CONTEXT_TREE
				      " WHERE overhead_id IS NOT NULL");
	if (!s) {
		free(type);
		return NULL;
	}
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(s, 0);
		if (id >= 1 && id <= r->ncontexts)
			type[id - 1] = dbr_name(r, sqlite3_column_int64(s, 1));
	}
	sqlite3_finalize(s);
	if (step == SQLITE_DONE)
		return type;
	free(type);
	dbr_fail_sql(r);
	return NULL;
}
