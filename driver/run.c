/* run.c - `culprit run`: start a program with the collector preloaded.
 *
 * Everything that can be wrong with the request (an unknown event, an
 * existing output directory, a program that cannot be found) is reported
 * before the program starts.  The program is our child: its stdin, stdout,
 * stderr and exit status pass through, and a program killed by signal N
 * makes us exit with 128+N, as a shell reports it.
 *
 * The default directory is named after the program's pid, which exists
 * only once we fork; the child waits on a pipe until the parent has
 * created the directory and sent its path.
 */
#define _GNU_SOURCE
#include "driver.h"
#include "settings.h"
#include "mfile_format.h"
#include "run_info.h"

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PKGLIBDIR
#define PKGLIBDIR "/usr/local/lib/culprit"
#endif

static const char run_usage[] =
	"usage: culprit run [-e EVENT[@PERIOD|@fFREQ]]... [-o DIR] [-q] [--] PROGRAM [ARGS...]\n"
	"       culprit run -L\n"
	"\n"
	"Runs PROGRAM with culprit's collector and writes one measurement file per\n"
	"thread and per process to DIR (default ./culprit-PROGRAM-PID).\n"
	"\n"
	"  -e, --event=EVENT   sample EVENT; repeat for several (default CPUTIME@f1000)\n"
	"                      CPUTIME  thread CPU time     REALTIME  wall-clock time\n"
	"                      or any event from -L, e.g. cycles@f2000, perf::page-faults@100\n"
	"                      @PERIOD: time with a unit (5ms, 500us) or an event count;\n"
	"                      @fFREQ: samples per second per thread\n"
	"  -o, --output=DIR    measurement directory; must not exist yet\n"
	"  -L, --list-events   list the events this machine can sample\n"
	"      --openmp=MODE   GCC OpenMP programs: auto (default) runs those that need\n"
	"                      libgomp on LLVM's libomp, whose regions culprit can see;\n"
	"                      libomp always does (for scripts); native never does\n"
	"      --max-depth=N   keep at most N frames per sample (4 to 1048576, default\n"
	"                      65536); a deeper path keeps its innermost and outermost\n"
	"                      frames around a <truncated> marker\n"
	"      --no-waits      do not follow the calls that block (locks, condition\n"
	"                      variables, barriers, joins, sleeps): pthreads programs'\n"
	"                      idleness is then not measured\n"
	"      --no-trace      do not record when each sample was taken (the timeline\n"
	"                      and the parallelism profile then have nothing)\n"
	"      --io-idle       count a thread blocked in I/O (read, poll, accept, ...)\n"
	"                      as idle, cause io (default: working, as it is not\n"
	"                      waiting for the program's other threads)\n"
	"      --label=TEXT    name the run (culprit prof's experiments table; default:\n"
	"                      tN for N threads, when they are known)\n"
	"      --threads=N     the thread count the run is for (default: the first\n"
	"                      number in OMP_NUM_THREADS, when it is set)\n"
	"      --allow-static  run a statically linked PROGRAM, which culprit cannot\n"
	"                      measure, for the dynamically linked programs it starts\n"
	"  -q, --quiet         do not print where the measurements went\n"
	"  -h, --help          show this help\n"
	"\n"
	"Environment: CULPRIT_MAX_DEPTH (as --max-depth),\n"
	"CULPRIT_MAX_NODES (calling-context nodes per thread, default 1048576),\n"
	"CULPRIT_TRACE_MB (the most trace per thread, 0 to 4096, default 32 MiB:\n"
	"about 4 million samples; later samples are measured but not traced),\n"
	"CULPRIT_SIGNAL (the real-time signal used for sampling),\n"
	"CULPRIT_LIBOMP (the libomp.so.5 for --openmp).\n";

static volatile sig_atomic_t child_pid;

/* Whether VALUE of setting NAME (an option or a variable) is a number from
 * LO to HI; if not, says so in one line.  An empty VALUE is the default. */
