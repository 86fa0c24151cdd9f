/* report.h - `culprit report`: a database as text, CSV or JSON, one file
 * per view, all reading through dbread/.
 *
 *   topdown.c    the calling-context tree, hottest first
 *   callers.c    bottom-up: each procedure and the chains that called it
 *   flat.c       procedures with their exclusive and inclusive totals
 *   diagnoses.c  the contexts most worth a look
 *   summary.c    where the effort went, for the run and each thread
 *   waits.c      where threads blocked, and what kept them waiting
 *   timeline.c   the run over time: the parallelism profile and the timeline
 *   scaling.c    several runs: where each context's time goes as threads grow
 *   predict.c    the scaling model, fitted and extrapolated
 *   tasks.c      task sizes and waits by task type, run by run
 *   ranks.c      an MPI run's ranks, and the frames whose work differs most
 *   diff.c       `culprit diff`: two databases, context by context
 *   output.c     what they share: safe text, CSV fields, values, labels
 *   rows.c       a view's rows as CSV or JSON, from one declaration
 *
 * Text output fits 100 columns; names from the measured program are
 * printed with control characters replaced. */
#ifndef CULPRIT_REPORT_H
#define CULPRIT_REPORT_H

#include "dbread.h"

#include <stddef.h>

enum report_format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };

/* ---- rows.c: a view's rows for scripts ---- */

enum cell_type { CELL_TEXT, CELL_INT, CELL_REAL };
struct column {
	const char *name;
	enum cell_type type;	/* what doc/json.md says the column holds */
	const char *format;	/* CSV: a real's printf format (NULL: "%.9g") */
};
#define NCOLUMNS(cols) (sizeof(cols) / sizeof *(cols))
struct rows {
	enum report_format format;	/* CSV or JSON */
	const struct column *col;
	size_t ncol, at, nrows;
};
/* Starts the rows of columns COL (N): CSV prints the header, JSON opens
 * the document's "rows" array. */
void rows_begin(struct rows *w, enum report_format format, const struct column *col, size_t n);
/* The next cell of the row: text (NULL: none), an integer, a real, none. */
void cell_text(struct rows *w, const char *s);
void cell_int(struct rows *w, long long v);
void cell_real(struct rows *w, double v);
void cell_none(struct rows *w);
/* Ends the row (cells not given are none), then the rows. */
void rows_end_row(struct rows *w);
void rows_end(struct rows *w);
/* A JSON document's members: KEY and the string VALUE (NULL: null),
 * after a comma unless FIRST; KEY and the number V, after a comma. */
void json_pair(int first, const char *key, const char *value);
void json_number(const char *key, double v);

struct report {
	struct dbr *db;
	struct dbr_choice ch;		/* the event and metric shown */
	const struct dbr_tree *tree;	/* NULL for the summary */
	double *incl, *excl;		/* the metric, by context id - 1 */
	double threshold;		/* absolute */
	int depth;			/* -1: the view's default */
	enum report_format format;
	int machine;			/* CSV or JSON: the rows alone */
	int folded;			/* top-down text: name folded frames */
	double from, to;		/* timeline: the range (to <= from: all) */
	int width;			/* timeline: columns (0: the view's) */
	double predict[16];		/* scaling: thread counts to predict */
	int npredict;
};

/* The views: each prints R's database as its view shows it.  Returns 0,
 * or -1 after a message (cmd_report makes that EXIT_FAIL). */
int report_topdown(const struct report *r);
int report_callers(const struct report *r);
int report_flat(const struct report *r);
int report_diagnoses(const struct report *r);
int report_summary(const struct report *r);
int report_waits(const struct report *r);
int report_parallelism(const struct report *r);
int report_timeline(const struct report *r);
int report_scaling(const struct report *r);
int report_tasks(const struct report *r);
int report_ranks(const struct report *r);

/* ---- predict.c: the scaling model ---- */

/* A fit above this relative error on a measured point predicts nothing. */
#define SCALING_FIT_MAX_ERROR 0.10

struct scaling_fit {
	size_t npoints;
	int nparams;		/* 2 (s, w) or 3 (s, w, c) */
	double s, w, c;		/* T(p) = s + w/p + c (p - 1) */
	double serial_fraction;	/* s / T(1) */
	double max_error, rms_error;	/* relative, on the measured points */
	int good;
	char why[200];		/* when not good */
};
/* Fits the model to times T at thread counts P (N points).  Returns 0 for
 * a good fit, else -1 with F->why saying why (F still holds what was
 * fitted, if anything was). */
int scaling_fit(const double *p, const double *t, size_t n, struct scaling_fit *f);
/* The model's time at P threads. */
double scaling_model(const struct scaling_fit *f, double p);

/* ---- output.c ---- */

/* S with control characters replaced; cut to WIDTH (> 0) with "...".
 * Returns the characters printed. */
int put_safe(const char *s, int width);
/* A CSV field: quoted when needed, control characters replaced. */
void put_csv(const char *s);
const char *base_name(const char *path);
/* V in UNIT, compactly, in a static buffer (one of 8, reused in turn). */
const char *amount(const char *unit, double v);
/* V in the metric's unit, 9 columns wide. */
void put_value(const struct report *r, double v);
/* V as a percentage of what percentages are of. */
double pct(const struct report *r, double v);
/* The two lines above a tree or procedure view. */
void put_header(const struct report *r, const char *view);
/* "culprit report: PATH (VIEW)" and the line end. */
void put_title(const struct report *r, const char *view);
/* The words that name context I (index) on its line. */
void context_label(const struct report *r, uint32_t i, char *buf, size_t size);
/* A context's procedure, or "?". */
const char *ctx_name(const struct dbr_ctx *c);

/* ---- flat.c: the procedure list, hottest exclusive first ---- */

/* Every procedure with the metric shown: 0, or -1 after a message. */
int report_procedures(const struct report *r, struct dbr_procedure **p, size_t *count);
/* The columns every procedure row starts with. */
#define PROCEDURE_COLUMNS                                                     \
	{ "procedure", CELL_TEXT, NULL }, { "module", CELL_TEXT, NULL },      \
	{ "file", CELL_TEXT, NULL }, { "exclusive", CELL_REAL, NULL },        \
	{ "exclusive_percent", CELL_REAL, "%.4f" }, { "inclusive", CELL_REAL, NULL }, \
	{ "inclusive_percent", CELL_REAL, "%.4f" }
/* A procedure's values: as cells (PROCEDURE_COLUMNS, the row not ended),
 * or as the text columns before its name. */
void put_procedure_values(const struct report *r, struct rows *w, const struct dbr_procedure *p);
/* A procedure's procedure, module and file as cells. */
void put_procedure_names(struct rows *w, const struct dbr_procedure *p);
/* The rows' start (COL: N columns, PROCEDURE_COLUMNS first), or the
 * view's header and the column titles, TITLE last. */
void put_procedure_head(const struct report *r, struct rows *w, const char *view,
			const struct column *col, size_t n, const char *title);
int procedure_shown(const struct report *r, const struct dbr_procedure *p);

#endif
