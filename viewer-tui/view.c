/* view.c - `culprit view`: opens a database and runs the session: keys,
 * mouse, and the commands they stand for.
 *
 * Everything that can be wrong with the request is found before the
 * terminal is touched, so an error leaves it as it was. */
#define _GNU_SOURCE
#include "commands.h"
#include "tools.h"
#include "view.h"

#include <curses.h>
#include <getopt.h>
#include <stdarg.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>


static const char view_usage[] =
	"usage: culprit view [--event=E] [--view=calling-context|callers|flat] DB\n"
	"\n"
	"Browses the profile in database DB (made by `culprit prof`) in the terminal:\n"
	"the calling-context tree, callers and flat views, with work, idleness and\n"
	"overhead, details per context (path, diagnosis, per-thread values) and the\n"
	"source.  Press ? in the viewer for its keys.\n"
	"\n"
	"  --event=E   the event to show first (default: the first, e.g. cputime)\n"
	"  --view=V    the view to open in (default: calling-context)\n"
	"  -h, --help  show this help\n"
	"\n"
	"NO_COLOR in the environment turns colour off.\n";

struct vrow *ui_selected(struct vui *u)
{
	size_t s = u->sel[u->view];
	return s < u->list.n ? u->list.row[s] : NULL;
}

const struct vcolumn *ui_sort_column(const struct vui *u)
{
	return &u->col[u->sortcol];
}

static void status(struct vui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void status(struct vui *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(u->status, sizeof u->status, fmt, ap);
	va_end(ap);
}

static double filter_value(const struct vui *u)
{
	const struct vcolumn *c = ui_sort_column(u);
	double base = model_percent_base(u->m, c->metric);
	return u->filter > 0 ? u->filter / 100 * base : 0;
}

static void relist(struct vui *u)
{
	list_build(&u->list, u->root[u->view]);
}

/* Reads the top of the current view the first time it is shown. */
static void ensure_view(struct vui *u)
{
	if (u->root[u->view])
		return;
	u->root[u->view] = row_new(NULL, VK_ROOT);
	if (model_load_top(u->m, u->view, u->root[u->view]) < 0)
		status(u, "%s", u->m->error ? u->m->error : "cannot read the view");
	tree_sort(u->root[u->view], ui_sort_column(u));
	tree_filter(u->root[u->view], ui_sort_column(u), filter_value(u));
	u->sel[u->view] = u->top[u->view] = 0;
}

static int expand(struct vui *u, struct vrow *r)
{
	if (!r || r->leaf)
		return 0;
	if (!r->loaded) {
		double t0 = now_seconds();
		if (model_load_children(u->m, u->view, r) < 0) {
			status(u, "%s", u->m->error ? u->m->error : "cannot read the children");
			return 0;
		}
		double took = now_seconds() - t0;
		if (took > u->slowest) {
			u->slowest = took;
			snprintf(u->slowest_row, sizeof u->slowest_row, "%s",
				 r->procedure ? r->procedure : "<program root>");
		}
		tree_sort(r, ui_sort_column(u));
		tree_filter(r, ui_sort_column(u), filter_value(u));
	}
	if (r->nkids == 0)
		return 0;
	r->expanded = 1;
	return 1;
}

static void select_row(struct vui *u, const struct vrow *r)
{
	for (size_t i = 0; i < u->list.n; i++)
		if (u->list.row[i] == r) {
			u->sel[u->view] = i;
			return;
		}
}

/* Expands the selected row and follows the child with the most of the
 * sorted column while it keeps at least KEEP of its parent's, and 1% of
 * the whole (a deep recursion would go on halving otherwise).  Returns
 * the levels it went down. */
static int follow_hot(struct vui *u, double keep)
{
	struct vrow *r = ui_selected(u);
	const struct vcolumn *c = ui_sort_column(u);
	double floor = 0.01 * model_percent_base(u->m, c->metric);
	int levels = 0;
	while (r && expand(u, r)) {
		struct vrow *best = NULL;
		for (size_t i = 0; i < r->nkids; i++)
			if (!r->kid[i]->hidden && (!best || row_value(r->kid[i], c) > row_value(best, c)))
				best = r->kid[i];
		if (!best || row_value(best, c) <= 0 || row_value(best, c) < keep * row_value(r, c) ||
		    row_value(best, c) < floor)
			break;
		r = best;
		levels++;
	}
	relist(u);
	if (r)
		select_row(u, r);
	return levels;
}

/* H: the hot path, down while a child keeps half its parent's. */
static void hot_path(struct vui *u)
{
	int levels = follow_hot(u, 0.5);
	status(u, "hot path: %d level%s down", levels, levels == 1 ? "" : "s");
}

static void resort(struct vui *u)
{
	for (int v = 0; v < VIEW_COUNT; v++)
		if (u->root[v]) {
			struct vrow *keep = v == (int)u->view ? ui_selected(u) : NULL;
			tree_sort(u->root[v], ui_sort_column(u));
			tree_filter(u->root[v], ui_sort_column(u), filter_value(u));
			if (v == (int)u->view) {
				relist(u);
				if (keep)
					select_row(u, keep);
			}
		}
}

/* Shows context ID in the calling-context view: expands its ancestors
 * and selects it.  Returns 0, or -1 when it is not in the tree. */
static int reveal(struct vui *u, int64_t id)
{
	int64_t anc[1024];
	size_t n = model_ancestors(u->m, id, anc, 1024);
	u->view = VIEW_CCT;
	ensure_view(u);
	struct vrow *r = u->root[VIEW_CCT];
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && !expand(u, r))
			return -1;
		struct vrow *next = NULL;
		for (size_t k = 0; k < r->nkids && !next; k++)
			if (r->kid[k]->id == anc[i])
				next = r->kid[k];
		if (!next)
			return -1;
		next->hidden = 0;
		r = next;
	}
	relist(u);
	select_row(u, r);
	return 0;
}

