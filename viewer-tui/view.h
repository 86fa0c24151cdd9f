/* view.h - `culprit view`: a terminal viewer for culprit databases.
 *
 * The model (model.c) reads the database lazily: a tree node's children
 * are read when it is first expanded, so opening a database with a million
 * contexts reads a few rows.  The tree (tree.c) holds the rows of the three
 * views, which rows are visible, and their order.  The screen (draw.c)
 * draws everything from the model each time; view.c reads keys and mouse
 * events and runs the commands.
 */
#ifndef CULPRIT_VIEW_H
#define CULPRIT_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "dbread.h"

/* The metrics a row has values of. */
enum vmetric { VM_WORK, VM_IDLENESS, VM_OVERHEAD, VM_USEFUL, VM_EFFORT, VM_SAMPLES, VM_COUNT };
extern const char *const vmetric_name[VM_COUNT];	/* as in the database */
extern const char *const vmetric_title[VM_COUNT];	/* column titles */

/* A column: a metric, inclusive or exclusive. */
struct vcolumn {
	uint8_t metric;		/* enum vmetric */
	uint8_t exclusive;
	uint8_t shown;
};
#define VCOL_COUNT (2 * VM_COUNT)

enum vview { VIEW_CCT, VIEW_CALLERS, VIEW_FLAT, VIEW_COUNT };
struct vmodel;
struct vrow;
/* A view: its tab's name, its name on the command line (--view), the
 * tree column's heading, and how its rows are read (model.c): the top
 * level under ROOT, and a row's children. */
struct vview_ops {
	const char *name, *option, *heading;
	int (*load_top)(struct vmodel *m, struct vrow *root);
	int (*load_children)(struct vmodel *m, struct vrow *r);
};
extern const struct vview_ops vviews[VIEW_COUNT];

/* What a row stands for. */
enum vkind {
	VK_ROOT, VK_FRAME, VK_INLINED, VK_STATEMENT,	/* contexts */
	VK_PROCEDURE,		/* callers and flat views: a procedure */
	VK_CALLER,		/* callers view: procedures that called the one above */
	VK_LINE,		/* flat view: a sampled line of a procedure */
};

struct vrow {
	int64_t id;		/* context id (contexts), else 0 */
	uint8_t kind;		/* enum vkind */
	uint8_t loaded;		/* children read */
	uint8_t expanded;
	uint8_t leaf;		/* known to have no children */
	uint8_t diagnosed;	/* a ranked diagnosis */
	uint8_t hidden;		/* below the filter */
	uint16_t depth;
	char *procedure, *module, *file;	/* file:line: where it is, or declared */
	int line;
	char *site_file;	/* the call site it was called from, if any */
	int site_line;
	double incl[VM_COUNT], excl[VM_COUNT];
	struct vrow *parent;
	struct vrow **kid;
	size_t nkids, capkids;
	/* Callers view.  A procedure row: its frames (context ids, INST) and
	 * their values (IVALS).  A caller row: which of the procedure's frames
	 * it groups (indices into those, INST) and the caller frame each has
	 * reached at this level (context ids, FRONT; 0 past the root).  A
	 * procedure row also keeps its frames' callers (ICALLERS) until its
	 * caller rows are made from them. */
	int64_t *inst, *front;
	struct vinst *ivals;
	struct dbr_caller_of *icallers;
	size_t ninst;
};

struct vinst {
	double incl[VM_COUNT], excl[VM_COUNT];
};

struct vevent {
	char *name, *unit;
	double total[VM_COUNT];	/* metrics.total */
	double effort;		/* what percentages are of */
};

struct vmodel {
	struct dbr *db;
	const char *path;
	struct vevent *event;
	size_t nevents, ev;	/* the events; the one shown */
	int64_t max_id;		/* contexts */
	/* The contexts with a ranked diagnosis for the event shown, sorted. */
	int64_t *diag_id;
	size_t ndiag;
	char *error;		/* the last query's problem, for the status line */
	/* A time range chosen in the timeline: every context's values in it
	 * (by id - 1, VM_COUNT each), which the calling-context view shows
	 * instead of the whole run's; NULL for the whole run.  The timeline's. */
	const double *range_incl, *range_excl;
};

/* ---- model.c ---- */

