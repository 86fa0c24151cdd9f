/* tasks.c - task sizes and waiting times by task type: the
 * views task_types and task_histograms. */
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

void dbr_task_types_free(struct dbr_task_type *t, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(t[i].procedure);
		free(t[i].file);
		free(t[i].module);
	}
	free(t);
}

/* The type of T (N of them) that a histogram row names, or NULL. */
static struct dbr_task_type *find(struct dbr_task_type *t, size_t n, sqlite3_stmt *s)
{
	int64_t x = sqlite3_column_int64(s, 0);
	const char *proc = (const char *)sqlite3_column_text(s, 1);
	const char *file = (const char *)sqlite3_column_text(s, 2);
	int line = sqlite3_column_int(s, 3);
	const char *module = (const char *)sqlite3_column_text(s, 4);
	int64_t site = sqlite3_column_int64(s, 5);
	for (size_t i = 0; i < n; i++)
		if (t[i].experiment == x && t[i].line == line && t[i].site == site &&
		    dbr_same_name(t[i].procedure, proc) &&
		    dbr_same_name(t[i].file, file) && dbr_same_name(t[i].module, module))
			return &t[i];
	return NULL;
}

static int read_histograms(struct dbr *r, struct dbr_task_type *t, size_t n)
{
	sqlite3_stmt *s = dbr_prepare(r, "SELECT experiment_id, procedure, file, line, module, "
				      "site, kind, bucket, tasks FROM " VIEW_TASK_HISTOGRAMS);
	if (!s)
		return -1;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct dbr_task_type *y = find(t, n, s);
		const char *kind = (const char *)sqlite3_column_text(s, 6);
		int b = sqlite3_column_int(s, 7);
		if (!y || !kind || b < 0 || b >= DBR_TASK_BUCKETS)
			continue;
		y->hist[strcmp(kind, "wait") == 0][b] += sqlite3_column_double(s, 8);
	}
	sqlite3_finalize(s);
	return step == SQLITE_DONE ? 0 : dbr_fail_sql(r);
}

static void read_type(sqlite3_stmt *s, void *row, void *arg)
{
	struct dbr_task_type *y = row;
	(void)arg;
	y->experiment = sqlite3_column_int64(s, 0);
	y->procedure = dbr_text(s, 1);
	y->file = dbr_text(s, 2);
	y->line = sqlite3_column_int(s, 3);
	y->module = dbr_text(s, 4);
	y->site = sqlite3_column_int64(s, 5);
	y->tasks = sqlite3_column_double(s, 6);
	y->size = sqlite3_column_double(s, 7);
	y->wait = sqlite3_column_double(s, 8);
}

static void free_types(void *rows, size_t count)
{
	dbr_task_types_free(rows, count);
}

int dbr_task_types(struct dbr *r, struct dbr_task_type **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT experiment_id, procedure, file, line, module, "
				      "site, tasks, size, wait FROM " VIEW_TASK_TYPES
				      " ORDER BY experiment_id, size DESC");
	if (!s || dbr_collect(r, s, sizeof **out, out, count, read_type, NULL, free_types) < 0)
		return -1;
	if (read_histograms(r, *out, *count) < 0) {
		dbr_task_types_free(*out, *count);
		*out = NULL;
		*count = 0;
		return -1;
	}
	return 0;
}
