/* diff.c - `culprit diff A B`: two databases, context by context.
 *
 * Contexts are matched by their logical path, not their ids (each prof
 * numbers its own): B's root is A's, and a context of B is the child of
 * its parent's match with the same kind, procedure, module, file and
 * line.  Parents come before children in both trees, so one pass in B's
 * order matches everything.  What only one side has is compared with 0. */
#define _GNU_SOURCE
#include "commands.h"
#include "dbread.h"
#include "report.h"
#include "tools.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char diff_usage[] =
	"usage: culprit diff [options] A.db[:LABEL] B.db[:LABEL]\n"
	"\n"
	"Compares two databases (made by `culprit prof`) context by context, matched\n"
	"by their calling path from the program root, and lists the frames whose\n"
	"value changed most, B minus A.  DB:LABEL is one experiment of a database\n"
	"of several runs (culprit scale's s.db:t1, s.db:t8).\n"
	"\n"
	"  --event=E          the event compared (default: A's first, e.g. cputime)\n"
	"  --metric=M         the metric compared (default: work; also idleness,\n"
	"                     overhead, useful_work, effort, samples, ...)\n"
	"  --inclusive        compare inclusive values (default: a frame's own, exclusive)\n"
	"  --limit=N          list N frames (default 20; 0: all that changed)\n"
	"  --format=F         text (default) or csv\n"
	"  -h, --help         show this help\n";

struct options {
	const char *event, *metric, *a, *b;
	int inclusive, csv;
	long limit;
};

/* One side: its database (or one of its experiments), tree and values. */
struct side {
	const char *path;	/* as the user gave it */
	char *file;		/* the database */
	char *label;		/* the experiment, or NULL for the whole database */
	struct dbr *db;
	const struct dbr_tree *tree;
	struct dbr_choice ch;
	double *incl, *excl;
};

/* A frame of either side, and its values in both. */
struct change {
	int64_t a, b;		/* context ids, 0 where the side lacks it */
	double va, vb;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "metric", required_argument, NULL, 'm' },
		{ "inclusive", no_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	*o = (struct options){ .limit = 20 };
	argv[0] = "culprit diff";
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'e': o->event = optarg; break;
		case 'm': o->metric = optarg; break;
		case 'i': o->inclusive = 1; break;
		case 'l':
			o->limit = strtol(optarg, &end, 10);
			if (*end || end == optarg || o->limit < 0)
				return msg_usage("diff", "--limit wants a count, 0 or more, not '%s'",
						 optarg);
			break;
		case 'f':
			if (strcmp(optarg, "csv") != 0 && strcmp(optarg, "text") != 0)
				return msg_usage("diff", "--format is text or csv, not '%s'", optarg);
			o->csv = strcmp(optarg, "csv") == 0;
			break;
		case 'h': fputs(diff_usage, stdout); return -1;
		default: fputs(diff_usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 2)
		return msg_usage("diff", "give two databases (see culprit diff --help)");
	o->a = argv[optind];
	o->b = argv[optind + 1];
	return EXIT_OK;
}

/* Splits PATH into S's database and experiment: "s.db:t4" names
 * experiment t4 of s.db, unless a file has that whole name. */
static void split_path(struct side *s, const char *path)
{
	const char *colon = strrchr(path, ':');
	s->path = path;
	if (colon && colon[1] && access(path, F_OK) != 0) {
		s->file = xasprintf("%.*s", (int)(colon - path), path);
		s->label = xstrdup(colon + 1);
	} else {
		s->file = xstrdup(path);
	}
}

/* Reads experiment S->label's values of the chosen metric, and its totals
 * in place of the database's. */
