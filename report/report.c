/* report.c - `culprit report`: its options, and the view they choose
 * (report.h lists the views). */
#define _GNU_SOURCE
#include "commands.h"
#include "report.h"
#include "tools.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
	"usage: culprit report [--view=top-down|callers|flat] [--event=E] [--metric=M]\n"
	"                      [--threshold=P%|VALUE] [--depth=N] [--folded]\n"
	"                      [--format=F] DB\n"
	"       culprit report --diagnose [--event=E] [--format=F] DB\n"
	"       culprit report --summary [--event=E] [--format=F] DB\n"
	"       culprit report --waits [--event=E] [--format=F] DB\n"
	"       culprit report --parallelism [--event=E] [--format=F] DB\n"
	"       culprit report --timeline [--event=E] [--from=S] [--to=S] [--width=N]\n"
	"                      [--format=F] DB\n"
	"       culprit report --scaling [--predict=P,...] [--event=E] [--format=F] DB\n"
	"       culprit report --tasks [--format=F] DB\n"
	"       culprit report --by-rank [--event=E] [--format=F] DB\n"
	"\n"
	"Prints the profile in database DB (made by `culprit prof`).\n"
	"\n"
	"  --view=VIEW        top-down (default): the calling-context tree, hottest first;\n"
	"                     callers: each procedure and who called it, with shares;\n"
	"                     flat: procedures with exclusive and inclusive totals;\n"
	"                     or any view below by its name (--view=summary)\n"
	"  --diagnose         the contexts most worth a look: too little parallelism,\n"
	"                     too fine a grain, or both, with the numbers behind each\n"
	"  --summary          where the effort went: useful work, overhead by type and\n"
	"                     idleness by cause, for the run and for each thread\n"
	"  --waits            where working threads blocked (locks, condition variables,\n"
	"                     barriers, joins, sleeps), longest first, and the code that\n"
	"                     ran meanwhile, which idleness blames\n"
	"  --parallelism      for how long N threads worked at once, the work and the\n"
	"                     idleness at each N, and the procedures that took the most\n"
	"                     wall-clock time (each sample weighs 1/N: their latency)\n"
	"  --timeline         a row per thread, time across: what each thread mostly did\n"
	"                     in each stretch (work, overhead, idle by cause)\n"
	"  --scaling          a database of several runs (culprit scale): each run's\n"
	"                     speedup and efficiency, and the contexts whose effort grows\n"
	"                     most with threads, the loss split into idleness by cause,\n"
	"                     overhead by type and work inflation\n"
	"  --predict=P,...    scaling: fit T(p) = s + w/p + c(p-1) to the runs and\n"
	"                     predict T at these thread counts, with the fit's error\n"
	"  --tasks            OpenMP tasks by the line that creates them, run by run:\n"
	"                     how many, their sizes and the waits before them, with\n"
	"                     log2 histograms of both\n"
	"  --by-rank          an MPI run's ranks: each one's work and time waiting in\n"
	"                     MPI for the others, and the frames whose work differs\n"
	"                     most between ranks, with the slowest rank\n"
	"  --from=S, --to=S   timeline: the range, in seconds since the run started\n"
	"  --width=N          timeline: columns of time (default 76; csv and json 100)\n"
	"  --event=E          the event to show (default: the first, e.g. cputime)\n"
	"  --metric=M         the metric to show (default: work)\n"
	"  --threshold=T      hide what is below T: a percentage of the metric's total\n"
	"                     (1% by default) or a value in the metric's unit\n"
	"  --depth=N          top-down: levels of frames to show; callers: levels of\n"
	"                     callers (default: top-down all, callers 1)\n"
	"  --folded           top-down: name the native frames folded into each context\n"
	"                     (compiler-outlined OpenMP bodies, the C library's start-up)\n"
	"  --format=F         text (default, fits 100 columns), csv (every column) or\n"
	"                     json (the csv's rows as objects: doc/json.md)\n"
	"  -h, --help         show this help\n"
	"\n"
	"Percentages are of the event's total effort (work + idleness); for the\n"
	"samples metric, of all samples.\n";

/* What a view needs read before it runs. */
enum view_needs {
	NEEDS_EFFORT = 1,	/* effort rather than the metric asked for */
	NEEDS_TREE = 2,		/* the tree, and the metric by context */
};

/* The views: their names (--view=NAME, and the JSON's "view"), the flag
 * that also chooses them, what they need, and what prints them. */
