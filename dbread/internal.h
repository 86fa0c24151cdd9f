/* internal.h - what the files of dbread/ share and readers do not see. */
#ifndef CULPRIT_DBREAD_INTERNAL_H
#define CULPRIT_DBREAD_INTERNAL_H

#include "dbread.h"

/* Sets R's error: one line, printf-style. */
void dbr_fail(struct dbr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fails with SQLite's own words about the last statement. */
int dbr_fail_sql(struct dbr *r);
void dbr_tree_free(struct dbr_tree *t);
/* "('work', 'idleness')": METRICS as an SQL list of literals (the names
 * are schema names, never user text: they are checked to be plain). */
char *dbr_metric_list(const char *const *metrics, size_t n);

#endif
