/* procs.c - processes made in every way: fork, exec (failing first),
 * exec with an empty environment, posix_spawn, system().
 * usage: procs fork|exec|exec-final|noenv|noenv-final|spawn|system */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

volatile double sink;
static const long unit = 30000000;

__attribute__((noinline)) double parent_before(void) { return work_units(unit); }
__attribute__((noinline)) double parent_after(void) { return work_units(unit); }
__attribute__((noinline)) double child_work(void) { return work_units(2 * unit); }
__attribute__((noinline)) double before_exec(void) { return work_units(unit); }
__attribute__((noinline)) double after_failed_exec(void) { return work_units(unit); }
__attribute__((noinline)) double after_exec(void) { return work_units(unit); }

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int status;

	if (!strcmp(mode, "fork")) {
		sink += parent_before();
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			sink += child_work();
			exit(7);
		}
		waitpid(pid, &status, 0);
		sink += parent_after();
		printf("child exited with %d\n", WEXITSTATUS(status));
		return 0;
	}
	if (!strcmp(mode, "exec")) {
		char *args[] = { argv[0], "exec-final", NULL };
		sink += before_exec();
		execv("/nonexistent/program", args);
		sink += after_failed_exec();
		execv(argv[0], args);
		perror("execv");
		return 1;
	}
	if (!strcmp(mode, "exec-final") || !strcmp(mode, "noenv-final")) {
		sink += after_exec();
		printf("%s: LD_PRELOAD is %s\n", mode, getenv("LD_PRELOAD") ? "set" : "unset");
		return 0;
	}
	if (!strcmp(mode, "noenv")) {
		char *args[] = { argv[0], "noenv-final", NULL };
		char *env[] = { NULL };
		sink += before_exec();
		execve(argv[0], args, env);
		perror("execve");
		return 1;
	}
	if (!strcmp(mode, "spawn")) {
		char *args[] = { argv[0], "exec-final", NULL };
		char *env[] = { "EMPTY=1", NULL };
		pid_t pid;
		if (posix_spawn(&pid, argv[0], NULL, NULL, args, env) != 0)
			return 1;
		waitpid(pid, &status, 0);
		printf("spawned child exited with %d\n", WEXITSTATUS(status));
		return 0;
	}
	if (!strcmp(mode, "system")) {
		int rc = system("exit 3");
		printf("system returned %d\n", WEXITSTATUS(rc));
		return 0;
	}
	fprintf(stderr, "usage: procs fork|exec|noenv|spawn|system\n");
	return 2;
}
