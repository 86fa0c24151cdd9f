/* rows.c - a view's rows for scripts: CSV or JSON from one declaration.
 *
 * A view declares its columns once (name, type, the CSV number format)
 * and hands over each row cell by cell; CSV prints the header line and
 * comma-separated cells (empty for none), JSON an array of objects keyed
 * by the column names (null for none, numbers at full precision).  The
 * JSON document around the rows (the view, the database, the event) is
 * report.c's and diff.c's: doc/json.md describes it. */
#include "report.h"
#include "tools.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rows_begin(struct rows *w, enum report_format format, const struct column *col, size_t ncol)
{
	*w = (struct rows){ .format = format, .col = col, .ncol = ncol };
	if (format == FORMAT_JSON) {
		fputs(",\"rows\":[", stdout);
		return;
	}
	for (size_t k = 0; k < ncol; k++)
		printf(k ? ",%s" : "%s", col[k].name);
	putchar('\n');
}

/* Before the cell of the next column: its separator, or its key. */
static const struct column *next_cell(struct rows *w)
{
	const struct column *c = w->at < w->ncol ? &w->col[w->at] : NULL;
	if (w->format == FORMAT_JSON) {
		fputs(w->at ? "," : w->nrows ? ",{" : "{", stdout);
		json_string(stdout, c ? c->name : "?");
		putchar(':');
	} else if (w->at) {
		putchar(',');
	}
	w->at++;
	return c;
}

void cell_text(struct rows *w, const char *s)
{
	next_cell(w);
	if (w->format == FORMAT_JSON) {
		if (s)
			json_string(stdout, s);
		else
			fputs("null", stdout);
	} else {
		put_csv(s);
	}
}

void cell_int(struct rows *w, long long v)
{
	next_cell(w);
	printf("%lld", v);
}

/* V in JSON: the shortest of 15 or 17 digits that reads back as V. */
static void put_json_number(double v)
{
	char buf[32];
	if (!isfinite(v)) {
		fputs("null", stdout);
		return;
	}
	snprintf(buf, sizeof buf, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	fputs(buf, stdout);
}

void cell_real(struct rows *w, double v)
{
	const struct column *c = next_cell(w);
	if (w->format == FORMAT_JSON)
		put_json_number(v);
	else
		printf(c && c->format ? c->format : "%.9g", v);
}

void cell_none(struct rows *w)
{
	next_cell(w);
	if (w->format == FORMAT_JSON)
		fputs("null", stdout);
}

void rows_end_row(struct rows *w)
{
	while (w->at < w->ncol)
		cell_none(w);
	if (w->format == FORMAT_JSON)
		putchar('}');
	else
		putchar('\n');
	w->at = 0;
	w->nrows++;
}

void rows_end(struct rows *w)
{
	if (w->at)
		rows_end_row(w);
	if (w->format == FORMAT_JSON)
		putchar(']');
}

void json_pair(int first, const char *key, const char *value)
{
	if (!first)
		putchar(',');
	json_string(stdout, key);
	putchar(':');
	if (value)
		json_string(stdout, value);
	else
		fputs("null", stdout);
}

void json_number(const char *key, double v)
{
	putchar(',');
	json_string(stdout, key);
	putchar(':');
	put_json_number(v);
}
