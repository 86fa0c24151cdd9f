/* draw.c - the screen: a title line, the column headings, the rows, an
 * optional pane (details, source, or the timeline, which timeline_draw.c
 * fills) and a status line, redrawn whole on every change.  Every string
 * goes to the screen through put(): a name or source line from the
 * measured program can hold no control sequence. */
#define _GNU_SOURCE
#include "tools.h"
#include "view.h"

#include <curses.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>


const char *const vmetric_title[VM_COUNT] = {
	[VM_WORK] = "work", [VM_IDLENESS] = "idle", [VM_OVERHEAD] = "ovhd",
	[VM_USEFUL] = "useful", [VM_EFFORT] = "effort", [VM_SAMPLES] = "smpl",
};

/* Longer names, for the details and the column chooser. */
static const char *const metric_long[VM_COUNT] = {
	[VM_WORK] = "work", [VM_IDLENESS] = "idleness", [VM_OVERHEAD] = "overhead",
	[VM_USEFUL] = "useful work", [VM_EFFORT] = "effort", [VM_SAMPLES] = "samples",
};

void draw_init_colors(struct vui *u)
{
	if (!u->color)
		return;
	start_color();
	use_default_colors();
	init_pair(VC_HOT, COLOR_RED, -1);
	init_pair(VC_WARM, COLOR_YELLOW, -1);
	init_pair(VC_DIM, COLOR_CYAN, -1);
	init_pair(VC_TITLE, COLOR_BLACK, COLOR_CYAN);
	init_pair(VC_GOOD, COLOR_GREEN, -1);
}

static attr_t color(const struct vui *u, int pair)
{
	return u->color ? COLOR_PAIR(pair) : 0;
}

/* Writes S at Y, X in at most WIDTH columns.  S is decoded in the
 * terminal's locale (UTF-8 names show as they are); a byte that does not
 * decode, and any character that is not printable (escape, the C1
 * controls...), shows as '?', so that nothing from the measured program
 * can reach the terminal as a control sequence. */
static void put(int y, int x, int width, const char *s, attr_t attr)
{
	wchar_t out[512];
	size_t n = 0;
	int cols = 0;
	mbstate_t st;
	if (width <= 0 || y < 0 || y >= LINES || x >= COLS || !s)
		return;
	if (x + width > COLS)
		width = COLS - x;
	memset(&st, 0, sizeof st);
	while (*s && n + 1 < sizeof out / sizeof *out) {
		wchar_t wc;
		size_t len = mbrtowc(&wc, s, strlen(s), &st);
		if (len == (size_t)-1 || len == (size_t)-2 || len == 0) {
			wc = L'?';
			len = 1;
			memset(&st, 0, sizeof st);
		} else if (!iswprint((wint_t)wc)) {
			wc = L'?';
		}
		int w = wcwidth(wc);
		if (w < 0) {
			wc = L'?';
			w = 1;
		}
		if (cols + w > width)
			break;
		out[n++] = wc;
		cols += w;
		s += len;
	}
	out[n] = 0;
	attron(attr);
	mvaddnwstr(y, x, out, (int)n);
	attroff(attr);
}

void draw_put(int y, int x, int width, const char *s, unsigned int attr)
{
	put(y, x, width, s, (attr_t)attr);
}

/* A blank box with a border. */
static void frame_box(int y0, int x0, int h, int w)
{
	for (int k = 0; k < h; k++)
		mvhline(y0 + k, x0, ' ', w);
	mvhline(y0, x0, ACS_HLINE, w);
	mvhline(y0 + h - 1, x0, ACS_HLINE, w);
	mvvline(y0, x0, ACS_VLINE, h);
	mvvline(y0, x0 + w - 1, ACS_VLINE, h);
	mvaddch(y0, x0, ACS_ULCORNER);
	mvaddch(y0, x0 + w - 1, ACS_URCORNER);
	mvaddch(y0 + h - 1, x0, ACS_LLCORNER);
	mvaddch(y0 + h - 1, x0 + w - 1, ACS_LRCORNER);
}