static int setting_ok(const char *name, const char *value, unsigned lo, unsigned hi,
		      const char *what)
{
	char *end;
	errno = 0;
	unsigned long v = value && *value ? strtoul(value, &end, 10) : lo;
	if (!value || !*value || (!errno && !*end && v >= lo && v <= hi && value[0] != '-'))
		return 1;
	msg_error("%s=%s: expected a number from %u to %u (%s)", name, value, lo, hi, what);
	return 0;
}

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* The library to preload: $CULPRIT_PRELOAD, else the one in the build tree
 * of this culprit (collector/ beside it), else the installed one.  Returns
 * 0 with its path in OUT (PATH_MAX), or -1 after a message. */
static int find_collector(char *out, size_t size)
{
	const char *env = getenv("CULPRIT_PRELOAD");
	char self[PATH_MAX];

	if (env && *env) {
		if (!realpath(env, out) || access(out, R_OK) != 0) {
			msg_error("CULPRIT_PRELOAD is set to '%s', which is not a readable file; "
				"fix or unset it", env);
			return -1;
		}
		return 0;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			char cand[PATH_MAX + 64];
			snprintf(cand, sizeof cand, "%s/collector/libculprit.so", self);
			if (realpath(cand, out) && access(out, R_OK) == 0)
				return 0;
		}
	}
	snprintf(out, size, "%s/libculprit.so", PKGLIBDIR);
	if (access(out, R_OK) == 0)
		return 0;
	msg_error("cannot find the collector library libculprit.so (looked in %s); "
		  "reinstall culprit or set CULPRIT_PRELOAD to its path", PKGLIBDIR);
	return -1;
}

/* Finds PROGRAM as a shell would.  Returns 0 with the path in OUT, or the
 * shell's exit status (127 not found, 126 not executable) after printing
 * the shell's message. */
static int resolve_program(const char *prog, char *out, size_t size)
{
	struct stat st;

	if (strchr(prog, '/')) {
		if (stat(prog, &st) != 0) {
			int e = errno;
			msg_error("%s: %s", prog, strerror(e));
			return e == ENOENT || e == ENOTDIR ? 127 : 126;
		}
		if (S_ISDIR(st.st_mode)) {
			msg_error("%s: Is a directory", prog);
			return 126;
		}
		if (access(prog, X_OK) != 0) {
			msg_error("%s: %s", prog, strerror(errno));
			return 126;
		}
		snprintf(out, size, "%s", prog);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int denied = 0;
	for (const char *p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char cand[PATH_MAX];
		snprintf(cand, sizeof cand, "%.*s%s%s", (int)len, p, len ? "/" : "", prog);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(cand, X_OK) == 0) {
				snprintf(out, size, "%s", cand);
				return 0;
			}
			denied = 1;
		}
		if (!end)
			break;
		p = end;
	}
	if (denied) {
		msg_error("%s: Permission denied", prog);
		return 126;
	}
	msg_error("%s: command not found", prog);
	return 127;
}

/* What kind of program PATH is, from its ELF program headers. */
enum program_kind program_kind(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	enum program_kind kind = PROGRAM_OTHER;

	if (fd < 0)
		return PROGRAM_OTHER;
	if (read(fd, &eh, sizeof eh) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		int interp = 0, dynamic = 0;
		for (int i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) !=
			    (ssize_t)sizeof ph)
				break;
			interp |= ph.p_type == PT_INTERP;
			dynamic |= ph.p_type == PT_DYNAMIC;
		}
		kind = interp ? PROGRAM_INTERPRETED : dynamic ? PROGRAM_DYNAMIC : PROGRAM_STATIC;
	}
	close(fd);
	return kind;
}

/* The base name of program NAME, cut short and with only characters safe
 * in a directory name, into OUT. */
void directory_safe_name(const char *name, char *out, size_t size)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	size_t n = 0;
	for (; *base && n + 1 < size && n < 40; base++)
		out[n++] = (isalnum((unsigned char)*base) || strchr("._-", *base)) ? *base : '_';
	out[n] = 0;
}

/* This `culprit run` as an MPI rank (launch.c): rank -1 when it is not. */
static struct launch launch;

/* How many process and thread files DIR holds (this rank's, under an MPI
 * launch).  Returns 0, or -1 if it cannot be read. */
