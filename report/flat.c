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

void put_procedure_names_csv(const struct dbr_procedure *p)
{
	put_csv(p->procedure);
	putchar(',');
	put_csv(p->module);
	putchar(',');
	put_csv(p->file);
}

void put_procedure_values(const struct report *r, const struct dbr_procedure *p)
{
	if (r->csv) {
		put_procedure_names_csv(p);
		printf(",%.9g,%.4f,%.9g,%.4f", p->excl[0], pct(r, p->excl[0]), p->incl[0],
		       pct(r, p->incl[0]));
		return;
	}
	put_value(r, p->excl[0]);
	printf(" %6.1f ", pct(r, p->excl[0]));
	put_value(r, p->incl[0]);
	printf(" %6.1f  ", pct(r, p->incl[0]));
}

void put_procedure_head(const struct report *r, const char *view, const char *csv_more,
			const char *title)
{
	if (r->csv) {
		printf("procedure,module,file,exclusive,exclusive_percent,inclusive,"
		       "inclusive_percent%s\n", csv_more);
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
	put_procedure_head(r, "flat", "", "procedure                      file or module");
	for (size_t q = 0; q < nproc; q++) {
		if (!procedure_shown(r, &p[q]))
			continue;
		put_procedure_values(r, &p[q]);
		if (r->csv) {
			putchar('\n');
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
	return 0;
}
