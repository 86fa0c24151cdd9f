/* batch.h - rows inserted many to a statement.
 *
 * Loading a large table row by row, SQLite spends more time stepping and
 * resetting the one-row INSERT than storing the row.  A statement that
 * inserts 64 rows at once (VALUES (...), (...), ...) loads the same rows
 * in less than half the time (2.7 M context values: 2.6 s -> 1.1 s).
 *
 * A batch takes a table's values in column order, row after row, and
 * inserts them when it has a statement's worth; db_batch_finish inserts
 * the rest.  Strings are not copied: each must stay valid until the
 * batch is finished.
 *
 * A batch keeps its first database error, as a stdio stream does: the
 * values after it are dropped, and db_batch_finish reports it.  The
 * loops that fill a batch then need no test per value. */
#ifndef CULPRIT_BATCH_H
#define CULPRIT_BATCH_H

#include <sqlite3.h>
#include <stdint.h>

struct db_batch;

/* A batch of rows for TABLE, which has NCOLUMNS columns. */
struct db_batch *db_batch_new(sqlite3 *db, const char *table, int ncolumns);
void db_batch_int(struct db_batch *b, int64_t v);
void db_batch_real(struct db_batch *b, double v);
/* NULL gives a null. */
void db_batch_text(struct db_batch *b, const char *v);
void db_batch_null(struct db_batch *b);
/* Inserts what is left and frees B.  Returns 0, or -1 when an insert
 * failed (said once, as db_step_reset says it). */
int db_batch_finish(struct db_batch *b) __attribute__((warn_unused_result));

#endif