static void rebuild_all(struct vui *u, int64_t keep_id)
{
	for (int v = 0; v < VIEW_COUNT; v++) {
		row_free(u->root[v]);
		u->root[v] = NULL;
		u->sel[v] = u->top[v] = 0;
	}
	draw_forget();
	free(u->hits);
	u->hits = NULL;
	u->nhits = 0;
	enum vview view = u->view;
	ensure_view(u);
	if (keep_id && view == VIEW_CCT)
		reveal(u, keep_id);
	relist(u);
}

void ui_reload(struct vui *u)
{
	const struct vrow *r = ui_selected(u);
	int64_t keep = r && u->view == VIEW_CCT ? r->id : 0;
	enum vview view = u->view;
	rebuild_all(u, 0);
	/* The calling-context view opens where the effort of the new figures
	 * first splits, as the first screen does; then back to the
	 * selection, if it has values. */
	u->view = VIEW_CCT;
	ensure_view(u);
	relist(u);
	follow_hot(u, 0.9);
	if (keep > 1)
		reveal(u, keep);
	u->view = view;
	ensure_view(u);
	relist(u);
}

/* ---- search ---------------------------------------------------------------- */

static void search_step(struct vui *u, int dir)
{
	if (!u->query[0]) {
		status(u, "no search yet: press / to search");
		return;
	}
	if (u->view == VIEW_CCT) {
		if (!u->nhits) {
			status(u, "no procedure matches \"%s\"", u->query);
			return;
		}
		u->hit = (u->hit + u->nhits + (size_t)dir) % u->nhits;
		if (reveal(u, u->hits[u->hit]) < 0)
			status(u, "match %zu of %zu is hidden (below the filter?)", u->hit + 1, u->nhits);
		else
			status(u, "match %zu of %zu for \"%s\" (n next, N previous)", u->hit + 1,
			       u->nhits, u->query);
		return;
	}
	/* The procedure views: search the rows on screen, from the selection. */
	size_t n = u->list.n, at = u->sel[u->view];
	for (size_t k = 1; k <= n; k++) {
		size_t i = (at + (dir > 0 ? k : n - k)) % n;
		const struct vrow *r = u->list.row[i];
		if (r->procedure && strcasestr(r->procedure, u->query)) {
			u->sel[u->view] = i;
			status(u, "\"%s\" found (n next, N previous)", u->query);
			return;
		}
	}
	status(u, "no procedure matches \"%s\"", u->query);
}

