/* tables.h - `culprit prof`'s writes: each table of the database (the
 * schema is database.c's) filled from the loaded experiment, the merged
 * tree, the symbols and the overhead rules.
 *
 * Every function here writes inside the caller's transaction and, like
 * db_step_reset, returns 0, or -1 after a message on a database error:
 * the caller then gives the database up (db_discard). */
#ifndef CULPRIT_TABLES_H
#define CULPRIT_TABLES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct ctree;
struct diag_thresholds;
struct exp_thread;
struct experiment;
struct ovh_rules;
struct symbolizer;

/* culprit_info: the format, culprit's version, when, from which DIRS. */
int tables_write_info(sqlite3 *db, char *const *dirs, int ndirs);
/* processes, threads, thread_counters and notes: who was measured. */
int tables_write_identity(sqlite3 *db, const struct experiment *e);
/* Whether effort and useful_work can be left to the database's views
 * (metrics.derived_from): the views' arithmetic gives every stored value
 * of them, per context and per thread, but for rounding.  Almost always;
 * when not (a value the views would get wrong), they are stored. */
int tables_derivable(const struct ctree *t);
/* events and metrics, with their descriptions and totals; DERIVABLE:
 * tables_derivable's answer. */
int tables_write_events(sqlite3 *db, const struct ctree *t, int derivable);
/* context_tree, names and stored_values: the merged tree and its values,
 * without effort and useful_work when DERIVABLE.  SOLE
 * (thread_values_sole) says which contexts one thread alone reached. */
int tables_write_tree(sqlite3 *db, const struct ctree *t, const uint32_t *sole, int derivable);
/* procedure_metrics: each procedure's values, summed over its contexts. */
int tables_write_procedures(sqlite3 *db, const struct ctree *t);
/* modules: every module symbolized, with what was wrong with it. */
int tables_write_modules(sqlite3 *db, struct symbolizer *sym);
/* overhead_rules, in the order they were tried. */
int tables_write_rules(sqlite3 *db, const struct ovh_rules *rules);
/* The diagnoses' thresholds, into culprit_info. */
int tables_write_thresholds(sqlite3 *db, const struct diag_thresholds *th);

/* Each thread's values, gathered while the threads are merged one by one
 * and written (context_thread_metrics) once all are in, in key order:
 * inserting them thread by thread scattered them over the whole table,
 * several times slower.  TREE must outlive the object. */
struct thread_values;

/* NULL after a message. */
struct thread_values *thread_values_new(sqlite3 *db, const struct ctree *tree);
/* Frees V unwritten (a failed write; NULL: nothing). */
void thread_values_free(struct thread_values *v);
/* ctree_add_thread's sink (a ctx_thread_sink): keeps one value of thread TH. */
void thread_values_add(void *values, const struct exp_thread *th, uint32_t ctx, uint32_t metric,
		       double incl, double excl);
/* Writes thread TH's TOTALS (by metric, as ctree_add_thread left them)
 * into thread_metrics now: they are small. */
int thread_values_totals(struct thread_values *v, const struct exp_thread *th,
			 const double *totals);
/* The same for a thread known by its id (threads.id): the totals other
 * ranks merged (`culprit prof --mpi`). */
int thread_values_totals_id(struct thread_values *v, uint32_t thread, const double *totals);
/* Takes ROWS (malloc'd, CAP of room) as V's values, in place of the none
 * it holds: a merge's values gathered elsewhere (partial.c). */
struct thread_row {
	uint32_t ctx, metric, thread;
	double incl, excl;
};
void thread_values_adopt(struct thread_values *v, struct thread_row *rows, size_t n,
			 size_t cap);
/* How many values are waiting. */
size_t thread_values_count(const struct thread_values *v);
/* By context: the one thread with values there, SOLE_SEVERAL when more
 * than one, 0 when none.  Owned by V. */
#define SOLE_SEVERAL UINT32_MAX
const uint32_t *thread_values_sole(struct thread_values *v);
/* Writes the values of contexts several threads reached into
 * stored_thread_values (the others' are their totals), without effort
 * and useful_work when DERIVABLE, and frees V. */
int thread_values_write(struct thread_values *v, int derivable);
/* Each experiment's values (runs.h), summed over its threads from the
 * values V holds, for stored_experiment_values; NULL when E has one experiment,
 * whose values are the tree's.  Call before thread_values_sort. */
struct run_values;
struct run_values *thread_values_by_run(const struct thread_values *v, const struct experiment *e);
/* Writes them into stored_experiment_values and frees RV (NULL: nothing). */
int run_values_write(sqlite3 *db, struct run_values *rv);
/* Frees RV unwritten (NULL: nothing). */
void run_values_free(struct run_values *rv);
/* Keeps only the rows stored_thread_values needs, in its key order:
 * the first half of thread_values_write, which touches no database and
 * may run beside other writing (after thread_values_sole). */
void thread_values_sort(struct thread_values *v, int derivable);

#endif
