/* effort.c - where the effort went, for the run and for each thread, and
 * how far to trust it: the rows under `culprit report --summary`. */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

static void read_quality(sqlite3_stmt *s, void *row, void *arg)
{
	(void)arg;
	*(struct dbr_quality *)row = (struct dbr_quality){
		dbr_text(s, 0), sqlite3_column_double(s, 1), dbr_text(s, 2),
		sqlite3_column_double(s, 3), dbr_text(s, 4) };
}

static void free_quality(void *rows, size_t count)
{
	dbr_quality_free(rows, count);
}

int dbr_quality(struct dbr *r, struct dbr_quality **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT item, value, unit, percent, advice FROM "
				      TBL_MEASUREMENT_QUALITY " ORDER BY item");
	return s ? dbr_collect(r, s, sizeof **out, out, count, read_quality, NULL, free_quality)
		 : -1;
}

void dbr_quality_free(struct dbr_quality *q, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(q[i].item);
		free(q[i].unit);
		free(q[i].advice);
	}
	free(q);
}

const struct dbr_quality *dbr_quality_find(const struct dbr_quality *q, size_t count,
					   const char *item)
{
	for (size_t i = 0; i < count; i++)
		if (q[i].item && strcmp(q[i].item, item) == 0)
			return &q[i];
	return NULL;
}

/* The summary's order: useful work, overhead, idleness; the causes in
 * idle_causes.h's order; then the larger value, then the name. */
static int category_rank(const char *category)
{
	return dbr_same_name(category, "useful work") ? 0 : dbr_same_name(category, MET_OVERHEAD) ? 1
											: 2;
}

static int by_summary_order(const void *a, const void *b)
{
	const struct dbr_effort_part *x = a, *y = b;
	int cx = category_rank(x->category), cy = category_rank(y->category);
	if (cx != cy)
		return cx - cy;
	int kx = idle_cause_of_metric(x->metric), ky = idle_cause_of_metric(y->metric);
	kx = kx < 0 ? CULPRIT_IDLE_CAUSES : kx;
	ky = ky < 0 ? CULPRIT_IDLE_CAUSES : ky;
	if (kx != ky)
		return kx - ky;
	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return strcmp(x->metric ? x->metric : "", y->metric ? y->metric : "");
}

static void read_part(sqlite3_stmt *s, void *row, void *arg)
{
	(void)arg;
	*(struct dbr_effort_part *)row = (struct dbr_effort_part){
		dbr_text(s, 0), dbr_text(s, 1), sqlite3_column_double(s, 2),
		sqlite3_column_double(s, 3) };
}

static void free_parts(void *rows, size_t count)
{
	dbr_effort_summary_free(rows, count);
}

int dbr_effort_summary(struct dbr *r, const char *event, struct dbr_effort_part **out,
		       size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT category, metric, value, percent FROM "
				      VIEW_EFFORT_SUMMARY " WHERE event = ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	if (dbr_collect(r, s, sizeof **out, out, count, read_part, NULL, free_parts) < 0)
		return -1;
	if (*count)
		qsort(*out, *count, sizeof **out, by_summary_order);
	return 0;
}

void dbr_effort_summary_free(struct dbr_effort_part *p, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(p[i].category);
		free(p[i].metric);
	}
	free(p);
}

int dbr_threads_waited(struct dbr *r, const char *event)
{
	sqlite3_stmt *s = dbr_prepare(r, "SELECT 1 FROM " TBL_THREAD_METRICS " WHERE event = ? "
				      "AND metric = '" MET_WAITED "' AND value > 0 LIMIT 1");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	int step = sqlite3_step(s);
	sqlite3_finalize(s);
	return step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : dbr_fail_sql(r);
}

/* A thread's row, with N shares (ARG). */
static void read_share(sqlite3_stmt *s, void *row, void *arg)
{
	size_t n = *(const size_t *)arg;
	struct dbr_thread_share *t = row;
	t->id = sqlite3_column_int64(s, 0);
	t->tid = sqlite3_column_int64(s, 1);
	t->name = dbr_text(s, 2);
	t->effort = sqlite3_column_double(s, 3);
	t->percent = xcalloc(n + 1, sizeof *t->percent);
	for (size_t k = 0; k < n; k++)
		t->percent[k] = sqlite3_column_double(s, 4 + (int)k);
}

static void free_shares(void *rows, size_t count)
{
	dbr_thread_shares_free(rows, count);
}

int dbr_thread_shares(struct dbr *r, const char *event, const char *const *patterns, size_t n,
		      struct dbr_thread_share **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	/* A share per pattern: the sum of the thread's percents of the
	 * metrics it matches (LIKE: "overhead:%" is every type's). */
	char *list = xstrdup("");
	for (size_t k = 0; k < n; k++) {
		char *longer = xasprintf("%s, (SELECT sum(percent) FROM " TBL_THREAD_METRICS " m "
					 "WHERE m.thread_id = t.id AND m.event = e.event AND "
					 "m.metric LIKE ?%zu)", list, k + 2);
		free(list);
		list = longer;
	}
	char *sql = xasprintf("SELECT t.id, t.tid, t.name, e.value%s FROM " TBL_THREADS " t JOIN "
			      TBL_THREAD_METRICS " e ON e.thread_id = t.id WHERE e.event = ?1 AND "
			      "e.metric = '" MET_EFFORT "' AND e.value > 0 ORDER BY t.id", list);
	free(list);
	sqlite3_stmt *s = dbr_prepare(r, sql);
	free(sql);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	for (size_t k = 0; k < n; k++)
		sqlite3_bind_text(s, (int)k + 2, patterns[k], -1, SQLITE_STATIC);
	return dbr_collect(r, s, sizeof **out, out, count, read_share, &n, free_shares);
}

void dbr_thread_shares_free(struct dbr_thread_share *t, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(t[i].name);
		free(t[i].percent);
	}
	free(t);
}
