/* waits.c - where threads blocked (the wait_sites view), and the code
 * that ran while they waited (the frames' exclusive idleness by cause). */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

static void read_site(sqlite3_stmt *s, void *row, void *arg)
{
	struct dbr_wait_site *w = row;
	(void)arg;
	w->kind = dbr_text(s, 0);
	w->cause = dbr_text(s, 1);
	w->procedure = dbr_text(s, 2);
	w->file = dbr_text(s, 3);
	w->line = sqlite3_column_int(s, 4);
	w->module = dbr_text(s, 5);
	w->has_object = sqlite3_column_type(s, 6) != SQLITE_NULL;
	w->object = sqlite3_column_int64(s, 6);
	w->threads = sqlite3_column_int64(s, 7);
	w->count = sqlite3_column_int64(s, 8);
	w->seconds = sqlite3_column_double(s, 9);
	w->max_seconds = sqlite3_column_double(s, 10);
}

static void free_sites(void *rows, size_t count)
{
	dbr_wait_sites_free(rows, count);
}

int dbr_wait_sites(struct dbr *r, struct dbr_wait_site **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT kind, cause, procedure, file, line, module, "
				      "object, threads, count, seconds, max_seconds FROM "
				      VIEW_WAIT_SITES " ORDER BY seconds DESC, procedure");
	return s ? dbr_collect(r, s, sizeof **out, out, count, read_site, NULL, free_sites) : -1;
}

void dbr_wait_sites_free(struct dbr_wait_site *w, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(w[i].kind);
		free(w[i].cause);
		free(w[i].procedure);
		free(w[i].file);
		free(w[i].module);
	}
	free(w);
}

/* A row of the totals by kind: kind, count, seconds, max_seconds. */
static void read_total(sqlite3_stmt *s, void *row, void *arg)
{
	struct dbr_wait_site *w = row;
	(void)arg;
	w->kind = dbr_text(s, 0);
	w->count = sqlite3_column_int64(s, 1);
	w->seconds = sqlite3_column_double(s, 2);
	w->max_seconds = sqlite3_column_double(s, 3);
}

int dbr_wait_totals(struct dbr *r, const char *procedure, const char *file, int line,
		    struct dbr_wait_site **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT kind, sum(count), sum(seconds), max(max_seconds) "
				      "FROM " VIEW_WAIT_SITES " WHERE procedure = ?1 AND (?2 IS "
				      "NULL OR file IS ?2) AND (?3 <= 0 OR line = ?3) GROUP BY "
				      "kind ORDER BY 3 DESC");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, procedure, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, file, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, line);
	return dbr_collect(r, s, sizeof **out, out, count, read_total, NULL, free_sites);
}

static void read_top(sqlite3_stmt *s, void *row, void *arg)
{
	(void)arg;
	*(struct dbr_top *)row = (struct dbr_top){ sqlite3_column_int64(s, 0),
						   sqlite3_column_double(s, 1) };
}

static void free_top(void *rows, size_t count)
{
	(void)count;
	free(rows);
}

int dbr_top_frames(struct dbr *r, const char *event, const char *metric, size_t limit,
		   struct dbr_top **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	/* Frames' exclusive values include their lines'. */
	sqlite3_stmt *s = dbr_prepare(r, "SELECT m.context_id, m.exclusive FROM "
				      TBL_CONTEXT_METRICS " m JOIN " TBL_CONTEXTS " c ON c.id = "
				      "m.context_id WHERE m.event = ? AND m.metric = ? AND "
				      "m.exclusive > 0 AND c.kind IN ('" KIND_FRAME "', '"
				      KIND_INLINED "') ORDER BY m.exclusive DESC LIMIT ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, metric, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)limit);
	return dbr_collect(r, s, sizeof **out, out, count, read_top, NULL, free_top);
}