static int count_files(const char *dir, int *procs, int *threads)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	*procs = *threads = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (!launch_owns(&launch, e->d_name))
			continue;
		if (n > 8 && strcmp(e->d_name + n - 8, ".process") == 0)
			(*procs)++;
		else if (n > 7 && strcmp(e->d_name + n - 7, ".thread") == 0)
			(*threads)++;
	}
	closedir(d);
	return 0;
}

/* Creates DIR (not following a symlink there, refusing one that exists).
 * Only for its owner: the files hold the program's command line, paths
 * and names, and in a shared /tmp no one else may read or add files.
 * Returns 0 or prints why not and returns -1. */
static int make_output(const char *dir, int chosen)
{
	/* The ranks of an MPI launch share the directory they were given. */
	if (chosen && launch.rank >= 0)
		return launch_make_output(&launch, dir);
	if (mkdir(dir, 0700) == 0)
		return 0;
	if (errno == EEXIST)
		msg_error("output directory '%s' already exists; remove it or choose another%s",
			dir, chosen ? "" : " with -o");
	else
		msg_error("cannot create output directory '%s': %s", dir, strerror(errno));
	return -1;
}

/* In the child, before the exec: a failure ends it as a program that
 * cannot be run does (126). */
static void setenv_or_die(const char *name, const char *value)
{
	if (setenv(name, value, 1) != 0) {
		msg_error("cannot set %s: %s", name, strerror(errno));
		_exit(126);
	}
}

/* What `culprit run` was asked to do. */
struct run_options {
	const char *event_args[EVENT_MAX];	/* -e, as written; none: CPUTIME */
	int nevents;
	const char *outdir;		/* -o, or NULL for ./culprit-PROGRAM-PID */
	const char *max_depth;		/* --max-depth, or NULL */
	enum openmp_mode openmp;	/* --openmp */
	int no_waits;			/* --no-waits */
	int no_trace;			/* --no-trace */
	int io_idle;			/* --io-idle */
	int allow_static;		/* --allow-static */
	const char *label;		/* --label, or NULL */
	long threads;			/* --threads, or 0 */
	int quiet;			/* -q */
	int list_events;		/* -L: list the events, run nothing */
	int help;			/* -h: print the usage, run nothing */
	char **program_argv;		/* PROGRAM ARGS... (within argv), or NULL */
};

/* How the program is started, settled before it is. */
struct run_plan {
	char program[PATH_MAX];		/* PROGRAM's path, found as a shell finds it */
	char collector[PATH_MAX];	/* libculprit.so, preloaded first */
	char libomp[PATH_MAX];		/* the libomp preloaded after it, or "" */
	char events[2048];		/* CULPRIT_EVENTS: the resolved events */
	int perf_stamped;		/* some event's samples carry perf_event's time stamp */
	char sample_lead[32];		/* CULPRIT_SAMPLE_LEAD, or "" */
};

/* Reads the command line into *O.  Returns EXIT_OK, or the status to exit
 * with after a message.  Stops at -h, like the usage it asks for. */
/* What is measured: culprit scale passes these on to each run. */
const struct option run_measurement_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "openmp", required_argument, NULL, 'O' },
	{ "max-depth", required_argument, NULL, 'D' },
	{ "no-waits", no_argument, NULL, 'W' },
	{ "no-trace", no_argument, NULL, 'T' },
	{ "io-idle", no_argument, NULL, 'I' },
	{ NULL, 0, NULL, 0 },
};

struct option *options_join(const struct option *own, const struct option *extra)
{
	size_t a = 0, b = 0;
	while (own[a].name)
		a++;
	while (extra[b].name)
		b++;
	struct option *all = xcalloc(a + b + 1, sizeof *all);
	memcpy(all, own, a * sizeof *all);
	memcpy(all + a, extra, b * sizeof *all);
	return all;
}

const struct option *option_of(const struct option *table, int val)
{
	for (; table->name; table++)
		if (table->val == val)
			return table;
	return NULL;
}

/* Option C (getopt's value) with OPTARG into O: EXIT_OK, or a usage error
 * after saying why. */
