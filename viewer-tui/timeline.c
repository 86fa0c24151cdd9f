/* timeline.c - the timeline pane (t): what each thread did over time, from
 * the database's trace (schema 8 on), and the time range that filters the
 * calling-context view to what ran in it.
 *
 * The trace of the event shown is read into memory once, with each
 * context's place in a depth-first numbering of the tree: a cell of the
 * pane is then a pass over the samples in its stretch, and whether a
 * sample is at the selected context or below it is two comparisons.  So
 * moving the selection, zooming and panning read nothing from the
 * database, even for a trace of a million samples.
 *
 * A range's values are computed from its samples the way culprit prof
 * computes the whole run's: a working sample's value is work at its
 * context (overhead too, where its context is classified so), and it
 * blames value x idle / working of idleness on it; inclusive values add
 * up the tree. */
#define _GNU_SOURCE
#include "tools.h"
#include "view.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vtimeline {
	size_t ev;			/* the event it was read for */
	char *problem;			/* why there is no timeline, or NULL */
	struct dbr_timeline outline;	/* the threads and the run's length */
	/* The samples, thread by thread, each thread's in time order. */
	size_t n;
	double *time, *value, *blame;	/* blame: idleness blamed on it */
	uint32_t *ctx;			/* context index + 1; 0: none (idle) */
	uint16_t *row;			/* index into outline.thread */
	uint8_t *act;			/* enum dbr_activity */
	/* Depth-first numbers: the subtree of context index i is the
	 * contexts numbered pre[i] to last[i]. */
	uint32_t *pre, *last;
	size_t nctx;
	/* What is shown: the window, the cursor, a mark, the range. */
	double from, to, cursor, mark;
	double range_from, range_to;	/* range_to > range_from: active */
	double *range_incl, *range_excl;	/* by context index, VM_COUNT each */
};

static void free_samples(struct vtimeline *t)
{
	free(t->time);
	free(t->value);
	free(t->blame);
	free(t->ctx);
	free(t->row);
	free(t->act);
	t->time = t->value = t->blame = NULL;
	t->ctx = NULL;
	t->row = NULL;
	t->act = NULL;
	t->n = 0;
}

void timeline_free(struct vui *u)
{
	struct vtimeline *t = u->tl;
	if (!t)
		return;
	free_samples(t);
	free(t->pre);
	free(t->last);
	free(t->range_incl);
	free(t->range_excl);
	free(t->problem);
	dbr_timeline_free(&t->outline);
	free(t);
	u->tl = NULL;
	u->m->range_incl = u->m->range_excl = NULL;
}

/* ---- reading --------------------------------------------------------------- */

struct reading {
	struct vtimeline *t;
	size_t cap;
	uint16_t *row_of;		/* threads.id -> row + 1 */
	size_t nrow_of;
};

static int keep_sample(void *arg, const struct dbr_trace_sample *s)
{
	struct reading *rd = arg;
	struct vtimeline *t = rd->t;
	if (s->thread_id < 1 || (size_t)s->thread_id >= rd->nrow_of || !rd->row_of[s->thread_id])
		return 0;
	if (t->n == rd->cap) {
		size_t cap = rd->cap;
		grow_array(&t->time, &cap, t->n + 1, sizeof *t->time);
		cap = rd->cap;
		grow_array(&t->value, &cap, t->n + 1, sizeof *t->value);
		cap = rd->cap;
		grow_array(&t->blame, &cap, t->n + 1, sizeof *t->blame);
		cap = rd->cap;
		grow_array(&t->ctx, &cap, t->n + 1, sizeof *t->ctx);
		cap = rd->cap;
		grow_array(&t->row, &cap, t->n + 1, sizeof *t->row);
		cap = rd->cap;
		grow_array(&t->act, &cap, t->n + 1, sizeof *t->act);
		rd->cap = cap;
	}
	size_t i = t->n++;
	t->time[i] = s->time;
	t->value[i] = s->value;
	int working = s->activity == DBR_ACT_WORK || s->activity == DBR_ACT_OVERHEAD;
	t->blame[i] = working && s->n_working > 0 ? s->value * s->n_idle / s->n_working : 0;
	t->ctx[i] = s->context_id >= 1 && (size_t)s->context_id <= t->nctx ? (uint32_t)s->context_id
									   : 0;
	t->row[i] = (uint16_t)(rd->row_of[s->thread_id] - 1);
	t->act[i] = (uint8_t)s->activity;
	return 0;
}

