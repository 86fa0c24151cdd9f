/* scaling.c - `culprit report --scaling`: where each context's time goes as
 * the thread count grows, from a database of several runs (culprit scale).
 *
 * The first experiment (the fewest threads, p_b) is the base.  At p
 * threads a context's effort (work + idleness: what the threads spent on
 * it, working or waiting) exceeds the base's by its *loss*, which splits
 * exactly into
 *   idleness    more time others waited while it ran, by cause;
 *   overhead    more time in the runtime on its behalf, by type;
 *   inflation   more useful work for the same result: memory bandwidth,
 *               false sharing, contention inside the code.
 * A run's speedup is base wall time / its wall time, its efficiency the
 * speedup times p_b / p.  Contexts are the program's frames, each with the
 * runtime and system code it calls and its recursion folded in, as the
 * diagnoses count them. */
#define _GNU_SOURCE
#include "hash.h"
#include "hindex.h"
#include "report.h"
#include "source_file.h"
#include "tools.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_SENTENCES 5
#define TEXT_ROWS 25
#define TEXT_LOSS_COLUMNS 4

struct scaling {
	const struct report *r;
	struct dbr_experiment *x;
	size_t nx;
	char **metric;		/* the event's metrics but samples and measurement */
	size_t nm;
	int k_effort, k_useful, k_idle, k_ovh, k_meas;
	uint32_t *unit_of;	/* by context: its unit */
	uint32_t *unit;		/* by unit: its context (the program frame) */
	size_t nunits;
	double *own;		/* [(e * nm + k) * nunits + u]: exclusive sums */
	double *root;		/* [e * nm + k]: the whole run (the root's inclusive) */
	int seconds;		/* the event's unit is seconds */
};

static double own(const struct scaling *s, size_t e, int k, size_t u)
{
	return k < 0 ? 0 : s->own[((size_t)e * s->nm + (size_t)k) * s->nunits + u];
}

static double whole(const struct scaling *s, size_t e, int k)
{
	return k < 0 ? 0 : s->root[e * s->nm + (size_t)k];
}

static int is_cause(const char *m)
{
	return strncmp(m, MET_IDLENESS ":", strlen(MET_IDLENESS) + 1) == 0;
}

static int is_type(const char *m)
{
	return strncmp(m, MET_OVERHEAD_PREFIX, strlen(MET_OVERHEAD_PREFIX)) == 0;
}

/* The metrics of the event that the losses are made of. */
static int choose_metrics(struct scaling *s)
{
	char **all;
	size_t n;
	if (dbr_event_metrics(s->r->db, s->r->ch.event, &all, &n) < 0)
		return msg_error("%s", dbr_error(s->r->db));
	s->metric = xcalloc(n + 1, sizeof *s->metric);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(all[i], MET_SAMPLES) == 0) {
			free(all[i]);
			continue;
		}
		s->metric[s->nm++] = all[i];
	}
	free(all);
	const char *const *m = (const char *const *)s->metric;
	s->k_effort = dbr_metric_index(m, s->nm, MET_EFFORT);
	s->k_useful = dbr_metric_index(m, s->nm, MET_USEFUL);
	s->k_idle = dbr_metric_index(m, s->nm, MET_IDLENESS);
	s->k_ovh = dbr_metric_index(m, s->nm, MET_OVERHEAD);
	s->k_meas = dbr_metric_index(m, s->nm, MET_MEASUREMENT);
	if (s->k_effort < 0 || s->k_useful < 0)
		return msg_error("%s is damaged: it has no effort or useful_work for %s; make it "
				 "again from its measurements with culprit prof --force",
				 dbr_file(s->r->db), s->r->ch.event);
	return 0;
}

/* Units by (the unit above, procedure, module): frames of one procedure
 * called from one unit are one unit, whichever line or depth of a folded
 * recursion they were called from. */