static int run_option(struct run_options *o, int c)
{
	switch (c) {
	case 'e':
		if (o->nevents == EVENT_MAX) {
			msg_error("at most %d events can be sampled at once", EVENT_MAX);
			return EXIT_FAIL;
		}
		o->event_args[o->nevents++] = optarg;
		break;
	case 'o': o->outdir = optarg; break;
	case 'L': o->list_events = 1; break;
	case 'q': o->quiet = 1; break;
	case 'h': o->help = 1; break;
	case 'O':
		if (openmp_parse_mode(optarg, &o->openmp) < 0)
			return EXIT_USAGE;
		break;
	case 'D': o->max_depth = optarg; break;
	case 'W': o->no_waits = 1; break;
	case 'T': o->no_trace = 1; break;
	case 'I': o->io_idle = 1; break;
	case 'S': o->allow_static = 1; break;
	case 'l':
		if (!optarg[0] || strlen(optarg) >= sizeof ((struct run_info *)0)->label)
			return msg_usage("run", "--label needs a name of 1 to 63 bytes");
		o->label = optarg;
		break;
	case 't':
		o->threads = run_info_threads(optarg);
		if (o->threads == 0 || strchr(optarg, ','))
			return msg_usage("run", "--threads needs a positive whole number, "
					 "not '%s'", optarg);
		break;
	default:
		fputs(run_usage, stderr);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int parse_run_options(int argc, char **argv, struct run_options *o)
{
	static const struct option own[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "list-events", no_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "allow-static", no_argument, NULL, 'S' },
		{ "label", required_argument, NULL, 'l' },
		{ "threads", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct option *opts = options_join(own, run_measurement_options);
	int c, rc = EXIT_OK;

	memset(o, 0, sizeof *o);
	o->openmp = OPENMP_AUTO;
	argv[0] = "culprit run";	/* getopt's messages start with it */
	optind = 1;
	/* "+": the program's own options are not ours. */
	while (rc == EXIT_OK && !o->help &&
	       (c = getopt_long(argc, argv, "+e:o:Lqh", opts, NULL)) != -1)
		rc = run_option(o, c);
	free(opts);
	if (rc == EXIT_OK && !o->help && optind < argc)
		o->program_argv = argv + optind;
	return rc;
}

/* The collector's settings, refused now rather than ignored later.
 * Returns 0, or -1 after saying which is wrong. */
static int check_settings(const struct run_options *o)
{
	if (o->max_depth && !setting_ok("--max-depth", o->max_depth, SETTING_MAX_DEPTH_MIN,
					SETTING_MAX_DEPTH_MAX, "frames per sample"))
		return -1;
	if (!setting_ok("CULPRIT_MAX_DEPTH", getenv("CULPRIT_MAX_DEPTH"), SETTING_MAX_DEPTH_MIN,
			SETTING_MAX_DEPTH_MAX, "frames per sample") ||
	    !setting_ok("CULPRIT_MAX_NODES", getenv("CULPRIT_MAX_NODES"), SETTING_MAX_NODES_MIN,
			SETTING_MAX_NODES_MAX, "calling-context nodes per thread") ||
	    !setting_ok("CULPRIT_TRACE_MB", getenv("CULPRIT_TRACE_MB"), 0, 4096,
			"MiB of trace per thread"))
		return -1;
	return 0;
}

/* Resolves and probes the events into PLAN's CULPRIT_EVENTS.  Returns 0,
 * or -1 after a message. */
static int resolve_events(const struct run_options *o, struct run_plan *plan)
{
	static const char *const default_event[] = { "CPUTIME" };
	const char *const *args = o->nevents ? o->event_args : default_event;
	int n = o->nevents ? o->nevents : 1;
	struct event_spec events[EVENT_MAX];

	for (int i = 0; i < n; i++) {
		char err[512];
		if (events_resolve(args[i], &events[i], err, sizeof err) < 0) {
			msg_error("%s", err);
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (strcmp(events[j].name, events[i].name) == 0) {
				msg_error("event '%s' is given twice", events[i].name);
				return -1;
			}
		plan->perf_stamped |= events[i].source == MFILE_SRC_PERF;
	}
	if (event_spec_encode(events, n, plan->events, sizeof plan->events) < 0) {
		msg_error("the event list is too long");
		return -1;
	}
	return 0;
}

/* Everything that can be wrong with the request, checked before the
 * program starts; fills *PLAN.  Returns EXIT_OK, or the status to exit
 * with after a message (126 or 127 for a program that cannot be run, as
 * a shell says). */
static int prepare_run(const struct run_options *o, struct run_plan *plan)
{
	memset(plan, 0, sizeof *plan);
	if (check_settings(o) < 0 || resolve_events(o, plan) < 0 ||
	    find_collector(plan->collector, sizeof plan->collector) < 0)
		return EXIT_FAIL;
	int status = resolve_program(o->program_argv[0], plan->program, sizeof plan->program);
	if (status != 0)
		return status;
	/* The collector is loaded by the dynamic loader, which a static
	 * program does not have.  Refused, unless asked for: what it runs may
	 * be dynamically linked (a static shell or make), and measured. */
	if (program_kind(plan->program) == PROGRAM_STATIC) {
		if (!o->allow_static) {
			msg_error("%s is statically linked: culprit cannot load its collector into "
				  "it, so it would measure nothing; link it dynamically (or use "
				  "--allow-static to measure only the programs it starts)",
				  plan->program);
			return EXIT_FAIL;
		}
		msg_warn("%s is statically linked: only the dynamically linked programs it "
			 "starts will be measured", plan->program);
	}
	if (openmp_preload(plan->program, o->openmp, o->quiet, plan->libomp,
			   sizeof plan->libomp) < 0)
		return EXIT_FAIL;
	if (o->outdir && o->outdir[0] == 0)
		return msg_usage("run", "-o needs a directory name");
	if (o->outdir && make_output(o->outdir, 1) < 0)
		return EXIT_FAIL;
	/* Samples of CPU time through perf_event carry the kernel's time
	 * stamp; the collector needs to know how late it is on this machine. */
	if (plan->perf_stamped)
		snprintf(plan->sample_lead, sizeof plan->sample_lead, "%ld", sample_lead_measure());
	return EXIT_OK;
}

/* ---- the child ---------------------------------------------------------- */

/* Reads the measurement directory's path from GO into DIR; "" when the
 * parent closed GO without sending one (it said why). */
static void receive_directory(int go, char *dir, size_t size)
{
	size_t got = 0;
	ssize_t r;

	while (got < size - 1 && (r = read(go, dir + got, size - 1 - got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += (size_t)r;
	}
	dir[got] = 0;
}

/* What the collector reads at start: where to write, what to sample, and
 * the preload that starts it in every process the program makes. */
static void set_collector_environment(const struct run_options *o, const struct run_plan *plan,
				      const char *dir, const char *experiment)
{
	/* The collector first, then libomp, whose GOMP_* then win over
	 * libgomp's, then what the user preloads. */
	const char *old = getenv("LD_PRELOAD");
	char *preload = NULL;
	if (asprintf(&preload, "%s%s%s%s%s", plan->collector, plan->libomp[0] ? ":" : "",
		     plan->libomp, old && *old ? ":" : "", old && *old ? old : "") < 0)
		_exit(126);
	setenv_or_die("LD_PRELOAD", preload);
	setenv_or_die("CULPRIT_PRELOAD", plan->collector);
	setenv_or_die("CULPRIT_OUTPUT", dir);
	setenv_or_die("CULPRIT_EVENTS", plan->events);
	setenv_or_die("CULPRIT_EXPERIMENT", experiment);
	if (plan->sample_lead[0])
		setenv_or_die("CULPRIT_SAMPLE_LEAD", plan->sample_lead);
	if (o->max_depth)
		setenv_or_die("CULPRIT_MAX_DEPTH", o->max_depth);
	setenv_or_die("CULPRIT_WAITS", o->no_waits ? "0" : "1");
	if (o->no_trace)
		setenv_or_die("CULPRIT_TRACE_MB", "0");
	setenv_or_die("CULPRIT_IO_IDLE", o->io_idle ? "1" : "0");
	unsetenv("CULPRIT_IMAGE");
}

/* Becomes PROGRAM with ARGV as execvp() and shells do: a file without a
 * #! line is run by the shell.  Returns only to exit with a shell's
 * status. */
static void exec_program(const char *program, char **argv) __attribute__((noreturn));

static void exec_program(const char *program, char **argv)
{
	execv(program, argv);
	int e = errno;
	if (e == ENOEXEC) {
		int n = 0;
		while (argv[n])
			n++;
		/* Not xcalloc: stopping here must look like a failed exec. */
		char **sh = calloc((size_t)n + 2, sizeof *sh);
		if (sh) {
			sh[0] = "/bin/sh";
			sh[1] = (char *)program;
			for (int i = 1; i < n; i++)
				sh[i + 1] = argv[i];
			execv("/bin/sh", sh);
		}
	}
	msg_error("%s: %s", argv[0], strerror(e));
	_exit(e == ENOENT ? 127 : 126);
}

/* ---- the parent ----------------------------------------------------------- */

/* Makes the default directory now that the program's PID is known,
 * forwards signals to it, and lets it go by sending the directory's
 * absolute path down GO.  Returns 0 with the name to show in DIR and the
 * absolute path in ABS (both PATH_MAX), or -1 after a message. */
static int send_directory(pid_t pid, int go, const struct run_options *o, char *dir, char *abs)
{
	if (o->outdir) {
		snprintf(dir, PATH_MAX, "%s", o->outdir);
	} else {
		char base[48];
		directory_safe_name(o->program_argv[0], base, sizeof base);
		snprintf(dir, PATH_MAX, "culprit-%s-%d", base, (int)pid);
		if (make_output(dir, 0) < 0)
			return -1;
	}
	if (!realpath(dir, abs)) {
		msg_error("cannot resolve '%s': %s", dir, strerror(errno));
		return -1;
	}
	signal(SIGINT, SIG_IGN);	/* the terminal sends these to the program too */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, forward_signal);
	signal(SIGHUP, forward_signal);
	signal(SIGUSR1, forward_signal);
	signal(SIGUSR2, forward_signal);
	if (write(go, abs, strlen(abs)) != (ssize_t)strlen(abs)) {
		msg_error("cannot start the program: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The program's exit status as a shell reports it (128+N for signal N)
 * into *CODE, its measurements in ABS synced to disk as they come.
 * Returns 0, or -1 after a message. */
static int wait_for_program(pid_t pid, const char *abs, int *code)
{
	int status;
	if (run_wait_syncing(pid, abs, &status) < 0) {
		msg_error("waiting for the program: %s", strerror(errno));
		return -1;
	}
	*code = WIFEXITED(status) ? WEXITSTATUS(status)
		: WIFSIGNALED(status) ? 128 + WTERMSIG(status) : EXIT_FAIL;
	return 0;
}

/* Says what the run left in ABS (DIR as the user knows it), unless QUIET;
 * removes the directory, silently, of a program that never ran (CODE 126
 * or 127: the exec failed and said so). */
static void report_measurements(const char *abs, const char *dir, int code, int quiet,
				const struct run_info *info)
{
	int procs, threads;
	run_remove_spares(abs, &launch);
	if (count_files(abs, &procs, &threads) < 0) {
		/* Removed or made unreadable while the program ran: the
		 * collector could not write (and said so), and nothing is
		 * left to read. */
		msg_warn("the measurement directory %s cannot be read (%s): the run's "
			 "measurements are lost", dir, strerror(errno));
		return;
	}
	if (procs == 0 && threads == 0) {
		if (rmdir(abs) == 0 && (code == 126 || code == 127))
			;	/* it never ran: nothing to report */
		else if (!quiet)
			msg_warn("no measurements were written (a statically linked program, "
				 "or one killed by SIGKILL in its first second?)");
	} else {
		/* One run file for the launch: its first rank's. */
		if (launch.rank > 0)
			;
		else if (run_info_write(abs, info) < 0)
			msg_warn("cannot write the run's wall-clock and CPU time into %s: %s "
				 "(culprit prof takes them from the measurements)", dir,
				 strerror(errno));
		/* What the measurement lost ends the line; when it matters, even
		 * with -q, as a warning. */
		struct run_health h;
		char lost[512];
		run_health_read(abs, &launch, &h);
		run_health_text(&h, lost, sizeof lost);
		char rank[40] = "";
		if (launch.rank >= 0)
			snprintf(rank, sizeof rank, "MPI rank %d: ", launch.rank);
		char *line = xasprintf("%smeasurements of %d process%s and %d thread%s in %s%s%s",
				       rank, procs, procs == 1 ? "" : "es", threads,
				       threads == 1 ? "" : "s", dir, lost[0] ? "; " : "", lost);
		if (run_health_serious(&h))
			msg_warn("%s", line);
		else if (!quiet)
			msg_note("%s", line);
		free(line);
	}
}

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double children_cpu_seconds(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* What the run file says before the program starts: the experiment's
 * name (which the collector also gets), label, threads and command. */
static void start_run_info(const struct run_options *o, struct run_info *info)
{
	char host[64] = "host";
	memset(info, 0, sizeof *info);
	gethostname(host, sizeof host - 1);
	/* The ranks of an MPI launch are one run: one experiment. */
	if (launch.rank >= 0 && launch.job[0])
		snprintf(info->experiment, sizeof info->experiment, "mpi-%s", launch.job);
	else
		snprintf(info->experiment, sizeof info->experiment, "%s-%d-%lld", host,
			 (int)getpid(), (long long)time(NULL));
	if (o->label)
		snprintf(info->label, sizeof info->label, "%s", o->label);
	info->threads = o->threads ? o->threads : run_info_threads(getenv("OMP_NUM_THREADS"));
	cpu_set_t cpus;
	if (sched_getaffinity(0, sizeof cpus, &cpus) == 0)
		info->cores = CPU_COUNT(&cpus);
	size_t n = 0;
	for (char **a = o->program_argv; *a && n + 1 < sizeof info->command; a++)
		n += (size_t)snprintf(info->command + n, sizeof info->command - n, "%s%s",
				      a == o->program_argv ? "" : " ", *a);
	info->start = clock_seconds(CLOCK_REALTIME);
}

/* Starts the program as our child, waits for it and reports.  Returns
 * the program's status, or EXIT_FAIL if it could not be started. */
static int run_program(const struct run_options *o, const struct run_plan *plan)
{
	struct run_info info;
	start_run_info(o, &info);
	double cpu_before = children_cpu_seconds(), wall_before = clock_seconds(CLOCK_MONOTONIC);
	int go[2];	/* the child waits on it for the directory (see the top) */
	if (pipe2(go, O_CLOEXEC) < 0) {
		msg_error("cannot create a pipe: %s", strerror(errno));
		return EXIT_FAIL;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		msg_error("cannot fork: %s", strerror(errno));
		return EXIT_FAIL;
	}
	if (pid == 0) {
		char dir[PATH_MAX + 1];
		close(go[1]);
		receive_directory(go[0], dir, sizeof dir);
		close(go[0]);
		if (!dir[0])
			_exit(EXIT_FAIL);	/* the parent said why */
		set_collector_environment(o, plan, dir, info.experiment);
		exec_program(plan->program, o->program_argv);
	}

	close(go[0]);
	child_pid = pid;
	char dir[PATH_MAX], abs[PATH_MAX];
	int sent = send_directory(pid, go[1], o, dir, abs);
	close(go[1]);	/* sent or not, the child stops waiting */
	if (sent < 0) {
		waitpid(pid, NULL, 0);
		return EXIT_FAIL;
	}
	int code;
	if (wait_for_program(pid, abs, &code) < 0)
		return EXIT_FAIL;
	info.wall = clock_seconds(CLOCK_MONOTONIC) - wall_before;
	info.cpu = children_cpu_seconds() - cpu_before;
	info.status = code;
	report_measurements(abs, dir, code, o->quiet, &info);
	return code;
}

int cmd_run(int argc, char **argv)
{
	struct run_options o;
	struct run_plan plan;

	int status = parse_run_options(argc, argv, &o);
	if (status != EXIT_OK)
		return status;
	if (o.help) {
		fputs(run_usage, stdout);
		return EXIT_OK;
	}
	if (o.list_events) {
		events_list();
		return EXIT_OK;
	}
	if (!o.program_argv)
		return msg_usage("run", "no program given (see culprit run --help)");
	launch_detect(&launch);
	status = prepare_run(&o, &plan);
	if (status != EXIT_OK)
		return status;
	return run_program(&o, &plan);
}
