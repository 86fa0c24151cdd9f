/* experiments.c - the runs one database holds (`culprit scale`,
 * or `culprit prof` given several runs), and each one's values. */
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

void dbr_experiments_free(struct dbr_experiment *x, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(x[i].label);
		free(x[i].command);
	}
	free(x);
}

int dbr_experiments(struct dbr *r, struct dbr_experiment **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT id, label, threads, command, wall_time, cpu_time, "
				      "exit_status, cores FROM " TBL_EXPERIMENTS " ORDER BY id");
	if (!s)
		return -1;
	size_t n = 0, cap = 0;
	struct dbr_experiment *x = NULL;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		grow_array(&x, &cap, n + 1, sizeof *x);
		struct dbr_experiment *e = &x[n++];
		memset(e, 0, sizeof *e);
		e->id = sqlite3_column_int64(s, 0);
		e->label = dbr_text(s, 1);
		if (!e->label)
			e->label = xasprintf("%lld", (long long)e->id);
		e->threads = sqlite3_column_int(s, 2);
		e->command = dbr_text(s, 3);
		e->wall = sqlite3_column_double(s, 4);
		e->cpu = sqlite3_column_type(s, 5) == SQLITE_NULL ? -1 : sqlite3_column_double(s, 5);
		e->status = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 6);
		e->cores = sqlite3_column_int(s, 7);
	}
	sqlite3_finalize(s);
	if (step != SQLITE_DONE) {
		dbr_experiments_free(x, n);
		return dbr_fail_sql(r);
	}
	if (n == 0) {
		dbr_fail(r, "%s has no experiments; make it again with culprit prof", r->path);
		return -1;
	}
	*out = x;
	*count = n;
	return 0;
}

int dbr_event_metrics(struct dbr *r, const char *event, char ***out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT metric FROM " TBL_METRICS " WHERE event = ?1 "
				      "ORDER BY rowid");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	size_t n = 0, cap = 0;
	char **m = NULL;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		char *name = dbr_text(s, 0);
		if (!name)
			continue;
		grow_array(&m, &cap, n + 1, sizeof *m);
		m[n++] = name;
	}
	sqlite3_finalize(s);
	if (step != SQLITE_DONE) {
		for (size_t i = 0; i < n; i++)
			free(m[i]);
		free(m);
		return dbr_fail_sql(r);
	}
	*out = m;
	*count = n;
	return 0;
}

int dbr_experiment_values(struct dbr *r, int64_t x, size_t nexperiments, const char *event,
			  const char *const *metrics, size_t n, double *incl, double *excl)
{
	size_t nc = (size_t)r->ncontexts;
	if (nexperiments <= 1) {
		for (size_t k = 0; k < n; k++)
			if (dbr_tree_values(r, event, metrics[k], incl + k * nc, excl + k * nc) < 0)
				return -1;
		return 0;
	}
	sqlite3_stmt *s = dbr_prepare_metrics(r,
		"SELECT v.context_id, m.metric, v.inclusive, v.exclusive FROM "
		TBL_EXPERIMENT_VALUES " v JOIN " TBL_METRICS " m ON m.id = v.metric_id "
		"WHERE v.experiment_id = ?2 AND m.event = ?1 AND m.metric IN %s", metrics, n, event);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 2, x);
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(s, 0);
		int k = dbr_metric_index(metrics, n, (const char *)sqlite3_column_text(s, 1));
		if (id < 1 || id > r->ncontexts || k < 0)
			continue;
		incl[(size_t)k * nc + (size_t)id - 1] += sqlite3_column_double(s, 2);
		excl[(size_t)k * nc + (size_t)id - 1] += sqlite3_column_double(s, 3);
	}
	sqlite3_finalize(s);
	return step == SQLITE_DONE ? 0 : dbr_fail_sql(r);
}

uint8_t *dbr_runtime_code(struct dbr *r)
{
	uint8_t *rt = xcalloc((size_t)r->ncontexts + 1, 1);
	sqlite3_stmt *s = dbr_prepare(r, "SELECT id FROM " TBL_CONTEXT_TREE " WHERE runtime = 1");
	if (!s) {
		free(rt);
		return NULL;
	}
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(s, 0);
		if (id >= 1 && id <= r->ncontexts)
			rt[id - 1] = 1;
	}
	sqlite3_finalize(s);
	if (step != SQLITE_DONE) {
		free(rt);
		dbr_fail_sql(r);
		return NULL;
	}
	return rt;
}

int dbr_process_ends(struct dbr *r, struct dbr_process_end **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT pid, mpi_rank, coalesce(command, executable), "
				      "end_reason, end_status FROM " TBL_PROCESSES " WHERE end_reason "
				      "NOT IN ('exit', '_exit', 'exec') OR end_reason IS NULL ORDER BY id");
	if (!s)
		return -1;
	size_t n = 0, cap = 0;
	struct dbr_process_end *p = NULL;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		grow_array(&p, &cap, n + 1, sizeof *p);
		char *reason = dbr_text(s, 3);
		p[n] = (struct dbr_process_end){
			sqlite3_column_int64(s, 0),
			sqlite3_column_type(s, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 1),
			dbr_text(s, 2), reason ? reason : xstrdup("unknown"),
			reason && strcmp(reason, "signal") == 0 ? sqlite3_column_int(s, 4) : 0 };
		n++;
	}
	sqlite3_finalize(s);
	if (step != SQLITE_DONE) {
		dbr_process_ends_free(p, n);
		return dbr_fail_sql(r);
	}
	*out = p;
	*count = n;
	return 0;
}

void dbr_process_ends_free(struct dbr_process_end *p, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(p[i].command);
		free(p[i].reason);
	}
	free(p);
}