static uint64_t unit_hash(uint32_t above, const struct dbr_ctx *c)
{
	return hash_mix((uint64_t)above << 32 ^ hash_mix((uint64_t)(uintptr_t)c->procedure) ^
			(uint64_t)(uintptr_t)c->module);
}

/* The unit under ABOVE (UP: by unit, the unit above) for frame C, or
 * UINT32_MAX; then C's context becomes the next unit, and is indexed. */
static uint32_t unit_find(struct scaling *s, struct hindex *x, const uint32_t *up,
			  uint32_t above, uint32_t i)
{
	const struct dbr_ctx *t = s->r->tree->c, *c = &t[i];
	struct hindex_pos pos;
	for (uint32_t u = hindex_find(x, unit_hash(above, c), &pos); u != HINDEX_NONE;
	     u = hindex_next(x, &pos)) {
		const struct dbr_ctx *k = &t[s->unit[u]];
		if (up[u] == above && k->procedure == c->procedure && k->module == c->module)
			return u;
	}
	hindex_add(x, &pos, (uint32_t)s->nunits);
	return UINT32_MAX;
}

/* Whether C is a frame the report shows: a frame, or a function of the
 * program's source files the compiler inlined (with GCC, LULESH's
 * functions are all inlined into main), not what it inlined from headers. */
static int unit_frame(const struct dbr_ctx *c)
{
	return c->kind == KIND_FRAME[0] ||
	       (c->kind == KIND_INLINED[0] && c->file && !source_file_is_header(c->file));
}

/* Gives each context its unit: the program frame it counts for.  A frame
 * of a procedure that an enclosing unit already is (recursion) counts for
 * the outermost one. */
static void make_units(struct scaling *s, const uint8_t *runtime)
{
	const struct dbr_tree *t = s->r->tree;
	s->unit_of = xcalloc(t->n + 1, sizeof *s->unit_of);
	s->unit = xcalloc(t->n + 1, sizeof *s->unit);
	uint32_t *up = xcalloc(t->n + 1, sizeof *up);	/* by unit: the unit above */
	struct hindex index = { 0 };
	for (uint32_t i = 0; i < t->n; i++) {
		const struct dbr_ctx *c = &t->c[i];
		if (c->parent == UINT32_MAX) {
			up[s->nunits] = UINT32_MAX;
			s->unit[s->nunits] = i;
			s->unit_of[i] = (uint32_t)s->nunits++;
			continue;
		}
		uint32_t above = s->unit_of[c->parent];
		s->unit_of[i] = above;
		if (!unit_frame(c) || runtime[i])
			continue;
		uint32_t same = UINT32_MAX;
		for (uint32_t u = above, steps = 0; u != UINT32_MAX && steps < 100000; u = up[u], steps++) {
			const struct dbr_ctx *k = &t->c[s->unit[u]];
			if (unit_frame(k) && k->procedure == c->procedure && k->module == c->module)
				same = u;
		}
		if (same == UINT32_MAX)
			same = unit_find(s, &index, up, above, i);
		if (same != UINT32_MAX) {
			s->unit_of[i] = same;
			continue;
		}
		up[s->nunits] = above;
		s->unit[s->nunits] = i;
		s->unit_of[i] = (uint32_t)s->nunits++;
	}
	hindex_free(&index);
	free(up);
}