/* Numbers TREE's contexts depth first, without recursion (trees can be a
 * million deep). */
static void number_tree(struct vtimeline *t, const struct dbr_tree *tree)
{
	t->nctx = tree->n;
	t->pre = xcalloc(tree->n + 1, sizeof *t->pre);
	t->last = xcalloc(tree->n + 1, sizeof *t->last);
	uint32_t next = 0;
	for (size_t root = 0; root < tree->n; root++) {
		if (tree->c[root].parent != UINT32_MAX)
			continue;
		uint32_t c = (uint32_t)root;
		for (;;) {
			t->pre[c] = next++;
			if (tree->c[c].first != UINT32_MAX) {
				c = tree->c[c].first;
				continue;
			}
			/* Up until a context with a next sibling, closing each. */
			while (c != UINT32_MAX) {
				t->last[c] = next - 1;
				if (c == root)
					break;
				if (tree->c[c].next != UINT32_MAX) {
					c = tree->c[c].next;
					break;
				}
				c = tree->c[c].parent;
			}
			if (c == UINT32_MAX || c == root)
				break;
		}
	}
}

/* Reads the trace of the event shown, once per event. */
static struct vtimeline *timeline_of(struct vui *u)
{
	struct vtimeline *t = u->tl;
	if (t && t->ev == u->m->ev)
		return t;
	timeline_free(u);
	double began = now_seconds();
	t = u->tl = xcalloc(1, sizeof *t);
	t->ev = u->m->ev;
	t->mark = -1;
	const char *event = u->m->event[u->m->ev].name;
	struct dbr *db = u->m->db;
	const struct dbr_tree *tree = dbr_tree(db);
	if (!tree || dbr_timeline(db, event, 0, 0, 1, 0, &t->outline) < 0) {
		t->problem = xstrdup(dbr_error(db));
		return t;
	}
	number_tree(t, tree);
	struct reading rd = { .t = t };
	rd.nrow_of = t->outline.nthreads * 2 + 2;
	for (size_t k = 0; k < t->outline.nthreads; k++)
		if (t->outline.thread[k].id >= 1 && (size_t)t->outline.thread[k].id >= rd.nrow_of)
			rd.nrow_of = (size_t)t->outline.thread[k].id + 1;
	rd.row_of = xcalloc(rd.nrow_of, sizeof *rd.row_of);
	for (size_t k = 0; k < t->outline.nthreads && k < UINT16_MAX; k++)
		if (t->outline.thread[k].id >= 1)
			rd.row_of[t->outline.thread[k].id] = (uint16_t)(k + 1);
	if (dbr_trace_scan(db, event, keep_sample, &rd) < 0)
		t->problem = xstrdup(dbr_error(db));
	else if (t->n == 0)
		t->problem = xstrdup("the run recorded no trace (culprit run --no-trace, or "
				     "CULPRIT_TRACE_MB=0): run it again without them");
	free(rd.row_of);
	u->reading += now_seconds() - began;
	u->read_samples += t->n;
	t->from = 0;
	t->to = t->outline.duration > 0 ? t->outline.duration : 1;
	t->cursor = 0;
	return t;
}

/* ---- the range's values ------------------------------------------------------ */

