/* procedures.c - the procedure list: each procedure's totals over all its
 * frames (procedure_metrics), for the callers and flat views. */
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

int dbr_same_name(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static struct dbr_procedure *add(struct dbr_procedure **p, size_t *n, size_t *cap, size_t nmetrics,
				 sqlite3_stmt *s)
{
	grow_array(p, cap, *n + 1, sizeof **p);
	struct dbr_procedure *q = &(*p)[(*n)++];
	q->procedure = dbr_text(s, 0);
	q->module = dbr_text(s, 1);
	q->file = dbr_text(s, 2);
	q->incl = xcalloc(nmetrics, sizeof *q->incl);
	q->excl = xcalloc(nmetrics, sizeof *q->excl);
	return q;
}

int dbr_procedures(struct dbr *r, const char *event, const char *const *metrics, size_t n,
		   struct dbr_procedure **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare_metrics(r, "SELECT procedure, module, file, metric, inclusive, "
		"exclusive FROM " TBL_PROCEDURE_METRICS " WHERE event = ?1 AND metric IN %s "
		"ORDER BY procedure, module, file", metrics, n, event);
	if (!s)
		return -1;
	struct dbr_procedure *p = NULL, *cur = NULL;
	size_t np = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (!cur || !dbr_same_name(cur->procedure, (const char *)sqlite3_column_text(s, 0)) ||
		    !dbr_same_name(cur->module, (const char *)sqlite3_column_text(s, 1)) ||
		    !dbr_same_name(cur->file, (const char *)sqlite3_column_text(s, 2)))
			cur = add(&p, &np, &cap, n, s);
		int k = dbr_metric_index(metrics, n, (const char *)sqlite3_column_text(s, 3));
		if (k >= 0) {
			cur->incl[k] = sqlite3_column_double(s, 4);
			cur->excl[k] = sqlite3_column_double(s, 5);
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		dbr_procedures_free(p, np);
		return dbr_fail_sql(r);
	}
	*out = p;
	*count = np;
	return 0;
}

void dbr_procedures_free(struct dbr_procedure *p, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(p[i].procedure);
		free(p[i].module);
		free(p[i].file);
		free(p[i].incl);
		free(p[i].excl);
	}
	free(p);
}

int dbr_procedure_frames(struct dbr *r, const struct dbr_procedure *p, const char *event,
			 const char *const *metrics, size_t n, int64_t **ids,
			 struct dbr_procedure **values, struct dbr_caller_of **callers,
			 size_t *count)
{
	*ids = NULL;
	*values = NULL;
	if (callers)
		*callers = NULL;
	*count = 0;
	/* Numbers compared in every context, and every value of a frame read
	 * in one step, its metric found by number here. */
	/* The caller too (dbr_callers' rule), at no extra scan. */
#define FRAMES_BY_NUMBER_SQL                                                    \
	"SELECT c.id, v.metric_id, v.inclusive, v.exclusive, k.id, k.kind_id, k.procedure_id " \
	"FROM " TBL_CONTEXT_TREE " c JOIN %s v ON v.context_id = c.id AND v.metric_id IN %s " \
	"JOIN " TBL_CONTEXT_TREE " u ON u.id = c.parent_id JOIN " TBL_CONTEXT_TREE " k " \
	"ON k.id = CASE WHEN u.kind_id IN (SELECT id FROM " TBL_NAMES " WHERE name IN ('"    \
	KIND_CALLSITE "', '" KIND_STATEMENT "')) THEN u.parent_id ELSE u.id END "     \
	"WHERE c.procedure_id = " NAME_ID("?2") " AND c.module_id IS " NAME_ID("?3")   \
	" AND c.file_id IS " NAME_ID("?4") " AND c.kind_id IN (SELECT id FROM " TBL_NAMES \
	" WHERE name IN ('" KIND_FRAME "', '" KIND_INLINED "')) ORDER BY c.id"
	struct dbr_recipe recipe = { 0 };
	if (dbr_recipe_init(r, event, metrics, n, &recipe) < 0)
		return -1;
	sqlite3_stmt *s = dbr_recipe_prepare(r, FRAMES_BY_NUMBER_SQL, &recipe);
	if (!s) {
		dbr_recipe_free(&recipe);
		return -1;
	}
	sqlite3_bind_text(s, 2, p->procedure, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, p->module, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, p->file, -1, SQLITE_STATIC);
	size_t cap = 0, capv = 0, capc = 0;
	struct dbr_caller_of *of = NULL;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		if (!*count || (*ids)[*count - 1] != id) {
			grow_array(ids, &cap, *count + 1, sizeof **ids);
			grow_array(values, &capv, *count + 1, sizeof **values);
			struct dbr_procedure *v = &(*values)[*count];
			memset(v, 0, sizeof *v);
			v->incl = xcalloc(n, sizeof *v->incl);
			v->excl = xcalloc(n, sizeof *v->excl);
			if (callers) {
				grow_array(&of, &capc, *count + 1, sizeof *of);
				const char *kind = dbr_name(r, sqlite3_column_int64(s, 5));
				int walk = !kind || (!dbr_is_frame(kind[0]) && kind[0] != KIND_ROOT[0]);
				of[*count] = (struct dbr_caller_of){
					walk ? -1 : sqlite3_column_int64(s, 4), kind ? kind[0] : 0,
					dbr_name(r, sqlite3_column_int64(s, 6)) };
			}
			(*ids)[(*count)++] = id;
		}
		struct dbr_procedure *v = &(*values)[*count - 1];
		/* Every row is one the recipe uses. */
		dbr_recipe_add(&recipe, sqlite3_column_int64(s, 1), sqlite3_column_double(s, 2),
			       sqlite3_column_double(s, 3), v->incl, v->excl);
	}
	sqlite3_finalize(s);
	dbr_recipe_free(&recipe);
	if (rc == SQLITE_DONE && callers) {
		/* Callers that need a walk, the other way. */
		if (dbr_callers_walk(r, *ids, *count, of) < 0)
			rc = SQLITE_ERROR;
	}
	if (rc == SQLITE_DONE && callers)
		*callers = of;
	else
		free(of);
	if (rc != SQLITE_DONE) {
		free(*ids);
		dbr_procedures_free(*values, *count);
		*ids = NULL;
		*values = NULL;
		*count = 0;
		return dbr_fail_sql(r);
	}
	return 0;
}
