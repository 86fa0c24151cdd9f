/* msg.c - the one way culprit's commands speak on standard error. */
#include "tools.h"

#include <stdarg.h>
#include <stdio.h>

static int silenced;

void msg_silence(int on)
{
	silenced = on;
}

int msg_silenced(void)
{
	return silenced;
}

static void say(const char *prefix, const char *fmt, va_list ap)
{
	if (silenced)
		return;
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int msg_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("culprit: ", fmt, ap);
	va_end(ap);
	return -1;
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("culprit: warning: ", fmt, ap);
	va_end(ap);
}

void msg_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("culprit: ", fmt, ap);
	va_end(ap);
}

int msg_usage(const char *command, const char *fmt, ...)
{
	va_list ap;
	if (silenced)
		return EXIT_USAGE;
	fprintf(stderr, "culprit %s: ", command);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}
