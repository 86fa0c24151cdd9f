/* threads.c - one context's values across the threads that ran it. */
#include "internal.h"
#include "tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static sqlite3_stmt *prepare_for(struct dbr *r, const char *sql, int64_t id, const char *event,
				 const char *metric)
{
	sqlite3_stmt *s = dbr_prepare(r, sql);
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, event, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, metric, -1, SQLITE_STATIC);
	return s;
}

/* The statistics are a view's, which reads every row of a
 * metric to answer for one context (seconds on a large database): the
 * same figures from the context's own per-thread rows.  Over all threads
 * with values anywhere (culprit_info.value_threads): a thread without a
 * value here counts 0. */
static int read_spread(struct dbr *r, int64_t id, const char *event, const char *metric,
		       const char *which, struct dbr_spread *out)
{
	char *sql = xasprintf("SELECT %s, (SELECT CAST(value AS REAL) FROM " TBL_INFO
			      " WHERE key = 'value_threads') FROM " TBL_CONTEXT_THREAD_METRICS
			      " WHERE context_id = ?1 AND event = ?2 AND metric = ?3", which);
	sqlite3_stmt *s = prepare_for(r, sql, id, event, metric);
	free(sql);
	if (!s)
		return -1;
	double n = 0, sum = 0, squares = 0, min = 0, max = 0;
	size_t rows = 0, nonzero = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		double v = sqlite3_column_double(s, 0);
		n = sqlite3_column_double(s, 1);
		max = rows++ == 0 || v > max ? v : max;
		if (v != 0)
			min = nonzero++ == 0 || v < min ? v : min;
		sum += v;
		squares += v * v;
	}
	sqlite3_finalize(s);
	if (rows == 0 || n <= 0)
		return 0;
	out->have = 1;
	out->mean = sum / n;
	out->min = (double)nonzero < n ? 0.0 : min;
	out->max = max;
	out->stddev = sqrt(fmax(0, squares / n - out->mean * out->mean));
	return 0;
}

int dbr_thread_values(struct dbr *r, int64_t id, const char *event, const char *metric,
		      int exclusive, struct dbr_spread *out)
{
	const char *which = exclusive ? "exclusive" : "inclusive";
	memset(out, 0, sizeof *out);
	if (read_spread(r, id, event, metric, which, out) < 0)
		return -1;
	char *sql = xasprintf("SELECT t.id, t.tid || ' ' || coalesce(t.name, ''), coalesce(v.%s, 0) "
			      "FROM " TBL_THREADS " t LEFT JOIN " TBL_CONTEXT_THREAD_METRICS " v ON "
			      "v.thread_id = t.id AND v.context_id = ?1 AND v.event = ?2 AND "
			      "v.metric = ?3 ORDER BY t.id LIMIT 256", which);
	sqlite3_stmt *s = prepare_for(r, sql, id, event, metric);
	free(sql);
	if (!s)
		return -1;
	size_t cap = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		grow_array(&out->thread, &cap, out->nthreads + 1, sizeof *out->thread);
		struct dbr_thread_value *t = &out->thread[out->nthreads++];
		t->thread_id = sqlite3_column_int64(s, 0);
		t->name = dbr_text(s, 1);
		t->value = sqlite3_column_double(s, 2);
	}
	sqlite3_finalize(s);
	return 0;
}

void dbr_spread_free(struct dbr_spread *s)
{
	for (size_t i = 0; i < s->nthreads; i++)
		free(s->thread[i].name);
	free(s->thread);
	memset(s, 0, sizeof *s);
}
