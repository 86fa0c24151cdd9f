/* report.h - `culprit report`: a database as text or CSV, one file per
 * view, all reading through dbread/.
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
 *   output.c     what they share: safe text, CSV fields, values, labels
 *
 * Text output fits 100 columns; names from the measured program are
 * printed with control characters replaced. */
#ifndef CULPRIT_REPORT_H
#define CULPRIT_REPORT_H

#include "dbread.h"

struct report {
	struct dbr *db;
	struct dbr_choice ch;		/* the event and metric shown */
	const struct dbr_tree *tree;	/* NULL for the summary */
	double *incl, *excl;		/* the metric, by context id - 1 */
	double threshold;		/* absolute */
	int depth;			/* -1: the view's default */
	int csv;
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
/* A procedure's values: as CSV fields (procedure to inclusive_percent, no
 * line end), or as the text columns before its name. */
void put_procedure_values(const struct report *r, const struct dbr_procedure *p);
/* A procedure's procedure, module and file as CSV fields. */
void put_procedure_names_csv(const struct dbr_procedure *p);
/* The CSV header (CSV_MORE: the view's own columns), or the view's
 * header and the column titles, TITLE last. */
void put_procedure_head(const struct report *r, const char *view, const char *csv_more,
			const char *title);
int procedure_shown(const struct report *r, const struct dbr_procedure *p);

#endif