/* The values of every context from the samples in [FROM, TO). */
static void range_values(struct vui *u, struct vtimeline *t)
{
	const struct dbr_tree *tree = dbr_tree(u->m->db);
	size_t n = t->nctx;
	free(t->range_incl);
	free(t->range_excl);
	t->range_excl = xcalloc(n * VM_COUNT + 1, sizeof *t->range_excl);
	t->range_incl = xcalloc(n * VM_COUNT + 1, sizeof *t->range_incl);
	for (size_t i = 0; i < t->n; i++) {
		if (!t->ctx[i] || t->time[i] < t->range_from || t->time[i] >= t->range_to)
			continue;
		if (t->act[i] != DBR_ACT_WORK && t->act[i] != DBR_ACT_OVERHEAD)
			continue;
		double *v = &t->range_excl[(size_t)(t->ctx[i] - 1) * VM_COUNT];
		v[VM_WORK] += t->value[i];
		v[VM_IDLENESS] += t->blame[i];
		v[VM_SAMPLES] += 1;
		if (t->act[i] == DBR_ACT_OVERHEAD)
			v[VM_OVERHEAD] += t->value[i];
	}
	for (size_t c = 0; c < n; c++) {
		double *v = &t->range_excl[c * VM_COUNT];
		v[VM_USEFUL] = v[VM_WORK] - v[VM_OVERHEAD];
		v[VM_EFFORT] = v[VM_WORK] + v[VM_IDLENESS];
	}
	memcpy(t->range_incl, t->range_excl, n * VM_COUNT * sizeof *t->range_incl);
	/* Parents have smaller ids than their children. */
	for (size_t c = n; c-- > 0;) {
		uint32_t p = tree ? tree->c[c].parent : UINT32_MAX;
		if (p == UINT32_MAX || p >= n)
			continue;
		for (int k = 0; k < VM_COUNT; k++)
			t->range_incl[(size_t)p * VM_COUNT + k] += t->range_incl[c * VM_COUNT + k];
	}
	/* A frame's self cost holds its statements' samples, as in prof. */
	for (size_t c = n; tree && c-- > 0;) {
		uint32_t p = tree->c[c].parent;
		if (tree->c[c].kind != KIND_STATEMENT[0] || p == UINT32_MAX || p >= n ||
		    (tree->c[p].kind != KIND_FRAME[0] && tree->c[p].kind != KIND_INLINED[0]))
			continue;
		for (int k = 0; k < VM_COUNT; k++)
			t->range_excl[(size_t)p * VM_COUNT + k] += t->range_excl[c * VM_COUNT + k];
	}
	u->m->range_incl = t->range_incl;
	u->m->range_excl = t->range_excl;
}

void timeline_follow_event(struct vui *u)
{
	double from, to;
	int ranged = timeline_range(u, &from, &to);
	timeline_free(u);
	if (!ranged)
		return;
	struct vtimeline *t = timeline_of(u);
	if (t->problem)
		return;
	t->range_from = from;
	t->range_to = to;
	range_values(u, t);
}

int timeline_range(const struct vui *u, double *from, double *to)
{
	const struct vtimeline *t = u->tl;
	if (!t || !(t->range_to > t->range_from))
		return 0;
	*from = t->range_from;
	*to = t->range_to;
	return 1;
}

/* ---- the pane ------------------------------------------------------------------ */

#define LABEL_W 13		/* a thread's label, then the cells */

/* What a cell shows: the activity with the most value in it. */
static const char cell_char[DBR_ACTIVITIES] = {
	[DBR_ACT_WORK] = '#', [DBR_ACT_OVERHEAD] = '=',
	/* Idle, by cause: serial, barrier, lock, taskwait, join, sleep, io. */
	[DBR_ACT_IDLE] = '.', [DBR_ACT_IDLE + 1] = 'b', [DBR_ACT_IDLE + 2] = 'l',
	[DBR_ACT_IDLE + 3] = 't', [DBR_ACT_IDLE + 4] = 'j', [DBR_ACT_IDLE + 5] = 's',
	[DBR_ACT_IDLE + 6] = 'i', [DBR_ACT_MEASUREMENT] = '~',
};

/* The selected row's context, whose samples are highlighted: 0 for none. */
static uint32_t focus_of(const struct vui *u, const struct vtimeline *t)
{
	const struct vrow *r = ui_selected((struct vui *)u);
	if (u->view != VIEW_CCT || !r || r->id < 1 || (size_t)r->id > t->nctx)
		return 0;
	return (uint32_t)r->id;
}

/* The column of time T in a pane W cells wide, or -1 outside the window. */
static int column_of(const struct vtimeline *t, double time, int w)
{
	if (time < t->from || time > t->to || t->to <= t->from)
		return -1;
	int x = (int)((time - t->from) / (t->to - t->from) * w);
	return x >= w ? w - 1 : x;
}

/* Per row of GROUP threads and cell: the value by activity, and whether
 * a sample of the focus is in it; into SUMS (rows x W x DBR_ACTIVITIES),
 * HOT (rows x W). */