/* Reads each experiment's values and adds them up by unit. */
static int gather(struct scaling *s)
{
	size_t nc = s->r->tree->n;
	s->own = xcalloc(s->nx * s->nm * s->nunits + 1, sizeof *s->own);
	s->root = xcalloc(s->nx * s->nm + 1, sizeof *s->root);
	double *incl = xmalloc((s->nm * nc + 1) * sizeof *incl);
	double *excl = xmalloc((s->nm * nc + 1) * sizeof *excl);
	for (size_t e = 0; e < s->nx; e++) {
		memset(incl, 0, s->nm * nc * sizeof *incl);
		memset(excl, 0, s->nm * nc * sizeof *excl);
		if (dbr_experiment_values(s->r->db, s->x[e].id, s->nx, s->r->ch.event,
					  (const char *const *)s->metric, s->nm, incl, excl) < 0) {
			free(incl);
			free(excl);
			return msg_error("%s", dbr_error(s->r->db));
		}
		for (size_t k = 0; k < s->nm; k++) {
			const double *in = incl + k * nc, *ex = excl + k * nc;
			double *to = s->own + (e * s->nm + k) * s->nunits;
			s->root[e * s->nm + k] = in[0];
			/* Every sample once, at its frame (dbr_own_frame). */
			for (uint32_t i = 0; i < nc; i++) {
				uint32_t f = ex[i] != 0 ? dbr_own_frame(s->r->tree, i) : UINT32_MAX;
				if (f != UINT32_MAX)
					to[s->unit_of[f]] += ex[i];
			}
		}
	}
	free(incl);
	free(excl);
	return 0;
}

/* ---- the loss and what it is made of -------------------------------------- */

struct loss {
	double total, idle, ovh, infl;
};

static struct loss loss_of(const struct scaling *s, size_t e, double (*get)(const struct scaling *,
			   size_t, int, size_t), size_t u)
{
	struct loss l;
	l.total = get(s, e, s->k_effort, u) - get(s, 0, s->k_effort, u);
	l.infl = get(s, e, s->k_useful, u) - get(s, 0, s->k_useful, u);
	l.idle = get(s, e, s->k_idle, u) - get(s, 0, s->k_idle, u);
	l.ovh = get(s, e, s->k_ovh, u) - get(s, 0, s->k_ovh, u);
	return l;
}

static double whole_get(const struct scaling *s, size_t e, int k, size_t u)
{
	(void)u;
	return whole(s, e, k);
}

/* The largest of the causes or types (IS_PART) in unit U's loss at E. */
static int biggest_part(const struct scaling *s, size_t e, size_t u, int (*is_part)(const char *),
			double *value)
{
	int best = -1;
	*value = 0;
	for (size_t k = 0; k < s->nm; k++) {
		if (!is_part(s->metric[k]))
			continue;
		double d = own(s, e, (int)k, u) - own(s, 0, (int)k, u);
		if (d > *value) {
			*value = d;
			best = (int)k;
		}
	}
	return best;
}

/* One sentence on what dominates unit U's loss at E, after the
 * diagnoses' names, with the advice. */
static void put_verdict(const struct scaling *s, size_t e, size_t u, const struct loss *l)
{
	double idle = l->idle > 0 ? l->idle : 0, ovh = l->ovh > 0 ? l->ovh : 0;
	double infl = l->infl > 0 ? l->infl : 0, sum = idle + ovh + infl;
	double base = own(s, 0, s->k_effort, u);
	if (sum <= 0 || l->total <= 0) {
		printf("no term grows");
		return;
	}
	if (base > 0 && l->total < 0.02 * base) {
		printf("it scales: its effort grew %.1f%% from %s's", 100 * l->total / base,
		       s->x[0].label);
		return;
	}
	double part;
	if (idle >= sum / 3 && ovh >= sum / 3) {
		printf("inefficient parallelization: idleness %.0f%% and overhead %.0f%% of its "
		       "loss; no grain size fixes both", 100 * idle / l->total, 100 * ovh / l->total);
	} else if (idle >= ovh && idle >= infl) {
		int k = biggest_part(s, e, u, is_cause, &part);
		const char *cause = k >= 0 ? s->metric[k] : MET_IDLENESS;
		if (k < 0)
			part = idle;
		printf("%s %s (%.0f%% of its loss): ", cause, amount(s->r->ch.unit, part),
		       100 * part / l->total);
		int c = idle_cause_of_metric(cause);
		printf("%s", c >= 0 ? idle_cause((unsigned)c)->advice : "threads wait; see report --waits");
	} else if (ovh >= infl) {
		int k = biggest_part(s, e, u, is_type, &part);
		if (k < 0)
			part = ovh;
		printf("%s %s (%.0f%% of its loss): too fine-grained, or a cost paid per thread; "
		       "coarser grain, so the runtime's cost is paid less often",
		       k >= 0 ? s->metric[k] : MET_OVERHEAD, amount(s->r->ch.unit, part),
		       100 * part / l->total);
	} else {
		printf("work inflation %s (%.0f%% of its loss): the same work takes longer with more "
		       "threads; memory or contention inside the code (shared cache lines, "
		       "atomics, bandwidth)", amount(s->r->ch.unit, infl), 100 * infl / l->total);
	}
}

