/* diff.c - `culprit diff A B`: two databases, frame by frame.
 *
 * Frames are matched by their calling path with recursion folded, or by
 * procedure (diff_keys.h), not by their ids (each prof numbers its own).
 * What only one side has is compared with 0.  Each change is weighed
 * against the sampling noise of the two runs: a frame's value is a sum
 * of samples, so two runs of the same program differ by about
 * sqrt(samples) of them even when nothing changed. */
#define _GNU_SOURCE
#include "commands.h"
#include "dbread.h"
#include "diff_keys.h"
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
	"Compares two databases (made by `culprit prof`) frame by frame, matched\n"
	"by their calling path from the program root (a recursion folded into its\n"
	"outermost frame), and lists the frames whose value changed most, B minus\n"
	"A, each against the sampling noise.  DB:LABEL is one experiment of a\n"
	"database of several runs (culprit scale's s.db:t1, s.db:t8).\n"
	"\n"
	"  --event=E          the event compared (default: A's first, e.g. cputime)\n"
	"  --metric=M         the metric compared (default: work; also idleness,\n"
	"                     overhead, useful_work, effort, samples, ...)\n"
	"  --inclusive        compare inclusive values (default: a frame's own, exclusive)\n"
	"  --by=K             path (default): frames by calling path; procedure: by\n"
	"                     procedure, wherever it was called\n"
	"  --limit=N          list N frames (default 20; 0: all that changed)\n"
	"  --format=F         text (default), csv or json (doc/json.md)\n"
	"  -h, --help         show this help\n";

struct options {
	const char *event, *metric, *a, *b;
	int inclusive, by_procedure;
	enum report_format format;
	long limit;
	int help;		/* -h: print the usage, do nothing else */
};

/* A change beyond this many standard deviations of the sampling noise is
 * a change; below, the runs' noise may explain it. */
#define NOISE_SIGMAS 3.0

/* One side: its database (or one of its experiments), tree and values. */
struct side {
	const char *path;	/* as the user gave it */
	char *file;		/* the database */
	char *label;		/* the experiment, or NULL for the whole database */
	struct dbr *db;
	const struct dbr_tree *tree;
	struct dbr_choice ch;
	double *incl, *excl;
	double *samples_incl, *samples_excl;	/* the samples behind them */
	struct diff_keys keys;
};

/* A frame (a key) of either side, and its values in both. */
struct change {
	int64_t a, b;		/* a context of the key on each side, 0 where it lacks it */
	uint32_t ka, kb;	/* the keys, DIFF_NONE where the side lacks it */
	double va, vb;
	double noise;		/* the standard deviation of B - A from sampling; 0: none */
};

/* Reads the command line into O: EXIT_OK (O->help: show the usage), or
 * EXIT_USAGE after a message. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "metric", required_argument, NULL, 'm' },
		{ "inclusive", no_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "format", required_argument, NULL, 'f' },
		{ "by", required_argument, NULL, 'b' },
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
			if (strcmp(optarg, "csv") == 0)
				o->format = FORMAT_CSV;
			else if (strcmp(optarg, "json") == 0)
				o->format = FORMAT_JSON;
			else if (strcmp(optarg, "text") != 0)
				return msg_usage("diff", "--format is text, csv or json, not '%s'", optarg);
			break;
		case 'b':
			if (strcmp(optarg, "path") != 0 && strcmp(optarg, "procedure") != 0)
				return msg_usage("diff", "--by is path or procedure, not '%s'", optarg);
			o->by_procedure = strcmp(optarg, "procedure") == 0;
			break;
		case 'h': o->help = 1; return EXIT_OK;
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

/* Reads experiment S->label's values of the chosen metric and its
 * samples, and its totals in place of the database's.  Returns 0, or -1
 * after a message. */
