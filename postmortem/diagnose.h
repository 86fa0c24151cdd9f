/* diagnose.h - per-context diagnoses, after seed 001's granularity advice.
 *
 * For each procedure frame, from its inclusive effort E (work + idleness),
 * idleness I and overhead O:
 *   I/E high, O/E low  -> "needs more parallelism": a finer grain;
 *   O/E high, I/E low  -> "too fine-grained": a coarser grain;
 *   both high          -> "inefficient parallelization": change it.
 * "High" is at or above a threshold; only contexts whose idleness plus
 * overhead is a noticeable share of all effort are diagnosed.
 *
 * The ranked list keeps the contexts most worth a programmer's time: the
 * outermost frame of a recursion (not each level), and a frame only when
 * the frames below it that are listed account for less than 80% of its
 * idleness and overhead.  Ranked by that waste's share of all effort.
 */
#ifndef CULPRIT_DIAGNOSE_H
#define CULPRIT_DIAGNOSE_H

#include <sqlite3.h>

struct ctree;

/* Fractions, 0..1. */
struct diag_thresholds {
	double idleness;	/* of a context's effort */
	double overhead;	/* of a context's effort */
	double share;		/* idleness + overhead, of all effort */
};

#define DIAG_IDLENESS_DEFAULT 0.20
#define DIAG_OVERHEAD_DEFAULT 0.20
#define DIAG_SHARE_DEFAULT 0.02

/* Fills the diagnoses table from the merged tree T. */
void diagnose_write(sqlite3 *db, const struct ctree *t, const struct diag_thresholds *th);

#endif