/* ---- text ----------------------------------------------------------------- */

/* More threads than the CPUs it could run on. */
static int oversubscribed(const struct dbr_experiment *x)
{
	return x->cores > 0 && x->threads > x->cores;
}

/* What makes a run's figures less than they seem, a line each. */
static void put_run_notes(const struct scaling *s)
{
	for (size_t e = 0; e < s->nx; e++) {
		const struct dbr_experiment *x = &s->x[e];
		if (oversubscribed(x))
			printf("! %s: %ld threads on %ld CPUs: threads without a CPU cannot say they "
			       "wait, so idleness is under-counted and overhead over-counted; left out "
			       "of the model\n", x->label, x->threads, x->cores);
		double meas = whole(s, e, s->k_meas), effort = whole(s, e, s->k_effort);
		if (effort > 0 && meas / effort > 0.05)
			printf("  %s: culprit's own work took %.0f%% as much as the program's effort: "
			       "its wall-clock time is longer than without culprit\n", x->label,
			       100 * meas / effort);
	}
}

static void put_runs(const struct scaling *s)
{
	const char *u = s->r->ch.unit;
	printf("%-10s %7s %9s %8s %7s %10s %10s %10s %10s %10s\n", "run", "threads", "wall s",
	       "speedup", "effic.", "effort", "loss", "idleness", "overhead", "inflation");
	for (size_t e = 0; e < s->nx; e++) {
		const struct dbr_experiment *x = &s->x[e];
		double speedup = x->wall > 0 ? s->x[0].wall / x->wall : 0;
		double effic = x->threads > 0 ? speedup * (double)s->x[0].threads / (double)x->threads : 0;
		struct loss l = loss_of(s, e, whole_get, 0);
		printf("%-10.10s %6ld%c %9.3f %8.2f %6.1f%% %10s", x->label, x->threads,
		       oversubscribed(x) ? '!' : ' ', x->wall, speedup, 100 * effic,
		       amount(u, whole(s, e, s->k_effort)));
		if (e == 0)
			printf(" %10s %10s %10s %10s\n", "(base)", "", "", "");
		else
			printf(" %10s %10s %10s %10s\n", amount(u, l.total), amount(u, l.idle),
			       amount(u, l.ovh), amount(u, l.infl));
	}
	put_run_notes(s);
}

/* PART as a percentage of WHOLE, with no "-0" for a rounding's sign. */
static double share(double part, double whole)
{
	double p = whole > 0 ? 100 * part / whole : 0;
	return p > -0.05 && p < 0.05 ? 0 : p;
}

/* The terms of the loss at E, each also as a share of the base's effort
 * (a loss near zero would make shares of the loss meaningless). */
static void put_terms(const struct scaling *s, size_t e)
{
	struct loss l = loss_of(s, e, whole_get, 0);
	double base = whole(s, 0, s->k_effort);
	printf("\nloss at %s, %s %s (%.1f%% of %s's effort), by term:\n", s->x[e].label,
	       amount(s->r->ch.unit, l.total), s->r->ch.unit, share(l.total, base), s->x[0].label);
	for (size_t k = 0; k < s->nm; k++) {
		if (!is_cause(s->metric[k]) && !is_type(s->metric[k]))
			continue;
		double d = whole(s, e, (int)k) - whole(s, 0, (int)k);
		if (fabs(d) < 5e-4 && fabs(d) < 0.001 * base)
			continue;	/* nothing at the precision shown */
		printf("  %-28s %10s %6.1f%%\n", s->metric[k], amount(s->r->ch.unit, d),
		       share(d, base));
	}
	printf("  %-28s %10s %6.1f%%\n", "work inflation", amount(s->r->ch.unit, l.infl),
	       share(l.infl, base));
}

