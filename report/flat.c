/* flat.c - procedures with their exclusive and inclusive totals, and the
 * procedure list the callers view shares. */
#include "report.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_exclusive(const void *a, const void *b)
{
	const struct dbr_procedure *x = a, *y = b;
	if (x->excl[0] != y->excl[0])
		return x->excl[0] < y->excl[0] ? 1 : -1;
	if (x->incl[0] != y->incl[0])
		return x->incl[0] < y->incl[0] ? 1 : -1;
	return strcmp(x->procedure ? x->procedure : "", y->procedure ? y->procedure : "");
}

int report_procedures(const struct report *r, struct dbr_procedure **p, size_t *count)
{
	const char *metric = r->ch.metric;
	if (dbr_procedures(r->db, r->ch.event, &metric, 1, p, count) < 0)
		return msg_error("%s", dbr_error(r->db));
	qsort(*p, *count, sizeof **p, by_exclusive);
	return 0;
}

int procedure_shown(const struct report *r, const struct dbr_procedure *p)
{
	return p->incl[0] >= r->threshold || p->excl[0] >= r->threshold;
}

void put_procedure_names(struct rows *w, const struct dbr_procedure *p)
{
	cell_text(w, p->procedure);
	cell_text(w, p->module);
	cell_text(w, p->file);
}

void put_procedure_values(const struct report *r, struct rows *w, const struct dbr_procedure *p)
{
	if (r->machine) {
		put_procedure_names(w, p);
		cell_real(w, p->excl[0]);
		cell_real(w, pct(r, p->excl[0]));
		cell_real(w, p->incl[0]);
		cell_real(w, pct(r, p->incl[0]));
		return;
	}
	put_value(r, p->excl[0]);
	printf(" %6.1f ", pct(r, p->excl[0]));
	put_value(r, p->incl[0]);
	printf(" %6.1f  ", pct(r, p->incl[0]));
}

void put_procedure_head(const struct report *r, struct rows *w, const char *view,
			const struct column *col, size_t n, const char *title)
{
	if (r->machine) {
		rows_begin(w, r->format, col, n);
		return;
	}
	put_header(r, view);
	printf("%9s %6s %9s %6s  %s\n", "exclusive", "%", "inclusive", "%", title);
}

int report_flat(const struct report *r)
{
	size_t nproc;
	struct dbr_procedure *p;
	if (report_procedures(r, &p, &nproc) < 0)
		return -1;
	static const struct column columns[] = { PROCEDURE_COLUMNS };
	struct rows w;
	put_procedure_head(r, &w, "flat", columns, NCOLUMNS(columns),
			   "procedure                      file or module");
	for (size_t q = 0; q < nproc; q++) {
		if (!procedure_shown(r, &p[q]))
			continue;
		put_procedure_values(r, &w, &p[q]);
		if (r->machine) {
			rows_end_row(&w);
			continue;
		}
		const char *name = p[q].procedure ? p[q].procedure : "?";
		put_safe(name, 30);
		int used = (int)strlen(name) > 30 ? 30 : (int)strlen(name);
		printf("%*s ", 30 - used, "");
		put_safe(p[q].file ? base_name(p[q].file) : base_name(p[q].module), 100 - 35 - 31);
		putchar('\n');
	}
	dbr_procedures_free(p, nproc);
	if (r->machine)
		rows_end(&w);
	return 0;
}
