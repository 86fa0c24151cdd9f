/* timeline.c - the timeline pane (t): what each thread did over time, from
 * the database's trace, and the time range that filters the
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
#include "timeline.h"
#include "tools.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
	free(t->otype);
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
	/* The samples' arrays grow together, doubling. */
	if (t->n == rd->cap) {
		rd->cap = rd->cap ? 2 * rd->cap : 4096;
		t->time = xrealloc(t->time, rd->cap * sizeof *t->time);
		t->value = xrealloc(t->value, rd->cap * sizeof *t->value);
		t->blame = xrealloc(t->blame, rd->cap * sizeof *t->blame);
		t->ctx = xrealloc(t->ctx, rd->cap * sizeof *t->ctx);
		t->row = xrealloc(t->row, rd->cap * sizeof *t->row);
		t->act = xrealloc(t->act, rd->cap * sizeof *t->act);
	}
	/* A time that is not a number (a damaged database) would place the
	 * sample nowhere: it is left out. */
	if (!(s->time >= 0 && s->time < 1e12))
		return 0;
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

/* The letter of overhead type NAME: the built-in types' own, '+' (as any
 * overhead) for a type of the user's rules. */
static char type_letter(const char *name)
{
	static const struct {
		const char *name;
		char letter;
	} known[] = {
		{ "scheduling", 'S' }, { "synchronization", 'Y' }, { "task-creation", 'T' },
		{ "work-sharing", 'W' }, { "parallel-region", 'P' }, { "loop-scheduling", 'L' },
		{ "runtime", 'R' }, { "interpreter", 'I' },
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (strcmp(name, known[i].name) == 0)
			return known[i].letter;
	return '+';
}

/* Each context's overhead type, as the tree stores it. */
static int read_types(struct vui *u, struct vtimeline *t)
{
	t->otype = xcalloc(t->nctx + 1, 1);
	const char **type = dbr_overhead_types(u->m->db);
	if (!type)
		return model_set_error(u->m);
	for (size_t i = 0; i < t->nctx && i < (size_t)dbr_ncontexts(u->m->db); i++) {
		if (!type[i])
			continue;
		char letter = type_letter(type[i]);
		size_t k = 0;
		while (k < t->ntypes && t->type_char[k] != letter)
			k++;
		if (k == t->ntypes) {
			if (t->ntypes == MAX_TYPES)
				continue;
			t->type_char[t->ntypes++] = letter;
		}
		t->otype[i] = (uint8_t)(k + 1);
	}
	free(type);
	return 0;
}

/* Reads the trace of the event shown, once per event. */
struct vtimeline *timeline_of(struct vui *u)
{
	struct vtimeline *t = u->tl;
	if (t && t->ev == u->m->ev)
		return t;
	timeline_free(u);
	double began = now_seconds();
	t = u->tl = xcalloc(1, sizeof *t);
	t->ev = u->m->ev;
	t->mark = t->kept_mark = -1;
	const char *event = u->m->event[u->m->ev].name;
	struct dbr *db = u->m->db;
	const struct dbr_tree *tree = dbr_tree(db);
	if (!tree || dbr_timeline(db, event, 0, 0, 1, 0, &t->outline) < 0) {
		t->problem = xstrdup(dbr_error(db));
		return t;
	}
	number_tree(t, tree);
	if (read_types(u, t) < 0) {
		t->problem = xstrdup(dbr_error(db));
		return t;
	}
	struct reading rd = { .t = t };
	/* prof numbers threads 1..N: a thread numbered far past that (a
	 * damaged database) is left out rather than sizing the table. */
	rd.nrow_of = t->outline.nthreads * 4 + 1024;
	rd.row_of = xcalloc(rd.nrow_of, sizeof *rd.row_of);
	for (size_t k = 0; k < t->outline.nthreads && k < UINT16_MAX; k++) {
		int64_t id = t->outline.thread[k].id;
		if (id >= 1 && (size_t)id < rd.nrow_of)
			rd.row_of[id] = (uint16_t)(k + 1);
	}
	if (dbr_trace_scan(db, event, keep_sample, &rd) < 0)
		t->problem = xstrdup(dbr_error(db));
	else if (t->n == 0)
		t->problem = xstrdup("the run recorded no trace (culprit run --no-trace, or "
				     "CULPRIT_TRACE_MB=0): run it again without them");
	free(rd.row_of);
	u->reading += now_seconds() - began;
	u->read_samples += t->n;
	/* The run's length as prof recorded it, unless it is not a length
	 * or ends before the samples do. */
	double last = 0;
	for (size_t i = 0; i < t->n; i++)
		last = t->time[i] > last ? t->time[i] : last;
	double d = t->outline.duration;
	if (!(d > 0 && d < 1e12) || d < last)
		t->outline.duration = last > 0 ? last : 1;
	t->from = 0;
	t->to = t->outline.duration;
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
		    !dbr_is_frame(tree->c[p].kind))
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

/* ---- keys ------------------------------------------------------------------------ */

/* The window's length in seconds. */
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

static int timeline_move(struct vui *u, int cells)
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

static int timeline_zoom(struct vui *u, double factor)
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
	t->mark = t->kept_mark = -1;
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

static int timeline_mark(struct vui *u, int end)
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
	/* With the pane hidden too: the title still says the range. */
	struct vtimeline *t = u->tl && u->tl->range_to > u->tl->range_from ? u->tl : acting(u);
	if (t)
		set_range(u, t, 0, 0);
	return 1;
}

int timeline_processes(struct vui *u)
{
	struct vtimeline *t = acting(u);
	if (t) {
		t->per_process = !t->per_process;
		snprintf(u->status, sizeof u->status, "timeline: a row per %s",
			 t->per_process ? "process" : "thread");
	}
	return 1;
}

int timeline_mouse(struct vui *u, int x, int pressed, int released, int wheel)
{
	struct vtimeline *t = acting(u);
	int w = COLS - LABEL_W;
	if (!t || x < LABEL_W || w < 1)
		return 1;
	double at = t->from + (x - LABEL_W + 0.5) * span(t) / w;
	if (wheel) {
		t->cursor = at;
		return timeline_zoom(u, wheel < 0 ? 0.5 : 2);
	}
	if (pressed) {
		/* A drag may start here; a click keeps the mark [ made. */
		t->kept_mark = t->mark;
		t->cursor = t->mark = at;
	} else if (released && t->mark >= 0 && timeline_column(t, t->mark, w) != x - LABEL_W) {
		t->cursor = at;
		set_range(u, t, t->mark, at);
	} else {
		t->cursor = at;
		t->mark = t->kept_mark;
	}
	return 1;
}

/* ---- the keys, as the key table runs them ---- */

int timeline_toggle(struct vui *u)
{
	ui_pane(u, PANE_TIMELINE);
	if (u->pane == PANE_TIMELINE)
		snprintf(u->status, sizeof u->status, "timeline: , . move the cursor  z Z zoom  "
			 "[ ] a range for the views  x the whole run  p processes");
	return 1;
}

int timeline_earlier(struct vui *u) { return timeline_move(u, -1); }
int timeline_later(struct vui *u) { return timeline_move(u, 1); }
int timeline_zoom_in(struct vui *u) { return timeline_zoom(u, 0.5); }
int timeline_zoom_out(struct vui *u) { return timeline_zoom(u, 2); }
int timeline_range_start(struct vui *u) { return timeline_mark(u, 0); }
int timeline_range_end(struct vui *u) { return timeline_mark(u, 1); }
