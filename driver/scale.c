/* scale.c - `culprit scale`: the same program at several thread counts.
 *
 * Each count is one `culprit run` of the program, into DIR/tN, with the
 * count in the environment (OMP_NUM_THREADS unless --env says otherwise)
 * and given to the run as its label and thread count; `culprit prof DIR`
 * then makes one database with one experiment per run.  The runs are
 * `culprit run` itself (this program, run again), so they measure exactly
 * as a run by hand would. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SCALE_MAX_COUNTS 64

static const char scale_usage[] =
	"usage: culprit scale -t N[,N...] [-o DIR] [--env NAME] [RUN OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Runs PROGRAM once per thread count N, each with culprit run, into DIR/tN\n"
	"(default ./culprit-scale-PROGRAM-PID); `culprit prof DIR` then makes one\n"
	"database with one experiment per run, and `culprit report DB --scaling`\n"
	"says where each context's time goes as the count grows.\n"
	"\n"
	"  -t, --threads=LIST  the thread counts, in the order to run them: 1,2,4,8\n"
	"  -o, --output=DIR    the directory of the runs; must not exist yet\n"
	"      --env=NAME      the variable that sets the count (default OMP_NUM_THREADS);\n"
	"                      give --env several times to set several\n"
	"  -q, --quiet         print nothing of culprit's own but errors\n"
	"  -h, --help          show this help\n"
	"\n"
	"RUN OPTIONS are culprit run's and apply to every run: -e EVENT, --openmp=MODE,\n"
	"--max-depth=N, --no-waits, --no-trace, --io-idle (see culprit run --help).\n"
	"The program's output and errors pass through; a run the program fails\n"
	"(status not 0) is kept and the next one starts.  The exit status is the\n"
	"last failing run's, or 0.\n";

struct scale_options {
	long counts[SCALE_MAX_COUNTS];
	int ncounts;
	const char *outdir;
	const char *env[8];		/* --env; none: OMP_NUM_THREADS */
	int nenv;
	char *run_args[64];		/* run options passed on, as "--name=value" */
	int nrun_args;
	int quiet;
	int help;
	char **program_argv;
};

/* Parses "1,2,4,8" into O->counts.  Returns 0, or -1 after a message. */
static int parse_counts(const char *list, struct scale_options *o)
{
	const char *p = list;
	o->ncounts = 0;
	while (*p) {
		char *end;
		errno = 0;
		long n = strtol(p, &end, 10);
		if (errno || end == p || n <= 0 || n > 100000 || (*end && *end != ','))
			return msg_usage("scale", "-t needs thread counts such as 1,2,4,8, not '%s'",
					 list), -1;
		for (int i = 0; i < o->ncounts; i++)
			if (o->counts[i] == n)
				return msg_usage("scale", "-t gives %ld twice", n), -1;
		if (o->ncounts == SCALE_MAX_COUNTS)
			return msg_usage("scale", "-t gives more than %d counts", SCALE_MAX_COUNTS), -1;
		o->counts[o->ncounts++] = n;
		p = *end ? end + 1 : end;
	}
	if (o->ncounts == 0)
		return msg_usage("scale", "-t needs thread counts such as 1,2,4,8"), -1;
	return 0;
}

static int pass_on(struct scale_options *o, const char *name, const char *value)
{
	if (o->nrun_args + 1 >= (int)(sizeof o->run_args / sizeof *o->run_args))
		return msg_usage("scale", "too many options for culprit run"), -1;
	o->run_args[o->nrun_args++] = value ? xasprintf("--%s=%s", name, value)
					    : xasprintf("--%s", name);
	return 0;
}

/* Option C (getopt's value) with OPTARG into O: EXIT_OK, or a usage
 * error after saying why.  culprit run's measurement options pass on. */
