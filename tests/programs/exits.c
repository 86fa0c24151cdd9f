/* exits.c - every way a process can end, with a worker thread still
 * running: return, exit, _exit, _Exit, pthread_exit of main, exec,
 * SIGSEGV, abort, SIGTERM, SIGINT; and two threads crashing at the same
 * moment (segv2, abort2), as parallel code often does; a program that
 * closes every descriptor and then dup2()s /dev/null over them all
 * before it ends normally (closefds); and killed: print
 * the pid and work for 30 s, for the test to kill with SIGKILL.
 * usage: exits MODE */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

volatile double sink;
/* Not a constant, so the compiler cannot see the fault coming. */
static volatile int *volatile unmapped = (volatile int *)16;
static volatile int stop;

__attribute__((noinline)) double main_work(void) { return work_units(40000000); }

static pthread_barrier_t together;

static void crash(const char *mode)
{
	if (!strcmp(mode, "segv") || !strcmp(mode, "segv2"))
		*unmapped = 1;
	if (!strcmp(mode, "abort") || !strcmp(mode, "abort2"))
		abort();
}

static void *background(void *arg)
{
	const char *mode = arg;
	/* The two-thread crashes: both threads meet, then both crash. */
	if (mode[strlen(mode) - 1] == '2') {
		sink += work_units(20000000);
		pthread_barrier_wait(&together);
		crash(mode);
	}
	while (!stop)
		sink += work_units(100000);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "return";
	pthread_t t;

	if (!strcmp(mode, "killed")) {
		printf("%d\n", (int)getpid());
		fflush(stdout);
		pthread_create(&t, NULL, background, (void *)mode);
		time_t until = time(NULL) + 30;	/* unless killed first */
		while (time(NULL) < until)
			sink += main_work();
		return 0;
	}
	pthread_barrier_init(&together, NULL, 2);
	if (!strcmp(mode, "closefds")) {
		for (int fd = 3; fd < 4096; fd++)
			close(fd);
		int null = open("/dev/null", O_WRONLY);
		for (int fd = 3; fd < 1024; fd++)
			if (fd != null)
				dup2(null, fd);
	}
	pthread_create(&t, NULL, background, (void *)mode);
	sink += main_work();
	printf("ending by %s\n", mode);
	fflush(stdout);
	if (mode[0] && mode[strlen(mode) - 1] == '2') {
		pthread_barrier_wait(&together);
		crash(mode);
	}
	if (!strcmp(mode, "exit") || !strcmp(mode, "closefds"))
		exit(5);
	if (!strcmp(mode, "_exit"))
		_exit(6);
	if (!strcmp(mode, "_Exit"))
		_Exit(8);
	if (!strcmp(mode, "pthread_exit")) {
		stop = 1;
		pthread_exit(NULL);
	}
	if (!strcmp(mode, "exec"))
		execl("/bin/sh", "sh", "-c", "exit 4", (char *)NULL);
	crash(mode);
	if (!strcmp(mode, "term"))
		kill(getpid(), SIGTERM);
	if (!strcmp(mode, "int")) {
		/* A shell starts a background job with SIGINT ignored, and
		 * the test suite may run as one: the default, as at a
		 * terminal. */
		signal(SIGINT, SIG_DFL);
		raise(SIGINT);
	}
	return 0;
}
