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

/* The sum over threads of counter NAME. */
static double counter(sqlite3 *db, const char *name)
{
	sqlite3_stmt *s = db_prepare(db, "SELECT total(value) FROM thread_counters WHERE name = ?");
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	double v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_double(s, 0) : 0;
	sqlite3_finalize(s);
	return v;
}

/* The total of metric METRIC of EVENT (0 if it has none). */
static double total(sqlite3 *db, const char *event, const char *metric)
{
	sqlite3_stmt *s = db_prepare(db, "SELECT total(total) FROM metrics WHERE event = ? AND "
					 "metric = ?");
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, metric, -1, SQLITE_STATIC);
	double v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_double(s, 0) : 0;
	sqlite3_finalize(s);
	return v;
}

/* The event culprit's own time is told in: CPU time if it was sampled,
 * else the first time event; NULL when none was (then samples count). */
static char *time_event(sqlite3 *db)
{
	sqlite3_stmt *s = db_prepare(db, "SELECT event FROM events WHERE unit = 'seconds' "
					 "ORDER BY event <> 'cputime', rowid LIMIT 1");
	char *name = NULL;
	if (sqlite3_step(s) == SQLITE_ROW)
		name = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return name;
}

static void put(sqlite3 *db, sqlite3_stmt *ins, const char *item, double value, const char *unit,
		double whole, const char *advice)
{
	sqlite3_bind_text(ins, 1, item, -1, SQLITE_STATIC);
	sqlite3_bind_double(ins, 2, value);
	sqlite3_bind_text(ins, 3, unit, -1, SQLITE_STATIC);
	if (whole > 0)
		sqlite3_bind_double(ins, 4, 100 * value / whole);
	else
		sqlite3_bind_null(ins, 4);
	sqlite3_bind_text(ins, 5, advice, -1, SQLITE_STATIC);
	db_step_reset(db, ins);
}

/* THREADS_EXPECTED: the threads the process files count; THREADS_READ:
 * those whose files were read. */
void quality_write(sqlite3 *db, uint64_t threads_expected, uint64_t threads_read)
{
	sqlite3_stmt *ins = db_prepare(db, "INSERT INTO " TBL_MEASUREMENT_QUALITY " VALUES (?,?,?,?,?)");
	double measured = counter(db, "measurement_samples");
	double taken = counter(db, "samples") + counter(db, "idle_samples") + measured +
		       counter(db, "dropped:tree_full") + counter(db, "dropped:busy");
	double handler = counter(db, "collector:handler_ns") * 1e-9;

	/* Culprit's own work: in its callbacks (sampled, the measurement
	 * metric) and in its signal handler (timed). */
	char *ev = time_event(db);
	if (ev) {
		char idle[96];
		snprintf(idle, sizeof idle, "idle_value:%s", ev);
		double callbacks = total(db, ev, MET_MEASUREMENT);
		double whole = total(db, ev, MET_WORK) + counter(db, idle) * 1e-9 + callbacks + handler;
		static const char callbacks_advice[] =
			"mostly following the runtime, a record per task or region: coarser "
			"tasks cost less; it is kept out of the program's figures";
		static const char handler_advice[] =
			"mostly taking samples: lower the sampling rate (-e CPUTIME@f250)";
		put(db, ins, QUALITY_CULPRIT, callbacks + handler, "seconds", whole,
		    callbacks > handler ? callbacks_advice : handler_advice);
		put(db, ins, QUALITY_CALLBACKS, callbacks, "seconds", whole, callbacks_advice);
		put(db, ins, QUALITY_HANDLER, handler, "seconds", whole, handler_advice);
		free(ev);
	} else {
		put(db, ins, QUALITY_CULPRIT, measured, "samples", taken,
		    "samples in culprit's own work: lower the sampling rate");
	}
	put(db, ins, QUALITY_SAMPLES, taken, "samples", taken, "");
	put(db, ins, QUALITY_PARTIAL, counter(db, "unwind:partial"), "samples", taken,
	    "no unwind information past some frame: build with -g, or with frame pointers");
	put(db, ins, QUALITY_TRUNCATED, counter(db, "unwind:truncated"), "samples", taken,
	    "deeper than the depth limit: raise it (culprit run --max-depth)");
	put(db, ins, QUALITY_DROPPED, counter(db, "dropped:tree_full") + counter(db, "dropped:busy"),
	    "samples", taken, "calling-context trees full (raise CULPRIT_MAX_NODES), or taken "
	    "while culprit unwound");
	double throttled = counter(db, "throttled");
	put(db, ins, QUALITY_THROTTLED, throttled, "samples", taken + throttled,
	    "unwinding took over a quarter of the time (deep stacks): fewer samples, each "
	    "carrying the value of those merged into it; lower --max-depth or the rate");
	put(db, ins, QUALITY_THREADS_MISSING,
	    threads_expected > threads_read ? (double)(threads_expected - threads_read) : 0,
	    "threads", (double)threads_expected,
	    "thread files not written or damaged (a full disk? culprit run named them): "
	    "those threads' samples are not in the figures");
	sqlite3_finalize(ins);
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
	buf[0] = 0;
	for (size_t i = 0; i < sizeof what / sizeof what[0]; i++) {
		sqlite3_bind_text(s, 1, what[i][0], -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL &&
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
	return len > 0;
}
