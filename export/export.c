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
#include <unistd.h>

static const char export_usage[] =
	"usage: culprit export --format=perfetto [--event=E] -o FILE DB\n"
	"\n"
	"Writes the profile in database DB (made by `culprit prof`) in a format\n"
	"other tools open.\n"
	"\n"
	"  --format=F         perfetto: the trace (the samples over time) as Chrome\n"
	"                     trace-event JSON, for ui.perfetto.dev and chrome://tracing:\n"
	"                     per thread, slices of consecutive samples in one context,\n"
	"                     thread names, and the working threads as a counter\n"
	"  --event=E          the event exported (default: the first, e.g. cputime)\n"
	"  -o, --output=FILE  where to write (- for standard output); an existing\n"
	"                     FILE is replaced\n"
	"  -h, --help         show this help\n";

struct options {
	const char *format, *event, *output, *path;
};

/* Reads the command line into O; EXIT_OK to go on, -1 after --help, or
 * EXIT_USAGE after a message. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
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
		case 'o': o->output = optarg; break;
		case 'h': fputs(export_usage, stdout); return -1;
		default: fputs(export_usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return msg_usage("export", "give one database (see culprit export --help)");
	if (!o->format)
		return msg_usage("export", "say which format: --format=perfetto");
	if (strcmp(o->format, "perfetto") != 0)
		return msg_usage("export", "unknown format '%s'; use perfetto", o->format);
	if (!o->output || !*o->output)
		return msg_usage("export", "say where to write: -o FILE (- for standard output)");
	o->path = argv[optind];
	return EXIT_OK;
}

/* Opens OUTPUT beside its name (OUTPUT.tmp-PID, made new, never through a
 * symlink), to be renamed over it once whole; "-": standard output. */
static FILE *open_output(const char *output, char **tmp)
{
	*tmp = NULL;
	if (strcmp(output, "-") == 0)
		return stdout;
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

/* Closes F and puts it in place of OUTPUT; EXIT_OK, or EXIT_FAIL after a
 * message with nothing left behind. */
static int close_output(FILE *f, const char *output, char *tmp, int rc)
{
	if (!tmp) {
		if (fflush(f) != 0 && rc == EXIT_OK)
			rc = msg_error("cannot write the export: %s", strerror(errno));
		return rc;
	}
	int failed = ferror(f) | (fclose(f) != 0);
	if (rc == EXIT_OK && failed)
		rc = msg_error("cannot write %s: %s", output, strerror(errno));
	if (rc == EXIT_OK && rename(tmp, output) != 0)
		rc = msg_error("cannot write %s: %s", output, strerror(errno));
	if (rc != EXIT_OK)
		unlink(tmp);
	free(tmp);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct options o;
	int rc = parse_options(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	char err[600];
	struct export x = { 0 };
	x.db = dbr_open(o.path, err, sizeof err);
	if (!x.db)
		return msg_error("%s", err);
	struct dbr_choice ch = { 0 };
	if (dbr_choose(x.db, o.event, MET_WORK, &ch) < 0) {
		rc = msg_error("%s", dbr_error(x.db));
		dbr_choice_free(&ch);
		dbr_close(x.db);
		return rc;
	}
	x.event = ch.event;
	char *tmp;
	x.out = open_output(o.output, &tmp);
	if (!x.out)
		rc = EXIT_FAIL;
	else
		rc = close_output(x.out, o.output, tmp, export_perfetto(&x));
	dbr_choice_free(&ch);
	dbr_close(x.db);
	return rc;
}
