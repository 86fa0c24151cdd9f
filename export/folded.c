/* folded.c - folded stacks ("frame;frame;frame value", a line per leaf
 * path), as flamegraph.pl, inferno and speedscope read them.
 *
 * One metric per file, as integers: microseconds for time, samples, or
 * the event's count.  Each line's value is rounded with the remainder
 * carried to the next, so that the lines add up to the metric's total
 * rounded, as the database has it.  Inlined frames end in "_[i]", the
 * mark flamegraph.pl colours; a ';' in a name becomes ':' and control
 * characters '?', since the format has no escapes. */
#include "export.h"
#include "tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_name(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		size_t n = safe_char(s);
		if (*s == ';')
			putc(':', f);
		else if (n)
			fwrite(s, 1, n, f), s += n - 1;
		else
			putc('?', f);
	}
}

struct folded {
	const struct export *x;
	const struct stacks *s;
	double scale, carry;
	uint32_t *path;
};

static void folded_leaf(void *arg, uint32_t leaf, const double *values)
{
	struct folded *f = arg;
	double exact = values[0] * f->scale + f->carry;
	double whole = floor(exact + 0.5);
	f->carry = exact - whole;
	if (whole == 0)
		return;
	size_t n = stacks_path(f->s, leaf, f->path, f->s->tree->n);
	for (size_t k = 0; k < n; k++) {
		const struct dbr_ctx *c = &f->s->tree->c[f->path[k]];
		if (k)
			putc(';', f->x->out);
		put_name(f->x->out, c->procedure ? c->procedure : "?");
		if (c->kind == KIND_INLINED[0])
			fputs("_[i]", f->x->out);
	}
	fprintf(f->x->out, " %.0f\n", whole);
}

int export_folded(const struct export *x)
{
	struct stacks s;
	const char *metrics[1] = { x->metric };
	if (stacks_open(&s, x->db, x->event, metrics, 1) < 0)
		return -1;
	const char *unit;
	struct folded f = { x, &s, stacks_scale(x->unit, x->metric, &unit), 0, NULL };
	f.path = xmalloc((s.tree->n + 1) * sizeof *f.path);
	int rc = stacks_each(&s, folded_leaf, &f);
	free(f.path);
	stacks_close(&s);
	return rc;
}
