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

static void put_csv_rows(const struct dbr_experiment *x, size_t nx, const struct dbr_task_type *t,
			 size_t n)
{
	printf("experiment,label,threads,procedure,file,line,site,tasks,size,wait,kind,bucket,"
	       "from_seconds,to_seconds,count\n");
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
				printf("%lld,", (long long)y->experiment);
				put_csv(e ? e->label : "");
				printf(",%ld,", e ? e->threads : 0);
				put_csv(y->procedure);
				putchar(',');
				put_csv(y->file);
				printf(",%d,%lld,%.0f,%.9g,%.9g,%s,%d,%.9g,%.9g,%.0f\n", y->line,
				       (long long)y->site, y->tasks,
				       y->size, y->wait, k ? "wait" : "size", b,
				       b ? (double)(1ull << b) * 1e-9 : 0.0,
				       (double)(1ull << (b + 1)) * 1e-9, y->hist[k][b]);
			}
	}
}

int report_tasks(const struct report *r)
{
	struct dbr_experiment *x;
	size_t nx, n;
	struct dbr_task_type *t;
	if (dbr_experiments(r->db, &x, &nx) < 0 || dbr_task_types(r->db, &t, &n) < 0)
		return msg_error("%s", dbr_error(r->db));
	int rc = 0;
	if (n == 0 && (r->db->schema < 10 || !dbr_has(r->db, VIEW_TASK_TYPES)))
		rc = msg_error("%s was made by an older culprit prof, without task sizes; make it "
			       "again with this culprit prof", r->db->path);
	else if (n == 0 && r->csv)
		put_csv_rows(x, nx, t, n);
	else if (n == 0) {
		put_title(r, "tasks");
		printf("no explicit tasks: the program created none (#pragma omp task), or ran on "
		       "no runtime culprit follows\n");
	}
	else if (r->csv)
		put_csv_rows(x, nx, t, n);
	else
		put_text(r, x, nx, t, n);
	dbr_task_types_free(t, n);
	dbr_experiments_free(x, nx);
	return rc;
}
