/* tasks.c - task sizes and waiting times in the database.
 *
 * The OpenMP plugin counts, per thread, the tasks that ended there by the
 * call that created them (their type): how many, how long they ran, how
 * long the thread looked for work before each, and log2 histograms of
 * both (the collector's tasks.c, the TASK section).  Here the creation
 * sites get names and lines and go into `tasks`, the histograms into
 * `stored_task_buckets`; the views `task_types` and `task_histograms` sum them
 * by experiment. */
#include "tasks.h"
#include "database.h"
#include "fold.h"
#include "experiment.h"
#include "mfile_read.h"
#include "waits.h"

#include <stdlib.h>
#include <string.h>

/* Task type ID's histograms, Y's, with insert B into task_buckets.
 * Returns 0, or -1 after a message. */
static int write_buckets(sqlite3 *db, sqlite3_stmt *b, int64_t id, const struct mfile_task *y)
{
	for (int kind = 0; kind < 2; kind++)
		for (int n = 0; n < MFILE_TASK_BUCKETS; n++) {
			uint32_t c = kind ? y->wait_hist[n] : y->size_hist[n];
			if (!c)
				continue;
			sqlite3_bind_int64(b, 1, id);
			sqlite3_bind_text(b, 2, kind ? "wait" : "size", -1, SQLITE_STATIC);
			sqlite3_bind_int64(b, 3, n);
			sqlite3_bind_int64(b, 4, c);
			if (db_step_reset(db, b) < 0)
				return -1;
		}
	return 0;
}

int tasks_write(sqlite3 *db, const struct experiment *e)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO tasks (id, thread_id, module, procedure, "
				     "file, line, site, count, size, wait) VALUES (?,?,?,?,?,?,?,?,?,?)");
	sqlite3_stmt *b = s ? db_prepare(db, "INSERT INTO stored_task_buckets VALUES (?,?,?,?)") : NULL;
	int64_t id = 0;
	int rc = b ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < e->nthread; i++) {
		const struct exp_thread *t = e->thread[i];
		for (uint32_t k = 0; rc == 0 && t->t && k < t->t->ntasks; k++) {
			const struct mfile_task *y = &t->t->tasks[k];
			sqlite3_bind_int64(s, 1, ++id);
			sqlite3_bind_int64(s, 2, t->id);
			waits_bind_site(s, 3, t, y->module, y->site);
			sqlite3_bind_int64(s, 7, (sqlite3_int64)y->site);
			sqlite3_bind_int64(s, 8, (sqlite3_int64)y->count);
			sqlite3_bind_double(s, 9, (double)y->size_ns / 1e9);
			sqlite3_bind_double(s, 10, (double)y->wait_ns / 1e9);
			rc = db_step_reset(db, s);
			if (rc == 0)
				rc = write_buckets(db, b, id, y);
		}
	}
	sqlite3_finalize(s);
	sqlite3_finalize(b);
	return rc;
}

/* The source function around LINE of FILE: of the program's functions in
 * the tree declared in FILE, the last declared at or before LINE that is
 * not itself an outlined body, into *NAME (malloc'd; NULL when none).
 * Returns 0, or -1 after a message. */
static int function_around(sqlite3 *db, const char *file, int line, char **name)
{
	sqlite3_stmt *s = db_prepare(db, "SELECT DISTINCT procedure, line FROM contexts "
				     "WHERE kind IN ('frame', 'inlined') AND file = ?1 AND line <= ?2 "
				     "ORDER BY line DESC");
	*name = NULL;
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, file, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, line);
	int rc = SQLITE_DONE;
	while (!*name && (rc = db_step_row(db, s)) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(s, 0);
		if (p && !fold_frame(p))
			*name = strdup(p);
	}
	sqlite3_finalize(s);
	return *name || rc != -1 ? 0 : -1;
}

int tasks_name_outlined(sqlite3 *db)
{
	/* Each site once: a scan of the tree each. */
	sqlite3_stmt *s = db_prepare(db, "SELECT DISTINCT procedure, file, line FROM tasks "
				     "WHERE file IS NOT NULL AND folded IS NULL");
	sqlite3_stmt *u = s ? db_prepare(db, "UPDATE tasks SET procedure = ?1, folded = ?2 "
					 "WHERE procedure = ?2 AND file = ?3 AND line = ?4") : NULL;
	int rc = u ? 0 : -1, step = SQLITE_DONE;
	while (rc == 0 && (step = db_step_row(db, s)) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(s, 0);
		const char *file = (const char *)sqlite3_column_text(s, 1);
		int line = sqlite3_column_int(s, 2);
		char *name = NULL;
		if (!p || !fold_frame(p))
			continue;
		rc = function_around(db, file, line, &name);
		if (!name)
			continue;
		sqlite3_bind_text(u, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(u, 2, p, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(u, 3, file, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(u, 4, line);
		rc = db_step_reset(db, u);
		free(name);
	}
	if (rc == 0 && step < 0)
		rc = -1;
	sqlite3_finalize(s);
	sqlite3_finalize(u);
	return rc;
}
