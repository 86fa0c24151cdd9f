/* summary.c - where the effort went: useful work, overhead by type and
 * idleness by cause, for the run and for each thread, and how far to
 * trust it (the measurement's quality). */
#define _GNU_SOURCE
#include "report.h"
#include "tools.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The causes of idleness, in the summary's order, with their words. */
static const char *const cause[][2] = {
	{ CAUSE_SERIAL, "serialization" },
	{ CAUSE_BARRIER, "imbalance at barriers" },
	{ CAUSE_LOCK, "synchronization (locks)" },
	{ CAUSE_TASKWAIT, "waiting for child tasks" },
	{ CAUSE_JOIN, "waiting for threads to end" },
	{ CAUSE_SLEEP, "sleeping" },
	{ CAUSE_IO, "blocked in I/O" },
	{ CAUSE_GIL, "waiting for the Python GIL" },
	{ CAUSE_MPI, "waiting in MPI for other ranks" },
};

/* METRIC's place in the table above (its length: not a cause). */
static size_t cause_rank(const char *metric)
{
	size_t i = 0;
	while (i < sizeof cause / sizeof *cause && strcmp(metric, cause[i][0]) != 0)
		i++;
	return i;
}

static const char *cause_label(const char *metric)
{
	size_t i = cause_rank(metric);
	return i < sizeof cause / sizeof *cause ? cause[i][1] : NULL;
}

/* The order of the summary's rows: useful work, overhead by size, idleness
 * by cause. */
static const char summary_order[] =
	"CASE category WHEN 'useful work' THEN 0 WHEN 'overhead' THEN 1 ELSE 2 END, "
	"CASE metric WHEN '" CAUSE_SERIAL "' THEN 0 WHEN '" CAUSE_BARRIER "' THEN 1 "
	"WHEN '" CAUSE_LOCK "' THEN 2 WHEN '" CAUSE_TASKWAIT "' THEN 3 WHEN '" CAUSE_JOIN "' THEN 4 "
	"WHEN '" CAUSE_SLEEP "' THEN 5 WHEN '" CAUSE_IO "' THEN 6 WHEN '" CAUSE_GIL "' THEN 7 "
	"WHEN '" CAUSE_MPI "' THEN 8 ELSE 9 END";

/* The summary's last part: what culprit took, and samples that lost part
 * of their path (databases before schema 3 have none of it). */
