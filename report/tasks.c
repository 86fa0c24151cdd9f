/* tasks.c - `culprit report --tasks`: task sizes and waiting times by task
 * type, run by run (seed 004: compare the histograms across thread
 * counts to see tasks grow, or workers starve, as the threads do).
 *
 * A task type is the line that creates the tasks.  A task's size is the
 * time it ran, not counting the time it was set aside while its children
 * ran (a taskwait); its wait is the time its thread looked for work
 * before starting it.  Histograms are log2 buckets of nanoseconds, drawn
 * one character per bucket over the range that has tasks. */
#define _GNU_SOURCE
#include "report.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HIST's buckets LO to HI, a character each, scaled to its largest. */
static void put_histogram(const double *hist, int lo, int hi)
{
	double top = 0;
	for (int b = lo; b <= hi; b++)
		if (hist[b] > top)
			top = hist[b];
	for (int b = lo; b <= hi; b++)
		fputs(level_char(hist[b], top), stdout);
}

/* The buckets that have tasks, over the types of experiment X. */
static void bucket_range(const struct dbr_task_type *t, size_t n, int64_t x, int *lo, int *hi)
{
	*lo = DBR_TASK_BUCKETS;
	*hi = -1;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 2 && t[i].experiment == x; k++)
			for (int b = 0; b < DBR_TASK_BUCKETS; b++)
				if (t[i].hist[k][b] > 0) {
					if (b < *lo)
						*lo = b;
					if (b > *hi)
						*hi = b;
				}
}

/* Whether another type of Y's experiment has Y's line (GCC gives the calls
 * of two task constructs of a function the function's line). */
static int shares_line(const struct dbr_task_type *t, size_t n, const struct dbr_task_type *y)
{
	for (size_t i = 0; i < n; i++)
		if (&t[i] != y && t[i].experiment == y->experiment && t[i].line == y->line &&
		    dbr_same_name(t[i].procedure, y->procedure) && dbr_same_name(t[i].file, y->file))
			return 1;
	return 0;
}

static void put_text(const struct report *r, const struct dbr_experiment *x, size_t nx,
		     const struct dbr_task_type *t, size_t n)
{
	put_title(r, "tasks");
	printf("task types by the line that creates them; size: running time, a taskwait's "
	       "children left out;\nwait: the time the thread looked for work before it\n");
	for (size_t e = 0; e < nx; e++) {
		int lo, hi;
		bucket_range(t, n, x[e].id, &lo, &hi);
		if (hi < 0)
			continue;
		char a[32], b[32];
		printf("\n%s (%ld thread%s)\n", x[e].label, x[e].threads, x[e].threads == 1 ? "" : "s");
		printf("%10s %10s %10s %10s  %-*s  %s\n", "tasks", "mean size", "all sizes",
		       "mean wait", hi - lo + 1 > 8 ? hi - lo + 1 : 8, "log2", "type");
		printf("%43s  %s .. %s\n", "", short_duration((double)(1ull << lo), a, sizeof a),
		       short_duration((double)(1ull << (hi + 1)), b, sizeof b));
		for (size_t i = 0; i < n; i++) {
			const struct dbr_task_type *y = &t[i];
			if (y->experiment != x[e].id || y->tasks <= 0)
				continue;
			for (int k = 0; k < 2; k++) {
				if (k == 0)
					printf("%10.0f %10s %10.3f %10s  ", y->tasks,
					       short_duration(1e9 * y->size / y->tasks, a, sizeof a), y->size,
					       short_duration(1e9 * y->wait / y->tasks, b, sizeof b));
				else
					printf("%43s  ", "");
				put_histogram(y->hist[k], lo, hi);
				printf("%*s  %s ", hi - lo + 1 < 8 ? 8 - (hi - lo + 1) : 0, "",
				       k ? "wait" : "size");
				if (k == 0) {
					put_safe(y->procedure ? y->procedure : "?", 40);
					if (y->file)
						printf("  %s:%d", base_name(y->file), y->line);
					if (shares_line(t, n, y))
						printf(" (call at +%#llx)", (unsigned long long)y->site);
				}
				putchar('\n');
			}
		}
	}
}

static void put_rows(const struct report *r, const struct dbr_experiment *x, size_t nx,
		     const struct dbr_task_type *t, size_t n)
{
	static const struct column columns[] = {
		{ "experiment", CELL_INT, NULL }, { "label", CELL_TEXT, NULL },
		{ "threads", CELL_INT, NULL }, { "procedure", CELL_TEXT, NULL },
		{ "file", CELL_TEXT, NULL }, { "line", CELL_INT, NULL }, { "site", CELL_INT, NULL },
		{ "tasks", CELL_REAL, "%.0f" }, { "size", CELL_REAL, NULL },
		{ "wait", CELL_REAL, NULL }, { "kind", CELL_TEXT, NULL },
		{ "bucket", CELL_INT, NULL }, { "from_seconds", CELL_REAL, NULL },
		{ "to_seconds", CELL_REAL, NULL }, { "count", CELL_REAL, "%.0f" },
	};
	struct rows w;
	rows_begin(&w, r->format, columns, NCOLUMNS(columns));
	for (size_t i = 0; i < n; i++) {
		const struct dbr_task_type *y = &t[i];
		const struct dbr_experiment *e = NULL;
		for (size_t k = 0; k < nx; k++)
			if (x[k].id == y->experiment)
				e = &x[k];
		for (int k = 0; k < 2; k++)
			for (int b = 0; b < DBR_TASK_BUCKETS; b++) {
				if (y->hist[k][b] <= 0)
					continue;
				cell_int(&w, y->experiment);
				cell_text(&w, e ? e->label : "");
				cell_int(&w, e ? e->threads : 0);
				cell_text(&w, y->procedure);
				cell_text(&w, y->file);
				cell_int(&w, y->line);
				cell_int(&w, y->site);
				cell_real(&w, y->tasks);
				cell_real(&w, y->size);
				cell_real(&w, y->wait);
				cell_text(&w, k ? "wait" : "size");
				cell_int(&w, b);
				cell_real(&w, b ? (double)(1ull << b) * 1e-9 : 0.0);
				cell_real(&w, (double)(1ull << (b + 1)) * 1e-9);
				cell_real(&w, y->hist[k][b]);
				rows_end_row(&w);
			}
	}
	rows_end(&w);
}

int report_tasks(const struct report *r)
{
	struct dbr_experiment *x;
	size_t nx, n;
	struct dbr_task_type *t;
	if (dbr_experiments(r->db, &x, &nx) < 0 || dbr_task_types(r->db, &t, &n) < 0)
		return msg_error("%s", dbr_error(r->db));
	int rc = 0;
	if (n == 0 && r->machine)
		put_rows(r, x, nx, t, n);
	else if (n == 0) {
		put_title(r, "tasks");
		printf("no explicit tasks: the program created none (#pragma omp task), or ran on "
		       "no runtime culprit follows\n");
	}
	else if (r->machine)
		put_rows(r, x, nx, t, n);
	else
		put_text(r, x, nx, t, n);
	dbr_task_types_free(t, n);
	dbr_experiments_free(x, nx);
	return rc;
}
