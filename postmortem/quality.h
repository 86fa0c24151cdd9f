/* quality.h - how far a run's figures can be trusted (quality.c). */
#ifndef CULPRIT_QUALITY_H
#define CULPRIT_QUALITY_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Fills the measurement_quality table of DB from its thread counters and
 * metric totals, which must be written already, and from the count of
 * threads the process files name (THREADS_EXPECTED) against those read.
 * Returns 0, or -1 after a message on a database error (as db_exec). */
int quality_write(sqlite3 *db, uint64_t threads_expected, uint64_t threads_read);

/* Into BUF, one line (no newline) naming each item of DB's
 * measurement_quality past 5% and what to do about it.  Returns whether
 * there is one (1 or 0), or -1 after a message on a database error. */
int quality_warning(sqlite3 *db, char *buf, size_t size);

#endif