static const struct report_view {
	const char *name;
	const char *flag;
	unsigned needs;
	int (*run)(const struct report *r);
} views[] = {
	{ "top-down", NULL, NEEDS_TREE, report_topdown },
	{ "callers", NULL, NEEDS_TREE, report_callers },
	{ "flat", NULL, NEEDS_TREE, report_flat },
	{ "diagnose", "diagnose", NEEDS_EFFORT | NEEDS_TREE, report_diagnoses },
	{ "summary", "summary", NEEDS_EFFORT, report_summary },
	{ "waits", "waits", NEEDS_EFFORT, report_waits },
	{ "parallelism", "parallelism", 0, report_parallelism },
	{ "timeline", "timeline", 0, report_timeline },
	{ "scaling", "scaling", NEEDS_EFFORT | NEEDS_TREE, report_scaling },
	{ "tasks", "tasks", 0, report_tasks },
	{ "by-rank", "by-rank", NEEDS_EFFORT, report_ranks },
};
#define NVIEWS (sizeof views / sizeof *views)

struct options {
	const struct report_view *view;
	const char *event, *metric;
	double threshold;
	int threshold_percent;	/* THRESHOLD is a percentage of the total */
	int depth;
	enum report_format format;
	int folded;
	double from, to;
	int width;
	double predict[16];
	int npredict;
	const char *path;
	int help;		/* -h: print the usage, do nothing else */
};

static const struct report_view *view_named(const char *name)
{
	/* The older names of two views. */
	if (strcmp(name, "topdown") == 0)
		name = "top-down";
	else if (strcmp(name, "bottom-up") == 0)
		name = "callers";
	for (size_t i = 0; i < NVIEWS; i++)
		if (strcmp(views[i].name, name) == 0)
			return &views[i];
	return NULL;
}

static int parse_view(const char *arg, const struct report_view **out)
{
	*out = view_named(arg);
	if (!*out)
		return msg_usage("report", "unknown view '%s'; use top-down, callers, flat, diagnose, "
				 "summary, waits, parallelism, timeline, scaling, tasks or by-rank",
				 arg);
	return 0;
}

static int parse_format(const char *arg, enum report_format *out)
{
	static const char *const names[] = { [FORMAT_TEXT] = "text", [FORMAT_CSV] = "csv",
					      [FORMAT_JSON] = "json" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(arg, names[i]) == 0) {
			*out = (enum report_format)i;
			return 0;
		}
	return msg_usage("report", "unknown format '%s'; use text, csv or json", arg);
}

/* ARG as seconds (>= 0) into *OUT, for OPTION. */
static int parse_seconds(const char *option, const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v >= 0) || !isfinite(v))
		return msg_usage("report", "%s takes seconds since the run started (1.5)", option);
	*out = v;
	return 0;
}

/* "16,32" into O->predict. */
static int parse_predict(const char *arg, struct options *o)
{
	const char *p = arg;
	o->npredict = 0;
	while (*p) {
		char *end;
		double v = strtod(p, &end);
		if (end == p || !(v >= 1) || v > 1e6 || (*end && *end != ',') ||
		    o->npredict == (int)(sizeof o->predict / sizeof *o->predict))
			return msg_usage("report", "--predict takes thread counts of 1 or more, at "
					 "most 16 of them (16,32,64), not '%s'", arg);
		o->predict[o->npredict++] = v;
		p = *end ? end + 1 : end;
	}
	if (o->npredict == 0)
		return msg_usage("report", "--predict takes thread counts of 1 or more, at most 16 "
				 "of them (16,32,64), not '%s'", arg);
	o->view = view_named("scaling");
	return 0;
}

static int parse_threshold(const char *arg, struct options *o)
{
	char *end;
	double t = strtod(arg, &end);
	int percent = *end == '%';
	if (end == arg || (*end && !percent) || (percent && end[1]) || t < 0 || !isfinite(t))
		return msg_usage("report", "--threshold takes a percentage (1%%) or a value (0.5)");
	o->threshold = t;
	o->threshold_percent = percent;
	return 0;
}

