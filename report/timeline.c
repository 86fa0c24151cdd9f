/* timeline.c - `culprit report --parallelism` and `--timeline`: the run
 * over time, from the trace.
 *
 * --parallelism: for how long the run had N threads working at once,
 * with the work done and the idleness blamed at each N, and the
 * procedures that took the most wall-clock time (latency: each sample
 * weighs 1/N).
 *
 * --timeline: a row per thread, time across, each column a stretch of the
 * run marked with what the thread mostly did in it: work, overhead, or
 * idle by cause. */
#define _GNU_SOURCE
#include "report.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LATENCY_TOP 10	/* procedures listed by latency */
#define BAR_WIDTH 40

static void put_bar(double share)
{
	int n = (int)(share * BAR_WIDTH + 0.5);
	putchar('|');
	for (int i = 0; i < n && i < BAR_WIDTH; i++)
		putchar('#');
}

static int put_latency(const struct report *r)
{
	struct dbr_latency *l;
	size_t n;
	if (dbr_latency(r->db, r->ch.event, LATENCY_TOP, &l, &n) < 0)
		return msg_error("%s", dbr_error(r->db));
	printf("\nprocedures by latency: the program's procedures' share of the run's wall-clock\n"
	       "time, with what they called (each sample weighs 1 / the threads working then;\n"
	       "runtime and system code counts for the procedure that called it); parallelism =\n"
	       "work / latency; self: the latency of their own code\n");
	printf("%10s %10s %11s %10s  %s\n", "latency s", "work s", "parallelism", "self s",
	       "procedure");
	for (size_t i = 0; i < n; i++) {
		printf("%10.3f %10.3f %11.2f %10.3f  ", l[i].latency, l[i].work,
		       l[i].latency > 0 ? l[i].work / l[i].latency : 0, l[i].self);
		put_safe(l[i].procedure ? l[i].procedure : "?", 40);
		if (l[i].module) {
			printf("  (");
			put_safe(base_name(l[i].module), 24);
			putchar(')');
		}
		putchar('\n');
	}
	if (!n)
		printf("(no working samples)\n");
	dbr_latency_free(l, n);
	return 0;
}

int report_parallelism(const struct report *r)
{
	struct dbr_parallelism *p;
	size_t n;
	if (dbr_parallelism(r->db, r->ch.event, &p, &n) < 0)
		return msg_error("%s", dbr_error(r->db));
	if (r->machine) {
		static const struct column columns[] = {
			{ "event", CELL_TEXT, NULL }, { "n_working", CELL_INT, NULL },
			{ "seconds", CELL_REAL, NULL }, { "percent", CELL_REAL, "%.6g" },
			{ "work", CELL_REAL, NULL }, { "idleness", CELL_REAL, NULL },
		};
		struct rows w;
		rows_begin(&w, r->format, columns, NCOLUMNS(columns));
		for (size_t i = 0; i < n; i++) {
			cell_text(&w, r->ch.event);
			cell_int(&w, p[i].n_working);
			cell_real(&w, p[i].seconds);
			cell_real(&w, p[i].percent);
			cell_real(&w, p[i].work);
			cell_real(&w, p[i].idleness);
			rows_end_row(&w);
		}
		rows_end(&w);
		free(p);
		return 0;
	}
	double duration = dbr_info_number(r->db, "trace_duration", 0), busy = 0, work = 0;
	put_title(r, "parallelism");
	printf("%s: wall-clock time by the number of threads working at once (the run: %.3f s)\n\n",
	       r->ch.event, duration);
	printf("%7s %10s %6s %10s %10s  %s\n", "working", "seconds", "%", "work s", "idle s",
	       "share of the run");
	for (size_t i = 0; i < n; i++) {
		printf("%7u %10.3f %6.1f %10.3f %10.3f  ", p[i].n_working, p[i].seconds,
		       p[i].percent, p[i].work, p[i].idleness);
		put_bar(duration > 0 ? p[i].seconds / duration : 0);
		putchar('\n');
		if (p[i].n_working) {
			busy += p[i].seconds;
			work += p[i].work;
		}
	}
	if (!n)
		printf("(no trace: the run was made with --no-trace, or took no samples)\n");
	else if (busy > 0)
		printf("\nwhile any thread worked (%.3f s), %.2f threads worked on average\n", busy,
		       work / busy);
	printf("work s: the samples' own %s there; idle s: the idle workers' time there, "
	       "which idleness\nblames on the code that ran\n", r->ch.event);
	free(p);
	return put_latency(r);
}

