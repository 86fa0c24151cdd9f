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

int export_folded(const struct export *x)
{
	struct stacks s;
	const char *metrics[1] = { x->metric };
	if (stacks_open(&s, x->db, x->event, metrics, 1) != EXIT_OK)
		return EXIT_FAIL;
	const char *unit;
	double scale = stacks_scale(x->unit, x->metric, &unit);
	uint32_t *path = xmalloc((s.tree->n + 1) * sizeof *path);
	double carry = 0, value;
	for (uint32_t i = 0; i < s.tree->n; i++) {
		if (!stacks_is_leaf(&s, i, &value))
			continue;
		double exact = value * scale + carry;
		double whole = floor(exact + 0.5);
		carry = exact - whole;
		if (whole == 0)
			continue;
		size_t n = stacks_path(&s, i, path, s.tree->n);
		for (size_t k = 0; k < n; k++) {
			const struct dbr_ctx *c = &s.tree->c[path[k]];
			if (k)
				putc(';', x->out);
			put_name(x->out, c->procedure ? c->procedure : "?");
			if (c->kind == KIND_INLINED[0])
				fputs("_[i]", x->out);
		}
		fprintf(x->out, " %.0f\n", whole);
	}
	free(path);
	stacks_close(&s);
	(void)unit;
	return EXIT_OK;
}
