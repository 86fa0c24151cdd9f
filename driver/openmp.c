/* openmp.c - `culprit run` and GCC's OpenMP runtime.
 *
 * GCC's libgomp has no tools interface (OMPT), so culprit cannot see its
 * parallel regions, tasks or waiting threads.  LLVM's libomp implements
 * libgomp's entry points (GOMP_parallel and the rest) as well as OMPT, so a
 * GCC-built program runs on it unchanged when it is preloaded: its GOMP_*
 * calls then bind to libomp.  `culprit run` does that when the program
 * needs libgomp, and says so.
 *
 * Whether it does is asked of the dynamic linker, the way ldd asks it
 * (LD_TRACE_LOADED_OBJECTS lists the libraries a program would load and
 * exits), so that libgomp needed by a library of the program counts too.
 */
#define _GNU_SOURCE
#include "config.h"
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int openmp_parse_mode(const char *arg, enum openmp_mode *out)
{
	static const char *const names[] = { "auto", "libomp", "native" };
	for (int i = 0; i < 3; i++)
		if (strcmp(arg, names[i]) == 0) {
			*out = (enum openmp_mode)i;
			return 0;
		}
	msg_usage("run", "unknown --openmp mode '%s'; use auto, libomp or native", arg);
	return -1;
}

/* The libraries PROGRAM loads, as the dynamic linker lists them, into
 * OUT (NUL-terminated, truncated).  Returns 0, or -1 if it cannot tell. */
static int list_libraries(const char *program, char *out, size_t size)
{
	int fd[2];
	size_t got = 0;

	/* Only a program with an interpreter lists its libraries, rather than
	 * runs, under LD_TRACE_LOADED_OBJECTS. */
	if (size == 0 || program_kind(program) != PROGRAM_INTERPRETED || pipe2(fd, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(fd[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		unsetenv("LD_PRELOAD");
		setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
		execl(program, program, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		char buf[4096];
		ssize_t r = read(fd[0], buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		size_t n = (size_t)r < size - 1 - got ? (size_t)r : size - 1 - got;
		memcpy(out + got, buf, n);
		got += n;
	}
	close(fd[0]);
	out[got] = 0;
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Whether a line of LIST names library NAME ("libgomp.so"). */
static int lists(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)); p += n)
		if (p == list || p[-1] == '\t' || p[-1] == ' ' || p[-1] == '/')
			return 1;
	return 0;
}

/* LLVM's libomp: $CULPRIT_LIBOMP, else the one found when culprit was
 * built.  Returns 0 with its path in OUT, -1 if there is none, -2 after
 * saying that $CULPRIT_LIBOMP is wrong. */
static int find_libomp(char *out, size_t size)
{
	const char *env = getenv("CULPRIT_LIBOMP");

	if (env && *env) {
		if (!realpath(env, out) || access(out, R_OK) != 0) {
			msg_error("CULPRIT_LIBOMP is set to '%s', which is not a readable file; "
				"fix or unset it", env);
			return -2;
		}
		return 0;
	}
	if (LIBOMP_PATH[0] && strlen(LIBOMP_PATH) < size && access(LIBOMP_PATH, R_OK) == 0) {
		snprintf(out, size, "%s", LIBOMP_PATH);
		return 0;
	}
	return -1;
}

int openmp_preload(const char *program, enum openmp_mode mode, int quiet, char *out, size_t size)
{
	char libs[16384];

	out[0] = 0;
	if (mode == OPENMP_NATIVE)
		return 0;
	int listed = list_libraries(program, libs, sizeof libs) == 0;
	int gomp = listed && lists(libs, "libgomp.so") && !lists(libs, "libomp.so");
	int openmp = listed && (lists(libs, "libgomp.so") || lists(libs, "libomp.so"));
	const char *tools = getenv("OMP_TOOL_LIBRARIES");
	if (tools && *tools && (openmp || mode == OPENMP_LIBOMP) && !quiet)
		msg_warn("OMP_TOOL_LIBRARIES is set, but libomp starts only one tool and culprit's "
			 "comes first: %s will not be started", tools);
	if (mode == OPENMP_AUTO && !gomp)
		return 0;
	int rc = find_libomp(out, size);
	if (rc == -2)
		return -1;
	if (rc < 0) {
		out[0] = 0;
		if (mode == OPENMP_LIBOMP) {
			msg_error("--openmp=libomp: LLVM's libomp.so.5 was not found; install the "
				"Debian package libomp5 or set CULPRIT_LIBOMP to its path");
			return -1;
		}
		msg_warn("%s uses GCC's libgomp, which has no tools interface: it is profiled "
			 "without OpenMP contexts or idleness; install the Debian package libomp5 "
			 "or set CULPRIT_LIBOMP", program);
		return 0;
	}
	if (mode == OPENMP_AUTO && !quiet)
		msg_note("%s uses GCC's libgomp, which has no tools interface: running it on "
			 "LLVM's libomp (%s) instead; --openmp=native keeps libgomp", program, out);
	return 0;
}