static int scale_option(struct scale_options *o, int c)
{
	const struct option *run = option_of(run_measurement_options, c);
	if (run)
		return pass_on(o, run->name, run->has_arg ? optarg : NULL) < 0 ? EXIT_USAGE : EXIT_OK;
	switch (c) {
	case 't':
		if (parse_counts(optarg, o) < 0)
			return EXIT_USAGE;
		break;
	case 'o':
		if (!optarg[0])
			return msg_usage("scale", "-o needs a directory name");
		o->outdir = optarg;
		break;
	case 'E':
		if (!optarg[0] || strchr(optarg, '=') ||
		    o->nenv == (int)(sizeof o->env / sizeof *o->env))
			return msg_usage("scale", "--env needs a variable name (at most 8 of them)");
		o->env[o->nenv++] = optarg;
		break;
	case 'q': o->quiet = 1; break;
	case 'h': o->help = 1; break;
	default:
		fputs(scale_usage, stderr);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int parse_scale_options(int argc, char **argv, struct scale_options *o)
{
	static const struct option own[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "env", required_argument, NULL, 'E' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option *opts = options_join(own, run_measurement_options);
	int c, rc = EXIT_OK;
	memset(o, 0, sizeof *o);
	argv[0] = "culprit scale";
	optind = 1;
	while (rc == EXIT_OK && !o->help &&
	       (c = getopt_long(argc, argv, "+t:o:e:qh", opts, NULL)) != -1)
		rc = scale_option(o, c);
	free(opts);
	if (rc == EXIT_OK && !o->help && optind < argc)
		o->program_argv = argv + optind;
	return rc;
}

static void scale_options_free(struct scale_options *o)
{
	for (int i = 0; i < o->nrun_args; i++)
		free(o->run_args[i]);
	o->nrun_args = 0;
}

/* Runs `culprit run` for COUNT threads into DIR.  Returns its exit status
 * (the program's), or -1 when it could not be started. */
static int run_one(const struct scale_options *o, long count, const char *dir)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return msg_error("cannot find the culprit program (/proc/self/exe): %s",
				 strerror(errno));
	self[n] = 0;
	char label[32], threads[32];
	snprintf(label, sizeof label, "--label=t%ld", count);
	snprintf(threads, sizeof threads, "--threads=%ld", count);
	size_t nprog = 0;
	while (o->program_argv[nprog])
		nprog++;
	char **argv = xcalloc((size_t)o->nrun_args + nprog + 10, sizeof *argv);
	size_t a = 0;
	argv[a++] = self;
	argv[a++] = "run";
	argv[a++] = "-q";
	argv[a++] = label;
	argv[a++] = threads;
	argv[a++] = "-o";
	argv[a++] = (char *)dir;
	for (int i = 0; i < o->nrun_args; i++)
		argv[a++] = o->run_args[i];
	argv[a++] = "--";
	for (size_t i = 0; i < nprog; i++)
		argv[a++] = o->program_argv[i];
	argv[a] = NULL;

	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		free(argv);
		return msg_error("cannot fork: %s", strerror(errno));
	}
	if (pid == 0) {
		char value[32];
		snprintf(value, sizeof value, "%ld", count);
		if (o->nenv == 0)
			setenv("OMP_NUM_THREADS", value, 1);
		for (int i = 0; i < o->nenv; i++)
			setenv(o->env[i], value, 1);
		execv(self, argv);
		msg_error("cannot run %s: %s", self, strerror(errno));
		_exit(EXIT_FAIL);
	}
	free(argv);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return msg_error("waiting for culprit run: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status)
	       : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : EXIT_FAIL;
}

static int is_directory(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cmd_scale(int argc, char **argv)
{
	struct scale_options o;
	int status = parse_scale_options(argc, argv, &o);
	if (status == EXIT_OK && !o.help && o.ncounts == 0)
		status = msg_usage("scale", "no thread counts given: -t 1,2,4,8");
	else if (status == EXIT_OK && !o.help && !o.program_argv)
		status = msg_usage("scale", "no program given (see culprit scale --help)");
	if (status != EXIT_OK || o.help) {
		if (o.help && status == EXIT_OK)
			fputs(scale_usage, stdout);
		scale_options_free(&o);
		return status;
	}
	char defdir[PATH_MAX];
	if (!o.outdir) {
		char name[64];
		directory_safe_name(o.program_argv[0], name, sizeof name);
		snprintf(defdir, sizeof defdir, "culprit-scale-%s-%d", name, (int)getpid());
		o.outdir = defdir;
	}
	if (mkdir(o.outdir, 0700) != 0) {
		if (errno == EEXIST)
			msg_error("output directory '%s' already exists; remove it or choose "
				  "another with -o", o.outdir);
		else
			msg_error("cannot create output directory '%s': %s", o.outdir,
				  strerror(errno));
		scale_options_free(&o);
		return EXIT_FAIL;
	}
	int result = EXIT_OK, made = 0;
	for (int i = 0; i < o.ncounts; i++) {
		char *dir = xasprintf("%s/t%ld", o.outdir, o.counts[i]);
		if (!o.quiet)
			msg_note("run %d of %d: %ld thread%s, into %s", i + 1, o.ncounts,
				 o.counts[i], o.counts[i] == 1 ? "" : "s", dir);
		int rc = run_one(&o, o.counts[i], dir);
		int ran = is_directory(dir);
		free(dir);
		if (rc < 0 || !ran) {
			/* culprit run refused (and said why), or the program
			 * could not start: the other counts would fail alike. */
			if (made == 0)
				rmdir(o.outdir);
			scale_options_free(&o);
			return rc > 0 ? rc : EXIT_FAIL;
		}
		made++;
		if (rc != 0) {
			msg_warn("the program exited with status %d at %ld thread%s; going on", rc,
				 o.counts[i], o.counts[i] == 1 ? "" : "s");
			result = rc;
		}
	}
	if (!o.quiet)
		msg_note("%d runs in %s; next: culprit prof %s", made, o.outdir, o.outdir);
	scale_options_free(&o);
	return result;
}