static void search_start(struct vui *u)
{
	snprintf(u->query, sizeof u->query, "%.*s", (int)u->ninput, u->input);
	free(u->hits);
	u->hits = NULL;
	u->nhits = 0;
	u->hit = 0;
	if (!u->query[0])
		return;
	if (u->view == VIEW_CCT) {
		u->hits = xcalloc(1000, sizeof *u->hits);
		if (model_search(u->m, u->query, ui_sort_column(u)->metric, u->hits, 1000,
				 &u->nhits) < 0)
			status(u, "%s", u->m->error);
		u->hit = (size_t)-1;
		search_step(u, 1);
	} else {
		u->sel[u->view] = u->list.n ? u->list.n - 1 : 0;
		search_step(u, 1);
	}
}

/* ---- keys ---------------------------------------------------------------------- */

static void move_sel(struct vui *u, long delta)
{
	long s = (long)u->sel[u->view] + delta;
	if (s >= (long)u->list.n)
		s = (long)u->list.n - 1;
	if (s < 0)
		s = 0;
	u->sel[u->view] = (size_t)s;
}

static void toggle(struct vui *u, struct vrow *r)
{
	if (!r)
		return;
	if (r->expanded)
		r->expanded = 0;
	else if (!expand(u, r) && r->leaf)
		status(u, "nothing below this row");
	relist(u);
	select_row(u, r);
}

static void collapse_or_up(struct vui *u)
{
	struct vrow *r = ui_selected(u);
	if (!r)
		return;
	if (r->expanded) {
		r->expanded = 0;
	} else if (r->parent && r->parent != u->root[u->view]) {
		r = r->parent;
	}
	relist(u);
	select_row(u, r);
}

static void end_prompt(struct vui *u, int accept)
{
	int what = u->prompting;
	u->prompting = 0;
	if (!accept) {
		status(u, "cancelled");
		return;
	}
	if (what == '/') {
		search_start(u);
	} else {
		char buf[64];
		snprintf(buf, sizeof buf, "%.*s", (int)u->ninput, u->input);
		char *end;
		double v = strtod(buf, &end);
		if (end == buf || (*end && strcmp(end, "%") != 0) || v < 0 || v > 100) {
			status(u, "the filter takes a percentage from 0 to 100, like 1 or 0.5%%");
			return;
		}
		u->filter = v;
		resort(u);
		status(u, v > 0 ? "hiding rows below %g%% of effort (f 0 shows all)" : "showing all rows",
		       v);
	}
}

static void prompt_key(struct vui *u, int ch)
{
	if (ch == '\n' || ch == KEY_ENTER || ch == '\r')
		end_prompt(u, 1);
	else if (ch == 27)
		end_prompt(u, 0);
	else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (u->ninput)
			u->ninput--;
	} else if (ch >= 0x20 && ch < 0x7f && u->ninput + 1 < sizeof u->input)
		u->input[u->ninput++] = (char)ch;
}

static void chooser_key(struct vui *u, int ch)
{
	switch (ch) {
	case KEY_UP: case 'k':
		if (u->chooser_at > 0)
			u->chooser_at--;
		break;
	case KEY_DOWN: case 'j':
		if (u->chooser_at + 1 < VCOL_COUNT)
			u->chooser_at++;
		break;
	case ' ': {
		struct vcolumn *c = &u->col[u->chooser_at];
		int shown = 0;
		for (int i = 0; i < VCOL_COUNT; i++)
			shown += u->col[i].shown;
		if (c->shown && shown == 1)
			break;	/* keep one */
		c->shown = !c->shown;
		if (!u->col[u->sortcol].shown)
			for (int i = 0; i < VCOL_COUNT; i++)
				if (u->col[i].shown) {
					u->sortcol = i;
					resort(u);
					break;
				}
		break;
	}
	default:
		u->chooser = 0;
	}
}