static int put_quality(const struct report *r)
{
	static const char *const label[][2] = {
		{ QUALITY_CULPRIT, "culprit itself" },
		{ QUALITY_CALLBACKS, "  in its callbacks" },
		{ QUALITY_HANDLER, "  in its sample handler" },
		{ QUALITY_SAMPLES, "samples taken" },
		{ QUALITY_PARTIAL, "  with a partial path" },
		{ QUALITY_TRUNCATED, "  cut at the depth limit" },
		{ QUALITY_DROPPED, "  dropped" },
		{ QUALITY_THROTTLED, "  merged (handler throttled)" },
		{ QUALITY_THREADS_MISSING, "threads missing" },
	};
	if (!dbr_has(r->db, TBL_MEASUREMENT_QUALITY))
		return 0;
	sqlite3_stmt *s = dbr_prepare(r->db, "SELECT value, unit, percent, advice FROM "
				      TBL_MEASUREMENT_QUALITY " WHERE item = ?");
	if (!s)
		return msg_error("%s", dbr_error(r->db));
	if (!r->csv)
		printf("\nhow far to trust it, %% of the threads' sampled time or of samples:\n");
	for (size_t i = 0; i < sizeof label / sizeof label[0]; i++) {
		sqlite3_bind_text(s, 1, label[i][0], -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW) {
			double v = sqlite3_column_double(s, 0), p = sqlite3_column_double(s, 2);
			const char *unit = (const char *)sqlite3_column_text(s, 1);
			int secs = unit && strcmp(unit, "seconds") == 0;
			if (r->csv)
				printf(",,quality,%s,%s,%.9g,%.4f\n", label[i][0], unit ? unit : "", v, p);
			else if (secs)
				printf("%-28s %12s s %7.1f\n", label[i][1], amount("seconds", v), p);
			else
				printf("%-28s %12.0f   %7.1f\n", label[i][1], v, p);
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return 0;
}

/* The run's rows: category, part, value and share of all effort. */
static int put_totals(const struct report *r)
{
	char *sql = xasprintf("SELECT category, metric, value, percent FROM " VIEW_EFFORT_SUMMARY
			      " WHERE event = ? ORDER BY %s, value DESC, metric", summary_order);
	sqlite3_stmt *s = dbr_prepare(r->db, sql);
	free(sql);
	if (!s)
		return msg_error("%s", dbr_error(r->db));
	sqlite3_bind_text(s, 1, r->ch.event, -1, SQLITE_STATIC);
	double sum = 0, psum = 0;
	int unmeasured = dbr_idleness_measured(r->db) == 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *cat = (const char *)sqlite3_column_text(s, 0);
		const char *metric = (const char *)sqlite3_column_text(s, 1);
		double v = sqlite3_column_double(s, 2), p = sqlite3_column_double(s, 3);
		const char *label = cause_label(metric);
		int overhead = strcmp(cat, MET_OVERHEAD) == 0;
		char part[128];
		snprintf(part, sizeof part, "%s", overhead ? metric + strlen(MET_OVERHEAD_PREFIX)
						  : label ? label : "");
		sum += v;
		psum += p;
		int no_number = unmeasured && strncmp(metric, "idleness", 8) == 0;
		if (r->csv) {
			printf(",,");
			put_csv(cat);
			putchar(',');
			put_csv(metric);
			putchar(',');
			put_csv(part);
			if (no_number)
				printf(",,\n");
			else
				printf(",%.9g,%.4f\n", v, p);
			continue;
		}
		if (overhead && v == 0)
			continue;	/* types of other runtimes */
		if (v == 0 && cause_rank(metric) >= 4)
			continue;	/* causes only pthreads programs have */
		if (no_number) {
			printf("%-12s %-40s %12s %7s\n", cat, part, "not measured", "");
			continue;
		}
		printf("%-12s ", cat);
		put_safe(part, 40);
		printf("%*s %12s %7.1f\n", 40 - (int)strlen(part) > 0 ? 40 - (int)strlen(part) : 0, "",
		       amount(r->ch.unit, v), p);
	}
	sqlite3_finalize(s);
	if (!r->csv)
		printf("%-12s %-40s %12s %7.1f\n\n", "total", "", amount(r->ch.unit, sum), psum);
	if (unmeasured && !r->csv)
		printf("note: %s\n\n", DBR_IDLENESS_UNMEASURED_HOW);
	return 0;
}

/* A thread's share of its own effort in METRIC, as an SQL column. */
static char *thread_share(const char *metric)
{
	return xasprintf("(SELECT sum(percent) FROM " TBL_THREAD_METRICS " m WHERE "
			 "m.thread_id = t.id AND m.event = e.event AND m.metric LIKE '%s')", metric);
}

/* Whether some thread was seen waiting in the chosen event's samples. */
static int threads_waited(const struct report *r)
{
	sqlite3_stmt *s = dbr_prepare(r->db, "SELECT 1 FROM " TBL_THREAD_METRICS " WHERE event = ? "
				      "AND metric = '" MET_WAITED "' AND value > 0 LIMIT 1");
	if (!s)
		return 0;
	sqlite3_bind_text(s, 1, r->ch.event, -1, SQLITE_STATIC);
	int yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

/* The per-thread table's columns: useful work, overhead, the time seen
 * waiting (if any), and the causes of idleness that the run has (the
 * first four always, as OpenMP's). */
struct thread_column {
	const char *metric, *heading, *part;
};

static size_t thread_columns(const struct report *r, struct thread_column *col)
{
	size_t n = 0;
	col[n++] = (struct thread_column){ MET_USEFUL, "useful", "useful work" };
	col[n++] = (struct thread_column){ MET_OVERHEAD_PREFIX "%", "overhead", "overhead" };
	/* A wall-clock event saw threads waiting: their own share of it. */
	if (threads_waited(r))
		col[n++] = (struct thread_column){ MET_WAITED, "waited", "time seen waiting" };
	if (dbr_idleness_measured(r->db) == 0)
		return n;	/* no numbers to show */
	for (size_t i = 0; i < sizeof cause / sizeof *cause; i++) {
		if (i >= 4 && !(dbr_metric_total(r->db, r->ch.event, cause[i][0], NULL) > 0))
			continue;
		col[n++] = (struct thread_column){ cause[i][0], cause[i][0] + strlen("idleness:"),
						   cause[i][1] };
	}
	return n;
}

/* Each thread, as a share of its own effort. */
static int put_threads(const struct report *r)
{
	struct thread_column col[3 + sizeof cause / sizeof *cause];
	size_t ncol = thread_columns(r, col);
	char *list = xstrdup("");
	for (size_t k = 0; k < ncol; k++) {
		char *share = thread_share(col[k].metric);
		char *longer = xasprintf("%s, %s", list, share);
		free(share);
		free(list);
		list = longer;
	}
	char *sql = xasprintf("SELECT t.id, t.tid, t.name, e.value%s FROM " TBL_THREADS " t JOIN "
			      TBL_THREAD_METRICS " e ON e.thread_id = t.id WHERE e.event = ? AND "
			      "e.metric = '" MET_EFFORT "' AND e.value > 0 ORDER BY t.id", list);
	free(list);
	sqlite3_stmt *s = dbr_prepare(r->db, sql);
	free(sql);
	if (!s)
		return msg_error("%s", dbr_error(r->db));
	sqlite3_bind_text(s, 1, r->ch.event, -1, SQLITE_STATIC);
	if (!r->csv) {
		int waited = ncol > 2 && strcmp(col[2].metric, MET_WAITED) == 0;
		printf("per thread, %% of its own effort%s:\n%6s %8s %-16s %10s",
		       waited ? " (waited: % of its samples taken while it waited)" : "",
		       "thread", "tid", "name", r->ch.unit);
		for (size_t k = 0; k < ncol; k++)
			printf(" %8s", col[k].heading);
		putchar('\n');
	}
	while (sqlite3_step(s) == SQLITE_ROW) {
		int id = sqlite3_column_int(s, 0);
		const char *name = (const char *)sqlite3_column_text(s, 2);
		double effort = sqlite3_column_double(s, 3);
		if (r->csv) {
			for (size_t k = 0; k < ncol; k++) {
				printf("%d,", id);
				put_csv(name);
				printf(",%s,%s,%s,%.9g,%.4f\n", k == 0 ? "useful work" : k == 1 ? "overhead"
				       : "idleness", k == 1 ? MET_OVERHEAD : col[k].metric, col[k].part,
				       effort * sqlite3_column_double(s, 4 + (int)k) / 100,
				       sqlite3_column_double(s, 4 + (int)k));
			}
			continue;
		}
		printf("%6d %8d ", id, sqlite3_column_int(s, 1));
		put_safe(name ? name : "", 16);
		int len = name ? (int)strlen(name) : 0;
		printf("%*s %10s", len < 16 ? 16 - len : 0, "", amount(r->ch.unit, effort));
		for (size_t k = 0; k < ncol; k++)
			printf(" %8.1f", sqlite3_column_double(s, 4 + (int)k));
		putchar('\n');
	}
	sqlite3_finalize(s);
	return 0;
}

/* The processes that did not end by exit or exec: a crash is the first
 * thing to know about a profile of one. */
static int put_ends(const struct report *r)
{
	struct dbr_process_end *p;
	size_t n;
	if (dbr_process_ends(r->db, &p, &n) < 0)
		return msg_error("%s", dbr_error(r->db));
	if (n && !r->csv)
		printf("\nprocesses that did not end by exit or exec:\n");
	for (size_t i = 0; i < n; i++) {
		if (r->csv) {
			printf(",,process_end,%lld,", (long long)p[i].pid);
			put_csv(p[i].reason);
			printf(",%d,\n", p[i].signal);
			continue;
		}
		printf("  pid %lld", (long long)p[i].pid);
		if (p[i].mpi_rank >= 0)
			printf(" (rank %d)", p[i].mpi_rank);
		if (p[i].signal > 0) {
			const char *abbrev = sigabbrev_np(p[i].signal);
			printf(": killed by signal %d (%s%s), ", p[i].signal, abbrev ? "SIG" : "",
			       abbrev ? abbrev : strsignal(p[i].signal));
		} else {
			printf(": its end was not recorded (killed by SIGKILL, or still running), ");
		}
		put_safe(p[i].command ? p[i].command : "?", 60);
		putchar('\n');
	}
	dbr_process_ends_free(p, n);
	return 0;
}

int report_summary(const struct report *r)
{
	if (dbr_need(r->db, VIEW_EFFORT_SUMMARY, "the effort metrics") < 0)
		return msg_error("%s", dbr_error(r->db));
	if (r->csv)
		printf("thread_id,thread,category,metric,part,value,percent\n");
	else {
		put_title(r, "summary");
		printf("%s: where the effort went; effort = work + idleness = %s %s\n\n", r->ch.event,
		       amount(r->ch.unit, r->ch.base), r->ch.unit);
		printf("%-12s %-40s %12s %7s\n", "category", "part", r->ch.unit, "%");
	}
	if (put_totals(r) < 0 || put_threads(r) < 0 || put_quality(r) < 0)
		return -1;
	return put_ends(r);
}
