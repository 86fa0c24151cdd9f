/* culprit.c - the `culprit` command: dispatches to its subcommands.
 *
 *   culprit run     collect measurements (run.c, with the collector)
 *   culprit scale   one run per thread count (scale.c)
 *   culprit prof    measurements to a database (postmortem/prof.c)
 *   culprit report  a database as text or CSV (report/report.c)
 *   culprit view    browse a database in the terminal (viewer-tui/)
 *   culprit export  a database in other tools' formats (export/)
 *   culprit diff    two databases, context by context (report/diff.c)
 *   culprit dump    print a measurement file (dump.c)
 *
 * Exit status 0 on success, 1 on failure, 2 on a usage error; `culprit
 * run` exits with the profiled program's status.
 */
#include "config.h"
#include "driver.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: culprit COMMAND [ARGS...]\n"
	"\n"
	"A sampling call-path profiler that explains why parallel programs do not scale.\n"
	"\n"
	"Commands:\n"
	"  run     run a program and record measurements    culprit run ./app args\n"
	"  scale   one run per thread count                  culprit scale -t 1,2,4 ./app\n"
	"  prof    measurements to an SQLite database        culprit prof DIR\n"
	"  report  print a database's profile                culprit report app.db\n"
	"  view    browse a database in the terminal         culprit view app.db\n"
	"  export  other tools' formats: folded stacks,      culprit export --format=folded app.db\n"
	"          speedscope, pprof, the trace for Perfetto\n"
	"  diff    compare two databases, frame by frame     culprit diff before.db after.db\n"
	"  dump    print one measurement file                culprit dump DIR/FILE\n"
	"\n"
	"`culprit COMMAND --help` describes each command; see also culprit(1).\n";

static const struct command {
	const char *name;
	int (*run)(int, char **);
} commands[] = {
	{ "run", cmd_run },
	{ "scale", cmd_scale },
	{ "dump", cmd_dump },
	{ "prof", cmd_prof },
	{ "report", cmd_report },
	{ "view", cmd_view },
	{ "export", cmd_export },
	{ "diff", cmd_diff },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("culprit %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	msg_error("'%s' is not a culprit command", argv[1]);
	fprintf(stderr, "\n%s", usage);
	return EXIT_USAGE;
}
