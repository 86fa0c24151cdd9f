/* metric.c - the event and metric a reader shows, and what its
 * percentages are of. */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

double dbr_metric_total(struct dbr *r, const char *event, const char *metric, int *found)
{
	sqlite3_stmt *s = dbr_prepare(r, "SELECT total FROM " TBL_METRICS
				      " WHERE event = ? AND metric = ?");
	double total = 0;
	int have = 0;
	if (s) {
		sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, metric, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW) {
			total = sqlite3_column_double(s, 0);
			have = 1;
		}
	}
	sqlite3_finalize(s);
	if (found)
		*found = have;
	return total;
}

/* The values of a one-column query, as "a, b, c", for messages. */
static char *listing(struct dbr *r, const char *sql, const char *arg)
{
	sqlite3_stmt *s = dbr_prepare(r, sql);
	char *out = xstrdup("");
	if (!s)
		return out;
	if (arg)
		sqlite3_bind_text(s, 1, arg, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW) {
		char *next = xasprintf("%s%s%s", out, out[0] ? ", " : "",
				       (const char *)sqlite3_column_text(s, 0));
		free(out);
		out = next;
	}
	sqlite3_finalize(s);
	return out;
}

static const char *known_event(const struct dbr *r, const char *name)
{
	for (size_t i = 0; i < r->nevents; i++)
		if (strcmp(r->event[i].name, name) == 0)
			return r->event[i].name;
	return NULL;
}

/* Percentages are of the event's effort (work + idleness); in a database
 * from before effort existed, of its work; for samples, of all samples. */
static double percent_base(struct dbr *r, const struct dbr_choice *c)
{
	int found = 0;
	if (strcmp(c->metric, MET_SAMPLES) == 0)
		return c->total;
	double v = dbr_metric_total(r, c->event, MET_EFFORT, &found);
	if (!found)
		v = dbr_metric_total(r, c->event, MET_WORK, &found);
	return found ? v : c->total;
}

int dbr_choose(struct dbr *r, const char *event, const char *metric, struct dbr_choice *out)
{
	memset(out, 0, sizeof *out);
	out->event = event ? known_event(r, event) : r->event[0].name;
	if (!out->event) {
		char *evs = listing(r, "SELECT event FROM " TBL_EVENTS " ORDER BY rowid", NULL);
		dbr_fail(r, "%s has no event '%s'; it has: %s", r->path, event, evs);
		free(evs);
		return -1;
	}
	out->metric = xstrdup(metric ? metric : MET_WORK);
	sqlite3_stmt *s = dbr_prepare(r, "SELECT unit, total FROM " TBL_METRICS
				      " WHERE event = ? AND metric = ?");
	if (!s) {
		dbr_choice_free(out);	/* a failed choice holds nothing */
		return -1;
	}
	sqlite3_bind_text(s, 1, out->event, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, out->metric, -1, SQLITE_STATIC);
	int found = sqlite3_step(s) == SQLITE_ROW;
	if (found) {
		out->unit = dbr_text(s, 0);
		out->total = sqlite3_column_double(s, 1);
	}
	sqlite3_finalize(s);
	if (!found) {
		char *ms = listing(r, "SELECT metric FROM " TBL_METRICS " WHERE event = ? "
				   "ORDER BY rowid", out->event);
		dbr_fail(r, "%s has no metric '%s' for event '%s'; it has: %s", r->path, out->metric,
			 out->event, ms);
		free(ms);
		dbr_choice_free(out);
		return -1;
	}
	if (!out->unit)
		out->unit = xstrdup("");
	out->base = percent_base(r, out);
	return 0;
}

void dbr_choice_free(struct dbr_choice *c)
{
	free(c->metric);
	free(c->unit);
	memset(c, 0, sizeof *c);
}

int dbr_metric_index(const char *const *metrics, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(metrics[i], name) == 0)
			return (int)i;
	return -1;
}

static char *metric_list(const char *const *metrics, size_t n)
{
	char *out = xstrdup("(");
	for (size_t i = 0; i < n; i++) {
		/* An SQL string: quotes doubled.  (Overhead types come from
		 * rules and may hold '-': overhead:task-creation.) */
		size_t len = strlen(metrics[i]), k = 0;
		char *quoted = xmalloc(2 * len + 1);
		for (const char *p = metrics[i]; *p; p++) {
			if (*p == '\'')
				quoted[k++] = '\'';
			quoted[k++] = *p;
		}
		quoted[k] = 0;
		char *next = xasprintf("%s%s'%s'", out, i ? ", " : "", quoted);
		free(quoted);
		free(out);
		out = next;
	}
	char *next = xasprintf("%s)", out);
	free(out);
	return next;
}

sqlite3_stmt *dbr_prepare_metrics(struct dbr *r, const char *sql_format,
				  const char *const *metrics, size_t n, const char *event)
{
	char *list = metric_list(metrics, n);
	char *sql = xasprintf(sql_format, list);
	sqlite3_stmt *s = dbr_prepare(r, sql);
	free(sql);
	free(list);
	if (s)
		sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	return s;
}

double dbr_event_period(struct dbr *r, const char *event)
{
	sqlite3_stmt *s = dbr_prepare(r, "SELECT period, frequency FROM " TBL_EVENTS
				      " WHERE event = ?1");
	double period = 0;
	if (!s)
		return 0;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW) {
		period = sqlite3_column_double(s, 0);
		double freq = sqlite3_column_double(s, 1);
		if (!(period > 0) && freq > 0)
			period = 1 / freq;
	}
	sqlite3_finalize(s);
	return period;
}
