/* waits.c - `culprit report --waits`: where threads blocked, longest
 * first, and the code that kept them waiting.
 *
 * The wait sites come from the collector's count of each blocking call
 * (the wait_sites view): the call site, the object (a lock, a condition
 * variable, a thread), how often, how long.  What kept them waiting is
 * the blame: the code that ran while they waited, per cause, from the
 * procedures' idleness by cause. */
#define _GNU_SOURCE
#include "report.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_BLAMED 5	/* procedures shown per cause */

/* "procedure (file:line)", or the procedure alone. */
static void site_label(const struct dbr_wait_site *w, char *buf, size_t size)
{
	const char *proc = w->procedure ? w->procedure : "?";
	if (w->file)
		snprintf(buf, size, "%s (%s:%d)", proc, base_name(w->file), w->line);
	else
		snprintf(buf, size, "%s", proc);
}

static const struct column wait_columns[] = {
	{ "kind", CELL_TEXT, NULL }, { "cause", CELL_TEXT, NULL }, { "procedure", CELL_TEXT, NULL },
	{ "file", CELL_TEXT, NULL }, { "line", CELL_INT, NULL }, { "module", CELL_TEXT, NULL },
	{ "object", CELL_INT, NULL }, { "threads", CELL_INT, NULL }, { "count", CELL_INT, NULL },
	{ "seconds", CELL_REAL, "%.15g" }, { "max_seconds", CELL_REAL, "%.15g" },
};

static void put_site_row(struct rows *w, const struct dbr_wait_site *s)
{
	cell_text(w, s->kind);
	cell_text(w, s->cause);
	cell_text(w, s->procedure);
	cell_text(w, s->file);
	cell_int(w, s->line);
	cell_text(w, s->module);
	if (s->has_object)
		cell_int(w, s->object);
	else
		cell_none(w);
	cell_int(w, s->threads);
	cell_int(w, s->count);
	cell_real(w, s->seconds);
	cell_real(w, s->max_seconds);
	rows_end_row(w);
}

/* The innermost part of PATH ("a > b > c") that fits WIDTH, whole frames. */
static void put_path_tail(const char *path, int width)
{
	const char *p = path;
	while ((int)strlen(p) > width) {
		const char *next = strstr(p, " > ");
		if (!next)
			break;
		p = next + 3;
	}
	if (p != path)
		printf("... > ");
	put_safe(p, width);
}

static int put_sites(const struct report *r, char causes[][16], int *ncauses)
{
	struct dbr_wait_site *w;
	size_t n;
	if (dbr_wait_sites(r->db, &w, &n) < 0)
		return msg_error("%s", dbr_error(r->db));
	struct rows rw;
	if (r->machine)
		rows_begin(&rw, r->format, wait_columns, NCOLUMNS(wait_columns));
	else
		printf("%-9s %-8s %10s %8s %9s %9s %7s  %s\n", "kind", "cause", "waited s", "count",
		       "mean ms", "max ms", "threads", "site [object]");
	for (size_t i = 0; i < n; i++) {
		const char *kind = w[i].kind, *cause = w[i].cause;
		if (cause && *ncauses < 8) {
			int seen = 0;
			for (int k = 0; k < *ncauses; k++)
				seen |= strcmp(causes[k], cause) == 0;
			if (!seen)
				snprintf(causes[(*ncauses)++], 16, "%s", cause);
		}
		if (r->machine) {
			put_site_row(&rw, &w[i]);
			continue;
		}
		char site[300];
		site_label(&w[i], site, sizeof site);
		printf("%-9s %-8s %10.3f %8lld %9.3f %9.3f %7lld  ", kind ? kind : "?",
		       cause ? cause : "?", w[i].seconds, (long long)w[i].count,
		       w[i].count ? 1e3 * w[i].seconds / (double)w[i].count : 0,
		       1e3 * w[i].max_seconds, (long long)w[i].threads);
		put_safe(site, 60);
		if (w[i].has_object && !dbr_same_name(kind, "join") && !dbr_same_name(kind, "io"))
			printf(" [%#llx]", (unsigned long long)w[i].object);
		putchar('\n');
	}
	dbr_wait_sites_free(w, n);
	if (r->machine)
		rows_end(&rw);
	if (!n && !r->machine)
		printf("(no thread blocked while working)\n");
	return 0;
}

/* For each cause the waits had, the procedures whose code ran while
 * threads waited for it: their exclusive idleness of that cause. */
static int put_blamed(const struct report *r, char causes[][16], int ncauses)
{
	printf("\nkept waiting by: the code that ran while they waited (%s idleness blamed, "
	       "by cause)\n", r->ch.event);
	for (int i = 0; i < ncauses; i++) {
		int cause = idle_cause_of_name(causes[i]);
		if (cause < 0)
			continue;	/* not a cause this culprit knows */
		const char *metric = idle_cause((unsigned)cause)->metric;
		double total = dbr_metric_total(r->db, r->ch.event, metric, NULL);
		printf("  %-8s %10s %s\n", causes[i], amount(r->ch.unit, total), r->ch.unit);
		struct dbr_top *top;
		size_t n;
		if (dbr_top_frames(r->db, r->ch.event, metric, TOP_BLAMED, &top, &n) < 0)
			return msg_error("%s", dbr_error(r->db));
		for (size_t k = 0; k < n; k++) {
			char *path = dbr_path(r->db, top[k].context_id);
			printf("    %5.1f%%  ", total > 0 ? 100 * top[k].value / total : 0);
			put_path_tail(path ? path : "?", 84);
			putchar('\n');
			free(path);
		}
		free(top);
	}
	return 0;
}

int report_waits(const struct report *r)
{
	if (!r->machine) {
		put_title(r, "waits");
		printf("blocking waits of working threads, by call site and object, longest "
		       "first\n\n");
	}
	char causes[8][16];
	int ncauses = 0;
	if (put_sites(r, causes, &ncauses) < 0)
		return -1;
	if (r->machine || !ncauses)
		return 0;
	return put_blamed(r, causes, ncauses);
}