static int read_experiment(struct side *s)
{
	struct dbr_experiment *x;
	size_t nx, i;
	if (dbr_experiments(s->db, &x, &nx) < 0)
		return msg_error("%s", dbr_error(s->db));
	for (i = 0; i < nx && strcmp(x[i].label, s->label) != 0; i++)
		;
	if (i == nx) {
		msg_error("%s has no experiment '%s'; it has %s%s", s->file, s->label,
			  nx ? x[0].label : "none",
			  nx > 1 ? " and others (SELECT label FROM experiments)" : "");
		dbr_experiments_free(x, nx);
		return -1;
	}
	const char *metrics[3] = { s->ch.metric, MET_EFFORT, MET_SAMPLES };
	size_t nc = s->tree->n;
	double *in = xcalloc(3 * nc + 1, sizeof *in), *ex = xcalloc(3 * nc + 1, sizeof *ex);
	int rc = dbr_experiment_values(s->db, x[i].id, nx, s->ch.event, metrics, 3, in, ex);
	if (rc == 0) {
		memcpy(s->incl, in, nc * sizeof *in);
		memcpy(s->excl, ex, nc * sizeof *ex);
		memcpy(s->samples_incl, in + 2 * nc, nc * sizeof *in);
		memcpy(s->samples_excl, ex + 2 * nc, nc * sizeof *ex);
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

/* Opens side S and reads its tree, the chosen metric and its samples,
 * and makes its keys.  Returns 0, or -1 after a message. */
static int open_side(struct side *s, const char *path, const char *event, const char *metric,
		     int by_procedure)
{
	char err[512];
	split_path(s, path);
	s->db = dbr_open(s->file, err, sizeof err);
	if (!s->db)
		return msg_error("%s", err);
	if (dbr_choose(s->db, event, metric, &s->ch) < 0 || !(s->tree = dbr_tree(s->db)))
		return msg_error("%s", dbr_error(s->db));
	size_t nc = s->tree->n + 1;
	s->incl = xcalloc(nc, sizeof *s->incl);
	s->excl = xcalloc(nc, sizeof *s->excl);
	s->samples_incl = xcalloc(nc, sizeof *s->samples_incl);
	s->samples_excl = xcalloc(nc, sizeof *s->samples_excl);
	if (s->label) {
		if (read_experiment(s) < 0)
			return -1;
	} else if (dbr_tree_values(s->db, s->ch.event, s->ch.metric, s->incl, s->excl) < 0 ||
		   dbr_tree_values(s->db, s->ch.event, MET_SAMPLES, s->samples_incl,
				   s->samples_excl) < 0) {
		return msg_error("%s", dbr_error(s->db));
	}
	diff_keys_build(&s->keys, s->tree, by_procedure, s->incl, s->excl, s->samples_incl,
			s->samples_excl);
	return 0;
}

static void close_side(struct side *s)
{
	diff_keys_free(&s->keys);
	free(s->file);
	free(s->label);
	free(s->incl);
	free(s->excl);
	free(s->samples_incl);
	free(s->samples_excl);
	dbr_choice_free(&s->ch);
	dbr_close(s->db);
}

/* The standard deviation of the sampling noise of B - A for key values
 * VA and VB that came from NA and NB samples: each side a sum of about
 * that many samples of its mean value, so a count's noise, sqrt(n),
 * times the mean.  A side without samples takes the other's mean. */
static double sampling_noise(double va, double na, double vb, double nb)
{
	double ma = na > 0 ? va / na : 0, mb = nb > 0 ? vb / nb : 0;
	if (na <= 0)
		ma = mb;
	if (nb <= 0)
		mb = ma;
	return sqrt(na * ma * ma + nb * mb * mb);
}

/* The change of key K of A (DIFF_NONE: none) and key J of B (or none). */
static struct change change_of(const struct side *a, uint32_t k, const struct side *b, uint32_t j,
			       int inclusive)
{
	const struct diff_key *x = k == DIFF_NONE ? NULL : &a->keys.key[k];
	const struct diff_key *y = j == DIFF_NONE ? NULL : &b->keys.key[j];
	double va = !x ? 0 : inclusive ? x->incl : x->excl;
	double vb = !y ? 0 : inclusive ? y->incl : y->excl;
	double na = !x ? 0 : inclusive ? x->samples_incl : x->samples_excl;
	double nb = !y ? 0 : inclusive ? y->samples_incl : y->samples_excl;
	return (struct change){ x ? (int64_t)x->context + 1 : 0, y ? (int64_t)y->context + 1 : 0,
				k, j, va, vb, sampling_noise(va, na, vb, nb) };
}

/* Every key of either side with a value on one of them. */
static struct change *changes(const struct side *a, const struct side *b, int inclusive,
			      size_t *count)
{
	uint32_t *match = diff_keys_match(&a->keys, &b->keys);
	uint8_t *matched = xcalloc(a->keys.n + 1, 1);
	struct change *ch = NULL;
	size_t n = 0, cap = 0;
	for (uint32_t j = 0; j < b->keys.n; j++) {
		uint32_t k = match[j] ? match[j] - 1 : DIFF_NONE;
		if (k != DIFF_NONE)
			matched[k] = 1;
		struct change c = change_of(a, k, b, j, inclusive);
		if (c.va == 0 && c.vb == 0)
			continue;
		grow_array(&ch, &cap, n + 1, sizeof *ch);
		ch[n++] = c;
	}
	for (uint32_t k = 0; k < a->keys.n; k++) {
		if (matched[k])
			continue;
		struct change c = change_of(a, k, b, DIFF_NONE, inclusive);
		if (c.va == 0)
			continue;
		grow_array(&ch, &cap, n + 1, sizeof *ch);
		ch[n++] = c;
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

static int beyond_noise(const struct change *c)
{
	return fabs(c->vb - c->va) > NOISE_SIGMAS * c->noise;
}

/* The change's path, from the side that has it (malloc'd); with LINES,
 * each frame's call line too. */
static char *path_of(const struct side *a, const struct side *b, const struct change *c,
		     int by_procedure, int lines)
{
	return c->kb != DIFF_NONE ? diff_key_path(&b->keys, c->kb, by_procedure, lines)
				  : diff_key_path(&a->keys, c->ka, by_procedure, lines);
}

static int by_path(const void *x, const void *y, void *arg)
{
	char **path = arg;
	return strcmp(path[*(const size_t *)x], path[*(const size_t *)y]);
}

/* The paths of the first N changes: alike but for their call lines (a
 * warm-up and a timed run of the same code) they are told apart by them. */
static char **paths_of(const struct side *a, const struct side *b, const struct change *ch,
		       size_t n, int by_procedure)
{
	char **path = xcalloc(n + 1, sizeof *path);
	size_t *order = xmalloc((n + 1) * sizeof *order);
	for (size_t i = 0; i < n; i++) {
		path[i] = path_of(a, b, &ch[i], by_procedure, 0);
		order[i] = i;
	}
	/* Sorted by path, the alike are neighbours. */
	qsort_r(order, n, sizeof *order, by_path, path);
	uint8_t *alike = xcalloc(n + 1, 1);
	for (size_t k = 1; k < n; k++)
		if (strcmp(path[order[k - 1]], path[order[k]]) == 0)
			alike[order[k - 1]] = alike[order[k]] = 1;
	for (size_t i = 0; i < n; i++)
		if (alike[i]) {
			free(path[i]);
			path[i] = path_of(a, b, &ch[i], by_procedure, 1);
		}
	free(alike);
	free(order);
	return path;
}

static void print(const struct options *o, const struct side *a, const struct side *b,
		  const struct change *ch, size_t n)
{
	size_t shown = o->limit && (size_t)o->limit < n ? (size_t)o->limit : n, beyond = 0;
	for (size_t i = 0; i < n; i++)
		beyond += beyond_noise(&ch[i]);
	const char *what = o->by_procedure ? "procedures" : "frames";
	static const struct column columns[] = {
		{ "context_a", CELL_INT, NULL }, { "context_b", CELL_INT, NULL },
		{ "a", CELL_REAL, NULL }, { "b", CELL_REAL, NULL }, { "delta", CELL_REAL, NULL },
		{ "noise", CELL_REAL, NULL }, { "path", CELL_TEXT, NULL },
	};
	struct rows w;
	if (o->format == FORMAT_JSON) {
		putchar('{');
		json_pair(1, "view", "diff");
		json_pair(0, "a", a->path);
		json_pair(0, "b", b->path);
		json_pair(0, "event", a->ch.event);
		json_pair(0, "metric", a->ch.metric);
		json_pair(0, "unit", a->ch.unit);
		json_pair(0, "values", o->inclusive ? "inclusive" : "exclusive");
		json_pair(0, "by", o->by_procedure ? "procedure" : "path");
		json_number("total_a", a->ch.total);
		json_number("total_b", b->ch.total);
		json_number("compared", (double)n);
		json_number("beyond_noise", (double)beyond);
		json_number("noise_sigmas", NOISE_SIGMAS);
	}
	if (o->format != FORMAT_TEXT) {
		rows_begin(&w, o->format, columns, NCOLUMNS(columns));
	} else {
		printf("culprit diff: %s -> %s\n", a->path, b->path);
		printf("%s %s%s in %s: total %.6g -> %.6g (%+.6g)\n", a->ch.event, a->ch.metric,
		       o->inclusive ? ", inclusive" : ", exclusive", a->ch.unit ? a->ch.unit : "?",
		       a->ch.total, b->ch.total, b->ch.total - a->ch.total);
		printf("%zu %s have a value in A or B, %zu of them changed beyond the sampling "
		       "noise\n(%g sigma); the %zu that changed most:\n\n", n, what, beyond,
		       NOISE_SIGMAS, shown);
		printf("%11s %11s %11s %7s %6s  %s\n", "A", "B", "B - A", "% of A", "sigma",
		       o->by_procedure ? "procedure" : "frame");
	}
	char **path = paths_of(a, b, ch, shown, o->by_procedure);
	for (size_t i = 0; i < shown; i++) {
		const struct change *c = &ch[i];
		if (o->format != FORMAT_TEXT) {
			cell_int(&w, c->a);
			cell_int(&w, c->b);
			cell_real(&w, c->va);
			cell_real(&w, c->vb);
			cell_real(&w, c->vb - c->va);
			cell_real(&w, c->noise);
			cell_text(&w, path[i]);
			rows_end_row(&w);
		} else {
			char share[16] = "", sigma[16] = "-";
			if (a->ch.base > 0)
				snprintf(share, sizeof share, "%+6.1f", 100 * (c->vb - c->va) / a->ch.base);
			if (c->noise > 0)
				snprintf(sigma, sizeof sigma, "%6.1f", fabs(c->vb - c->va) / c->noise);
			printf("%11.6g %11.6g %+11.6g %7s %6s  ", c->va, c->vb, c->vb - c->va, share,
			       sigma);
			put_safe(path[i], 0);
			printf("%s\n", !c->a ? "  (only in B)" : !c->b ? "  (only in A)" : "");
		}
		free(path[i]);
	}
	free(path);
	if (o->format != FORMAT_TEXT)
		rows_end(&w);
	if (o->format == FORMAT_JSON)
		fputs("}\n", stdout);
}

int cmd_diff(int argc, char **argv)
{
	struct options o;
	int status = parse_options(argc, argv, &o);
	if (status != EXIT_OK)
		return status;
	if (o.help) {
		fputs(diff_usage, stdout);
		return EXIT_OK;
	}
	struct side a = { 0 }, b = { 0 };
	status = EXIT_FAIL;
	if (open_side(&a, o.a, o.event, o.metric, o.by_procedure) == 0 &&
	    open_side(&b, o.b, a.ch.event, a.ch.metric, o.by_procedure) == 0) {
		size_t n;
		struct change *ch = changes(&a, &b, o.inclusive, &n);
		if (n)
			qsort(ch, n, sizeof *ch, by_change);
		print(&o, &a, &b, ch, n);
		free(ch);
		status = EXIT_OK;
	}
	close_side(&a);
	close_side(&b);
	return status;
}