/* Opens PATH; returns -1 after writing one line (ERR) naming the problem. */
int model_open(struct vmodel *m, const char *path, char *err, size_t errlen);
void model_close(struct vmodel *m);
/* Reads the diagnoses of the current event. */
void model_load_diagnoses(struct vmodel *m);
int model_is_diagnosed(const struct vmodel *m, int64_t id);
/* The children of row R, by view; 0 or -1 (m->error says why). */
int model_load_children(struct vmodel *m, enum vview view, struct vrow *r);
/* The top rows of a view into ROOT's children. */
int model_load_top(struct vmodel *m, enum vview view, struct vrow *root);
/* The path of context ID from the program root, frames only, as
 * "a > b > c" (malloc'd); NULL on failure. */
char *model_path(struct vmodel *m, int64_t id);
/* The native frames folded into context ID ("a > b"), or NULL; owned by
 * the model. */
const char *model_folded(struct vmodel *m, int64_t id);
/* The diagnosis line of context ID for the current event (malloc'd), or
 * NULL.  *CALLS (malloc'd, or NULL) gets the runtime calls that hold its
 * idleness and overhead, with their shares. */
char *model_diagnosis(struct vmodel *m, int64_t id, char **calls);
/* The blocking waits at call sites in PROCEDURE (in FILE, if known; at
 * LINE when > 0), by kind, longest first, on one line; NULL when none
 * (or the database has no waits). */
char *model_waits(struct vmodel *m, const char *procedure, const char *file, int line);
/* Context ID's metric over an MPI run's ranks (RANKS 0: not MPI). */
void model_rank_values(struct vmodel *m, int64_t id, int metric, int exclusive,
		       struct dbr_rank_stat *out);
/* Per-thread statistics of context ID's metric (dbr_spread_free them). */
void model_thread_values(struct vmodel *m, int64_t id, int metric, int exclusive,
			 struct dbr_spread *out);
/* The lines of PROCEDURE in FILE where samples landed or calls were made,
 * with METRIC's value there, calls included: LINES[k], VALUES[k], *COUNT
 * of them.  -1 with the model's error set when the database fails. */
int model_line_values(struct vmodel *m, const char *procedure, const char *file, int metric,
		      int **lines, double **values, size_t *count);
/* Context ids of frames whose procedure contains TEXT (case-insensitive),
 * hottest first by METRIC; at most MAX, *COUNT of them.  -1 with the
 * model's error set when the database fails. */
int model_search(struct vmodel *m, const char *text, int metric, int64_t *ids, size_t max,
		 size_t *count);
/* The ancestors of context ID, root first, into IDS (at most MAX); their
 * count. */
size_t model_ancestors(struct vmodel *m, int64_t id, int64_t *ids, size_t max);

/* Keeps the read layer's last problem for the status line; -1. */
int model_set_error(struct vmodel *m);
/* What METRIC's percentages are of: the event's effort (samples: all
 * samples), in the timeline's range when one is chosen. */
double model_percent_base(const struct vmodel *m, int metric);

/* ---- range.c: the callers and flat views in a time range ---- */

/* The procedures with values in the range, as ROOT's children. */
int range_procedures(struct vmodel *m, struct vrow *root);
/* Procedure row P's lines with values in the range, as its children. */
int range_lines(struct vmodel *m, struct vrow *p);
/* Procedure row P's frames' values (ivals), the range's. */
void range_instances(const struct vmodel *m, struct vrow *p);

/* ---- tree.c ---- */

struct vrow *row_new(struct vrow *parent, uint8_t kind);
void row_free(struct vrow *r);
void row_add_kid(struct vrow *parent, struct vrow *kid);
/* The rows on screen, in order: the visible descendants of ROOT. */
struct vlist {
	struct vrow **row;
	size_t n, cap;
};
void list_build(struct vlist *l, struct vrow *root);
/* Sorts every loaded level by column C (descending). */
void tree_sort(struct vrow *root, const struct vcolumn *c);
double row_value(const struct vrow *r, const struct vcolumn *c);
/* Marks rows below THRESHOLD (a value of column C) hidden. */
void tree_filter(struct vrow *root, const struct vcolumn *c, double threshold);

/* ---- the session (view.c) and the screen (draw.c) ---- */

enum vpane { PANE_NONE, PANE_DETAIL, PANE_SOURCE, PANE_TIMELINE };

/* Colour pairs (draw_init_colors). */
enum { VC_HOT = 1, VC_WARM, VC_DIM, VC_TITLE, VC_GOOD };
enum vshow { SHOW_PERCENT, SHOW_VALUE, SHOW_BOTH };