static void next_sort(struct vui *u, int dir)
{
	for (int k = 1; k <= VCOL_COUNT; k++) {
		int i = (u->sortcol + dir * k + 2 * VCOL_COUNT) % VCOL_COUNT;
		if (u->col[i].shown) {
			u->sortcol = i;
			break;
		}
	}
	resort(u);
	const struct vcolumn *c = ui_sort_column(u);
	status(u, "sorted by %s %s", vmetric_title[c->metric], c->exclusive ? "(exclusive)"
									      : "(inclusive)");
}

static void switch_view(struct vui *u, enum vview v)
{
	u->view = v;
	ensure_view(u);
	relist(u);
	status(u, "%s view", vviews[v].name);
}

static void mouse(struct vui *u)
{
	MEVENT ev;
	if (getmouse(&ev) != OK)
		return;
	int wheel = ev.bstate & BUTTON4_PRESSED ? -1 : 0;
#ifdef BUTTON5_PRESSED
	wheel = ev.bstate & BUTTON5_PRESSED ? 1 : wheel;
#endif
	if (u->pane == PANE_TIMELINE && ev.y >= u->pane_y && ev.y < u->pane_y + u->pane_h) {
		timeline_mouse(u, ev.x, (ev.bstate & BUTTON1_PRESSED) != 0,
			       (ev.bstate & BUTTON1_RELEASED) != 0, wheel);
		return;
	}
	if (ev.bstate & BUTTON4_PRESSED) {
		move_sel(u, -3);
		return;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED) {
		move_sel(u, 3);
		return;
	}
#endif
	if (ev.y >= u->rows_y && ev.y < u->rows_y + u->rows_h &&
	    (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED))) {
		size_t i = u->top[u->view] + (size_t)(ev.y - u->rows_y);
		if (i >= u->list.n)
			return;
		int was = u->sel[u->view] == i;
		u->sel[u->view] = i;
		if ((ev.bstate & BUTTON1_DOUBLE_CLICKED) || (was && (ev.bstate & BUTTON1_CLICKED)))
			toggle(u, u->list.row[i]);
	}
}

/* ---- the key table: what each key does, and the help made from it ------- */

static int act_quit(struct vui *u) { (void)u; return 0; }
static int act_up(struct vui *u) { move_sel(u, -1); return 1; }
static int act_down(struct vui *u) { move_sel(u, 1); return 1; }
static int act_page_up(struct vui *u) { move_sel(u, -(long)u->rows_h); return 1; }
static int act_page_down(struct vui *u) { move_sel(u, u->rows_h); return 1; }
static int act_first(struct vui *u) { u->sel[u->view] = 0; return 1; }
static int act_last(struct vui *u) { move_sel(u, (long)u->list.n); return 1; }
static int act_toggle(struct vui *u) { toggle(u, ui_selected(u)); return 1; }
static int act_collapse(struct vui *u) { collapse_or_up(u); return 1; }
static int act_hot(struct vui *u) { hot_path(u); return 1; }
static int act_cct(struct vui *u) { switch_view(u, VIEW_CCT); return 1; }
static int act_callers(struct vui *u) { switch_view(u, VIEW_CALLERS); return 1; }
static int act_flat(struct vui *u) { switch_view(u, VIEW_FLAT); return 1; }
static int act_sort_prev(struct vui *u) { next_sort(u, -1); return 1; }
static int act_sort_next(struct vui *u) { next_sort(u, 1); return 1; }
static int act_columns(struct vui *u) { u->chooser = 1; return 1; }
static int act_next_hit(struct vui *u) { search_step(u, 1); return 1; }
static int act_prev_hit(struct vui *u) { search_step(u, -1); return 1; }
static int act_help(struct vui *u) { u->help = 1; return 1; }
static int act_mouse(struct vui *u) { mouse(u); return 1; }

static int act_expand(struct vui *u)
{
	struct vrow *r = ui_selected(u);
	if (r && !r->expanded)
		toggle(u, r);
	return 1;
}

