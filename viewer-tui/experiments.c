/* experiments.c - the experiments of a database of several runs (culprit
 * scale's) as columns of the calling-context view, and the task types a
 * procedure creates, for the detail pane.
 *
 * X cycles: each experiment's value of the sort column's metric, then each
 * one's change from the first (the base: the fewest threads), then off.
 * Beside them a sparkline: the value over the thread count, run by run,
 * which falls where a context scales and stays level where it does not.
 * The values are read for all contexts at once, per metric, when first
 * shown: one query per experiment. */
#define _GNU_SOURCE
#include "view.h"
#include "tools.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XCOL_WIDTH 10
#define XCOL_MAX 6	/* experiments shown as columns: the last ones */

enum { XMODE_OFF, XMODE_VALUES, XMODE_CHANGE, XMODE_COUNT };

struct vexperiments {
	struct dbr_experiment *x;
	size_t nx;
	int mode;
	/* What INCL and EXCL hold: event EV's metric METRIC, by experiment
	 * (nx arrays of max_id); ev < 0: nothing yet. */
	long ev;
	int metric;
	double *incl, *excl;
	/* The task types, read on first need (tasks_read). */
	struct dbr_task_type *task;
	size_t ntasks;
	int tasks_read;
};

static struct vexperiments *get(struct vui *u)
{
	if (!u->xp) {
		u->xp = xcalloc(1, sizeof *u->xp);
		u->xp->ev = -1;
		if (dbr_experiments(u->m->db, &u->xp->x, &u->xp->nx) < 0)
			model_set_error(u->m);
	}
	return u->xp;
}

void experiments_free(struct vui *u)
{
	if (!u->xp)
		return;
	dbr_experiments_free(u->xp->x, u->xp->nx);
	dbr_task_types_free(u->xp->task, u->xp->ntasks);
	free(u->xp->incl);
	free(u->xp->excl);
	free(u->xp);
	u->xp = NULL;
}

int experiments_toggle(struct vui *u)
{
	struct vexperiments *x = get(u);
	if (x->nx < 2) {
		snprintf(u->status, sizeof u->status, "one run in this database: culprit scale "
			 "-t 1,2,4 makes one of several, a column each");
		return 1;
	}
	x->mode = (x->mode + 1) % XMODE_COUNT;
	if (x->mode != XMODE_OFF && u->view != VIEW_CCT)
		snprintf(u->status, sizeof u->status, "experiments: shown in the calling-context "
			 "view (1)");
	else
		snprintf(u->status, sizeof u->status, "%s", x->mode == XMODE_VALUES
			 ? "experiments: each run's value; the sparkline is value / threads"
			 : x->mode == XMODE_CHANGE ? "experiments: each run's change from the first"
			 : "experiments: hidden");
	return 1;
}

/* The sort column's metric, read for every experiment if not yet. */
static int load(struct vui *u, struct vexperiments *x)
{
	int metric = ui_sort_column(u)->metric;
	if (x->ev == (long)u->m->ev && x->metric == metric)
		return 0;
	size_t n = (size_t)u->m->max_id;
	free(x->incl);
	free(x->excl);
	x->incl = xcalloc(x->nx * n + 1, sizeof *x->incl);
	x->excl = xcalloc(x->nx * n + 1, sizeof *x->excl);
	x->ev = (long)u->m->ev;
	x->metric = metric;
	const char *name = vmetric_name[metric];
	for (size_t e = 0; e < x->nx; e++)
		if (dbr_experiment_values(u->m->db, x->x[e].id, x->nx, u->m->event[u->m->ev].name,
					  &name, 1, x->incl + e * n, x->excl + e * n) < 0)
			return model_set_error(u->m);
	return 0;
}

static size_t first_shown(const struct vexperiments *x)
{
	return x->nx > XCOL_MAX ? x->nx - XCOL_MAX : 0;
}

int experiments_width(struct vui *u)
{
	if (!u->xp || u->xp->mode == XMODE_OFF || u->view != VIEW_CCT)
		return 0;
	struct vexperiments *x = u->xp;
	return (int)(x->nx - first_shown(x)) * XCOL_WIDTH + (int)x->nx + 2;
}

void experiments_draw_heads(struct vui *u, int y, int x0)
{
	if (!experiments_width(u))
		return;
	struct vexperiments *x = u->xp;
	load(u, x);
	int at = x0;
	const char *col = ui_sort_column(u)->exclusive ? "E" : "I";
	for (size_t e = first_shown(x); e < x->nx; e++) {
		char head[64];
		snprintf(head, sizeof head, "%s%.6s %s", x->mode == XMODE_CHANGE && e ? "+" : "",
			 x->x[e].label, col);
		int len = (int)strlen(head);
		draw_put(y, at + (XCOL_WIDTH - 1 > len ? XCOL_WIDTH - 1 - len : 0), XCOL_WIDTH - 1,
			 head, A_BOLD);
		at += XCOL_WIDTH;
	}
	draw_put(y, at + 1, (int)x->nx, "/p", A_BOLD);
}