struct vui {
	struct vmodel *m;
	enum vview view;
	struct vrow *root[VIEW_COUNT];
	struct vlist list;		/* rows on screen, current view */
	size_t sel[VIEW_COUNT], top[VIEW_COUNT];
	struct vcolumn col[VCOL_COUNT];
	int sortcol;			/* index into col */
	enum vshow show;
	double filter;			/* percent of effort; 0: off */
	enum vpane pane;
	int help, chooser, chooser_at;
	int color;
	int rows_y, rows_h;		/* where the rows are on screen */
	int pane_y, pane_h;
	char status[512];
	/* search */
	char query[128];
	int64_t *hits;			/* calling-context view: context ids */
	size_t nhits, hit;
	/* prompt: a line being typed for search or the filter */
	int prompting;			/* '/' or 'f', 0 when not */
	char input[128];
	size_t ninput;
	/* --timing: the slowest expansion that read the database */
	double slowest;
	char slowest_row[64];
	double slowest_key;		/* ... and the slowest key, drawing included, */
	int slowest_key_name;
	double reading;			/* ... less reading the trace, which is this */
	size_t read_samples;
	struct vtimeline *tl;		/* timeline.c's, once shown */
	struct vexperiments *xp;	/* experiments.c's, once asked for */
};

/* A key's action: returns 0 to quit. */
struct vkey {
	int key[4];		/* the keys that run it, 0-terminated */
	const char *keys;	/* as the help names them; NULL: see the row above */
	const char *help;
	int (*run)(struct vui *u);
};
extern const struct vkey vkeys[];
extern const size_t nvkeys;

/* The selected row, or NULL. */
struct vrow *ui_selected(struct vui *u);
/* Reads every view again (the values changed), keeping the selection. */
void ui_reload(struct vui *u);
/* Shows pane P, or hides it when it is shown. */
int ui_pane(struct vui *u, enum vpane p);
/* The column rows are sorted by. */
const struct vcolumn *ui_sort_column(const struct vui *u);

void draw_init_colors(struct vui *u);
void draw(struct vui *u);
/* S at Y, X in at most WIDTH columns, any control character made '?'. */
void draw_put(int y, int x, int width, const char *s, unsigned int attr);

/* ---- the timeline pane (timeline.c) ---- */

/* Draws the pane in H lines from Y, reading the trace the first time. */
void timeline_draw(struct vui *u, int y, int h);
/* The keys: t shows or hides the pane; , and . move its cursor a cell
 * earlier or later (the window follows); z and Z zoom in or out around
 * it; [ marks where a range starts and ] where it ends, which filters
 * the views to it. */
int timeline_toggle(struct vui *u);
int timeline_earlier(struct vui *u);
int timeline_later(struct vui *u);
int timeline_zoom_in(struct vui *u);
int timeline_zoom_out(struct vui *u);
int timeline_range_start(struct vui *u);
int timeline_range_end(struct vui *u);
/* The views show the whole run again. */
int timeline_clear(struct vui *u);
/* p: a row per process, or per thread again. */
int timeline_processes(struct vui *u);
/* A mouse event at column X of the pane: a press marks, a release
 * elsewhere chooses the range, a click moves the cursor; the wheel (WHEEL
 * -1 up, 1 down) zooms in or out there. */
int timeline_mouse(struct vui *u, int x, int pressed, int released, int wheel);
/* The event shown changed: the trace is the new event's, and so are the
 * range's values (before the views are read again). */
void timeline_follow_event(struct vui *u);
/* The range the views show, if one: 1 with *FROM and *TO. */
int timeline_range(const struct vui *u, double *from, double *to);
void timeline_free(struct vui *u);
/* ---- a database's experiments as columns (experiments.c) ---- */

/* X: each experiment's value, then its change from the first, then off. */
int experiments_toggle(struct vui *u);
/* The columns they take in the calling-context view (0: none shown). */
int experiments_width(struct vui *u);
/* Their headings at Y from X, and row R's values and sparkline. */
void experiments_draw_heads(struct vui *u, int y, int x);
void experiments_draw_row(struct vui *u, const struct vrow *r, int y, int x, unsigned int attr);
void experiments_free(struct vui *u);
/* The tasks PROCEDURE (in FILE, if known) creates, by line and run, on
 * one line: "line 29: 17710, mean 1.8us, wait 1.9us"; NULL for none
 * (malloc'd). */
char *experiments_tasks_line(struct vui *u, const char *procedure, const char *file);

/* Drops what the panes keep about the selection (it changed beyond what
 * the pane can tell: the event, the pane). */
void draw_forget(void);


#endif