static int read_experiment(struct side *s)
{
	struct dbr_experiment *x;
	size_t nx, i;
	if (dbr_experiments(s->db, &x, &nx) < 0)
		return msg_error("%s", dbr_error(s->db));
	for (i = 0; i < nx && strcmp(x[i].label, s->label) != 0; i++)
		;
	if (i == nx) {
		msg_error("%s has no experiment '%s'; it has %s%s", s->file, s->label, x[0].label,
			  nx > 1 ? " and others (SELECT label FROM experiments)" : "");
		dbr_experiments_free(x, nx);
		return -1;
	}
	const char *metrics[2] = { s->ch.metric, MET_EFFORT };
	size_t nc = s->tree->n;
	double *in = xcalloc(2 * nc + 1, sizeof *in), *ex = xcalloc(2 * nc + 1, sizeof *ex);
	int rc = dbr_experiment_values(s->db, x[i].id, nx, s->ch.event, metrics,
				       strcmp(s->ch.metric, MET_SAMPLES) == 0 ? 1 : 2, in, ex);
	if (rc == 0) {
		memcpy(s->incl, in, nc * sizeof *in);
		memcpy(s->excl, ex, nc * sizeof *ex);
		s->ch.total = in[0];
		if (strcmp(s->ch.metric, MET_SAMPLES) == 0)
			s->ch.base = in[0];
		else if (in[nc] > 0)
			s->ch.base = in[nc];
	}
	free(in);
	free(ex);
	dbr_experiments_free(x, nx);
	return rc < 0 ? msg_error("%s", dbr_error(s->db)) : 0;
}

/* A frame's own value also holds the samples of a body folded under one
 * of its call sites (an outlined OpenMP region's statements hang from
 * the call site that opened it, not from a frame of their own). */
static void fold_bodies(struct side *s)
{
	for (uint32_t i = 0; i < s->tree->n; i++) {
		uint32_t f = s->excl[i] != 0 ? dbr_own_frame(s->tree, i) : UINT32_MAX;
		if (f != UINT32_MAX && f != i)
			s->excl[f] += s->excl[i];
	}
}

/* Opens side S and reads its tree and the chosen metric. */
static int open_side(struct side *s, const char *path, const char *event, const char *metric)
{
	char err[512];
	split_path(s, path);
	s->db = dbr_open(s->file, err, sizeof err);
	if (!s->db)
		return msg_error("%s", err);
	if (dbr_choose(s->db, event, metric, &s->ch) < 0 || !(s->tree = dbr_tree(s->db)))
		return msg_error("%s", dbr_error(s->db));
	s->incl = xcalloc(s->tree->n + 1, sizeof *s->incl);
	s->excl = xcalloc(s->tree->n + 1, sizeof *s->excl);
	if (s->label ? read_experiment(s) < 0
		     : dbr_tree_values(s->db, s->ch.event, s->ch.metric, s->incl, s->excl) < 0)
		return s->label ? -1 : msg_error("%s", dbr_error(s->db));
	fold_bodies(s);
	return 0;
}

static void close_side(struct side *s)
{
	free(s->file);
	free(s->label);
	free(s->incl);
	free(s->excl);
	dbr_choice_free(&s->ch);
	dbr_close(s->db);
}

static int same_context(const struct dbr_ctx *x, const struct dbr_ctx *y)
{
	return x->kind == y->kind && x->line == y->line && dbr_same_name(x->procedure, y->procedure) &&
	       dbr_same_name(x->file, y->file) && dbr_same_name(x->module, y->module);
}

/* For each context of B (by index), its match in A (index + 1), 0 for none. */
static uint32_t *match_trees(const struct dbr_tree *a, const struct dbr_tree *b)
{
	uint32_t *match = xcalloc(b->n + 1, sizeof *match);
	for (size_t i = 0; i < b->n; i++) {
		const struct dbr_ctx *c = &b->c[i];
		if (c->parent == UINT32_MAX) {
			/* A root: the root of A of the same name. */
			for (size_t k = 0; k < a->n && !match[i]; k++)
				if (a->c[k].parent == UINT32_MAX && same_context(&a->c[k], c))
					match[i] = (uint32_t)k + 1;
			continue;
		}
		uint32_t p = match[c->parent];
		if (!p)
			continue;
		for (uint32_t k = a->c[p - 1].first; k != UINT32_MAX; k = a->c[k].next)
			if (same_context(&a->c[k], c)) {
				match[i] = k + 1;
				break;
			}
	}
	return match;
}

