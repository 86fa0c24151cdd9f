/* open.c - opening a culprit database for reading, and the helpers every
 * query of the read layer goes through. */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void dbr_fail(struct dbr *r, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	free(r->error);
	r->error = msg ? msg : xstrdup("out of memory");
}

int dbr_fail_sql(struct dbr *r)
{
	dbr_fail(r, "%s: %s", r->path, sqlite3_errmsg(r->db));
	return -1;
}

const char *dbr_error(const struct dbr *r)
{
	return r->error ? r->error : "no error";
}

const char *dbr_file(const struct dbr *r)
{
	return r->path;
}

size_t dbr_nevents(const struct dbr *r)
{
	return r->nevents;
}

const char *dbr_event_name(const struct dbr *r, size_t i)
{
	return i < r->nevents ? r->event[i].name : NULL;
}

const char *dbr_event_unit(const struct dbr *r, size_t i)
{
	return i < r->nevents ? r->event[i].unit : NULL;
}

int64_t dbr_ncontexts(const struct dbr *r)
{
	return r->ncontexts;
}

sqlite3_stmt *dbr_prepare(struct dbr *r, const char *sql)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK) {
		dbr_fail(r, "%s: %s", r->path, sqlite3_errmsg(r->db));
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

int dbr_collect(struct dbr *r, sqlite3_stmt *s, size_t size, void *out, size_t *count,
		void (*read)(sqlite3_stmt *s, void *row, void *arg), void *arg,
		void (*free_rows)(void *rows, size_t count))
{
	char **rows = out;
	size_t cap = 0;
	int step;
	*rows = NULL;
	*count = 0;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		grow_array(rows, &cap, *count + 1, size);
		void *row = *rows + *count * size;
		memset(row, 0, size);
		read(s, row, arg);
		(*count)++;
	}
	sqlite3_finalize(s);
	if (step == SQLITE_DONE)
		return 0;
	free_rows(*rows, *count);
	*rows = NULL;
	*count = 0;
	return dbr_fail_sql(r);
}

char *dbr_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? xstrdup((const char *)t) : NULL;
}

double dbr_info_number(struct dbr *r, const char *key, double fallback)
{
	sqlite3_stmt *s = NULL;
	double v = fallback;
	if (sqlite3_prepare_v2(r->db, "SELECT value FROM " TBL_INFO " WHERE key = ?", -1, &s,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW)
			v = sqlite3_column_double(s, 0);
	}
	sqlite3_finalize(s);
	return v;
}

int dbr_idleness_measured(struct dbr *r)
{
	sqlite3_stmt *s = NULL;
	int measured = -1;
	if (sqlite3_prepare_v2(r->db, "SELECT value FROM " TBL_INFO " WHERE key = '"
			       INFO_IDLENESS_KEY "'", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(s, 0);
		measured = !(v && strcmp(v, INFO_IDLENESS_UNMEASURED) == 0);
	}
	sqlite3_finalize(s);
	return measured;
}

/* The schema version, or -1 when PATH is not SQLite at all. */
static int schema_version(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	int version = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	return sqlite3_finalize(s) == SQLITE_OK ? version : -1;
}

static int made_by_culprit(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	int culprit = 0;
	if (sqlite3_prepare_v2(db, "SELECT value FROM " TBL_INFO " WHERE key = '"
			       INFO_FORMAT_KEY "'", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(s, 0);
		culprit = v && strcmp((const char *)v, INFO_FORMAT_VALUE) == 0;
	}
	sqlite3_finalize(s);
	return culprit;
}

/* What to say of a database from an older culprit: one schema is read,
 * and the measurements it came from make it again. */
static void older_schema(sqlite3 *db, const char *path, int version, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	char *dirs = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM " TBL_INFO " WHERE key = 'measurements'", -1,
			       &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		dirs = dbr_text(s, 0);
	sqlite3_finalize(s);
	snprintf(err, errlen, "%s was made by an older culprit (schema %d; this culprit reads "
		 "schema %d); make it again from its measurements: culprit prof --force -o %s %s",
		 path, version, DB_SCHEMA_VERSION, path, dirs && *dirs ? dirs : "DIR");
	free(dirs);
}

/* Opens PATH and checks that it is a database this culprit reads. */
static sqlite3 *open_checked(const char *path, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int version;
	if (access(path, F_OK) != 0) {
		snprintf(err, errlen, "%s: no such file; make one with `culprit prof DIR`", path);
		return NULL;
	}
	/* One thread uses a reader: no mutex around every column read. */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "?");
		sqlite3_close(db);
		return NULL;
	}
	version = schema_version(db);
	if (version < 0)
		snprintf(err, errlen, "%s is not an SQLite database (%s)", path, sqlite3_errmsg(db));
	else if (!made_by_culprit(db))
		snprintf(err, errlen, "%s is an SQLite database, but not one made by culprit prof",
			 path);
	else if (version > DB_SCHEMA_VERSION)
		snprintf(err, errlen, "%s was made by a newer culprit (schema %d; this culprit reads "
			 "schema %d); upgrade culprit", path, version, DB_SCHEMA_VERSION);
	else if (version < DB_SCHEMA_VERSION)
		older_schema(db, path, version, err, errlen);
	else
		return db;
	sqlite3_close(db);
	return NULL;
}