struct ranked {
	size_t u;
	double loss;
};

static int by_loss(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	return x->loss < y->loss ? 1 : x->loss > y->loss ? -1 : (x->u > y->u) - (x->u < y->u);
}

/* Units by their loss at the last run, largest first, into *OUT. */
static size_t rank_units(const struct scaling *s, struct ranked **out)
{
	struct ranked *r = xcalloc(s->nunits + 1, sizeof *r);
	size_t n = 0, last = s->nx - 1;
	for (size_t u = 0; u < s->nunits; u++) {
		double a = own(s, last, s->k_effort, u), b = own(s, 0, s->k_effort, u);
		if (a == 0 && b == 0)
			continue;
		r[n].u = u;
		r[n++].loss = a - b;
	}
	qsort(r, n, sizeof *r, by_loss);
	*out = r;
	return n;
}

static void put_contexts(const struct scaling *s, const struct ranked *rk, size_t n)
{
	size_t last = s->nx - 1, first = s->nx - 1 > TEXT_LOSS_COLUMNS ? s->nx - TEXT_LOSS_COLUMNS : 1;
	double total = loss_of(s, last, whole_get, 0).total;
	printf("\nframes of the program by loss at %s (%s; the runtime and system code each "
	       "calls counts in its row;\nshare: of the run's loss; +idle +ovhd +infl: growth "
	       "as a share of the frame's effort at %s):\n", s->x[last].label, s->r->ch.unit,
	       s->x[0].label);
	for (size_t e = first; e < s->nx; e++)
		printf("%9.9s ", s->x[e].label);
	printf("%6s %7s %7s %7s %6s  %s\n", "share", "+idle", "+ovhd", "+infl", "effic", "context");
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < TEXT_ROWS; i++) {
		size_t u = rk[i].u;
		if (rk[i].loss <= 0 || (total > 0 && rk[i].loss < total / 100 && shown >= 3))
			break;
		struct loss l = loss_of(s, last, own, u);
		for (size_t e = first; e < s->nx; e++)
			printf("%9s ", amount(s->r->ch.unit, loss_of(s, e, own, u).total));
		double base = own(s, 0, s->k_effort, u), now = own(s, last, s->k_effort, u);
		/* The terms as growth of its own base effort: with a loss
		 * near zero, shares of it would not mean much. */
		/* No share of a loss the run as a whole did not have. */
		if (total > 0)
			printf("%5.1f%% ", share(l.total, total));
		else
			printf("%6s ", "-");
		printf("%6.1f%% %6.1f%% %6.1f%% ", share(l.idle, base), share(l.ovh, base),
		       share(l.infl, base));
		if (now > 0 && base > 0)
			printf("%5.0f%%  ", 100 * base / now);
		else
			printf("%6s  ", "-");
		char label[512];
		context_label(s->r, s->unit[u], label, sizeof label);
		put_safe(label, 40);
		putchar('\n');
		shown++;
	}
	printf("\nwhat dominates, at %s:\n", s->x[last].label);
	if (total <= 0)
		printf("  the run as a whole lost no effort: %s %s %s than at %s\n",
		       amount(s->r->ch.unit, fabs(total)), s->r->ch.unit,
		       total < 0 ? "less" : "no more", s->x[0].label);
	for (size_t i = 0; i < n && i < TOP_SENTENCES && rk[i].loss > fmax(total, 0) / 100; i++) {
		size_t u = rk[i].u;
		struct loss l = loss_of(s, last, own, u);
		printf("  ");
		put_safe(ctx_name(&s->r->tree->c[s->unit[u]]), 40);
		if (total > 0)
			printf(": %s lost (%.0f%% of the run's loss); ", amount(s->r->ch.unit, l.total),
			       100 * l.total / total);
		else
			printf(": %s lost; ", amount(s->r->ch.unit, l.total));
		put_verdict(s, last, u, &l);
		putchar('\n');
	}
}

