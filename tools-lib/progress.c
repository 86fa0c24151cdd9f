/* progress.c - the one-line progress report of long commands, and the
 * clock it is timed with. */
#define _GNU_SOURCE
#include "tools.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static struct {
	double start;
	double first;		/* the first progress_start: forced lines' clock */
	int shown;
	int active;
	int forced;
	const char *what;
} progress;

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_start(const char *what)
{
	const char *force = getenv("CULPRIT_PROGRESS");
	progress.forced = force && *force == '1';
	if (progress.first == 0)
		progress.first = now_seconds();
	if (!progress.active) {
		progress.start = now_seconds();
		progress.active = 1;
	}
	progress.what = what;
}

void progress_update(const char *fmt, ...)
{
	if (!progress.active)
		return;
	if (!progress.forced && (now_seconds() - progress.start < 1.0 || !isatty(STDERR_FILENO)))
		return;
	char line[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* Forced into a file or pipe, each line is timed, so that the log
	 * says how long each step took. */
	if (progress.forced && !isatty(STDERR_FILENO))
		fprintf(stderr, "culprit: %7.3f s %s: %s\n", now_seconds() - progress.first,
			progress.what, line);
	else
		fprintf(stderr, "\rculprit: %s: %s\033[K", progress.what, line);
	progress.shown = 1;
}

void progress_end(void)
{
	if (progress.shown && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	progress.shown = 0;
	progress.active = 0;
}
