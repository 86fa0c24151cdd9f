/* quality.c - how far a run's figures can be trusted: what culprit itself
 * took, and the samples that lost part of their path or were dropped.
 *
 * Computed from the database being written (its thread counters and
 * metric totals) into the measurement_quality table, which culprit report
 * --summary shows, and turned into one warning line by culprit prof when
 * any item passes 5%, with what to do about it.
 */
#include "database.h"
#include "quality.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUALITY_WARN_PERCENT 5.0

/* The table being written: its insert, and whether a statement failed
 * (said once; what follows is skipped, and quality_write fails). */
struct quality {
	sqlite3 *db;
	sqlite3_stmt *ins;
	int failed;
};

/* The number query SQL (with text A and B bound, where not NULL) gives;
 * 0 for none, or after a failure. */
static double number(struct quality *q, const char *sql, const char *a, const char *b)
{
	sqlite3_stmt *s = q->failed ? NULL : db_prepare(q->db, sql);
	if (!s) {
		q->failed = 1;
		return 0;
	}
	if (a)
		sqlite3_bind_text(s, 1, a, -1, SQLITE_STATIC);
	if (b)
		sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
	int rc = db_step_row(q->db, s);
	double v = rc == SQLITE_ROW ? sqlite3_column_double(s, 0) : 0;
	q->failed |= rc < 0;
	sqlite3_finalize(s);
	return v;
}

/* The sum over threads of counter NAME. */
static double counter(struct quality *q, const char *name)
{
	return number(q, "SELECT total(value) FROM thread_counters WHERE name = ?", name, NULL);
}

/* The total of metric METRIC of EVENT (0 if it has none). */
static double total(struct quality *q, const char *event, const char *metric)
{
	return number(q, "SELECT total(total) FROM metrics WHERE event = ? AND metric = ?", event,
		      metric);
}

/* The event culprit's own time is told in: CPU time if it was sampled,
 * else the first time event; NULL when none was (then samples count). */
static char *time_event(struct quality *q)
{
	sqlite3_stmt *s = q->failed ? NULL
				    : db_prepare(q->db, "SELECT event FROM events WHERE unit = "
						 "'seconds' ORDER BY event <> 'cputime', rowid LIMIT 1");
	if (!s) {
		q->failed = 1;
		return NULL;
	}
	char *name = NULL;
	int rc = db_step_row(q->db, s);
	if (rc == SQLITE_ROW)
		name = xstrdup((const char *)sqlite3_column_text(s, 0));
	q->failed |= rc < 0;
	sqlite3_finalize(s);
	return name;
}

static void put(struct quality *q, const char *item, double value, const char *unit,
		double whole, const char *advice)
{
	sqlite3_stmt *ins = q->ins;
	if (q->failed)
		return;
	sqlite3_bind_text(ins, 1, item, -1, SQLITE_STATIC);
	sqlite3_bind_double(ins, 2, value);
	sqlite3_bind_text(ins, 3, unit, -1, SQLITE_STATIC);
	if (whole > 0)
		sqlite3_bind_double(ins, 4, 100 * value / whole);
	else
		sqlite3_bind_null(ins, 4);
	sqlite3_bind_text(ins, 5, advice, -1, SQLITE_STATIC);
	q->failed |= db_step_reset(q->db, ins) < 0;
}

/* THREADS_EXPECTED: the threads the process files count; THREADS_READ:
 * those whose files were read. */
