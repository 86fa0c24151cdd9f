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

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	"  -q, --quiet         do not print where the measurements went\n"
	"  -h, --help          show this help\n"
	"\n"
	"Environment: CULPRIT_MAX_DEPTH (as --max-depth),\n"
	"CULPRIT_MAX_NODES (calling-context nodes per thread, default 1048576),\n"
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
 * of this culprit (collector/ beside it), else the installed one. */
static int find_collector(char *out, size_t size)
{
	const char *env = getenv("CULPRIT_PRELOAD");
	char self[PATH_MAX];

	if (env && *env) {
		if (!realpath(env, out) || access(out, R_OK) != 0) {
			msg_error("CULPRIT_PRELOAD is set to '%s', which is not a readable file; "
				"fix or unset it", env);
			return -2;
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
	return access(out, R_OK) == 0 ? 0 : -1;
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

static void sanitize(const char *name, char *out, size_t size)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	size_t n = 0;
	for (; *base && n + 1 < size && n < 40; base++)
		out[n++] = (isalnum((unsigned char)*base) || strchr("._-", *base)) ? *base : '_';
	out[n] = 0;
}

static int count_files(const char *dir, int *procs, int *threads)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	*procs = *threads = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > 8 && strcmp(e->d_name + n - 8, ".process") == 0)
			(*procs)++;
		else if (n > 7 && strcmp(e->d_name + n - 7, ".thread") == 0)
			(*threads)++;
	}
	closedir(d);
	return 0;
}

/* Creates DIR (not following a symlink there, refusing one that exists).
 * Returns 0 or prints why not and returns -1. */
static int make_output(const char *dir, int chosen)
{
	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno == EEXIST)
		msg_error("output directory '%s' already exists; remove it or choose another%s",
			dir, chosen ? "" : " with -o");
	else
		msg_error("cannot create output directory '%s': %s", dir, strerror(errno));
	return -1;
}

