/* export.c - `culprit export`: its options, the output file, and the
 * format they choose (export.h lists the formats). */
#define _GNU_SOURCE
#include "commands.h"
#include "export.h"
#include "tools.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char export_usage[] =
	"usage: culprit export --format=F [--event=E] [--metric=M] [-o FILE] [--force] DB\n"
	"\n"
	"Writes the profile in database DB (made by `culprit prof`) in a format\n"
	"other tools open.\n"
	"\n"
	"  --format=F         folded: a line per leaf path, \"frame;frame value\", one\n"
	"                     metric, in integer microseconds (time) or samples:\n"
	"                     flamegraph.pl, inferno-flamegraph, speedscope\n"
	"                     speedscope: speedscope's JSON, a profile per metric\n"
	"                     pprof: pprof's profile.proto, gzipped, a sample type per\n"
	"                     metric: go tool pprof -http=: FILE\n"
	"                     perfetto: the trace (the samples over time) as Chrome\n"
	"                     trace-event JSON, for ui.perfetto.dev and chrome://tracing\n"
	"  --event=E          the event exported (default: the first, e.g. cputime)\n"
	"  --metric=M         folded: the metric (default work); speedscope: only it\n"
	"  -o, --output=FILE  where to write (default, and -: standard output)\n"
	"      --force        replace FILE if it exists\n"
	"  -h, --help         show this help\n";

struct options {
	const char *format, *event, *metric, *output, *path;
	int force;
	int help;		/* -h: print the usage, do nothing else */
};

/* The formats: their names, what writes them, whether they are binary
 * (not for a terminal), and whether they hold one metric (work unless
 * told) rather than all of them unless one is asked for. */
static const struct format {
	const char *name;
	int (*write)(const struct export *);
	int binary;
	int one_metric;
} formats[] = {
	{ "folded", export_folded, 0, 1 },
	{ "speedscope", export_speedscope, 0, 0 },
	{ "pprof", export_pprof, 1, 0 },
	{ "perfetto", export_perfetto, 0, 0 },
};

static const struct format *find_format(const char *name)
{
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

/* Reads the command line into O: EXIT_OK (O->help: show the usage), or
 * EXIT_USAGE (EXIT_FAIL for an unknown format) after a message. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "event", required_argument, NULL, 'e' },
		{ "metric", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	*o = (struct options){ 0 };
	argv[0] = "culprit export";
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': o->format = optarg; break;
		case 'e': o->event = optarg; break;
		case 'm': o->metric = optarg; break;
		case 'o': o->output = optarg; break;
		case 'F': o->force = 1; break;
		case 'h': o->help = 1; return EXIT_OK;
		default: fputs(export_usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return msg_usage("export", "give one database (see culprit export --help)");
	if (!o->format)
		return msg_usage("export", "say which format: --format=folded, speedscope, pprof "
				 "or perfetto");
	if (!find_format(o->format)) {
		msg_error("unknown export format '%s'; use folded, speedscope, pprof or perfetto",
			  o->format);
		return EXIT_FAIL;
	}
	if (!o->output || !*o->output)
		o->output = "-";
	o->path = argv[optind];
	return EXIT_OK;
}

/* Opens OUTPUT beside its name (OUTPUT.tmp-PID, made new, never through a
 * symlink), to be renamed over it once whole; "-": standard output.  An
 * OUTPUT that exists is refused unless FORCE. */
static FILE *open_output(const char *output, int force, char **tmp)
{
	*tmp = NULL;
	if (strcmp(output, "-") == 0)
		return stdout;
	struct stat st;
	if (!force && lstat(output, &st) == 0) {
		msg_error("%s already exists; use --force to replace it, or -o another file",
			  output);
		return NULL;
	}
	*tmp = xasprintf("%s.tmp-%d", output, (int)getpid());
	int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		msg_error("cannot write %s: %s", *tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

/* Closes F and puts it in place of OUTPUT, unless RC (the writer's) is
 * -1; 0, or -1 after a message with nothing left behind. */
static int close_output(FILE *f, const char *output, char *tmp, int rc)
{
	if (!tmp) {
		if (fflush(f) != 0 && rc == 0)
			rc = msg_error("cannot write the export: %s", strerror(errno));
		return rc;
	}
	int failed = ferror(f) | (fclose(f) != 0);
	if (rc == 0 && failed)
		rc = msg_error("cannot write %s: %s", output, strerror(errno));
	if (rc == 0 && rename(tmp, output) != 0)
		rc = msg_error("cannot write %s: %s", output, strerror(errno));
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct options o;
	int rc = parse_options(argc, argv, &o);
	if (rc != EXIT_OK)
		return rc;
	if (o.help) {
		fputs(export_usage, stdout);
		return EXIT_OK;
	}
	char err[600];
	struct export x = { 0 };
	x.db = dbr_open(o.path, err, sizeof err);
	if (!x.db) {
		msg_error("%s", err);
		return EXIT_FAIL;
	}
	const struct format *fmt = find_format(o.format);
	struct dbr_choice ch = { 0 };
	const char *metric = o.metric ? o.metric : MET_WORK;
	if (dbr_choose(x.db, o.event, metric, &ch) < 0) {
		msg_error("%s", dbr_error(x.db));
		dbr_choice_free(&ch);
		dbr_close(x.db);
		return EXIT_FAIL;
	}
	x.event = ch.event;
	x.unit = ch.unit;
	x.metric = fmt->one_metric || o.metric ? ch.metric : NULL;
	char *tmp;
	if (fmt->binary && strcmp(o.output, "-") == 0 && isatty(STDOUT_FILENO)) {
		rc = msg_error("the %s format is binary: write it to a file with -o FILE", fmt->name);
	} else {
		x.out = open_output(o.output, o.force, &tmp);
		if (!x.out)
			rc = -1;
		else
			rc = close_output(x.out, o.output, tmp, fmt->write(&x));
	}
	dbr_choice_free(&ch);
	dbr_close(x.db);
	return rc < 0 ? EXIT_FAIL : EXIT_OK;
}