/* The model time of run E: its effort over its threads, the time it would
 * take with a core for each thread. */
static double model_time(const struct scaling *s, size_t e)
{
	return s->x[e].threads > 0 ? whole(s, e, s->k_effort) / (double)s->x[e].threads : 0;
}

static void put_prediction(const struct scaling *s)
{
	printf("\nprediction: T(p) = s + w/p + c (p-1), fitted to effort/p (the time with a "
	       "core per thread):\n");
	if (!s->seconds) {
		printf("  none: %s is counted in %s, not time\n", s->r->ch.event, s->r->ch.unit);
		return;
	}
	double p[64], t[64];
	size_t n = 0;
	for (size_t e = 0; e < s->nx && n < 64; e++) {
		/* One point per thread count: the first run of each; none
		 * from a run with more threads than CPUs. */
		if ((e > 0 && s->x[e].threads == s->x[e - 1].threads) || oversubscribed(&s->x[e]))
			continue;
		p[n] = (double)s->x[e].threads;
		t[n++] = model_time(s, e);
	}
	struct scaling_fit f;
	int ok = scaling_fit(p, t, n, &f);
	if (f.nparams && (f.w < 0 || f.s < 0)) {
		printf("  no prediction: effort grows faster with threads than a serial part "
		       "explains (the fit's %s part is negative): overhead or inflation, above\n",
		       f.w < 0 ? "parallel" : "serial");
		return;
	}
	if (f.nparams == 2 && f.npoints == 2) {
		printf("  through 2 thread counts: s = %.3f s (serial fraction %.1f%%), w = %.3f s\n",
		       f.s, 100 * f.serial_fraction, f.w);
		printf("  no prediction: %s\n", f.why);
		return;
	}
	if (f.nparams) {
		printf("  s = %.3f s (serial fraction %.1f%%), w = %.3f s, c = %.4f s per added "
		       "thread\n", f.s, 100 * f.serial_fraction, f.w, f.c);
		printf("  fit on %zu thread counts: at most %.1f%% off a measured point (rms %.1f%%)\n",
		       f.npoints, 100 * f.max_error, 100 * f.rms_error);
		for (size_t i = 0; i < n; i++)
			printf("    p=%-4g measured %.3f s, model %.3f s\n", p[i], t[i],
			       scaling_model(&f, p[i]));
	}
	if (ok < 0) {
		printf("  no prediction: %s\n", f.why);
		return;
	}
	double t1 = f.s + f.w;
	printf("  %6s %10s %8s %8s\n", "p", "T(p) s", "speedup", "effic.");
	for (int i = 0; i < s->r->npredict; i++) {
		double q = s->r->predict[i], tq = scaling_model(&f, q);
		printf("  %6g %10.3f %8.2f %7.1f%%   (within about %.0f%% if the trend holds)\n", q,
		       tq, tq > 0 ? t1 / tq : 0, tq > 0 ? 100 * t1 / tq / q : 0,
		       100 * (f.max_error > 0.01 ? f.max_error : 0.01));
	}
}

/* ---- CSV and JSON: one row per run and context ---------------------------- */