/* The mark of what a thread mostly did in one column (V: its seconds by
 * activity), or a blank without samples. */
static char mark(const double *v)
{
	int best = -1;
	for (int a = 0; a < DBR_ACTIVITIES; a++)
		if (v[a] > 0 && (best < 0 || v[a] > v[best]))
			best = a;
	return best < 0 ? ' ' : dbr_activity_mark(best);
}

/* A row per thread and column of time: its seconds by activity. */
static void put_timeline_rows(const struct report *r, const struct dbr_timeline *t)
{
	struct column col[6 + DBR_ACTIVITIES] = {
		{ "thread_id", CELL_INT, NULL }, { "pid", CELL_INT, NULL }, { "tid", CELL_INT, NULL },
		{ "name", CELL_TEXT, NULL }, { "start", CELL_REAL, NULL }, { "end", CELL_REAL, NULL },
	};
	for (int a = 0; a < DBR_ACTIVITIES; a++)
		col[6 + a] = (struct column){ dbr_activity_name(a), CELL_REAL, NULL };
	struct rows w;
	rows_begin(&w, r->format, col, NCOLUMNS(col));
	double width = (t->to - t->from) / t->nbuckets;
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct dbr_timeline_thread *th = &t->thread[k];
		for (int b = 0; b < t->nbuckets; b++) {
			const double *v = &t->seconds[(k * (size_t)t->nbuckets + (size_t)b) *
						      DBR_ACTIVITIES];
			cell_int(&w, th->id);
			cell_int(&w, th->pid);
			cell_int(&w, th->tid);
			cell_text(&w, th->name ? th->name : "");
			cell_real(&w, t->from + b * width);
			cell_real(&w, t->from + (b + 1) * width);
			for (int a = 0; a < DBR_ACTIVITIES; a++)
				cell_real(&w, v[a]);
			rows_end_row(&w);
		}
	}
	rows_end(&w);
}

int report_timeline(const struct report *r)
{
	/* Text: a 22-column label, the columns, and the frame: 100 wide. */
	int columns = r->width > 0 ? r->width : r->machine ? 100 : 76;
	struct dbr_timeline t;
	if (dbr_timeline(r->db, r->ch.event, r->from, r->to, columns, 0, &t) < 0)
		return msg_error("%s", dbr_error(r->db));
	if (r->machine) {
		put_timeline_rows(r, &t);
		dbr_timeline_free(&t);
		return 0;
	}
	double width = (t.to - t.from) / t.nbuckets;
	put_title(r, "timeline");
	char legend[256];
	dbr_activity_legend(legend, sizeof legend);
	printf("%s samples from %.3f to %.3f s, a column each %.4g s; what each thread mostly did:\n"
	       "%s\n(blank: no sample)\n\n", r->ch.event, t.from, t.to, width, legend);
	printf("%-21s %-*.3f%*.3f s\n", "thread", t.nbuckets / 2, t.from,
	       t.nbuckets - t.nbuckets / 2, t.to);
	for (size_t k = 0; k < t.nthreads; k++) {
		const struct dbr_timeline_thread *th = &t.thread[k];
		char label[64];
		snprintf(label, sizeof label, "%lld %s", (long long)th->tid, th->name ? th->name : "");
		put_safe(label, 20);
		printf("%*s|", 20 - (int)(strlen(label) < 20 ? strlen(label) : 20), "");
		for (int b = 0; b < t.nbuckets; b++)
			putchar(mark(&t.seconds[(k * (size_t)t.nbuckets + (size_t)b) * DBR_ACTIVITIES]));
		printf("|\n");
	}
	if (!t.nthreads)
		printf("(no threads)\n");
	dbr_timeline_free(&t);
	return 0;
}
