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
static void site_label(sqlite3_stmt *s, int col, char *buf, size_t size)
{
	const char *proc = (const char *)sqlite3_column_text(s, col);
	const char *file = (const char *)sqlite3_column_text(s, col + 1);
	if (file)
		snprintf(buf, size, "%s (%s:%d)", proc ? proc : "?", base_name(file),
			 sqlite3_column_int(s, col + 2));
	else
		snprintf(buf, size, "%s", proc ? proc : "?");
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
	sqlite3_stmt *s = dbr_prepare(r->db, "SELECT kind, cause, procedure, file, line, module, "
				      "object, threads, count, seconds, max_seconds FROM "
				      VIEW_WAIT_SITES " ORDER BY seconds DESC, procedure");
	if (!s)
		return msg_error("%s", dbr_error(r->db));
	if (r->csv)
		printf("kind,cause,procedure,file,line,module,object,threads,count,seconds,"
		       "max_seconds\n");
	else
		printf("%-9s %-8s %10s %8s %9s %9s %7s  %s\n", "kind", "cause", "waited s", "count",
		       "mean ms", "max ms", "threads", "site [object]");
	int rows = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(s, 0);
		const char *cause = (const char *)sqlite3_column_text(s, 1);
		double secs = sqlite3_column_double(s, 9), max = sqlite3_column_double(s, 10);
		int64_t count = sqlite3_column_int64(s, 8);
		rows++;
		if (cause && *ncauses < 8) {
			int seen = 0;
			for (int i = 0; i < *ncauses; i++)
				seen |= strcmp(causes[i], cause) == 0;
			if (!seen)
				snprintf(causes[(*ncauses)++], 16, "%s", cause);
		}
		if (r->csv) {
			for (int k = 0; k < 11; k++) {
				if (k)
					putchar(',');
				if (sqlite3_column_type(s, k) == SQLITE_TEXT)
					put_csv((const char *)sqlite3_column_text(s, k));
				else if (sqlite3_column_type(s, k) != SQLITE_NULL)
					printf("%s", (const char *)sqlite3_column_text(s, k));
			}
			putchar('\n');
			continue;
		}
		char site[300];
		site_label(s, 2, site, sizeof site);
		printf("%-9s %-8s %10.3f %8lld %9.3f %9.3f %7d  ", kind ? kind : "?",
		       cause ? cause : "?", secs, (long long)count,
		       count ? 1e3 * secs / (double)count : 0, 1e3 * max, sqlite3_column_int(s, 7));
		put_safe(site, 60);
		if (sqlite3_column_type(s, 6) != SQLITE_NULL && strcmp(kind, "join") != 0 &&
		    strcmp(kind, "io") != 0)
			printf(" [%#llx]", (unsigned long long)sqlite3_column_int64(s, 6));
		putchar('\n');
	}
	sqlite3_finalize(s);
	if (!rows && !r->csv)
		printf("(no thread blocked while working)\n");
	return 0;
}

/* For each cause the waits had, the procedures whose code ran while
 * threads waited for it: their exclusive idleness of that cause. */
static int put_blamed(const struct report *r, char causes[][16], int ncauses)
{
	/* Frames' exclusive values include their lines'. */
	sqlite3_stmt *s = dbr_prepare(r->db, "SELECT m.context_id, m.exclusive FROM "
				      TBL_CONTEXT_METRICS " m JOIN " TBL_CONTEXTS " c ON c.id = "
				      "m.context_id WHERE m.event = ? AND m.metric = ? AND "
				      "m.exclusive > 0 AND c.kind IN ('" KIND_FRAME "', '"
				      KIND_INLINED "') ORDER BY m.exclusive DESC LIMIT ?");
	if (!s)
		return msg_error("%s", dbr_error(r->db));
	printf("\nkept waiting by: the code that ran while they waited (%s idleness blamed, "
	       "by cause)\n", r->ch.event);
	for (int i = 0; i < ncauses; i++) {
		char metric[32];
		snprintf(metric, sizeof metric, "idleness:%.15s", causes[i]);
		double total = dbr_metric_total(r->db, r->ch.event, metric, NULL);
		printf("  %-8s %10s %s\n", causes[i], amount(r->ch.unit, total), r->ch.unit);
		sqlite3_bind_text(s, 1, r->ch.event, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, metric, -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 3, TOP_BLAMED);
		while (sqlite3_step(s) == SQLITE_ROW) {
			double v = sqlite3_column_double(s, 1);
			char *path = dbr_path(r->db, sqlite3_column_int64(s, 0));
			printf("    %5.1f%%  ", total > 0 ? 100 * v / total : 0);
			put_path_tail(path ? path : "?", 84);
			putchar('\n');
			free(path);
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return 0;
}

int report_waits(const struct report *r)
{
	if (dbr_need(r->db, TBL_WAITS, "the blocking waits") < 0)
		return msg_error("%s", dbr_error(r->db));
	if (!r->csv) {
		put_title(r, "waits");
		printf("blocking waits of working threads, by call site and object, longest "
		       "first\n\n");
	}
	char causes[8][16];
	int ncauses = 0;
	if (put_sites(r, causes, &ncauses) < 0)
		return -1;
	if (r->csv || !ncauses)
		return 0;
	return put_blamed(r, causes, ncauses);
}