int quality_write(sqlite3 *db, uint64_t threads_expected, uint64_t threads_read)
{
	struct quality qw = { db, NULL, 0 }, *q = &qw;
	q->ins = db_prepare(db, "INSERT INTO " TBL_MEASUREMENT_QUALITY " VALUES (?,?,?,?,?)");
	if (!q->ins)
		return -1;
	double measured = counter(q, "measurement_samples");
	double dropped = counter(q, "dropped:tree_full") + counter(q, "dropped:busy") +
			 counter(q, "dropped:queue_full");
	double taken = counter(q, "samples") + counter(q, "idle_samples") + measured + dropped;
	double handler = counter(q, "collector:handler_ns") * 1e-9;

	/* Culprit's own work: in its callbacks (sampled, the measurement
	 * metric) and in its signal handler (timed). */
	char *ev = time_event(q);
	if (ev) {
		char idle[96];
		snprintf(idle, sizeof idle, "idle_value:%s", ev);
		double callbacks = total(q, ev, MET_MEASUREMENT);
		double whole = total(q, ev, MET_WORK) + counter(q, idle) * 1e-9 + callbacks + handler;
		static const char callbacks_advice[] =
			"mostly following the runtime, a record per task or region: coarser "
			"tasks cost less; it is kept out of the program's figures";
		static const char handler_advice[] =
			"mostly taking samples: lower the sampling rate (-e CPUTIME@f250)";
		put(q, QUALITY_CULPRIT, callbacks + handler, "seconds", whole,
		    callbacks > handler ? callbacks_advice : handler_advice);
		put(q, QUALITY_CALLBACKS, callbacks, "seconds", whole, callbacks_advice);
		put(q, QUALITY_HANDLER, handler, "seconds", whole, handler_advice);
		free(ev);
	} else {
		put(q, QUALITY_CULPRIT, measured, "samples", taken,
		    "samples in culprit's own work: lower the sampling rate");
	}
	put(q, QUALITY_SAMPLES, taken, "samples", taken, "");
	put(q, QUALITY_PARTIAL, counter(q, "unwind:partial"), "samples", taken,
	    "no unwind information past some frame: build with -g, or with frame pointers");
	put(q, QUALITY_TRUNCATED, counter(q, "unwind:truncated"), "samples", taken,
	    "deeper than the depth limit: raise it (culprit run --max-depth)");
	put(q, QUALITY_DROPPED, dropped, "samples", taken,
	    "calling-context trees full (raise CULPRIT_MAX_NODES), taken while culprit unwound, "
	    "or lost to a full signal queue (ulimit -i; a tracer)");
	double throttled = counter(q, "throttled");
	put(q, QUALITY_THROTTLED, throttled, "samples", taken + throttled,
	    "unwinding took over a quarter of the time (deep stacks): fewer samples, each "
	    "carrying the value of those merged into it; lower --max-depth or the rate");
	put(q, QUALITY_THREADS_MISSING,
	    threads_expected > threads_read ? (double)(threads_expected - threads_read) : 0,
	    "threads", (double)threads_expected,
	    "thread files not written or damaged (a full disk? culprit run named them): "
	    "those threads' samples are not in the figures");
	sqlite3_finalize(q->ins);
	return q->failed ? -1 : 0;
}

int quality_warning(sqlite3 *db, char *buf, size_t size)
{
	static const char *const what[][2] = {
		{ QUALITY_CULPRIT, "culprit's own work took" },
		{ QUALITY_PARTIAL, "samples with partial paths:" },
		{ QUALITY_TRUNCATED, "samples cut at the depth limit:" },
		{ QUALITY_DROPPED, "samples dropped:" },
		{ QUALITY_THREADS_MISSING, "threads missing:" },
	};
	sqlite3_stmt *s = db_prepare(db, "SELECT percent, advice FROM measurement_quality "
					 "WHERE item = ?");
	size_t len = 0;
	int rc = s ? 0 : -1;
	buf[0] = 0;
	for (size_t i = 0; rc >= 0 && i < sizeof what / sizeof what[0]; i++) {
		sqlite3_bind_text(s, 1, what[i][0], -1, SQLITE_STATIC);
		rc = db_step_row(db, s);
		if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL &&
		    sqlite3_column_double(s, 0) > QUALITY_WARN_PERCENT && len < size) {
			int n = snprintf(buf + len, size - len, "%s%s %.1f%% (%s)", len ? "; " : "",
					 what[i][1], sqlite3_column_double(s, 0),
					 (const char *)sqlite3_column_text(s, 1));
			if (n > 0)
				len += (size_t)n;
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : len > 0;
}
