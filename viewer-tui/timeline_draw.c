/* timeline_draw.c - the timeline pane on the screen: the window's header,
 * the cursor and range under it, and a row per thread (or per process),
 * each cell what its threads did most in its stretch of time. */
#define _GNU_SOURCE
#include "timeline.h"
#include "tools.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cell's slots: the activities, then overhead by type. */
#define NSLOTS (DBR_ACTIVITIES + MAX_TYPES)

static char slot_char(const struct vtimeline *t, int slot)
{
	return slot < DBR_ACTIVITIES ? dbr_activity_mark(slot) : t->type_char[slot - DBR_ACTIVITIES];
}

static attr_t slot_attr(const struct vui *u, int slot)
{
	int overhead = slot == DBR_ACT_OVERHEAD || slot >= DBR_ACTIVITIES;
	if (!u->color)
		return slot == DBR_ACT_WORK ? A_BOLD : 0;
	int pair = slot == DBR_ACT_WORK ? VC_GOOD : overhead ? VC_WARM
		 : slot == DBR_ACT_MEASUREMENT ? VC_DIM : VC_HOT;
	return COLOR_PAIR(pair);
}

/* The selected row's context, whose samples are highlighted: 0 for none. */
static uint32_t focus_of(struct vui *u, const struct vtimeline *t)
{
	const struct vrow *r = ui_selected(u);
	if (u->view != VIEW_CCT || !r || r->id < 1 || (size_t)r->id > t->nctx)
		return 0;
	return (uint32_t)r->id;
}

int timeline_column(const struct vtimeline *t, double time, int w)
{
	if (time < t->from || time > t->to || t->to <= t->from)
		return -1;
	int x = (int)((time - t->from) / (t->to - t->from) * w);
	return x >= w ? w - 1 : x;
}

/* ---- rows ---------------------------------------------------------------- */

/* Which row each thread is drawn in, and what each row holds. */
struct layout {
	size_t *row_of;		/* thread index -> row */
	size_t *first, *count;	/* row -> its first thread, how many */
	size_t nrows;
};

/* A row a thread; with more threads than ROOM rows, a few threads of one
 * process a row (in creation order); per process, a row a process. */
static void lay_out(const struct vtimeline *t, size_t room, struct layout *l)
{
	size_t n = t->outline.nthreads;
	const struct dbr_timeline_thread *th = t->outline.thread;
	size_t group = t->per_process ? n + 1 : n > room && room ? (n + room - 1) / room : 1;
	l->row_of = xcalloc(n + 1, sizeof *l->row_of);
	l->first = xcalloc(n + 1, sizeof *l->first);
	l->count = xcalloc(n + 1, sizeof *l->count);
	l->nrows = 0;
	for (size_t k = 0; k < n; k++) {
		int next = l->nrows == 0 || l->count[l->nrows - 1] == group ||
			   th[l->first[l->nrows - 1]].pid != th[k].pid;
		if (next)
			l->first[l->nrows++] = k;
		l->row_of[k] = l->nrows - 1;
		l->count[l->nrows - 1]++;
	}
}

static void layout_free(struct layout *l)
{
	free(l->row_of);
	free(l->first);
	free(l->count);
}

/* Row R's label: its thread, its threads, or its process. */
static void row_label(const struct vtimeline *t, const struct layout *l, size_t r, char *buf,
		      size_t size)
{
	const struct dbr_timeline_thread *a = &t->outline.thread[l->first[r]];
	if (t->per_process) {
		const char *exe = a->process ? strrchr(a->process, '/') : NULL;
		snprintf(buf, size, "%lld %s", (long long)a->pid,
			 exe ? exe + 1 : a->process ? a->process : "");
	} else if (l->count[r] == 1) {
		snprintf(buf, size, "%lld %s", (long long)a->tid, a->name ? a->name : "");
	} else {
		snprintf(buf, size, "%zu thr %lld+", l->count[r], (long long)a->tid);
	}
}

/* Per row and cell: the value in each slot, and whether a sample of the
 * focus is in it; into SUMS (rows x W x NSLOTS) and HOT (rows x W). */
static void fill_cells(const struct vtimeline *t, const struct layout *l, uint32_t focus, int w,
		       double *sums, uint8_t *hot)
{
	double scale = w / (t->to - t->from);
	uint32_t lo = focus ? t->pre[focus - 1] : 1, hi = focus ? t->last[focus - 1] : 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->time[i] < t->from || t->time[i] >= t->to)
			continue;
		int x = (int)((t->time[i] - t->from) * scale);
		if (x >= w)
			x = w - 1;
		size_t cell = l->row_of[t->row[i]] * (size_t)w + (size_t)x;
		int slot = t->act[i];
		if (slot == DBR_ACT_OVERHEAD && t->ctx[i] && t->otype[t->ctx[i] - 1])
			slot = DBR_ACTIVITIES + t->otype[t->ctx[i] - 1] - 1;
		sums[cell * NSLOTS + (size_t)slot] += t->value[i];
		if (t->ctx[i] && t->pre[t->ctx[i] - 1] >= lo && t->pre[t->ctx[i] - 1] <= hi)
			hot[cell] = 1;
	}
}

