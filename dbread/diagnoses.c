/* diagnoses.c - the contexts culprit prof found most worth a look. */
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

static sqlite3_stmt *prepare(struct dbr *r, const char *where)
{
	char *sql = xasprintf("SELECT context_id, rank, diagnosis, advice, effort, effort_percent, "
			      "idleness_percent, overhead_percent, waste_percent, scope, "
			      "runtime_percent, runtime FROM " TBL_DIAGNOSES " WHERE %s", where);
	sqlite3_stmt *s = dbr_prepare(r, sql);
	free(sql);
	return s;
}

static void read_row(sqlite3_stmt *s, struct dbr_diagnosis *d)
{
	memset(d, 0, sizeof *d);
	d->context_id = sqlite3_column_int64(s, 0);
	d->rank = sqlite3_column_type(s, 1) == SQLITE_NULL ? 0 : sqlite3_column_int(s, 1);
	d->diagnosis = dbr_text(s, 2);
	d->advice = dbr_text(s, 3);
	d->effort = sqlite3_column_double(s, 4);
	d->effort_percent = sqlite3_column_double(s, 5);
	d->idleness_percent = sqlite3_column_double(s, 6);
	d->overhead_percent = sqlite3_column_double(s, 7);
	d->waste_percent = sqlite3_column_double(s, 8);
	d->scope = dbr_text(s, 9);
	d->has_runtime_percent = sqlite3_column_type(s, 10) != SQLITE_NULL;
	d->runtime_percent = sqlite3_column_double(s, 10);
	d->runtime = dbr_text(s, 11);
}

static void read_one(sqlite3_stmt *s, void *row, void *arg)
{
	(void)arg;
	read_row(s, row);
}

static void free_rows(void *rows, size_t count)
{
	dbr_diagnoses_free(rows, count);
}

int dbr_diagnoses(struct dbr *r, const char *event, struct dbr_diagnosis **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = prepare(r, "event = ?1 AND rank IS NOT NULL ORDER BY rank");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	return dbr_collect(r, s, sizeof **out, out, count, read_one, NULL, free_rows);
}

int dbr_diagnosis_of(struct dbr *r, const char *event, int64_t id, struct dbr_diagnosis *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *s = prepare(r, "event = ?1 AND context_id = ?2");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, id);
	int found = sqlite3_step(s) == SQLITE_ROW;
	if (found)
		read_row(s, out);
	sqlite3_finalize(s);
	return found;
}

void dbr_diagnosis_clear(struct dbr_diagnosis *d)
{
	free(d->diagnosis);
	free(d->advice);
	free(d->scope);
	free(d->runtime);
	memset(d, 0, sizeof *d);
}

void dbr_diagnoses_free(struct dbr_diagnosis *d, size_t count)
{
	for (size_t i = 0; i < count; i++)
		dbr_diagnosis_clear(&d[i]);
	free(d);
}
