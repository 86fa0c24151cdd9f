/* diagnose.h - per-context diagnoses, after seed 001's granularity advice.
 *
 * For each procedure frame of the program's own code, from its inclusive
 * effort E (work + idleness), idleness I and overhead O:
 *   I/E high, O/E low  -> "needs more parallelism": a finer grain; or
 *                         "serial phase" when the code runs outside every
 *                         parallel construct (only first threads ran it,
 *                         and most of I is idleness:serial): parallelize
 *                         it or overlap it;
 *   O/E high, I/E low  -> "too fine-grained": a coarser grain;
 *   both high          -> "inefficient parallelization": change it.
 * "High" is at or above a threshold; only contexts whose idleness plus
 * overhead is a noticeable share of all effort are diagnosed.
 *
 * Runtime code (frames of modules the overhead rules call a runtime's or
 * transparent, unknown code, procedures marked as a runtime's) is never
 * diagnosed: it counts for the nearest program frame above it, whose row
 * names the runtime calls that hold its idleness and overhead.  A program
 * frame is also judged on its runtime calls alone (scope "runtime"), and
 * diagnosed so when its inclusive values are not.
 *
 * The ranked list keeps the contexts most worth a programmer's time: the
 * outermost frame of a recursion (not each level), and a frame only when
 * the program frames below it with the same kind of problem account for
 * less than 80% of its idleness and overhead, or else for its runtime
 * calls.  Ranked by that waste's share of all effort.
 */
#ifndef CULPRIT_DIAGNOSE_H
#define CULPRIT_DIAGNOSE_H

#include <sqlite3.h>
#include <stdint.h>

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

struct diag_result;

/* Judges every context of the merged tree T, whose rules (if any) say
 * which code is a runtime's.  Reads T only and touches no database, so
 * it may run beside the writing of the tree. */
struct diag_result *diagnose(const struct ctree *t, const struct diag_thresholds *th);
/* By node: 1 where the code is a runtime's or the system's rather than the
 * program's (a frame in a runtime or system module, code outside every
 * module, a procedure the rules call a runtime's, and everything under
 * such a frame until a program frame), else 0.  The caller frees it. */
uint8_t *diagnose_runtime_code(const struct ctree *t);
/* Fills the diagnoses table with D's judgements, and frees D.  Returns
 * 0, or -1 after a message (database.h). */
int diagnose_write(sqlite3 *db, struct diag_result *d);
/* Frees D unwritten (a failed write; NULL: nothing). */
void diagnose_free(struct diag_result *d);

#endif