/* ---- the pane ------------------------------------------------------------- */

/* The header: the window, the cursor, the range or the mark; under it,
 * the range (or the stretch being marked) and the cursor. */
static void draw_axis(const struct vui *u, const struct vtimeline *t, int y, int w)
{
	char line[256], range[96] = "";
	double from = 0, to = 0;
	int ranged = timeline_range(u, &from, &to);
	if (ranged)
		snprintf(range, sizeof range, "  range %.3f-%.3f s (views show it; x clears)", from,
			 to);
	else if (t->mark >= 0)
		snprintf(range, sizeof range, "  marked %.3f s: ] ends the range", t->mark);
	snprintf(line, sizeof line, "%.3f-%.3f s of %.3f  cursor %.3f s%s", t->from, t->to,
		 t->outline.duration, t->cursor, range);
	draw_put(y, 0, COLS, line, A_BOLD);
	double a = ranged ? from : t->mark >= 0 ? t->mark : -1;
	double b = ranged ? to : t->mark >= 0 ? t->cursor : -1;
	if (a > b) {
		double s = a;
		a = b;
		b = s;
	}
	for (int x = 0; x < w; x++) {
		double at = t->from + (x + 0.5) * (t->to - t->from) / w;
		mvaddch(y + 1, LABEL_W + x, a >= 0 && at >= a && at <= b ? '-' : ' ');
	}
	int c = timeline_column(t, t->cursor, w);
	if (c >= 0)
		mvaddch(y + 1, LABEL_W + c, '^' | A_BOLD);
	draw_put(y + 1, 0, LABEL_W - 1, t->per_process ? "process" : "thread", 0);
}

/* PROBLEM word-wrapped over the pane's H lines from Y. */
static void draw_problem(const char *p, int y, int h)
{
	for (int line = 0; *p && line < h; line++) {
		size_t n = strlen(p), room = COLS > 1 ? (size_t)COLS - 1 : 1;
		if (n > room) {
			n = room;
			while (n > 1 && p[n] != ' ')
				n--;
			if (n <= 1)
				n = room;
		}
		char part[512];
		snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), p);
		draw_put(y + line, 0, COLS, part, 0);
		p += n;
		while (*p == ' ')
			p++;
	}
}

/* Row R's cells: each the slot with the most value, in reverse where the
 * focus has samples. */
static void draw_row(struct vui *u, const struct vtimeline *t, int y, int w, const double *sums,
		     const uint8_t *hot)
{
	for (int x = 0; x < w; x++) {
		const double *s = &sums[(size_t)x * NSLOTS];
		int best = -1;
		for (int k = 0; k < NSLOTS; k++)
			if (s[k] > 0 && (best < 0 || s[k] > s[best]))
				best = k;
		chtype ch = best < 0 ? ' ' : (chtype)slot_char(t, best);
		attr_t at = best < 0 ? 0 : slot_attr(u, best);
		if (hot[x])
			at |= A_REVERSE;
		mvaddch(y, LABEL_W + x, ch | at);
	}
}

void timeline_draw(struct vui *u, int y, int h)
{
	struct vtimeline *t = timeline_of(u);
	int w = COLS - LABEL_W;
	if (t->problem || w < 8 || h < 3 || !(t->to > t->from)) {
		draw_problem(t->problem ? t->problem : "too small for the timeline", y, h);
		return;
	}
	draw_axis(u, t, y, w);
	struct layout l;
	size_t room = (size_t)(h - 2);
	lay_out(t, room, &l);
	double *sums = xcalloc(l.nrows * (size_t)w * NSLOTS + 1, sizeof *sums);
	uint8_t *hot = xcalloc(l.nrows * (size_t)w + 1, 1);
	fill_cells(t, &l, focus_of(u, t), w, sums, hot);
	size_t shown = l.nrows <= room ? l.nrows : room - 1;
	for (size_t r = 0; r < shown; r++) {
		char label[64];
		row_label(t, &l, r, label, sizeof label);
		draw_put(y + 2 + (int)r, 0, LABEL_W - 1, label, 0);
		draw_row(u, t, y + 2 + (int)r, w, &sums[r * (size_t)w * NSLOTS], &hot[r * (size_t)w]);
	}
	if (shown < l.nrows) {
		char more[96];
		snprintf(more, sizeof more, "(%zu rows more: p shows a row per process)",
			 l.nrows - shown);
		draw_put(y + 2 + (int)shown, 0, COLS, more, 0);
	}
	free(sums);
	free(hot);
	layout_free(&l);
}