static void fill_cells(const struct vtimeline *t, uint32_t focus, int w, size_t group,
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
		size_t cell = (size_t)(t->row[i] / group) * (size_t)w + (size_t)x;
		sums[cell * DBR_ACTIVITIES + t->act[i]] += t->value[i];
		if (t->ctx[i] && t->pre[t->ctx[i] - 1] >= lo && t->pre[t->ctx[i] - 1] <= hi)
			hot[cell] = 1;
	}
}

/* Row K's label: its thread, or the threads it groups. */
static void row_label(const struct vtimeline *t, size_t k, size_t group, char *buf, size_t size)
{
	const struct dbr_timeline_thread *a = &t->outline.thread[k * group];
	size_t end = (k + 1) * group < t->outline.nthreads ? (k + 1) * group : t->outline.nthreads;
	if (end - k * group <= 1)
		snprintf(buf, size, "%lld %s", (long long)a->tid, a->name ? a->name : "");
	else
		snprintf(buf, size, "%zu thr %lld+", end - k * group, (long long)a->tid);
}

static attr_t activity_attr(const struct vui *u, int a)
{
	if (!u->color)
		return a == DBR_ACT_WORK ? A_BOLD : 0;
	int pair = a == DBR_ACT_WORK ? VC_GOOD : a == DBR_ACT_OVERHEAD ? VC_WARM
		 : a == DBR_ACT_MEASUREMENT ? VC_DIM : VC_HOT;
	return COLOR_PAIR(pair);
}

/* The header: the window, the cursor, the range or the mark. */
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
	/* Under the header: the range (or the marked stretch) and the cursor. */
	double a = ranged ? from : t->mark >= 0 ? t->mark : -1;
	double b = ranged ? to : t->mark >= 0 ? t->cursor : -1;
	if (a > b) {
		double s = a;
		a = b;
		b = s;
	}
	for (int x = 0; x < w; x++) {
		double at = t->from + (x + 0.5) * (t->to - t->from) / w;
		chtype ch = a >= 0 && at >= a && at <= b ? '-' : ' ';
		mvaddch(y + 1, LABEL_W + x, ch);
	}
	int c = column_of(t, t->cursor, w);
	if (c >= 0)
		mvaddch(y + 1, LABEL_W + c, '^' | A_BOLD);
	mvaddnstr(y + 1, 0, "thread", LABEL_W - 1);
}

void timeline_draw(struct vui *u, int y, int h)
{
	struct vtimeline *t = timeline_of(u);
	int w = COLS - LABEL_W;
	if (t->problem || w < 8 || h < 3) {
		/* Word-wrapped over the pane's lines. */
		const char *p = t->problem ? t->problem : "too small for the timeline";
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
		return;
	}
	draw_axis(u, t, y, w);
	/* A row a thread; more threads than rows: each row a few of them
	 * (in process and creation order), the most value shown. */
	size_t room = (size_t)(h - 2), n = t->outline.nthreads;
	size_t group = n > room ? (n + room - 1) / room : 1;
	size_t rows = (n + group - 1) / group;
	double *sums = xcalloc(rows * (size_t)w * DBR_ACTIVITIES + 1, sizeof *sums);
	uint8_t *hot = xcalloc(rows * (size_t)w + 1, 1);
	fill_cells(t, focus_of(u, t), w, group, sums, hot);
	for (size_t k = 0; k < rows; k++) {
		char label[64];
		row_label(t, k, group, label, sizeof label);
		draw_put(y + 2 + (int)k, 0, LABEL_W - 1, label, 0);
		for (int x = 0; x < w; x++) {
			const double *s = &sums[(k * (size_t)w + (size_t)x) * DBR_ACTIVITIES];
			int best = -1;
			for (int a = 0; a < DBR_ACTIVITIES; a++)
				if (s[a] > 0 && (best < 0 || s[a] > s[best]))
					best = a;
			chtype ch = best < 0 ? ' ' : (chtype)cell_char[best];
			attr_t at = best < 0 ? 0 : activity_attr(u, best);
			if (hot[k * (size_t)w + (size_t)x])
				at |= A_REVERSE;
			mvaddch(y + 2 + (int)k, LABEL_W + x, ch | at);
		}
	}
	free(sums);
	free(hot);
}