static int act_next_view(struct vui *u)
{
	switch_view(u, (enum vview)((u->view + 1) % VIEW_COUNT));
	return 1;
}

static int act_show(struct vui *u)
{
	u->show = (enum vshow)((u->show + 1) % 3);
	status(u, "cells show %s", u->show == SHOW_PERCENT ? "percentages of effort" :
	       u->show == SHOW_VALUE ? "values" : "values and percentages of effort");
	return 1;
}

static int act_event(struct vui *u)
{
	struct vrow *r = ui_selected(u);
	if (u->m->nevents < 2) {
		status(u, "this database has one event only: %s", u->m->event[0].name);
		return 1;
	}
	u->m->ev = (u->m->ev + 1) % u->m->nevents;
	model_load_diagnoses(u->m);
	timeline_follow_event(u);
	rebuild_all(u, r && u->view == VIEW_CCT ? r->id : 0);
	status(u, "event: %s", u->m->event[u->m->ev].name);
	return 1;
}

static int prompt(struct vui *u, int what)
{
	u->prompting = what;
	u->ninput = 0;
	return 1;
}

static int act_filter(struct vui *u) { return prompt(u, 'f'); }
static int act_search(struct vui *u) { return prompt(u, '/'); }

int ui_pane(struct vui *u, enum vpane p)
{
	u->pane = u->pane == p ? PANE_NONE : p;
	draw_forget();
	return 1;
}

static int act_details(struct vui *u) { return ui_pane(u, PANE_DETAIL); }
static int act_source(struct vui *u) { return ui_pane(u, PANE_SOURCE); }
static int act_redraw(struct vui *u)
{
	(void)u;
	clearok(stdscr, TRUE);
	return 1;
}

#define CTRL(c) ((c) & 0x1f)

/* Each key's action.  A row with help text starts a line of the help
 * screen; the rows without any are described by the line above them. */
const struct vkey vkeys[] = {
	{ { KEY_UP, 'k' }, "Up Down k j", "move the selection", act_up },
	{ { KEY_DOWN, 'j' }, NULL, NULL, act_down },
	{ { KEY_PPAGE, CTRL('b') }, "PgUp PgDn", "move by a screen", act_page_up },
	{ { KEY_NPAGE, CTRL('f'), ' ' }, NULL, NULL, act_page_down },
	{ { KEY_HOME, 'g' }, "Home End g G", "the first or last row", act_first },
	{ { KEY_END, 'G' }, NULL, NULL, act_last },
	{ { '\n', '\r', KEY_ENTER }, "Enter", "expand or collapse the selected row", act_toggle },
	{ { '+', KEY_RIGHT, 'l' }, "+ Right l", "expand", act_expand },
	{ { '-', KEY_LEFT, 'h' }, "- Left h", "collapse, or go to the parent row", act_collapse },
	{ { 'H' }, "H", "expand the hot path: down the child holding most of the sort",
	  act_hot },
	{ { '1' }, "1 2 3 Tab", "calling context, callers, flat; the next view", act_cct },
	{ { '2' }, NULL, NULL, act_callers },
	{ { '3' }, NULL, NULL, act_flat },
	{ { '\t' }, NULL, NULL, act_next_view },
	{ { '<' }, "< >", "sort by the previous or next column (marked *)", act_sort_prev },
	{ { '>' }, NULL, NULL, act_sort_next },
	{ { 'c' }, "c %", "choose columns; percentages, values or both", act_columns },
	{ { '%' }, NULL, NULL, act_show },
	{ { 'e' }, "e", "the next event (CPU time, cycles, ...)", act_event },
	{ { 'f' }, "f", "hide rows below a percentage of effort", act_filter },
	{ { '/' }, "/ n N", "search procedures; the next and previous match", act_search },
	{ { 'n' }, NULL, NULL, act_next_hit },
	{ { 'N' }, NULL, NULL, act_prev_hit },
	{ { 'd' }, "d", "details: path, diagnosis, per-thread values", act_details },
	{ { 's' }, "s", "the source around the selected line", act_source },
	{ { 't' }, "t", "timeline: threads over time, the selection's samples reversed",
	  timeline_toggle },
	{ { ',' }, ", .", "timeline: move the cursor earlier or later", timeline_earlier },
	{ { '.' }, NULL, NULL, timeline_later },
	{ { 'z' }, "z Z", "timeline: zoom in or out around the cursor", timeline_zoom_in },
	{ { 'Z' }, NULL, NULL, timeline_zoom_out },
	{ { '[' }, "[ ] x", "timeline: a range from [ to ] filters the views; x clears it",
	  timeline_range_start },
	{ { ']' }, NULL, NULL, timeline_range_end },
	{ { 'x' }, NULL, NULL, timeline_clear },
	{ { 'p' }, "p", "timeline: a row per process, or per thread", timeline_processes },
	{ { 'X' }, "X", "runs as columns: values, change from the first, off", experiments_toggle },
	{ { KEY_MOUSE }, "mouse", "click: select, again: expand; the wheel scrolls", act_mouse },
	{ { '?' }, "?", "this help", act_help },
	{ { KEY_RESIZE, CTRL('l') }, NULL, NULL, act_redraw },
	{ { 'q', 'Q' }, "q", "quit", act_quit },
};
const size_t nvkeys = sizeof vkeys / sizeof vkeys[0];

