/* internal.h - what the files of dbread/ share and readers do not see. */
#ifndef CULPRIT_DBREAD_INTERNAL_H
#define CULPRIT_DBREAD_INTERNAL_H

#include "dbread.h"

/* Sets R's error: one line, printf-style. */
void dbr_fail(struct dbr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fails with SQLite's own words about the last statement. */
int dbr_fail_sql(struct dbr *r);
void dbr_tree_free(struct dbr_tree *t);
/* A statement from SQL_FORMAT, whose one %s becomes METRICS (N) as an
 * SQL list of literals ("('work', 'overhead:task-creation')", quotes in
 * a name doubled), with EVENT bound as ?1; NULL after setting the error. */
sqlite3_stmt *dbr_prepare_metrics(struct dbr *r, const char *sql_format,
				  const char *const *metrics, size_t n, const char *event);

#endif
