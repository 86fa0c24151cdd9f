/* util.c - allocation, a parallel loop and the progress line for the
 * postmortem. */
#define _GNU_SOURCE
#include "pm.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void out_of_memory(size_t size)
{
	fprintf(stderr, "culprit: out of memory (wanted %zu bytes)\n", size);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		out_of_memory(strlen(s));
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory(0);
	return s;
}

void grow_array(void *p, size_t *cap, size_t need, size_t size)
{
	void **arr = p;
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	*arr = xrealloc(*arr, c * size);
	*cap = c;
}

int cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

struct loop {
	void (*fn)(void *, size_t);
	void *arg;
	size_t n;
	atomic_size_t next;
};

static void *loop_worker(void *p)
{
	struct loop *l = p;
	size_t i;
	while ((i = atomic_fetch_add(&l->next, 1)) < l->n)
		l->fn(l->arg, i);
	return NULL;
}

void parallel_for(int jobs, size_t n, void (*fn)(void *, size_t), void *arg)
{
	struct loop l = { fn, arg, n, 0 };
	if (jobs > (int)n)
		jobs = (int)n;
	if (jobs <= 1) {
		for (size_t i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	pthread_t *t = xcalloc((size_t)jobs, sizeof *t);
	int started = 0;
	for (int j = 1; j < jobs; j++)
		if (pthread_create(&t[j], NULL, loop_worker, &l) == 0)
			started++;
		else
			break;
	loop_worker(&l);
	for (int j = 1; j <= started; j++)
		pthread_join(t[j], NULL);
	free(t);
}

static struct {
	double start;
	int shown;
	int active;
	int forced;
	const char *what;
} progress;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_start(const char *what)
{
	const char *force = getenv("CULPRIT_PROGRESS");
	progress.forced = force && *force == '1';
	if (!progress.active) {
		progress.start = now();
		progress.active = 1;
	}
	progress.what = what;
}

void progress_update(const char *fmt, ...)
{
	if (!progress.active)
		return;
	if (!progress.forced && (now() - progress.start < 1.0 || !isatty(STDERR_FILENO)))
		return;
	char line[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\rculprit: %s: %s\033[K", progress.what, line);
	if (progress.forced && !isatty(STDERR_FILENO))
		fputc('\n', stderr);
	progress.shown = 1;
}

void progress_end(void)
{
	if (progress.shown && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	progress.shown = 0;
	progress.active = 0;
}
