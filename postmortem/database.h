/* database.h - culprit's SQLite database: its schema, written by
 * `culprit prof`, read by `culprit report` and anyone with SQLite.
 *
 * The schema is the product's stable interface (doc/schema.md describes
 * it with example queries); its version is PRAGMA user_version, its names
 * are in common/schema.h, and dbread/ reads it. */
#ifndef CULPRIT_DATABASE_H
#define CULPRIT_DATABASE_H

#include <sqlite3.h>
#include <stddef.h>

#include "schema.h"

/* The CREATE statements of the current schema. */
extern const char db_schema_sql[];

/* Creates an empty database at TMP_PATH (replacing any file there) with
 * the schema.  Returns NULL with ERR filled on failure. */
sqlite3 *db_create(const char *tmp_path, char *err, size_t errlen);

/* The writer's steps.  Each returns 0 (a statement), or -1 (NULL) after
 * one line that names the database file, SQLite's reason with the
 * system's, and for a full disk the way out; the callers pass the -1 on
 * without a word.  Nothing here exits: culprit prof must be able to
 * remove the half-written file (db_discard), which on a full disk may be
 * gigabytes.  A status left unread is a compile error (-Werror). */
#define DB_MUST_CHECK __attribute__((warn_unused_result))

/* Builds the secondary indexes and the planner's statistics: after a bulk
 * load, which runs several times faster without them. */
int db_finish_load(sqlite3 *db) DB_MUST_CHECK;
int db_exec(sqlite3 *db, const char *sql) DB_MUST_CHECK;
sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql) DB_MUST_CHECK;
/* Steps STMT once (an insert), then resets it. */
int db_step_reset(sqlite3 *db, sqlite3_stmt *stmt) DB_MUST_CHECK;
/* Steps STMT, a query: SQLITE_ROW or SQLITE_DONE, or -1 after the message. */
int db_step_row(sqlite3 *db, sqlite3_stmt *stmt) DB_MUST_CHECK;

/* Gives up DB, written to PATH: finalizes the statements a failed writer
 * left, closes it and removes PATH. */
void db_discard(sqlite3 *db, const char *path);

#endif
