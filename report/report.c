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
	"                      [--format=text|csv] DB\n"
	"       culprit report --diagnose [--event=E] [--format=text|csv] DB\n"
	"       culprit report --summary [--event=E] [--format=text|csv] DB\n"
	"       culprit report --waits [--event=E] [--format=text|csv] DB\n"
	"       culprit report --parallelism [--event=E] [--format=text|csv] DB\n"
	"       culprit report --timeline [--event=E] [--from=S] [--to=S] [--width=N]\n"
	"                      [--format=text|csv] DB\n"
	"       culprit report --scaling [--predict=P,...] [--event=E] [--format=text|csv] DB\n"
	"       culprit report --tasks [--format=text|csv] DB\n"
	"       culprit report --by-rank [--event=E] [--format=text|csv] DB\n"
	"\n"
	"Prints the profile in database DB (made by `culprit prof`).\n"
	"\n"
	"  --view=VIEW        top-down (default): the calling-context tree, hottest first;\n"
	"                     callers: each procedure and who called it, with shares;\n"
	"                     flat: procedures with exclusive and inclusive totals\n"
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
	"  --width=N          timeline: columns of time (default 76; csv 100)\n"
	"  --event=E          the event to show (default: the first, e.g. cputime)\n"
	"  --metric=M         the metric to show (default: work)\n"
	"  --threshold=T      hide what is below T: a percentage of the metric's total\n"
	"                     (1% by default) or a value in the metric's unit\n"
	"  --depth=N          top-down: levels of frames to show; callers: levels of\n"
	"                     callers (default: top-down all, callers 1)\n"
	"  --folded           top-down: name the native frames folded into each context\n"
	"                     (compiler-outlined OpenMP bodies, the C library's start-up)\n"
	"  --format=F         text (default, fits 100 columns) or csv (every column)\n"
	"  -h, --help         show this help\n"
	"\n"
	"Percentages are of the event's total effort (work + idleness); for the\n"
	"samples metric, of all samples.\n";

enum view {
	VIEW_TOPDOWN, VIEW_CALLERS, VIEW_FLAT, VIEW_DIAGNOSE, VIEW_SUMMARY, VIEW_WAITS,
	VIEW_BY_PARALLELISM, VIEW_TIMELINE, VIEW_SCALING, VIEW_TASKS, VIEW_RANKS
};

struct options {
	enum view view;
	const char *event, *metric;
	double threshold;
	int threshold_percent;	/* THRESHOLD is a percentage of the total */
	int depth;
	int csv;
	int folded;
	double from, to;
	int width;
	double predict[16];
	int npredict;
	const char *path;
	int help;		/* -h: print the usage, do nothing else */
};

static int parse_view(const char *arg, enum view *out)
{
	if (strcmp(arg, "top-down") == 0 || strcmp(arg, "topdown") == 0)
		*out = VIEW_TOPDOWN;
	else if (strcmp(arg, "callers") == 0 || strcmp(arg, "bottom-up") == 0)
		*out = VIEW_CALLERS;
	else if (strcmp(arg, "flat") == 0)
		*out = VIEW_FLAT;
	else
		return msg_usage("report", "unknown view '%s'; use top-down, callers or flat", arg);
	return 0;
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
	o->view = VIEW_SCALING;
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
	*o = (struct options){ .view = VIEW_TOPDOWN, .threshold = 1, .threshold_percent = 1,
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
		case 'f':
			o->csv = strcmp(optarg, "csv") == 0;
			if (!o->csv && strcmp(optarg, "text") != 0)
				rc = msg_usage("report", "unknown format '%s'; use text or csv", optarg);
			break;
		case 'F': o->folded = 1; break;
		case 'D': o->view = VIEW_DIAGNOSE; break;
		case 'S': o->view = VIEW_SUMMARY; break;
		case 'W': o->view = VIEW_WAITS; break;
		case 'P': o->view = VIEW_BY_PARALLELISM; break;
		case 'T': o->view = VIEW_TIMELINE; break;
		case 's': o->view = VIEW_SCALING; break;
		case 'k': o->view = VIEW_TASKS; break;
		case 'R': o->view = VIEW_RANKS; break;
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
	r->csv = o->csv;
	r->folded = o->folded;
	r->from = o->from;
	r->to = o->to;
	r->width = o->width;
	memcpy(r->predict, o->predict, sizeof r->predict);
	r->npredict = o->npredict;
	/* The diagnoses and the summary are about effort. */
	int effort = o->view == VIEW_DIAGNOSE || o->view == VIEW_SUMMARY || o->view == VIEW_WAITS ||
		     o->view == VIEW_SCALING || o->view == VIEW_RANKS;
	if (dbr_choose(r->db, o->event, effort ? MET_EFFORT : o->metric, &r->ch) < 0)
		return msg_error("%s", dbr_error(r->db));
	r->threshold = o->threshold_percent ? o->threshold / 100 * r->ch.total : o->threshold;
	if (o->view == VIEW_SUMMARY || o->view == VIEW_WAITS || o->view == VIEW_BY_PARALLELISM ||
	    o->view == VIEW_TIMELINE || o->view == VIEW_TASKS || o->view == VIEW_RANKS)
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

int cmd_report(int argc, char **argv)
{
	static int (*const views[])(const struct report *) = {
		[VIEW_TOPDOWN] = report_topdown, [VIEW_CALLERS] = report_callers,
		[VIEW_FLAT] = report_flat, [VIEW_DIAGNOSE] = report_diagnoses,
		[VIEW_SUMMARY] = report_summary, [VIEW_WAITS] = report_waits,
		[VIEW_BY_PARALLELISM] = report_parallelism, [VIEW_TIMELINE] = report_timeline,
		[VIEW_SCALING] = report_scaling, [VIEW_TASKS] = report_tasks,
		[VIEW_RANKS] = report_ranks,
	};
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
	if (load(&r, &o) == 0 && views[o.view](&r) == 0)
		status = EXIT_OK;
	fflush(stdout);
	free(r.incl);
	free(r.excl);
	dbr_choice_free(&r.ch);
	dbr_close(r.db);
	return status;
}