static void fill_line(int y, attr_t attr)
{
	attron(attr);
	mvhline(y, 0, ' ', COLS);
	attroff(attr);
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

/* ---- cells ------------------------------------------------------------- */

static int cell_width(const struct vui *u)
{
	return u->show == SHOW_PERCENT ? 9 : u->show == SHOW_VALUE ? 11 : 18;
}

static void format_value(const struct vui *u, int metric, double v, char *buf, size_t size)
{
	const struct vevent *e = &u->m->event[u->m->ev];
	if (metric == VM_SAMPLES)
		snprintf(buf, size, "%9.0f", v);
	else if (e->unit && strcmp(e->unit, "seconds") == 0)
		snprintf(buf, size, "%9.3f", v);
	else
		snprintf(buf, size, "%9.3g", v);
}

/* The same without the padding. */
static void format_compact(const struct vui *u, int metric, double v, char *buf, size_t size)
{
	char tmp[32];
	format_value(u, metric, v, tmp, sizeof tmp);
	const char *p = tmp;
	while (*p == ' ')
		p++;
	snprintf(buf, size, "%s", p);
}

static double percent_of(const struct vui *u, int metric, double v)
{
	double base = model_percent_base(u->m, metric);
	return base > 0 ? 100 * v / base : 0;
}

static void draw_cell(const struct vui *u, int y, int x, const struct vcolumn *c, double v,
		      attr_t base)
{
	char val[32], buf[48];
	double p = percent_of(u, c->metric, v);
	format_value(u, c->metric, v, val, sizeof val);
	if (v == 0)
		snprintf(buf, sizeof buf, "%*s", cell_width(u) - 1, "");
	else if (u->show == SHOW_PERCENT)
		snprintf(buf, sizeof buf, "%7.1f%%", p);
	else if (u->show == SHOW_VALUE)
		snprintf(buf, sizeof buf, " %s", val);
	else
		snprintf(buf, sizeof buf, "%s %6.1f%%", val, p);
	attr_t a = base;
	if (!(base & A_REVERSE) && c->metric != VM_SAMPLES && c->metric != VM_USEFUL &&
	    c->metric != VM_WORK && c->metric != VM_EFFORT)
		a |= p >= 20 ? color(u, VC_HOT) : p >= 5 ? color(u, VC_WARM) : 0;
	else if (!(base & A_REVERSE))
		a |= p >= 20 ? A_BOLD : 0;
	put(y, x, cell_width(u), buf, a);
}

/* ---- the rows -------------------------------------------------------------- */

static void row_label(const struct vui *u, const struct vrow *r, char *buf, size_t size)
{
	const char *p = r->procedure ? r->procedure : "?";
	switch (r->kind) {
	case VK_FRAME:
	case VK_INLINED:
		if (r->site_file)
			snprintf(buf, size, "%s%s  <- %s:%d", r->kind == VK_INLINED ? "[inlined] " : "",
				 p, base_name(r->site_file), r->site_line);
		else
			snprintf(buf, size, "%s%s", r->kind == VK_INLINED ? "[inlined] " : "", p);
		break;
	case VK_STATEMENT:
	case VK_LINE:
		snprintf(buf, size, "line %s:%d", r->file ? base_name(r->file) : "?", r->line);
		break;
	case VK_PROCEDURE:
		snprintf(buf, size, "%s  (%s)", p,
			 r->file ? base_name(r->file) : r->module ? base_name(r->module) : "?");
		break;
	case VK_CALLER: {
		const struct vrow *q = r->parent;
		while (q && q->kind != VK_PROCEDURE)
			q = q->parent;
		const struct vcolumn *c = ui_sort_column(u);
		double whole = q ? row_value(q, c) : 0;
		double share = whole > 0 ? 100 * row_value(r, c) / whole : 0;
		snprintf(buf, size, "%5.1f%% from %s", share, p);
		break;
	}
	default:
		snprintf(buf, size, "%s", p);
	}
}

static void draw_rows(struct vui *u)
{
	int w = cell_width(u), ncols = 0;
	for (int i = 0; i < VCOL_COUNT; i++)
		ncols += u->col[i].shown;
	int xp_x = ncols * w, tree_x = xp_x + 1 + experiments_width(u);

	/* The headings. */
	int x = 0;
	for (int i = 0; i < VCOL_COUNT; i++) {
		const struct vcolumn *c = &u->col[i];
		if (!c->shown)
			continue;
		char head[32];
		snprintf(head, sizeof head, "%s%s %s", i == u->sortcol ? "*" : "",
			 vmetric_title[c->metric], c->exclusive ? "E" : "I");
		attr_t a = A_BOLD | (i == u->sortcol ? A_UNDERLINE : 0);
		int len = (int)strlen(head);
		put(1, x + (w - 1 > len ? w - 1 - len : 0), w - 1, head, a);
		x += w;
	}
	experiments_draw_heads(u, 1, xp_x);
	put(1, tree_x, COLS - tree_x, vviews[u->view].heading, A_BOLD);

	size_t sel = u->sel[u->view], top = u->top[u->view];
	/* Each level indents by two columns, as far as half the tree's width.
	 * Deeper, the tree shifts left in steps of eight levels to keep the
	 * selected row in view: parent and child never share a column, and a
	 * row outside the window shows its depth ("<40", ">72"). */
	int room = (COLS - tree_x) / 2, shift = 0;
	if (sel < u->list.n) {
		int want = 2 * (u->list.row[sel]->depth - 1);
		if (want > room)
			shift = ((want - room) / 16 + 1) * 16;
	}
	for (int k = 0; k < u->rows_h; k++) {
		size_t i = top + (size_t)k;
		int y = u->rows_y + k;
		if (i >= u->list.n)
			break;
		const struct vrow *r = u->list.row[i];
		attr_t base = i == sel ? A_REVERSE : 0;
		if (i == sel)
			fill_line(y, A_REVERSE);
		x = 0;
		for (int c = 0; c < VCOL_COUNT; c++) {
			if (!u->col[c].shown)
				continue;
			draw_cell(u, y, x, &u->col[c], row_value(r, &u->col[c]), base);
			x += w;
		}
		experiments_draw_row(u, r, y, x, base);
		int depth = r->depth - 1;
		int indent = depth * 2 - shift;
		char label[768];
		int at = 0;
		if (indent < 0 || indent > room) {
			at = snprintf(label, sizeof label, "%c%d ", indent < 0 ? '<' : '>', depth);
			indent = indent < 0 ? 0 : room;
		}
		const char *mark = r->leaf ? " " : r->expanded ? "-" : "+";
		put(y, tree_x + indent, 2, mark, base | A_BOLD);
		row_label(u, r, label + at, sizeof label - (size_t)at);
		attr_t a = base;
		if (r->diagnosed) {
			put(y, tree_x + indent + 1, 1, "!", base | A_BOLD | color(u, VC_HOT));
			a |= A_BOLD | (i == sel ? 0 : color(u, VC_HOT));
		}
		put(y, tree_x + indent + 2, COLS - tree_x - indent - 2, label, a);
	}
	if (u->list.n == 0)
		put(u->rows_y, 1, COLS - 2, u->filter > 0 ? "(nothing above the filter: f to change it)"
						   : "(nothing here)", A_DIM);
}

/* ---- panes ------------------------------------------------------------------- */

/* What the panes show, kept while the selection stays. */
static struct {
	const struct vrow *row;
	int view, sortcol;
	size_t ev;
	char *path, *diag;
	char *calls;		/* the diagnosis's runtime calls, or NULL */
	char *waits;		/* the waits called from there, or NULL */
	char *tasks;		/* the tasks it creates, or NULL */
	struct dbr_spread stats;
	struct dbr_rank_stat ranks;	/* over an MPI run's ranks */
	/* source */
	char **lines;
	size_t nlines;
	char *source_error;
	int *sampled;
	double *values;
	size_t nsampled;
} cache;

void draw_forget(void)
{
	free(cache.path);
	free(cache.diag);
	free(cache.calls);
	free(cache.waits);
	free(cache.tasks);
	dbr_spread_free(&cache.stats);
	for (size_t i = 0; i < cache.nlines; i++)
		free(cache.lines[i]);
	free(cache.lines);
	free(cache.source_error);
	free(cache.sampled);
	free(cache.values);
	memset(&cache, 0, sizeof cache);
}

static void read_source(const char *file)
{
	FILE *f = file ? fopen(file, "r") : NULL;
	if (!f) {
		cache.source_error = xasprintf("cannot show %s: %s", file ? file : "the source",
					       file ? strerror(errno) : "no file is known for it");
		return;
	}
	char *line = NULL;
	size_t len = 0, cap = 0;
	ssize_t got;
	while ((got = getline(&line, &len, f)) >= 0 && cache.nlines < 200000) {
		if (got > 0 && line[got - 1] == '\n')
			line[got - 1] = 0;
		/* Tabs to spaces, so that columns line up. */
		char out[1024];
		size_t n = 0;
		for (const char *p = line; *p && n + 9 < sizeof out; p++) {
			if (*p == '\t') {
				do
					out[n++] = ' ';
				while (n % 8);
			} else {
				out[n++] = *p;
			}
		}
		out[n] = 0;
		grow_array(&cache.lines, &cap, cache.nlines + 1, sizeof *cache.lines);
		cache.lines[cache.nlines++] = xstrdup(out);
	}
	free(line);
	fclose(f);
}

static void fill_cache(struct vui *u, const struct vrow *r)
{
	if (cache.row == r && cache.view == (int)u->view && cache.sortcol == u->sortcol &&
	    cache.ev == u->m->ev)
		return;
	draw_forget();
	cache.row = r;
	cache.view = (int)u->view;
	cache.sortcol = u->sortcol;
	cache.ev = u->m->ev;
	if (!r)
		return;
	const struct vcolumn *c = ui_sort_column(u);
	if (r->id) {
		cache.path = model_path(u->m, r->id);
		cache.diag = model_diagnosis(u->m, r->id, &cache.calls);
		model_thread_values(u->m, r->id, c->metric, c->exclusive, &cache.stats);
		model_rank_values(u->m, r->id, c->metric, c->exclusive, &cache.ranks);
	}
	/* A procedure's waits, or a line's. */
	int at_line = r->kind == VK_STATEMENT || r->kind == VK_LINE ? r->line : 0;
	cache.waits = model_waits(u->m, r->procedure, r->file, at_line);
	if (r->kind != VK_STATEMENT && r->kind != VK_LINE)
		cache.tasks = experiments_tasks_line(u, r->procedure, r->file);
	if (u->pane == PANE_SOURCE) {
		read_source(r->file);
		if (r->file)
			if (model_line_values(u->m, r->procedure, r->file, c->metric,
					      &cache.sampled, &cache.values, &cache.nsampled) < 0)
				snprintf(u->status, sizeof u->status, "%s", u->m->error);
	}
}

/* "mean X  min X  max X  stddev X" in METRIC's compact form. */
static void spread_text(const struct vui *u, int metric, double mean, double min, double max,
			double sd, char *out, size_t size)
{
	char v[4][32];
	format_compact(u, metric, mean, v[0], sizeof v[0]);
	format_compact(u, metric, min, v[1], sizeof v[1]);
	format_compact(u, metric, max, v[2], sizeof v[2]);
	format_compact(u, metric, sd, v[3], sizeof v[3]);
	snprintf(out, size, "mean %s  min %s  max %s  stddev %s", v[0], v[1], v[2], v[3]);
}

/* The selected row's path, wrapped between frames over up to three lines
 * (the last shows its end), or its label; the line below it. */
static int draw_path(struct vui *u, const struct vrow *r, int y, int end)
{
	char buf[1024];
	const char *path = cache.path;
	if (!path) {
		row_label(u, r, buf, sizeof buf);
		put(y++, 1, COLS - 2, buf, A_BOLD);
		return y;
	}
	size_t len = strlen(path), at = 0, w = (size_t)(COLS > 8 ? COLS - 8 : 1);
	put(y, 1, 6, "path", A_BOLD);
	for (int k = 0; k < 3 && at < len && y < end; k++, y++) {
		size_t take = len - at;
		if (take > w && k == 2) {
			put(y, 7, 4, "... ", 0);
			put(y, 11, (int)w - 4, path + len - (w - 4), 0);
			at = len;
			continue;
		}
		if (take > w) {
			take = w;
			for (size_t b = w; b > w / 2; b--)
				if (strncmp(path + at + b - 2, "> ", 2) == 0) {
					take = b;
					break;
				}
		}
		snprintf(buf, sizeof buf, "%.*s", (int)take, path + at);
		put(y, 7, (int)w, buf, 0);
		at += take;
	}
	return y;
}

/* Where the row's code is, and its diagnosis over up to two lines broken
 * at a space; the line below them. */
static int draw_where_why(struct vui *u, const struct vrow *r, int y, int end)
{
	char buf[1024];
	if (y < end) {
		if (r->file)
			snprintf(buf, sizeof buf, "%s:%d%s%s", r->file, r->line, r->module ? "  in " : "",
				 r->module ? base_name(r->module) : "");
		else
			snprintf(buf, sizeof buf, "no source line%s%s", r->module ? "; in " : "",
				 r->module ? r->module : "");
		put(y, 1, 6, "where", A_BOLD);
		put(y++, 7, COLS - 8, buf, color(u, VC_DIM));
	}
	if (y < end) {
		put(y, 1, 6, "why", A_BOLD);
		const char *d = cache.diag ? cache.diag : r->id ? "no diagnosis" :
				"diagnoses are for calling contexts (view 1)";
		attr_t a = cache.diag ? color(u, VC_HOT) | A_BOLD : A_DIM;
		size_t w = (size_t)(COLS > 8 ? COLS - 8 : 1), len = strlen(d);
		size_t take = len;
		if (len > w && y + 1 < end) {
			take = w;
			while (take > w / 2 && d[take] != ' ')
				take--;
		}
		snprintf(buf, sizeof buf, "%.*s", (int)take, d);
		put(y++, 7, (int)w, buf, a);
		if (take < len && y < end)
			put(y++, 7, (int)w, d + take + (d[take] == ' '), a);
	}
	if (cache.calls && y < end) {
		snprintf(buf, sizeof buf, "in runtime calls: %s", cache.calls);
		put(y++, 7, COLS - 8, buf, color(u, VC_HOT));
	}
	return y;
}

/* A labelled line of TEXT in attribute A, if there is TEXT and room. */
static int draw_fact(int y, int end, const char *label, const char *text, attr_t a)
{
	if (!text || y >= end)
		return y;
	put(y, 1, 6, label, A_BOLD);
	put(y++, 7, COLS - 8, text, a);
	return y;
}

/* The per-thread spread of the sorted column's metric, and a bar per
 * thread, as many as fit in two columns. */
static void draw_threads(struct vui *u, const struct vrow *r, int y, int end)
{
	const struct vcolumn *c = ui_sort_column(u);
	char buf[1024];
	if (!r->id || !cache.stats.have) {
		put(y, 7, COLS - 8, r->id ? "no per-thread values" :
		    "per-thread values are for calling contexts (view 1)", A_DIM);
		return;
	}
	const struct dbr_spread *s = &cache.stats;
	char spread[160];
	spread_text(u, c->metric, s->mean, s->min, s->max, s->stddev, spread, sizeof spread);
	snprintf(buf, sizeof buf, "%s %s per thread: %s", metric_long[c->metric],
		 c->exclusive ? "(exclusive)" : "(inclusive)", spread);
	put(y, 1, 6, "threads", A_BOLD);
	put(y++, 9, COLS - 10, buf, 0);
	double top = s->max > 0 ? s->max : 1;
	int colw = COLS / 2, barw = colw - 34 > 4 ? colw - 34 : 4;
	size_t shown = 0;
	for (int k = 0; y + k / 2 < end && shown < s->nthreads; k++) {
		const struct dbr_thread_value *t = &s->thread[shown++];
		int bx = (k % 2) * colw + 1, by = y + k / 2;
		char name[24], val[32], bar[256];
		snprintf(name, sizeof name, "%-16.16s", t->name ? t->name : "");
		format_value(u, c->metric, t->value, val, sizeof val);
		int fill = (int)lround(barw * t->value / top);
		if (fill > barw)
			fill = barw;
		memset(bar, '#', (size_t)fill);
		memset(bar + fill, '.', (size_t)(barw - fill));
		bar[barw] = 0;
		put(by, bx, 17, name, 0);
		put(by, bx + 17, barw, bar, t->value >= top * 0.999 && top > 0 ? color(u, VC_HOT)
					     : color(u, VC_GOOD));
		put(by, bx + 18 + barw, 10, val, 0);
	}
	if (shown < s->nthreads && end - 1 >= u->pane_y) {
		snprintf(buf, sizeof buf, "(+%zu threads)", s->nthreads - shown);
		put(end - 1, COLS - (int)strlen(buf) - 1, (int)strlen(buf), buf, A_DIM);
	}
}

static void draw_detail(struct vui *u, const struct vrow *r)
{
	int y = u->pane_y, end = u->pane_y + u->pane_h;
	if (!r) {
		put(y, 1, COLS - 2, "(nothing selected)", A_DIM);
		return;
	}
	y = draw_path(u, r, y, end);
	y = draw_where_why(u, r, y, end);
	y = draw_fact(y, end, "folds", r->id ? model_folded(u->m, r->id) : NULL, color(u, VC_DIM));
	y = draw_fact(y, end, "waits", cache.waits, color(u, VC_WARM));
	y = draw_fact(y, end, "tasks", cache.tasks, color(u, VC_DIM));
	if (cache.ranks.ranks > 1 && cache.ranks.slowest >= 0) {
		const struct dbr_rank_stat *k = &cache.ranks;
		char spread[160], buf[256];
		spread_text(u, ui_sort_column(u)->metric, k->mean, k->min, k->max, k->stddev, spread,
			    sizeof spread);
		snprintf(buf, sizeof buf, "over %d MPI ranks: %s  slowest rank %d", k->ranks, spread,
			 k->slowest);
		y = draw_fact(y, end, "ranks", buf, 0);
	}
	if (y < end)
		draw_threads(u, r, y, end);
}

static double line_value(int line)
{
	for (size_t i = 0; i < cache.nsampled; i++)
		if (cache.sampled[i] == line)
			return cache.values[i];
	return 0;
}

static void draw_source(struct vui *u, const struct vrow *r)
{
	int y = u->pane_y, h = u->pane_h;
	if (!r) {
		put(y, 1, COLS - 2, "(nothing selected)", A_DIM);
		return;
	}
	if (cache.source_error) {
		put(y, 1, COLS - 2, cache.source_error, color(u, VC_WARM));
		return;
	}
	int at = r->line > 0 ? r->line : 1;
	int first = at - h / 2;
	if (first + h > (int)cache.nlines + 1)
		first = (int)cache.nlines + 1 - h;
	if (first < 1)
		first = 1;
	const struct vcolumn *c = ui_sort_column(u);
	for (int k = 0; k < h && first + k <= (int)cache.nlines; k++) {
		int line = first + k;
		double v = line_value(line);
		char cell[48] = "", num[16];
		if (v != 0) {
			char val[32];
			format_value(u, c->metric, v, val, sizeof val);
			snprintf(cell, sizeof cell, "%s %5.1f%%", val, percent_of(u, c->metric, v));
		}
		snprintf(num, sizeof num, "%5d%s", line, line == at ? ">" : " ");
		double p = percent_of(u, c->metric, v);
		put(y + k, 0, 16, cell, p >= 5 ? color(u, VC_HOT) | A_BOLD : p > 0 ? color(u, VC_WARM) : 0);
		put(y + k, 17, 6, num, line == at ? A_BOLD : A_DIM);
		put(y + k, 24, COLS - 24, cache.lines[line - 1], line == at ? A_BOLD : 0);
	}
}

/* ---- overlays ------------------------------------------------------------------ */

/* The help: a line per group of keys of the key table, then what the
 * columns and colours mean. */
static const char *const legend[] = {
	"I inclusive, E exclusive; idle idleness, ovhd overhead, smpl samples;",
	"% of the effort (work + idleness).  Red: diagnosed (!), or idleness or",
	"overhead above 20% of effort; yellow above 5%.  Any key closes this help.",
};

static void draw_help(struct vui *u)
{
	int nlegend = (int)(sizeof legend / sizeof *legend), n = 0;
	for (size_t i = 0; i < nvkeys; i++)
		n += vkeys[i].keys != NULL;
	int w = 80 > COLS ? COLS : 80, h = n + nlegend + 3 > LINES ? LINES : n + nlegend + 3;
	int x0 = (COLS - w) / 2, y0 = (LINES - h) / 2, y = y0 + 1;
	frame_box(y0, x0, h, w);
	put(y0, x0 + 2, w - 4, " culprit view: keys ", A_BOLD);
	for (size_t i = 0; i < nvkeys && y < y0 + h - 1; i++) {
		if (!vkeys[i].keys)
			continue;
		put(y, x0 + 2, 14, vkeys[i].keys, A_BOLD);
		put(y++, x0 + 16, w - 17, vkeys[i].help, 0);
	}
	for (int k = 0; k < nlegend && y < y0 + h - 1; k++)
		put(y++, x0 + 2, w - 3, legend[k], A_DIM);
	(void)u;
}

static void draw_chooser(struct vui *u)
{
	int h = VCOL_COUNT + 4, w = 48;
	if (h > LINES)
		h = LINES;
	if (w > COLS)
		w = COLS;
	int x0 = (COLS - w) / 2, y0 = (LINES - h) / 2;
	frame_box(y0, x0, h, w);
	put(y0, x0 + 2, w - 4, " columns: Space shows or hides, Enter closes ", A_BOLD);
	for (int i = 0; i < VCOL_COUNT && 2 + i < h - 1; i++) {
		char buf[64];
		snprintf(buf, sizeof buf, "[%c] %s, %s", u->col[i].shown ? 'x' : ' ',
			 metric_long[u->col[i].metric], u->col[i].exclusive ? "exclusive" : "inclusive");
		put(y0 + 2 + i, x0 + 2, w - 4, buf, i == u->chooser_at ? A_REVERSE : 0);
	}
}

/* ---- the panes under the rows ----------------------------------------------- */

static int half_height(int avail)
{
	return avail / 2 - 1;
}

/* The timeline wants a row per thread. */
static int timeline_height(int avail)
{
	return avail * 3 / 5;
}

static void no_title(struct vui *u, const struct vrow *r, char *buf, size_t size)
{
	(void)u;
	(void)r;
	(void)size;
	buf[0] = 0;
}

static void source_title(struct vui *u, const struct vrow *r, char *buf, size_t size)
{
	(void)u;
	snprintf(buf, size, "%s%s  (each line's value, calls included)", r && r->file ? ": " : "",
		 r && r->file ? r->file : "");
}

static void timeline_title(struct vui *u, const struct vrow *r, char *buf, size_t size)
{
	(void)u;
	(void)r;
	char marks[160];
	dbr_activity_legend(marks, sizeof marks);
	snprintf(buf, size, "  %s  overhead by type: A-Z", marks);
}

static void draw_timeline_pane(struct vui *u, const struct vrow *r)
{
	(void)r;
	timeline_draw(u, u->pane_y, u->pane_h);
}

/* Each pane: its name, its height out of the room AVAIL, whether it reads
 * the database for the selected row (the whole run's, not the timeline's
 * range), what follows its name in its title, and what draws it. */
static const struct pane {
	const char *name;
	int (*height)(int avail);
	int reads_db;
	void (*title)(struct vui *u, const struct vrow *r, char *buf, size_t size);
	void (*draw)(struct vui *u, const struct vrow *r);
} panes[] = {
	[PANE_DETAIL] = { "details", half_height, 1, no_title, draw_detail },
	[PANE_SOURCE] = { "source", half_height, 1, source_title, draw_source },
	[PANE_TIMELINE] = { "timeline", timeline_height, 0, timeline_title, draw_timeline_pane },
};

/* ---- the whole screen -------------------------------------------------------- */

void draw(struct vui *u)
{
	erase();
	/* Layout: title, headings, rows, [pane title, pane], status. */
	int avail = LINES - 3;
	u->pane_h = 0;
	if (u->pane != PANE_NONE && avail >= 8) {
		u->pane_h = panes[u->pane].height(avail);
		if (u->pane_h < 4)
			u->pane_h = 4;
	}
	u->rows_y = 2;
	u->rows_h = avail - (u->pane_h ? u->pane_h + 1 : 0);
	if (u->rows_h < 1)
		u->rows_h = 1;
	u->pane_y = u->rows_y + u->rows_h + 1;

	/* Keep the selection on screen. */
	size_t *sel = &u->sel[u->view], *top = &u->top[u->view];
	if (u->list.n && *sel >= u->list.n)
		*sel = u->list.n - 1;
	if (*sel < *top)
		*top = *sel;
	if (*sel >= *top + (size_t)u->rows_h)
		*top = *sel - (size_t)u->rows_h + 1;

	/* The title: the database (as much of its name as fits), the event,
	 * the views, and help. */
	const struct vevent *e = &u->m->event[u->m->ev];
	char right[256], tabs[128] = "";
	for (int v = 0; v < VIEW_COUNT; v++) {
		size_t n = strlen(tabs);
		snprintf(tabs + n, sizeof tabs - n, " %d %s ", v + 1, vviews[v].name);
	}
	char filter[96] = "";
	double from, to;
	if (u->filter > 0)
		snprintf(filter, sizeof filter, " >=%g%%", u->filter);
	if (timeline_range(u, &from, &to)) {
		size_t n = strlen(filter);
		snprintf(filter + n, sizeof filter - n, " %.2f-%.2fs", from, to);
	}
	snprintf(right, sizeof right, " [e] %s%s %s ? help ", e->name, filter, tabs);
	attr_t ta = u->color ? color(u, VC_TITLE) : A_REVERSE;
	fill_line(0, ta);
	int room = COLS - (int)strlen(right) - 9;
	put(0, 0, 8, " culprit", ta | A_BOLD);
	const char *name = base_name(u->m->path);
	if (room > 3) {
		char shown[256];
		if ((int)strlen(name) > room)
			snprintf(shown, sizeof shown, "%.*s~", room - 1, name);
		else
			snprintf(shown, sizeof shown, "%s", name);
		put(0, 9, room, shown, ta);
	}
	int x = COLS - (int)strlen(right);
	if (x < 9)
		x = 9;
	char ev[160];
	snprintf(ev, sizeof ev, " [e] %s%s ", e->name, filter);
	put(0, x, COLS - x, ev, ta);
	x += (int)strlen(ev);
	for (int v = 0; v < VIEW_COUNT; v++) {
		char tab[48];
		snprintf(tab, sizeof tab, " %d %s ", v + 1, vviews[v].name);
		put(0, x, COLS - x, tab, ta | (v == (int)u->view ? A_BOLD | A_UNDERLINE : 0));
		x += (int)strlen(tab);
	}
	put(0, x, COLS - x, " ? help", ta);

	draw_rows(u);

	struct vrow *r = ui_selected(u);
	if (u->pane_h) {
		const struct pane *p = &panes[u->pane];
		char head[256], more[200] = "";
		if (p->reads_db)
			fill_cache(u, r);
		/* The details and the source read the database: the whole run's. */
		int whole = p->reads_db && timeline_range(u, &from, &to);
		p->title(u, r, more, sizeof more);
		snprintf(head, sizeof head, " %s%s%s ", p->name, more, whole ? "  (the whole run)" : "");
		fill_line(u->pane_y - 1, A_REVERSE);
		put(u->pane_y - 1, 0, COLS, head, A_REVERSE | A_BOLD);
		p->draw(u, r);
	}

	/* The status line: a prompt, a message, or the keys. */
	int y = LINES - 1;
	if (u->prompting) {
		char line[200];
		snprintf(line, sizeof line, "%s%.*s", u->prompting == '/' ? "search: " :
			 "hide rows below (% of effort): ", (int)u->ninput, u->input);
		put(y, 0, COLS, line, A_BOLD);
		move(y, (int)strlen(line) < COLS ? (int)strlen(line) : COLS - 1);
		curs_set(1);
	} else {
		curs_set(0);
		put(y, 0, COLS, u->status[0] ? u->status :
		    "q quit  ? help  Enter expand  H hot path  / search  d details  s source  "
		    "c columns  < > sort", u->status[0] ? A_BOLD : A_DIM);
	}
	if (u->chooser)
		draw_chooser(u);
	if (u->help)
		draw_help(u);
	refresh();
}
