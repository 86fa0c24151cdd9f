/* database.h - culprit's SQLite database: its schema, written by
 * `culprit prof`, read by `culprit report` and anyone with SQLite.
 *
 * The schema is the product's stable interface (doc/schema.md describes
 * it with example queries); its version is PRAGMA user_version, its names
 * are in dbread/schema.h, and dbread/ reads it. */
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

/* Builds the secondary indexes and the planner's statistics: after a bulk
 * load, which runs several times faster without them. */
void db_finish_load(sqlite3 *db);

/* Runs SQL, or prints the error and exits: for the postmortem's writes,
 * where a failure leaves nothing to save. */
void db_exec(sqlite3 *db, const char *sql);
sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql);
/* Steps STMT once (an insert), then resets it. */
void db_step_reset(sqlite3 *db, sqlite3_stmt *stmt);

#endif
