/* exits.c - every way a process can end, with a worker thread still
 * running: return, exit, _exit, _Exit, pthread_exit of main, exec,
 * SIGSEGV, abort, SIGTERM, SIGINT.  usage: exits MODE */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "work.h"

volatile double sink;
/* Not a constant, so the compiler cannot see the fault coming. */
static volatile int *volatile unmapped = (volatile int *)16;
static volatile int stop;

__attribute__((noinline)) double main_work(void) { return work_units(40000000); }

static void *background(void *arg)
{
	(void)arg;
	while (!stop)
		sink += work_units(100000);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "return";
	pthread_t t;

	pthread_create(&t, NULL, background, NULL);
	sink += main_work();
	printf("ending by %s\n", mode);
	fflush(stdout);
	if (!strcmp(mode, "exit"))
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
	if (!strcmp(mode, "segv"))
		*unmapped = 1;
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "term"))
		kill(getpid(), SIGTERM);
	if (!strcmp(mode, "int"))
		raise(SIGINT);
	return 0;
}
