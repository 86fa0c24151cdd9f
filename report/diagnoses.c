/* diagnoses.c - the contexts most worth a look (culprit prof ranked
 * them): what and where, the path, the numbers behind it, the runtime
 * calls that hold its idleness and overhead, the advice. */
#include "report.h"
#include "tools.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frame F's label in a path: its name, with LINES the line of the call
 * site it called the next frame, CALLEE, from ("main:231"). */
static const char *frame_label(const struct report *r, uint32_t f, uint32_t callee, int lines,
			       char *buf, size_t size)
{
	const struct dbr_ctx *c = r->tree->c;
	uint32_t site = callee == UINT32_MAX ? UINT32_MAX : c[callee].parent;
	if (!lines || site == UINT32_MAX || c[site].kind != KIND_CALLSITE[0] || c[site].line <= 0)
		return ctx_name(&c[f]);
	snprintf(buf, size, "%s:%d", ctx_name(&c[f]), c[site].line);
	return buf;
}

/* The frames from the program's main (or the outermost one) to context
 * I, as "main > a > b" (with LINES, each frame's call line:
 * "main:231 > a:14 > b"), in at most WIDTH characters: when the whole
 * path is longer, the first frame and as many of the last as fit. */
static void frame_path(const struct report *r, uint32_t i, int lines, char *buf, size_t size,
		       size_t width)
{
	const struct dbr_ctx *c = r->tree->c;
	uint32_t f[64];
	char label[64][300];
	size_t n = 0;
	for (int64_t k = (int64_t)i + 1; k && n < 64; k = dbr_caller(r->db, k)) {
		if (!dbr_is_frame(c[k - 1].kind))
			continue;
		f[n++] = (uint32_t)(k - 1);
		if (c[k - 1].procedure && strcmp(c[k - 1].procedure, "main") == 0)
			break;
	}
	/* f[0] is I; each frame's callee is the one before it. */
	const char *name[64];
	for (size_t k = 0; k < n; k++)
		name[k] = frame_label(r, f[k], k ? f[k - 1] : UINT32_MAX, lines, label[k],
				      sizeof label[k]);
	/* The last frames that fit beside the first and "... > ". */
	size_t keep = 0, len = n ? strlen(name[n - 1]) : 0;
	while (keep + 1 < n) {
		size_t more = strlen(name[keep]) + 3;
		size_t elided = keep + 2 < n ? 6 : 0;
		if (len + more + elided > width)
			break;
		len += more;
		keep++;
	}
	size_t used = 0;
	buf[0] = 0;
	if (n)
		used += (size_t)snprintf(buf, size, "%s", name[n - 1]);
	if (keep + 1 < n)
		used += (size_t)snprintf(buf + used, size - used, " > ...");
	for (size_t k = keep; k-- > 0 && used < size;)
		used += (size_t)snprintf(buf + used, size - used, " > %s", name[k]);
}

static const struct column diagnosis_columns[] = {
	{ "rank", CELL_INT, NULL }, { "context_id", CELL_INT, NULL },
	{ "diagnosis", CELL_TEXT, NULL }, { "procedure", CELL_TEXT, NULL },
	{ "file", CELL_TEXT, NULL }, { "line", CELL_INT, NULL }, { "path", CELL_TEXT, NULL },
	{ "effort", CELL_REAL, NULL }, { "effort_percent", CELL_REAL, "%.4f" },
	{ "idleness_percent", CELL_REAL, "%.4f" }, { "overhead_percent", CELL_REAL, "%.4f" },
	{ "waste_percent", CELL_REAL, "%.4f" }, { "advice", CELL_TEXT, NULL },
	{ "scope", CELL_TEXT, NULL }, { "runtime_percent", CELL_REAL, "%.4f" },
	{ "runtime", CELL_TEXT, NULL },
};

static void put_row(struct rows *w, const struct dbr_diagnosis *d, const struct dbr_ctx *c,
		    const char *path)
{
	cell_int(w, d->rank);
	cell_int(w, d->context_id);
	cell_text(w, d->diagnosis);
	cell_text(w, c->procedure);
	cell_text(w, c->file);
	cell_int(w, c->line);
	cell_text(w, path);
	cell_real(w, d->effort);
	cell_real(w, d->effort_percent);
	cell_real(w, d->idleness_percent);
	cell_real(w, d->overhead_percent);
	cell_real(w, d->waste_percent);
	cell_text(w, d->advice);
	cell_text(w, d->scope);
	if (d->has_runtime_percent)
		cell_real(w, d->runtime_percent);
	else
		cell_none(w);
	cell_text(w, d->runtime);
	rows_end_row(w);
}

