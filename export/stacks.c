/* stacks.c - the profile as the stack-sample formats see it: a value per
 * leaf path (export.h).
 *
 * A leaf is a frame (inlined or not) or a root with a value of its own:
 * its statements' values are in it already, those of the bodies the
 * compiler outlined from it too (dbr_own_frame).  Paths are
 * the frames from below the program root to the leaf, as the report
 * shows them.  The tree is read once (the frame table); the values are
 * streamed in context order, a context's at a time, and the formats walk
 * up from each leaf. */
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
	return 0;
}

struct walk {
	const struct stacks *s;
	stacks_leaf_fn fn;
	void *arg;
};

static void context_values(void *arg, int64_t id, const double *incl, const double *excl)
{
	struct walk *w = arg;
	int any = 0;
	(void)incl;
	for (size_t k = 0; k < w->s->nm; k++)
		any |= excl[k] != 0;
	/* A body folded under a call site: a sample of the frame holding it. */
	uint32_t leaf = any ? dbr_own_frame(w->s->tree, (uint32_t)(id - 1)) : UINT32_MAX;
	if (leaf != UINT32_MAX)
		w->fn(w->arg, leaf, excl);
}

int stacks_each(const struct stacks *s, stacks_leaf_fn fn, void *arg)
{
	struct walk w = { s, fn, arg };
	if (dbr_values_by_context(s->db, s->event, s->metric, s->nm, context_values, &w) < 0)
		return msg_error("%s", dbr_error(s->db));
	return 0;
}

void stacks_close(struct stacks *s)
{
	s->tree = NULL;
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
	/* The call site NEXT hangs under: the call's own line, also in a
	 * body the compiler outlined (whose call sites nest under the
	 * construct's); else the context below FRAME on the way to NEXT. */
	const struct dbr_ctx *c = s->tree->c;
	if (next != UINT32_MAX && c[next].parent != UINT32_MAX &&
	    c[c[next].parent].kind == KIND_CALLSITE[0])
		return c[c[next].parent].line;
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
