/* trace.h - the samples over time: the database's trace table.
 *
 * Each thread file's TRAC section lists its samples in time order with
 * their tree node.  While the threads are merged, each thread's records
 * are turned into rows with the merged context of their node (the node
 * numbers mean nothing once the thread's own tree is freed); once the
 * tree is written, the rows are.  Times count from the run's start: the
 * earliest process start, CLOCK_MONOTONIC, one clock for the machine. */
#ifndef CULPRIT_TRACE_H
#define CULPRIT_TRACE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct ctree;
struct experiment;
struct exp_thread;

struct trace_row {
	double time;		/* seconds since the run started */
	double value;		/* the event's value, in its metric unit */
	uint32_t thread;	/* threads.id */
	uint32_t ctx;		/* context index; CTX_NONE when idle */
	uint32_t working, idle;
	uint8_t state;		/* enum mfile_trace_state */
	uint8_t event;		/* index into the tree's events */
};

struct trace_rows {
	struct trace_row *row;
	size_t n, cap;
	uint64_t origin_ns;	/* CLOCK_MONOTONIC of time 0 */
	uint64_t end_ns;	/* of the last process's end */
	double origin_realtime;	/* the same moment, seconds since 1970 */
	uint64_t dropped;	/* samples the collector did not trace */
	size_t threads;		/* threads with a trace */
};

/* Starts the rows of E's run: time 0 is its first process's start. */
void trace_rows_init(struct trace_rows *r, const struct experiment *e);
/* Adds thread TH's records, once TH is merged into T (its ctx_map made)
 * and before its file is released. */
void trace_rows_add_thread(struct trace_rows *r, struct ctree *t,
			   const struct exp_thread *th);
/* Writes the trace table (in thread and time order) and what the views
 * need into culprit_info; frees the rows.  Returns 0, or -1 after a
 * message (database.h). */
int trace_rows_write(sqlite3 *db, struct trace_rows *r);

#endif
