/* topdown.c - the calling-context tree from the program's roots, each
 * level's children hottest first; a call site is shown on the line of
 * the frame it called ("<- file:line"); with --folded, the native
 * frames folded into a context follow its name. */
#define _GNU_SOURCE
#include "report.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_inclusive(const void *a, const void *b, void *arg)
{
	const struct report *r = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	double x = r->incl[i], y = r->incl[j];
	return x < y ? 1 : x > y ? -1 : (i > j) - (i < j);
}

static int shown(const struct report *r, uint32_t i)
{
	return r->incl[i] >= r->threshold && r->incl[i] > 0;
}

/* The children of I shown, hottest first.  In text, call sites are
 * looked through (those of a body the compiler outlined nest: the
 * construct's, then the body's own), so that the frames and statements
 * they lead to appear as I's children; in CSV every context is a row,
 * call sites too.  Without recursion: a hostile database may nest call
 * sites a million deep. */
static size_t shown_children(const struct report *r, uint32_t i, uint32_t **out, size_t *cap)
{
	const struct dbr_ctx *c = r->tree->c;
	size_t n = 0, nsites = 0, capsites = 0;
	uint32_t *sites = NULL;
	grow_array(&sites, &capsites, 1, sizeof *sites);
	sites[nsites++] = i;
	while (nsites) {
		uint32_t at = sites[--nsites];
		for (uint32_t k = c[at].first; k != UINT32_MAX; k = c[k].next) {
			if (!shown(r, k))
				continue;
			if (c[k].kind == KIND_CALLSITE[0] && !r->machine) {
				grow_array(&sites, &capsites, nsites + 1, sizeof *sites);
				sites[nsites++] = k;
				continue;
			}
			grow_array(out, cap, n + 1, sizeof **out);
			(*out)[n++] = k;
		}
	}
	free(sites);
	if (n > 1)
		qsort_r(*out, n, sizeof **out, by_inclusive, (void *)r);
	return n;
}

static const struct column topdown_columns[] = {
	{ "id", CELL_INT, NULL }, { "parent_id", CELL_INT, NULL }, { "depth", CELL_INT, NULL },
	{ "kind", CELL_TEXT, NULL }, { "procedure", CELL_TEXT, NULL },
	{ "module", CELL_TEXT, NULL }, { "file", CELL_TEXT, NULL }, { "line", CELL_INT, NULL },
	{ "inclusive", CELL_REAL, NULL }, { "inclusive_percent", CELL_REAL, "%.4f" },
	{ "exclusive", CELL_REAL, NULL }, { "exclusive_percent", CELL_REAL, "%.4f" },
	{ "folded", CELL_TEXT, NULL },
};

static void put_row(struct rows *w, const struct report *r, uint32_t i)
{
	const struct dbr_ctx *c = &r->tree->c[i];
	cell_int(w, i + 1);
	if (c->parent != UINT32_MAX)
		cell_int(w, c->parent + 1);
	else
		cell_none(w);
	cell_int(w, c->depth);
	cell_text(w, dbr_kind_name(c->kind));
	cell_text(w, c->procedure);
	cell_text(w, c->module);
	cell_text(w, c->file);
	cell_int(w, c->line);
	cell_real(w, r->incl[i]);
	cell_real(w, pct(r, r->incl[i]));
	cell_real(w, r->excl[i]);
	cell_real(w, pct(r, r->excl[i]));
	cell_text(w, c->folded);
	rows_end_row(w);
}

static void put_text_row(const struct report *r, uint32_t i, uint32_t level)
{
	char text[512];
	context_label(r, i, text, sizeof text);
	/* A frame below a body the compiler outlined: the body was folded
	 * into the call sites looked through to reach it. */
	const struct dbr_ctx *c = r->tree->c;
	const char *folded = c[i].folded;
	for (uint32_t p = c[i].parent; !folded && p != UINT32_MAX && c[p].kind == KIND_CALLSITE[0];
	     p = c[p].parent)
		folded = c[p].folded;
	if (r->folded && folded) {
		size_t len = strlen(text);
		snprintf(text + len, sizeof text - len, "  [folded: %s]", folded);
	}
	put_value(r, r->incl[i]);
	printf(" %6.1f ", pct(r, r->incl[i]));
	put_value(r, r->excl[i]);
	printf(" %6.1f  ", pct(r, r->excl[i]));
	int indent = (int)(level > 30 ? 30 : level);
	printf("%*s", indent, "");
	/* Folded frames are asked for: shown whole, past 100 columns. */
	put_safe(text, r->folded ? (int)sizeof text : 100 - 35 - indent);
	putchar('\n');
}

int report_topdown(const struct report *r)
{
	struct item {
		uint32_t ctx, level;
	} *stack = NULL;
	size_t sp = 0, cap = 0, kcap = 0;
	uint32_t *kids = NULL;

	struct rows w;
	if (r->machine)
		rows_begin(&w, r->format, topdown_columns, NCOLUMNS(topdown_columns));
	else {
		put_header(r, "top-down");
		printf("%9s %6s %9s %6s  %s\n", "inclusive", "%", "exclusive", "%", "context");
	}
	/* Depth first, without recursion: trees can be a million deep. */
	grow_array(&stack, &cap, 1, sizeof *stack);
	stack[sp++] = (struct item){ 0, 0 };
	while (sp) {
		struct item it = stack[--sp];
		if (r->machine)
			put_row(&w, r, it.ctx);
		else
			put_text_row(r, it.ctx, it.level);
		if (r->depth > 0 && (int)it.level >= r->depth)
			continue;
		size_t n = shown_children(r, it.ctx, &kids, &kcap);
		grow_array(&stack, &cap, sp + n, sizeof *stack);
		for (size_t k = n; k-- > 0;)
			stack[sp++] = (struct item){ kids[k], it.level + 1 };
	}
	free(stack);
	free(kids);
	if (r->machine)
		rows_end(&w);
	return 0;
}