static void put_rows(const struct scaling *s, const struct ranked *rk, size_t n)
{
	static const struct column fixed[] = {
		{ "experiment", CELL_INT, NULL }, { "label", CELL_TEXT, NULL },
		{ "threads", CELL_INT, NULL }, { "wall_time", CELL_REAL, "%.6f" },
		{ "context_id", CELL_INT, NULL }, { "procedure", CELL_TEXT, NULL },
		{ "file", CELL_TEXT, NULL }, { "line", CELL_INT, NULL },
		{ "effort", CELL_REAL, NULL }, { "loss", CELL_REAL, NULL },
		{ "idleness", CELL_REAL, NULL }, { "overhead", CELL_REAL, NULL },
		{ "inflation", CELL_REAL, NULL },
	};
	/* Then a column per cause of idleness and type of overhead. */
	size_t ncol = NCOLUMNS(fixed);
	struct column *col = xcalloc(ncol + s->nm, sizeof *col);
	memcpy(col, fixed, sizeof fixed);
	for (size_t k = 0; k < s->nm; k++)
		if (is_cause(s->metric[k]) || is_type(s->metric[k]))
			col[ncol++] = (struct column){ s->metric[k], CELL_REAL, NULL };
	struct rows w;
	rows_begin(&w, s->r->format, col, ncol);
	for (size_t e = 0; e < s->nx; e++)
		for (size_t i = 0; i < n; i++) {
			size_t u = rk[i].u;
			const struct dbr_ctx *c = &s->r->tree->c[s->unit[u]];
			struct loss l = loss_of(s, e, own, u);
			cell_int(&w, s->x[e].id);
			cell_text(&w, s->x[e].label);
			cell_int(&w, s->x[e].threads);
			cell_real(&w, s->x[e].wall);
			cell_int(&w, s->unit[u] + 1);
			cell_text(&w, ctx_name(c));
			cell_text(&w, c->file);
			cell_int(&w, c->line);
			cell_real(&w, own(s, e, s->k_effort, u));
			cell_real(&w, l.total);
			cell_real(&w, l.idle);
			cell_real(&w, l.ovh);
			cell_real(&w, l.infl);
			for (size_t k = 0; k < s->nm; k++)
				if (is_cause(s->metric[k]) || is_type(s->metric[k]))
					cell_real(&w, own(s, e, (int)k, u) - own(s, 0, (int)k, u));
			rows_end_row(&w);
		}
	rows_end(&w);
	free(col);
}

static void scaling_free(struct scaling *s)
{
	dbr_experiments_free(s->x, s->nx);
	for (size_t k = 0; k < s->nm; k++)
		free(s->metric[k]);
	free(s->metric);
	free(s->unit_of);
	free(s->unit);
	free(s->own);
	free(s->root);
}

int report_scaling(const struct report *r)
{
	struct scaling s = { .r = r };
	int rc = 0;
	s.seconds = strcmp(r->ch.unit, "seconds") == 0;
	if (dbr_experiments(r->db, &s.x, &s.nx) < 0)
		return msg_error("%s", dbr_error(r->db));
	if (s.nx < 2) {
		scaling_free(&s);
		return msg_error("%s holds one run; run the program at several thread counts "
				 "(culprit scale -t 1,2,4 ...) or give culprit prof several runs' "
				 "directories", dbr_file(r->db));
	}
	uint8_t *runtime = dbr_runtime_code(r->db);
	if (!runtime || choose_metrics(&s) < 0) {
		free(runtime);
		scaling_free(&s);
		return runtime ? -1 : msg_error("%s", dbr_error(r->db));
	}
	make_units(&s, runtime);
	free(runtime);
	if (gather(&s) < 0) {
		scaling_free(&s);
		return -1;
	}
	struct ranked *rk;
	size_t n = rank_units(&s, &rk);
	if (r->machine) {
		put_rows(&s, rk, n);
	} else {
		put_title(r, "scaling");
		printf("%s, %zu runs; the base is %s; loss: effort beyond the base's (%s)\n\n",
		       r->ch.event, s.nx, s.x[0].label, r->ch.unit);
		put_runs(&s);
		put_terms(&s, s.nx - 1);
		put_contexts(&s, rk, n);
		if (r->npredict)
			put_prediction(&s);
	}
	free(rk);
	scaling_free(&s);
	return rc;
}