/* Runs key CH; returns 0 to quit. */
static int key(struct vui *u, int ch)
{
	/* A resize repaints the whole screen whatever mode it comes in: a
	 * prompt, the help or the column chooser ignore the key itself. */
	if (ch == KEY_RESIZE)
		clearok(stdscr, TRUE);
	if (u->prompting) {
		prompt_key(u, ch);
		return 1;
	}
	if (u->help) {
		u->help = 0;
		return ch != 'q';
	}
	if (u->chooser) {
		chooser_key(u, ch);
		return 1;
	}
	u->status[0] = 0;
	for (size_t i = 0; i < nvkeys; i++)
		for (int k = 0; k < 4 && vkeys[i].key[k]; k++)
			if (vkeys[i].key[k] == ch)
				return vkeys[i].run(u);
	return 1;
}

struct options {
	const char *event;
	enum vview view;
	int timing;		/* say how long the first screen took */
	const char *path;
	int help;		/* -h: print the usage, do nothing else */
};

static int parse_view(const char *arg, enum vview *out)
{
	if (strcmp(arg, "top-down") == 0)	/* report's name for it */
		arg = vviews[VIEW_CCT].option;
	for (int v = 0; v < VIEW_COUNT; v++)
		if (strcmp(arg, vviews[v].option) == 0) {
			*out = (enum vview)v;
			return 0;
		}
	return msg_usage("view", "unknown view '%s'; use calling-context, callers or flat", arg);
}

/* Reads the command line into O: EXIT_OK (O->help: show the usage), or
 * EXIT_USAGE after a message. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "view", required_argument, NULL, 'v' },
		{ "timing", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = 0;
	*o = (struct options){ .view = VIEW_CCT };
	argv[0] = "culprit view";
	optind = 1;
	while (!rc && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e': o->event = optarg; break;
		case 'v': rc = parse_view(optarg, &o->view); break;
		case 'T': o->timing = 1; break;
		case 'h': o->help = 1; return EXIT_OK;
		default: fputs(view_usage, stderr); return EXIT_USAGE;
		}
	}
	if (!rc && optind != argc - 1)
		rc = msg_usage("view", "give one database (see culprit view --help)");
	o->path = rc ? NULL : argv[optind];
	return rc;
}

/* Opens the database on the event asked for; 0, or -1 after a message. */
static int open_model(struct vmodel *m, const struct options *o)
{
	char err[600];
	if (model_open(m, o->path, err, sizeof err) < 0)
		return msg_error("%s", err);
	if (o->event) {
		struct dbr_choice ch;
		if (dbr_choose(m->db, o->event, NULL, &ch) < 0)
			return msg_error("%s", dbr_error(m->db));
		while (m->ev < m->nevents && strcmp(m->event[m->ev].name, ch.event) != 0)
			m->ev++;
		dbr_choice_free(&ch);
		model_load_diagnoses(m);
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return msg_error("culprit view needs a terminal; for text, use culprit report %s",
				 m->path);
	return 0;
}

static SCREEN *start_screen(void)
{
	SCREEN *screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		msg_error("cannot use this terminal (TERM=%s); set TERM, or use culprit report",
			  getenv("TERM") ? getenv("TERM") : "");
		return NULL;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(50);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_DOUBLE_CLICKED |
		  BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		  | BUTTON5_PRESSED
#endif
		  , NULL);
	mouseinterval(250);
	curs_set(0);
	return screen;
}