/* Reads the command line into O: EXIT_OK (O->help: show the usage), or
 * EXIT_USAGE after a message. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "view", required_argument, NULL, 'v' },
		{ "event", required_argument, NULL, 'e' },
		{ "metric", required_argument, NULL, 'm' },
		{ "threshold", required_argument, NULL, 't' },
		{ "depth", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "folded", no_argument, NULL, 'F' },
		{ "diagnose", no_argument, NULL, 'D' },
		{ "summary", no_argument, NULL, 'S' },
		{ "waits", no_argument, NULL, 'W' },
		{ "parallelism", no_argument, NULL, 'P' },
		{ "timeline", no_argument, NULL, 'T' },
		{ "from", required_argument, NULL, '<' },
		{ "to", required_argument, NULL, '>' },
		{ "width", required_argument, NULL, 'w' },
		{ "scaling", no_argument, NULL, 's' },
		{ "predict", required_argument, NULL, 'p' },
		{ "tasks", no_argument, NULL, 'k' },
		{ "by-rank", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = 0;
	char *end;
	*o = (struct options){ .view = &views[0], .threshold = 1, .threshold_percent = 1,
			       .depth = -1 };
	argv[0] = "culprit report";
	optind = 1;
	while (!rc && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'v': rc = parse_view(optarg, &o->view); break;
		case 'e': o->event = optarg; break;
		case 'm': o->metric = optarg; break;
		case 't': rc = parse_threshold(optarg, o); break;
		case 'd':
			o->depth = (int)strtol(optarg, &end, 10);
			if (*end || o->depth < 1)
				rc = msg_usage("report", "--depth needs a positive number");
			break;
		case 'f': rc = parse_format(optarg, &o->format); break;
		case 'F': o->folded = 1; break;
		case 'D': o->view = view_named("diagnose"); break;
		case 'S': o->view = view_named("summary"); break;
		case 'W': o->view = view_named("waits"); break;
		case 'P': o->view = view_named("parallelism"); break;
		case 'T': o->view = view_named("timeline"); break;
		case 's': o->view = view_named("scaling"); break;
		case 'k': o->view = view_named("tasks"); break;
		case 'R': o->view = view_named("by-rank"); break;
		case 'p': rc = parse_predict(optarg, o); break;
		case '<': rc = parse_seconds("--from", optarg, &o->from); break;
		case '>': rc = parse_seconds("--to", optarg, &o->to); break;
		case 'w':
			o->width = (int)strtol(optarg, &end, 10);
			if (*end || o->width < 1 || o->width > 10000)
				rc = msg_usage("report", "--width needs a number of columns, 1 to 10000");
			break;
		case 'h': o->help = 1; return EXIT_OK;
		default: fputs(report_usage, stderr); return EXIT_USAGE;
		}
	}
	if (!rc && optind != argc - 1)
		rc = msg_usage("report", "give one database (see culprit report --help)");
	if (!rc && o->to > 0 && o->to <= o->from)
		rc = msg_usage("report", "--to must be after --from");
	o->path = rc ? NULL : argv[optind];
	return rc;
}

/* Opens the database and reads what view O needs into R.  Returns 0, or
 * -1 after a message. */
static int load(struct report *r, const struct options *o)
{
	char err[600];
	r->db = dbr_open(o->path, err, sizeof err);
	if (!r->db)
		return msg_error("%s", err);
	r->depth = o->depth;
	r->format = o->format;
	r->machine = o->format != FORMAT_TEXT;
	r->folded = o->folded;
	r->from = o->from;
	r->to = o->to;
	r->width = o->width;
	memcpy(r->predict, o->predict, sizeof r->predict);
	r->npredict = o->npredict;
	/* The diagnoses and the summary are about effort. */
	int effort = o->view->needs & NEEDS_EFFORT;
	if (dbr_choose(r->db, o->event, effort ? MET_EFFORT : o->metric, &r->ch) < 0)
		return msg_error("%s", dbr_error(r->db));
	r->threshold = o->threshold_percent ? o->threshold / 100 * r->ch.total : o->threshold;
	if (!(o->view->needs & NEEDS_TREE))
		return 0;
	r->tree = dbr_tree(r->db);
	if (!r->tree)
		return msg_error("%s", dbr_error(r->db));
	r->incl = xcalloc(r->tree->n, sizeof *r->incl);
	r->excl = xcalloc(r->tree->n, sizeof *r->excl);
	if (dbr_tree_values(r->db, r->ch.event, r->ch.metric, r->incl, r->excl) < 0)
		return msg_error("%s", dbr_error(r->db));
	return 0;
}

/* The JSON document's head, before the view's rows: what they are of. */
static void put_json_head(const struct report *r, const struct options *o)
{
	putchar('{');
	json_pair(1, "view", o->view->name);
	json_pair(0, "database", o->path);
	json_pair(0, "event", r->ch.event);
	json_pair(0, "metric", r->ch.metric);
	json_pair(0, "unit", r->ch.unit);
	json_number("total", r->ch.total);
	json_number("base", r->ch.base);
}

int cmd_report(int argc, char **argv)
{
	struct options o;
	struct report r = { 0 };
	int status = parse_options(argc, argv, &o);
	if (status != EXIT_OK)
		return status;
	if (o.help) {
		fputs(report_usage, stdout);
		return EXIT_OK;
	}
	status = EXIT_FAIL;
	if (load(&r, &o) == 0) {
		if (r.format == FORMAT_JSON)
			put_json_head(&r, &o);
		if (o.view->run(&r) == 0)
			status = EXIT_OK;
		if (r.format == FORMAT_JSON)
			fputs("}\n", stdout);
	}
	fflush(stdout);
	free(r.incl);
	free(r.excl);
	dbr_choice_free(&r.ch);
	dbr_close(r.db);
	return status;
}
