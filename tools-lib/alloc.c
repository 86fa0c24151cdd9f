/* alloc.c - allocation that cannot fail: running out of memory ends the
 * command with one line.  The tools write what they make under a
 * temporary name and rename it at the end, so nothing half-made is left. */
#define _GNU_SOURCE
#include "tools.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t size)
{
	msg_error("out of memory (wanted %zu bytes)", size);
	exit(EXIT_FAIL);
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

char *join_words(char *const *words, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	char *all = xcalloc(len + 1, 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(all, " ");
		strcat(all, words[i]);
	}
	return all;
}