/* The value of context ID in experiment E. */
static double value(const struct vui *u, const struct vexperiments *x, size_t e, int64_t id)
{
	size_t n = (size_t)u->m->max_id;
	if (id < 1 || id > u->m->max_id)
		return 0;
	const double *v = ui_sort_column(u)->exclusive ? x->excl : x->incl;
	return v[e * n + (size_t)id - 1];
}

void experiments_draw_row(struct vui *u, const struct vrow *r, int y, int x0, unsigned int attr)
{
	if (!experiments_width(u) || !r->id)
		return;
	struct vexperiments *x = u->xp;
	const char *unit = u->m->event[u->m->ev].unit;
	int seconds = unit && strcmp(unit, "seconds") == 0 && x->metric != VM_SAMPLES;
	int at = x0;
	for (size_t e = first_shown(x); e < x->nx; e++, at += XCOL_WIDTH) {
		double v = value(u, x, e, r->id);
		if (x->mode == XMODE_CHANGE && e > 0)
			v -= value(u, x, 0, r->id);
		if (v == 0)
			continue;
		char buf[32];
		snprintf(buf, sizeof buf, x->mode == XMODE_CHANGE && e > 0
			 ? (seconds ? "%+9.3f" : "%+9.3g") : (seconds ? "%9.3f" : "%9.3g"), v);
		draw_put(y, at, XCOL_WIDTH - 1, buf, attr);
	}
	/* The sparkline: value / threads, scaled to the row's largest. */
	double per[64], top = 0;
	size_t n = x->nx < 64 ? x->nx : 64;
	for (size_t e = 0; e < n; e++) {
		long p = x->x[e].threads > 0 ? x->x[e].threads : 1;
		per[e] = value(u, x, e, r->id) / (double)p;
		if (per[e] > top)
			top = per[e];
	}
	if (top <= 0)
		return;
	char line[64 * 4 + 1];
	size_t len = 0;
	for (size_t e = 0; e < n; e++)
		len += (size_t)snprintf(line + len, sizeof line - len, "%s", level_char(per[e], top));
	line[len] = 0;
	draw_put(y, at + 1, (int)n, line, attr);
}

/* T's sizes as a sparkline over the buckets that have tasks, bracketed:
 * "[_.@-]". */
static const char *size_histogram(const struct dbr_task_type *t, char *buf, size_t size)
{
	int lo = DBR_TASK_BUCKETS, hi = -1;
	double top = 0;
	for (int b = 0; b < DBR_TASK_BUCKETS; b++)
		if (t->hist[0][b] > 0) {
			lo = b < lo ? b : lo;
			hi = b;
			top = t->hist[0][b] > top ? t->hist[0][b] : top;
		}
	size_t n = (size_t)snprintf(buf, size, "[");
	for (int b = lo; b <= hi && n + 5 < size; b++)
		n += (size_t)snprintf(buf + n, size - n, "%s", level_char(t->hist[0][b], top));
	snprintf(buf + n, size - n, "]");
	return buf;
}

char *experiments_tasks_line(struct vui *u, const char *procedure, const char *file)
{
	struct vexperiments *x = get(u);
	if (!x->tasks_read) {
		x->tasks_read = 1;
		if (dbr_task_types(u->m->db, &x->task, &x->ntasks) < 0)
			model_set_error(u->m);
	}
	if (!procedure || !x->ntasks)
		return NULL;
	char out[512] = "";
	size_t len = 0;
	for (size_t i = 0; i < x->ntasks && len + 80 < sizeof out; i++) {
		const struct dbr_task_type *t = &x->task[i];
		if (!t->procedure || strcmp(t->procedure, procedure) != 0 ||
		    (file && t->file && strcmp(file, t->file) != 0) || t->tasks <= 0)
			continue;
		const char *label = "";
		for (size_t e = 0; e < x->nx && x->nx > 1; e++)
			if (x->x[e].id == t->experiment)
				label = x->x[e].label;
		char size[16], wait[16], hist[DBR_TASK_BUCKETS * 4 + 1];
		len += (size_t)snprintf(out + len, sizeof out - len,
					"%s%s%sline %d: %.0f, mean %s %s, wait %s", len ? "; " : "",
					label, *label ? " " : "", t->line, t->tasks,
					short_duration(1e9 * t->size / t->tasks, size, sizeof size),
					size_histogram(t, hist, sizeof hist),
					short_duration(1e9 * t->wait / t->tasks, wait, sizeof wait));
	}
	return len ? xstrdup(out) : NULL;
}