/* Whether the tables and views of the schema are all there: a database
 * that lost one (edited, or damaged) gets one line, not an SQL error. */
static int check_tables(struct dbr *r)
{
	static const char *const table[] = { DB_TABLES_AND_VIEWS };
	sqlite3_stmt *s = dbr_prepare(r, "SELECT 1 FROM sqlite_master WHERE name = ?");
	if (!s)
		return -1;
	for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
		sqlite3_bind_text(s, 1, table[i], -1, SQLITE_STATIC);
		int found = sqlite3_step(s) == SQLITE_ROW;
		sqlite3_reset(s);
		if (found)
			continue;
		dbr_fail(r, "%s is damaged: it has no %s; make it again from its measurements with "
			 "culprit prof --force", r->path, table[i]);
		sqlite3_finalize(s);
		return -1;
	}
	sqlite3_finalize(s);
	return 0;
}

/* The events, and how many contexts there are. */
static int read_outline(struct dbr *r)
{
	if (check_tables(r) < 0)
		return -1;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT event, unit FROM " TBL_EVENTS " ORDER BY rowid");
	size_t cap = 0;
	while (s && sqlite3_step(s) == SQLITE_ROW) {
		grow_array(&r->event, &cap, r->nevents + 1, sizeof *r->event);
		r->event[r->nevents].name = dbr_text(s, 0);
		r->event[r->nevents].unit = dbr_text(s, 1);
		r->nevents++;
	}
	sqlite3_finalize(s);
	if (r->nevents == 0) {
		dbr_fail(r, "%s has no events: it holds no samples", r->path);
		return -1;
	}
	/* Readers index contexts by id: prof numbers them 1..N.  Anything
	 * else (an id of 2^40) would have them allocate for ids that are not
	 * there. */
	int64_t count = 0;
	/* The stored tree, not the view that names it: the count reads every
	 * row, and through the view's joins it took 160 ms of the viewer's
	 * first screen at a million contexts (30 ms so). */
	s = dbr_prepare(r, "SELECT max(id), count(*) FROM " TBL_CONTEXT_TREE);
	if (s && sqlite3_step(s) == SQLITE_ROW) {
		r->ncontexts = sqlite3_column_int64(s, 0);
		count = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	if (count < 1) {
		dbr_fail(r, "%s has no calling contexts: nothing was sampled", r->path);
		return -1;
	}
	if (r->ncontexts != count) {
		dbr_fail(r, "%s is damaged: its %lld contexts are not numbered 1 to %lld; make it "
			 "again from its measurements with culprit prof --force", r->path,
			 (long long)count, (long long)count);
		return -1;
	}
	return 0;
}

struct dbr *dbr_open(const char *path, char *err, size_t errlen)
{
	sqlite3 *db = open_checked(path, err, errlen);
	if (!db)
		return NULL;
	struct dbr *r = xcalloc(1, sizeof *r);
	r->db = db;
	r->path = xstrdup(path);
	if (read_outline(r) < 0) {
		snprintf(err, errlen, "%s", dbr_error(r));
		dbr_close(r);
		return NULL;
	}
	return r;
}

void dbr_close(struct dbr *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nevents; i++) {
		free(r->event[i].name);
		free(r->event[i].unit);
	}
	free(r->event);
	dbr_tree_free(r->tree);
	strtab_free(r->names);
	free(r->name_by_id);
	sqlite3_close(r->db);
	free(r->path);
	free(r->error);
	free(r);
}