/* Every frame of either side with a value on one of them. */
static struct change *changes(const struct side *a, const struct side *b, int inclusive,
			      size_t *count)
{
	const double *va = inclusive ? a->incl : a->excl, *vb = inclusive ? b->incl : b->excl;
	uint32_t *match = match_trees(a->tree, b->tree);
	uint8_t *matched = xcalloc(a->tree->n + 1, 1);
	struct change *ch = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < b->tree->n; i++) {
		if (!dbr_is_frame(b->tree->c[i].kind))
			continue;
		uint32_t k = match[i];
		if (k)
			matched[k - 1] = 1;
		if (vb[i] == 0 && (!k || va[k - 1] == 0))
			continue;
		grow_array(&ch, &cap, n + 1, sizeof *ch);
		ch[n++] = (struct change){ k ? k : 0, (int64_t)i + 1, k ? va[k - 1] : 0, vb[i] };
	}
	for (size_t k = 0; k < a->tree->n; k++) {
		if (matched[k] || !dbr_is_frame(a->tree->c[k].kind) || va[k] == 0)
			continue;
		grow_array(&ch, &cap, n + 1, sizeof *ch);
		ch[n++] = (struct change){ (int64_t)k + 1, 0, va[k], 0 };
	}
	free(matched);
	free(match);
	*count = n;
	return ch;
}

static int by_change(const void *x, const void *y)
{
	const struct change *p = x, *q = y;
	double dp = fabs(p->vb - p->va), dq = fabs(q->vb - q->va);
	if (dp != dq)
		return dp < dq ? 1 : -1;
	return p->b != q->b ? (p->b < q->b ? -1 : 1) : (p->a < q->a ? -1 : p->a > q->a);
}

/* The frame's path, from the side that has it (malloc'd). */
static char *path_of(const struct side *a, const struct side *b, const struct change *c)
{
	char *p = c->b ? dbr_path(b->db, c->b) : dbr_path(a->db, c->a);
	return p ? p : xstrdup("?");
}

static void print(const struct options *o, const struct side *a, const struct side *b,
		  const struct change *ch, size_t n)
{
	size_t shown = o->limit && (size_t)o->limit < n ? (size_t)o->limit : n;
	if (o->csv) {
		printf("context_a,context_b,a,b,delta,path\n");
	} else {
		printf("culprit diff: %s -> %s\n", a->path, b->path);
		printf("%s %s%s in %s: total %.6g -> %.6g (%+.6g)\n", a->ch.event, a->ch.metric,
		       o->inclusive ? ", inclusive" : ", exclusive", a->ch.unit ? a->ch.unit : "?",
		       a->ch.total, b->ch.total, b->ch.total - a->ch.total);
		printf("%zu frames have a value in A or B; the %zu that changed most:\n\n", n,
		       shown);
		printf("%11s %11s %11s %7s  %s\n", "A", "B", "B - A", "% of A", "frame");
	}
	for (size_t i = 0; i < shown; i++) {
		const struct change *c = &ch[i];
		char *path = path_of(a, b, c);
		if (o->csv) {
			printf("%lld,%lld,%.9g,%.9g,%.9g,", (long long)c->a, (long long)c->b, c->va,
			       c->vb, c->vb - c->va);
			put_csv(path);
			putchar('\n');
		} else {
			char share[16] = "";
			if (a->ch.base > 0)
				snprintf(share, sizeof share, "%+6.1f", 100 * (c->vb - c->va) / a->ch.base);
			printf("%11.6g %11.6g %+11.6g %7s  ", c->va, c->vb, c->vb - c->va, share);
			put_safe(path, 0);
			printf("%s\n", !c->a ? "  (only in B)" : !c->b ? "  (only in A)" : "");
		}
		free(path);
	}
}

int cmd_diff(int argc, char **argv)
{
	struct options o;
	int status = parse_options(argc, argv, &o);
	if (status != EXIT_OK)
		return status < 0 ? EXIT_OK : status;
	struct side a = { 0 }, b = { 0 };
	status = EXIT_FAIL;
	if (open_side(&a, o.a, o.event, o.metric) == 0 &&
	    open_side(&b, o.b, a.ch.event, a.ch.metric) == 0) {
		size_t n;
		struct change *ch = changes(&a, &b, o.inclusive, &n);
		qsort(ch, n, sizeof *ch, by_change);
		print(&o, &a, &b, ch, n);
		free(ch);
		status = EXIT_OK;
	}
	close_side(&a);
	close_side(&b);
	return status;
}
