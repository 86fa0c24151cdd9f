/* stacks.c - the profile as the stack-sample formats see it: a value per
 * leaf path (export.h).
 *
 * A leaf is a frame (inlined or not) or a root with a value of its own:
 * its statements' values are in it already, and a body the compiler
 * outlined and culprit folded, whose statements hang from the call site
 * that opened it, counts for the frame holding that call site.  Paths are
 * the frames from below the program root to the leaf, as the report
 * shows them.  The tree and one value per context and metric are read
 * once; the formats walk up from each leaf. */
#define _GNU_SOURCE
#include "export.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

int stacks_open(struct stacks *s, struct dbr *db, const char *event, const char *const *metrics,
		size_t n)
{
	memset(s, 0, sizeof *s);
	s->db = db;
	s->event = event;
	s->metric = metrics;
	s->nm = n;
	s->tree = dbr_tree(db);
	if (!s->tree)
		return msg_error("%s", dbr_error(db));
	size_t nc = s->tree->n;
	s->own = xcalloc(n * nc + 1, sizeof *s->own);
	double *incl = xcalloc(nc + 1, sizeof *incl), *excl = xcalloc(nc + 1, sizeof *excl);
	int rc = EXIT_OK;
	for (size_t k = 0; k < n && rc == EXIT_OK; k++) {
		memset(incl, 0, nc * sizeof *incl);
		memset(excl, 0, nc * sizeof *excl);
		if (dbr_tree_values(db, event, metrics[k], incl, excl) < 0) {
			rc = msg_error("%s", dbr_error(db));
			break;
		}
		double *own = s->own + k * nc;
		s->total_of = s->total_of ? s->total_of : xcalloc(n + 1, sizeof *s->total_of);
		s->total_of[k] = incl[0];
		const struct dbr_ctx *c = s->tree->c;
		for (size_t i = 0; i < nc; i++) {
			if (excl[i] == 0)
				continue;
			if (c[i].kind == KIND_STATEMENT[0]) {
				uint32_t p = c[i].parent;
				/* In its frame's value already, unless folded
				 * under a call site. */
				if (p != UINT32_MAX && c[p].kind == KIND_CALLSITE[0] &&
				    c[p].parent != UINT32_MAX)
					own[c[p].parent] += excl[i];
			} else if (c[i].kind != KIND_CALLSITE[0]) {
				own[i] += excl[i];
			}
		}
	}
	free(incl);
	free(excl);
	if (rc != EXIT_OK)
		stacks_close(s);
	return rc;
}

void stacks_close(struct stacks *s)
{
	free(s->own);
	free(s->total_of);
	s->own = NULL;
	s->total_of = NULL;
}

int stacks_is_leaf(const struct stacks *s, uint32_t i, double *values)
{
	size_t nc = s->tree->n;
	int any = 0;
	for (size_t k = 0; k < s->nm; k++) {
		values[k] = s->own[k * nc + i];
		any |= values[k] != 0;
	}
	return any;
}

size_t stacks_path(const struct stacks *s, uint32_t leaf, uint32_t *ids, size_t max)
{
	const struct dbr_ctx *c = s->tree->c;
	size_t n = 0;
	/* Up from the leaf, then reversed: outermost first. */
	for (uint32_t i = leaf; i != UINT32_MAX && n < max; i = c[i].parent) {
		if (i == 0 && c[i].parent == UINT32_MAX && leaf != 0)
			break;	/* the program root: every path has it */
		if (dbr_is_frame(c[i].kind) || c[i].kind == KIND_ROOT[0])
			ids[n++] = i;
	}
	for (size_t a = 0, b = n ? n - 1 : 0; a < b; a++, b--) {
		uint32_t t = ids[a];
		ids[a] = ids[b];
		ids[b] = t;
	}
	return n;
}

int stacks_line_of(const struct stacks *s, uint32_t frame, uint32_t next)
{
	/* The call site (or statement) below FRAME on the way to NEXT. */
	const struct dbr_ctx *c = s->tree->c;
	uint32_t below = next;
	while (below != UINT32_MAX && c[below].parent != frame)
		below = c[below].parent;
	return below != UINT32_MAX && c[below].kind != KIND_ROOT[0] ? c[below].line : c[frame].line;
}

double stacks_scale(const char *unit, const char *metric, const char **out_unit)
{
	if (strcmp(metric, MET_SAMPLES) == 0) {
		*out_unit = "samples";
		return 1;
	}
	if (unit && strcmp(unit, "seconds") == 0) {
		*out_unit = "microseconds";
		return 1e6;
	}
	*out_unit = "count";
	return 1;
}