/* ---- keys ------------------------------------------------------------------------ */

/* The window's width in seconds, and a cell's. */
static double span(const struct vtimeline *t)
{
	return t->to - t->from;
}

static void clamp_window(struct vtimeline *t)
{
	double d = t->outline.duration > 0 ? t->outline.duration : 1, w = span(t);
	if (w > d)
		w = d;
	if (t->from < 0)
		t->from = 0;
	if (t->from + w > d)
		t->from = d - w;
	t->to = t->from + w;
	if (t->cursor < t->from)
		t->cursor = t->from;
	if (t->cursor > t->to)
		t->cursor = t->to;
}

/* The timeline to act on, or NULL with the status saying why. */
static struct vtimeline *acting(struct vui *u)
{
	if (u->pane != PANE_TIMELINE) {
		snprintf(u->status, sizeof u->status, "t opens the timeline first");
		return NULL;
	}
	struct vtimeline *t = timeline_of(u);
	if (t->problem) {
		snprintf(u->status, sizeof u->status, "%s", t->problem);
		return NULL;
	}
	return t;
}

int timeline_move(struct vui *u, int cells)
{
	struct vtimeline *t = acting(u);
	if (!t)
		return 1;
	int w = COLS - LABEL_W > 1 ? COLS - LABEL_W : 1;
	double width = span(t), d = t->outline.duration;
	t->cursor += cells * width / w;
	if (t->cursor < 0)
		t->cursor = 0;
	if (d > 0 && t->cursor > d)
		t->cursor = d;
	/* Past an edge, the window follows. */
	if (t->cursor < t->from)
		t->from = t->cursor;
	if (t->cursor > t->to)
		t->from = t->cursor - width;
	t->to = t->from + width;
	clamp_window(t);
	return 1;
}

int timeline_zoom(struct vui *u, double factor)
{
	struct vtimeline *t = acting(u);
	if (!t)
		return 1;
	double w = span(t) * factor, at = (t->cursor - t->from) / span(t);
	if (w < 1e-6)
		w = 1e-6;
	t->from = t->cursor - at * w;
	t->to = t->from + w;
	clamp_window(t);
	return 1;
}

/* Filters the views to [FROM, TO), or to the whole run when TO <= FROM. */
static void set_range(struct vui *u, struct vtimeline *t, double from, double to)
{
	if (from > to) {
		double s = from;
		from = to;
		to = s;
	}
	/* To the run's end: its last samples too. */
	if (to > from && to >= t->outline.duration)
		to = t->outline.duration + 1e-6;
	t->range_from = from;
	t->range_to = to;
	t->mark = -1;
	if (to > from) {
		range_values(u, t);
		snprintf(u->status, sizeof u->status, "the views show %.3f-%.3f s of the run", from,
			 to);
	} else {
		u->m->range_incl = u->m->range_excl = NULL;
		snprintf(u->status, sizeof u->status, "the views show the whole run");
	}
	ui_reload(u);
}

int timeline_mark(struct vui *u, int end)
{
	struct vtimeline *t = acting(u);
	if (!t)
		return 1;
	if (!end) {
		t->mark = t->cursor;
		snprintf(u->status, sizeof u->status, "range from %.3f s: move the cursor, then ]",
			 t->mark);
	} else if (t->mark < 0 || t->mark == t->cursor) {
		snprintf(u->status, sizeof u->status, "[ marks where the range starts");
	} else {
		set_range(u, t, t->mark, t->cursor);
	}
	return 1;
}

int timeline_clear(struct vui *u)
{
	struct vtimeline *t = acting(u);
	if (t)
		set_range(u, t, 0, 0);
	return 1;
}

int timeline_mouse(struct vui *u, int x, int pressed, int released)
{
	struct vtimeline *t = acting(u);
	int w = COLS - LABEL_W;
	if (!t || x < LABEL_W || w < 1)
		return 1;
	double at = t->from + (x - LABEL_W + 0.5) * span(t) / w;
	if (pressed) {
		t->cursor = t->mark = at;
	} else if (released && t->mark >= 0 && column_of(t, t->mark, w) != x - LABEL_W) {
		t->cursor = at;
		set_range(u, t, t->mark, at);
	} else {
		t->cursor = at;
		t->mark = -1;
	}
	return 1;
}