/* The first screen: work, idleness and overhead shown, sorted by work. */
static void start_ui(struct vui *u, struct vmodel *m, enum vview view)
{
	memset(u, 0, sizeof *u);
	u->m = m;
	u->view = view;
	u->color = has_colors() && !(getenv("NO_COLOR") && getenv("NO_COLOR")[0]);
	draw_init_colors(u);
	for (int i = 0; i < VCOL_COUNT; i++) {
		u->col[i].metric = (uint8_t)(i / 2);
		u->col[i].exclusive = (uint8_t)(i % 2);
	}
	u->col[2 * VM_WORK].shown = u->col[2 * VM_IDLENESS].shown = u->col[2 * VM_OVERHEAD].shown = 1;
	u->sortcol = 2 * VM_WORK;
	u->show = COLS >= 120 ? SHOW_BOTH : SHOW_PERCENT;
	ensure_view(u);
	relist(u);
	/* The calling-context view opens where the effort first splits: down
	 * the chain of contexts that each hold nearly all (90%) of their
	 * parent's, past start-up frames and single-call wrappers. */
	if (view == VIEW_CCT)
		follow_hot(u, 0.9);
	draw(u);
}

static void free_ui(struct vui *u)
{
	timeline_free(u);
	experiments_free(u);
	for (int v = 0; v < VIEW_COUNT; v++)
		row_free(u->root[v]);
	free(u->list.row);
	free(u->hits);
	draw_forget();
}

int cmd_view(int argc, char **argv)
{
	struct options o;
	struct vmodel m = { 0 };
	struct vui u;
	SCREEN *screen = NULL;
	double t0 = now_seconds();
	int status = parse_options(argc, argv, &o);
	if (status != EXIT_OK)
		return status;
	if (o.help) {
		fputs(view_usage, stdout);
		return EXIT_OK;
	}
	setlocale(LC_ALL, "");
	if (open_model(&m, &o) < 0 || !(screen = start_screen())) {
		model_close(&m);
		return EXIT_FAIL;
	}
	start_ui(&u, &m, o.view);
	double opened = now_seconds() - t0;
	for (;;) {
		int ch = getch();
		if (ch == ERR)
			continue;
		double began = now_seconds(), read_before = u.reading;
		if (!key(&u, ch))
			break;
		draw(&u);
		/* A key's whole answer, computing and drawing, less reading the
		 * trace once (reported apart). */
		double took = now_seconds() - began - (u.reading - read_before);
		if (took > u.slowest_key) {
			u.slowest_key = took;
			u.slowest_key_name = ch;
		}
	}
	endwin();
	delscreen(screen);
	if (o.timing) {
		fprintf(stderr, "culprit view: first screen in %.1f ms (%lld contexts)\n",
			opened * 1e3, (long long)m.max_id);
		if (u.slowest > 0)
			fprintf(stderr, "culprit view: slowest expansion %.1f ms (%s)\n",
				u.slowest * 1e3, u.slowest_row);
		if (u.slowest_key > 0)
			fprintf(stderr, "culprit view: slowest key %.1f ms (%s)\n",
				u.slowest_key * 1e3, keyname(u.slowest_key_name));
		if (u.reading > 0)
			fprintf(stderr, "culprit view: read the trace's %zu samples in %.1f ms\n",
				u.read_samples, u.reading * 1e3);
	}
	free_ui(&u);
	model_close(&m);
	return EXIT_OK;
}