static void setenv_or_die(const char *name, const char *value)
{
	if (setenv(name, value, 1) != 0) {
		msg_error("cannot set %s: %s", name, strerror(errno));
		_exit(126);
	}
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "list-events", no_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "openmp", required_argument, NULL, 'O' },
		{ "max-depth", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	enum openmp_mode openmp = OPENMP_AUTO;
	struct event_spec events[EVENT_MAX];
	const char *event_args[EVENT_MAX];
	int nevents = 0, quiet = 0, list = 0, c, rc;
	const char *outdir = NULL, *max_depth = NULL;

	argv[0] = "culprit run";	/* getopt's messages start with it */
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:o:Lqh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (nevents == EVENT_MAX) {
				msg_error("at most %d events can be sampled at once", EVENT_MAX);
				return EXIT_FAIL;
			}
			event_args[nevents++] = optarg;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'L':
			list = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(run_usage, stdout);
			return EXIT_OK;
		case 'O':
			if (openmp_parse_mode(optarg, &openmp) < 0)
				return EXIT_USAGE;
			break;
		case 'D':
			max_depth = optarg;
			break;
		default:
			fputs(run_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (list) {
		events_list();
		return EXIT_OK;
	}
	if (optind >= argc)
		return msg_usage("run", "no program given (see culprit run --help)");
	char **prog_argv = argv + optind;

	/* Settings for the collector: refused now rather than ignored later. */
	if (max_depth && !setting_ok("--max-depth", max_depth, SETTING_MAX_DEPTH_MIN,
				     SETTING_MAX_DEPTH_MAX, "frames per sample"))
		return EXIT_FAIL;
	if (!setting_ok("CULPRIT_MAX_DEPTH", getenv("CULPRIT_MAX_DEPTH"), SETTING_MAX_DEPTH_MIN,
			SETTING_MAX_DEPTH_MAX, "frames per sample") ||
	    !setting_ok("CULPRIT_MAX_NODES", getenv("CULPRIT_MAX_NODES"), SETTING_MAX_NODES_MIN,
			SETTING_MAX_NODES_MAX, "calling-context nodes per thread"))
		return EXIT_FAIL;

	/* Events: resolved and probed before anything else happens. */
	if (nevents == 0)
		event_args[nevents++] = "CPUTIME";
	for (int i = 0; i < nevents; i++) {
		char err[512];
		if (events_resolve(event_args[i], &events[i], err, sizeof err) < 0) {
			msg_error("%s", err);
			return EXIT_FAIL;
		}
		for (int j = 0; j < i; j++)
			if (strcmp(events[j].name, events[i].name) == 0) {
				msg_error("event '%s' is given twice", events[i].name);
				return EXIT_FAIL;
			}
	}
	char events_env[2048];
	if (event_spec_encode(events, nevents, events_env, sizeof events_env) < 0) {
		msg_error("the event list is too long");
		return EXIT_FAIL;
	}

	char collector[PATH_MAX];
	rc = find_collector(collector, sizeof collector);
	if (rc == -2)
		return EXIT_FAIL;
	if (rc < 0) {
		msg_error("cannot find the collector library libculprit.so (looked in %s); "
			"reinstall culprit or set CULPRIT_PRELOAD to its path", PKGLIBDIR);
		return EXIT_FAIL;
	}
	char program[PATH_MAX];
	rc = resolve_program(prog_argv[0], program, sizeof program);
	if (rc)
		return rc;
	if (program_kind(program) == PROGRAM_STATIC)
		msg_warn("%s is statically linked: culprit can only measure dynamically linked "
			 "programs, so nothing will be recorded", program);
	char libomp[PATH_MAX];
	if (openmp_preload(program, openmp, quiet, libomp, sizeof libomp) < 0)
		return EXIT_FAIL;
	if (outdir && outdir[0] == 0)
		return msg_usage("run", "-o needs a directory name");
	if (outdir && make_output(outdir, 1) < 0)
		return EXIT_FAIL;

	/* Samples of CPU time through perf_event carry the kernel's time
	 * stamp; the collector needs to know how late it is on this machine. */
	char lead[32] = "";
	for (int i = 0; i < nevents; i++)
		if (events[i].source == MFILE_SRC_PERF) {
			snprintf(lead, sizeof lead, "%ld", sample_lead_measure());
			break;
		}

	int go[2];
	if (pipe2(go, O_CLOEXEC) < 0) {
		msg_error("cannot create a pipe: %s", strerror(errno));
		return EXIT_FAIL;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		msg_error("cannot fork: %s", strerror(errno));
		return EXIT_FAIL;
	}
	if (pid == 0) {
		/* The child: wait for the directory, then become the program. */
		char dir[PATH_MAX + 1];
		size_t got = 0;
		ssize_t r;
		close(go[1]);
		while (got < sizeof dir - 1 && (r = read(go[0], dir + got, sizeof dir - 1 - got)) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				break;
			got += (size_t)r;
		}
		close(go[0]);
		if (got == 0)
			_exit(EXIT_FAIL);	/* the parent said why */
		dir[got] = 0;

		char experiment[128], host[64] = "host";
		gethostname(host, sizeof host - 1);
		snprintf(experiment, sizeof experiment, "%s-%d-%lld", host, (int)getppid(),
			 (long long)time(NULL));
		/* The collector first, then libomp, whose GOMP_* then win over
		 * libgomp's, then what the user preloads. */
		const char *old = getenv("LD_PRELOAD");
		char *preload = NULL;
		if (asprintf(&preload, "%s%s%s%s%s", collector, libomp[0] ? ":" : "", libomp,
			     old && *old ? ":" : "", old && *old ? old : "") < 0)
			_exit(126);
		setenv_or_die("LD_PRELOAD", preload);
		setenv_or_die("CULPRIT_PRELOAD", collector);
		setenv_or_die("CULPRIT_OUTPUT", dir);
		setenv_or_die("CULPRIT_EVENTS", events_env);
		setenv_or_die("CULPRIT_EXPERIMENT", experiment);
		if (lead[0])
			setenv_or_die("CULPRIT_SAMPLE_LEAD", lead);
		if (max_depth)
			setenv_or_die("CULPRIT_MAX_DEPTH", max_depth);
		unsetenv("CULPRIT_IMAGE");
		execv(program, prog_argv);
		int e = errno;
		if (e == ENOEXEC) {
			/* No #! line: a shell runs it, as execvp() and shells do. */
			int n = 0;
			while (prog_argv[n])
				n++;
			char **sh = calloc((size_t)n + 2, sizeof *sh);
			if (sh) {
				sh[0] = "/bin/sh";
				sh[1] = program;
				for (int i = 1; i < n; i++)
					sh[i + 1] = prog_argv[i];
				execv("/bin/sh", sh);
			}
		}
		msg_error("%s: %s", prog_argv[0], strerror(e));
		_exit(e == ENOENT ? 127 : 126);
	}

	/* The parent. */
	close(go[0]);
	child_pid = pid;
	char made[PATH_MAX];
	if (!outdir) {
		char base[48];
		sanitize(prog_argv[0], base, sizeof base);
		snprintf(made, sizeof made, "culprit-%s-%d", base, (int)pid);
		if (make_output(made, 0) < 0) {
			close(go[1]);
			waitpid(pid, NULL, 0);
			return EXIT_FAIL;
		}
		outdir = made;
	}
	char abs[PATH_MAX];
	if (!realpath(outdir, abs)) {
		msg_error("cannot resolve '%s': %s", outdir, strerror(errno));
		close(go[1]);
		waitpid(pid, NULL, 0);
		return EXIT_FAIL;
	}
	signal(SIGINT, SIG_IGN);	/* the terminal sends these to the program too */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, forward_signal);
	signal(SIGHUP, forward_signal);
	signal(SIGUSR1, forward_signal);
	signal(SIGUSR2, forward_signal);
	if (write(go[1], abs, strlen(abs)) != (ssize_t)strlen(abs)) {
		msg_error("cannot start the program: %s", strerror(errno));
		close(go[1]);
		waitpid(pid, NULL, 0);
		return EXIT_FAIL;
	}
	close(go[1]);

	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			msg_error("waiting for the program: %s", strerror(errno));
			return EXIT_FAIL;
		}
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status)
		   : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : EXIT_FAIL;

	int procs, threads;
	if (count_files(abs, &procs, &threads) == 0) {
		if (procs == 0 && threads == 0) {
			if (rmdir(abs) == 0 && (code == 126 || code == 127))
				;	/* it never ran: nothing to report */
			else if (!quiet)
				msg_warn("no measurements were written (a statically linked program, "
					 "or one killed by SIGKILL?)");
		} else if (!quiet) {
			msg_note("measurements of %d process%s and %d thread%s in %s", procs,
				 procs == 1 ? "" : "es", threads, threads == 1 ? "" : "s", outdir);
		}
	}
	return code;
}