static void put_text(const struct report *r, const struct dbr_diagnosis *d,
		     const struct dbr_ctx *c, const char *path)
{
	int runtime = d->scope && strcmp(d->scope, DIAG_SCOPE_RUNTIME) == 0;
	char line[512];
	snprintf(line, sizeof line, "%2d. %s: %s%s", d->rank, d->diagnosis ? d->diagnosis : "?",
		 ctx_name(c), runtime ? ", its runtime calls" : "");
	put_safe(line, 100);
	if (c->file) {
		printf("  (");
		put_safe(base_name(c->file), 40);
		printf(":%d)", c->line);
	}
	printf("\n    ");
	put_safe(path, 96);
	printf("\n    %s %s, %.1f%% of all effort: idleness %.1f%%, overhead %.1f%% of it "
	       "(%.1f%% of all)\n", amount(r->ch.unit, d->effort), r->ch.unit, d->effort_percent,
	       d->idleness_percent, d->overhead_percent, d->waste_percent);
	if (d->runtime) {
		printf("    in runtime calls: ");
		put_safe(d->runtime, 100 - 22);
		putchar('\n');
	}
	printf("    -> ");
	put_safe(d->advice, 93);
	printf("\n\n");
}

static void put_preamble(const struct report *r)
{
	double ti = dbr_info_number(r->db, "diagnose_idleness_percent", 20);
	double to = dbr_info_number(r->db, "diagnose_overhead_percent", 20);
	double ts = dbr_info_number(r->db, "diagnose_share_percent", 2);
	put_title(r, "diagnoses");
	printf("%s: effort (work + idleness) %s %s.  A context is diagnosed when its\n"
	       "idleness is at least %g%% or its overhead at least %g%% of its effort, and the "
	       "two\ntogether at least %g%% of all effort.  Diagnoses name the program's own "
	       "frames:\nruntime and system code counts for the frame that called it (\"in "
	       "runtime calls\":\nthe calls that hold its idleness and overhead, with their "
	       "shares).\n\n", r->ch.event, amount(r->ch.unit, r->ch.base), r->ch.unit, ti, to, ts);
}

int report_diagnoses(const struct report *r)
{
	struct dbr_diagnosis *d;
	size_t n;
	if (dbr_diagnoses(r->db, r->ch.event, &d, &n) < 0)
		return msg_error("%s", dbr_error(r->db));
	struct rows w;
	if (r->machine)
		rows_begin(&w, r->format, diagnosis_columns, NCOLUMNS(diagnosis_columns));
	else
		put_preamble(r);
	/* Paths alike but for where the calls are (a warm-up and a timed
	 * run of the same code) are told apart by their call lines. */
	char (*path)[512] = xcalloc(n + 1, sizeof *path);
	size_t width = r->machine ? 400 : 94;
	for (size_t k = 0; k < n; k++)
		if (d[k].context_id >= 1 && (size_t)d[k].context_id <= r->tree->n)
			frame_path(r, (uint32_t)(d[k].context_id - 1), 0, path[k], sizeof path[k], width);
	uint8_t *alike = xcalloc(n + 1, 1);
	for (size_t k = 0; k < n; k++)
		for (size_t j = k + 1; j < n; j++)
			if (path[k][0] && strcmp(path[j], path[k]) == 0 &&
			    d[j].context_id != d[k].context_id)
				alike[k] = alike[j] = 1;
	for (size_t k = 0; k < n; k++)
		if (alike[k])
			frame_path(r, (uint32_t)(d[k].context_id - 1), 1, path[k], sizeof path[k],
				   width);
	free(alike);
	size_t rows = 0;
	for (size_t k = 0; k < n; k++) {
		if (d[k].context_id < 1 || (size_t)d[k].context_id > r->tree->n)
			continue;
		uint32_t i = (uint32_t)(d[k].context_id - 1);
		rows++;
		if (r->machine)
			put_row(&w, &d[k], &r->tree->c[i], path[k]);
		else
			put_text(r, &d[k], &r->tree->c[i], path[k]);
	}
	free(path);
	dbr_diagnoses_free(d, n);
	if (r->machine)
		rows_end(&w);
	if (!rows && !r->machine)
		printf("Nothing to diagnose: no context has that much idleness or overhead.\n");
	return 0;
}
