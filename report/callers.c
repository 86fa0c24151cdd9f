/* callers.c - bottom-up: each procedure, then the chains of procedures
 * that called it, with the share of its cost each carried.  A frame's
 * caller is dbr_caller's: the frame above its call site, or the root it
 * hangs under (the program, a truncated unwind), where a chain ends.  A
 * recursive procedure's callers are those of its outermost frames, as
 * its inclusive value counts recursion once: the shares add up to 100%. */
#define _GNU_SOURCE
#include "report.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define MAX_LEVELS 8

struct chain {
	uint32_t ctx[MAX_LEVELS];	/* callers, nearest first; the last may be a root */
	uint32_t n;
	double value;			/* inclusive value of the procedure's frame */
};

struct group {
	size_t lo, hi;
	double sum;
};

/* The name of a chain's caller at LEVEL (0 = nearest), NULL past its end. */
static const char *caller_name(const struct report *r, const struct chain *c, uint32_t level)
{
	return level < c->n ? ctx_name(&r->tree->c[c->ctx[level]]) : NULL;
}

static int ends_at(const struct report *r, const struct chain *c, uint32_t level)
{
	return level + 1 >= c->n && c->n && r->tree->c[c->ctx[c->n - 1]].kind == KIND_ROOT[0];
}

static int name_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int by_caller_names(const void *a, const void *b, void *arg)
{
	const struct chain *x = a, *y = b;
	for (uint32_t k = 0; k < MAX_LEVELS; k++) {
		int d = name_cmp(caller_name(arg, x, k), caller_name(arg, y, k));
		if (d)
			return d;
	}
	return 0;
}

static int by_sum(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	return x->sum < y->sum ? 1 : x->sum > y->sum ? -1 : (x->lo > y->lo) - (x->lo < y->lo);
}

static void put_caller_row(const struct report *r, struct rows *w, const struct dbr_procedure *p,
			   int level, const char *name, double sum)
{
	double share = p->incl[0] > 0 ? 100 * sum / p->incl[0] : 0;
	if (r->machine) {
		put_procedure_names(w, p);
		for (int k = 0; k < 4; k++)
			cell_none(w);	/* the procedure's own values are its row's */
		cell_int(w, level);
		cell_text(w, name);
		cell_real(w, sum);
		cell_real(w, share);
		rows_end_row(w);
		return;
	}
	int indent = 2 * (level - 1);
	printf("%35s%*s%5.1f%%  ", "", indent, "", share);
	put_safe(name, 100 - 43 - indent);
	putchar('\n');
}

/* Prints the callers at LEVEL (1 = direct) of the chains CH[LO..HI),
 * which agree on every nearer level, grouped by name, hottest first. */
static void put_callers(const struct report *r, struct rows *w, const struct dbr_procedure *p,
			struct chain *ch, size_t lo, size_t hi, int level, int levels)
{
	struct group *g = NULL;
	size_t ng = 0, cap = 0;
	uint32_t at = (uint32_t)level - 1;
	for (size_t i = lo; i < hi;) {
		const char *name = caller_name(r, &ch[i], at);
		size_t j = i;
		double sum = 0;
		while (j < hi && name_cmp(caller_name(r, &ch[j], at), name) == 0)
			sum += ch[j++].value;
		if (name) {
			grow_array(&g, &cap, ng + 1, sizeof *g);
			g[ng++] = (struct group){ i, j, sum };
		}
		i = j;
	}
	qsort(g, ng, sizeof *g, by_sum);
	for (size_t k = 0; k < ng; k++) {
		if (g[k].sum < r->threshold || g[k].sum <= 0)
			continue;
		put_caller_row(r, w, p, level, caller_name(r, &ch[g[k].lo], at), g[k].sum);
		if (level < levels && !ends_at(r, &ch[g[k].lo], at))
			put_callers(r, w, p, ch, g[k].lo, g[k].hi, level + 1, levels);
	}
	free(g);
}

/* Every frame of procedure P with a value, with the chain of its callers;
 * -1 after a message. */
static ssize_t frames_of(const struct report *r, const struct dbr_procedure *p, struct chain **ch,
			 size_t *cap)
{
	const char *metric = r->ch.metric;
	int64_t *ids;
	struct dbr_procedure *v;
	size_t nf, n = 0;
	if (dbr_procedure_frames(r->db, p, r->ch.event, &metric, 1, &ids, &v, NULL, &nf) < 0) {
		msg_error("%s", dbr_error(r->db));
		return -1;
	}
	/* Recursion counted once, as in the procedure's inclusive value:
	 * only its outermost frames, so that its callers add up to it. */
	const uint8_t *recursive = dbr_recursive(r->db);
	if (!recursive) {
		msg_error("%s", dbr_error(r->db));
		free(ids);
		dbr_procedures_free(v, nf);
		return -1;
	}
	for (size_t i = 0; i < nf; i++) {
		if (v[i].incl[0] == 0 || recursive[ids[i] - 1])
			continue;
		grow_array(ch, cap, n + 1, sizeof **ch);
		struct chain *k = &(*ch)[n++];
		k->n = 0;
		k->value = v[i].incl[0];
		for (int64_t f = dbr_caller(r->db, ids[i]); f && k->n < MAX_LEVELS;
		     f = dbr_caller(r->db, f))
			k->ctx[k->n++] = (uint32_t)(f - 1);
	}
	free(ids);
	dbr_procedures_free(v, nf);
	return (ssize_t)n;
}

int report_callers(const struct report *r)
{
	size_t nproc;
	struct dbr_procedure *p;
	if (report_procedures(r, &p, &nproc) < 0)
		return -1;
	int levels = r->depth > 0 ? (r->depth > MAX_LEVELS ? MAX_LEVELS : r->depth) : 1;
	struct chain *ch = NULL;
	size_t cap = 0;
	int rc = 0;

	static const struct column columns[] = {
		PROCEDURE_COLUMNS, { "caller_level", CELL_INT, NULL }, { "caller", CELL_TEXT, NULL },
		{ "value", CELL_REAL, NULL }, { "share_percent", CELL_REAL, "%.4f" },
	};
	struct rows w;
	put_procedure_head(r, &w, "callers", columns, NCOLUMNS(columns),
			   "procedure, then who called it and its share of that");
	for (size_t q = 0; q < nproc; q++) {
		if (!procedure_shown(r, &p[q]))
			continue;
		put_procedure_values(r, &w, &p[q]);
		if (r->machine) {
			cell_int(&w, 0);
			rows_end_row(&w);
		} else {
			char text[512];
			snprintf(text, sizeof text, "%s  (%s)", p[q].procedure ? p[q].procedure : "?",
				 base_name(p[q].file ? p[q].file : p[q].module ? p[q].module : "?"));
			put_safe(text, 100 - 35);
			putchar('\n');
		}
		ssize_t n = frames_of(r, &p[q], &ch, &cap);
		if (n < 0) {
			rc = -1;
			break;
		}
		qsort_r(ch, (size_t)n, sizeof *ch, by_caller_names, (void *)r);
		put_callers(r, &w, &p[q], ch, 0, (size_t)n, 1, levels);
	}
	dbr_procedures_free(p, nproc);
	free(ch);
	if (r->machine && !rc)
		rows_end(&w);
	return rc;
}
