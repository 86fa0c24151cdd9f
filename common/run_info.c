/* run_info.c - the run file `culprit run` leaves beside the measurements
 * (run_info.h). */
#define _GNU_SOURCE
#include "run_info.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Copies VALUE into OUT as one line: a command line may hold newlines. */
static void put_line(FILE *f, const char *key, const char *value)
{
	fprintf(f, "%s ", key);
	for (const char *c = value; *c; c++)
		fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
	fputc('\n', f);
}

int run_info_write(const char *dir, const struct run_info *info)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/" RUN_INFO_PREFIX "%s" RUN_INFO_SUFFIX, dir,
		     info->experiment) >= (int)sizeof path ||
	    snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	put_line(f, "experiment", info->experiment);
	if (info->label[0])
		put_line(f, "label", info->label);
	if (info->threads > 0)
		fprintf(f, "threads %ld\n", info->threads);
	if (info->cores > 0)
		fprintf(f, "cores %ld\n", info->cores);
	put_line(f, "command", info->command);
	fprintf(f, "start %.6f\nwall %.6f\ncpu %.6f\nstatus %d\n", info->start, info->wall,
		info->cpu, info->status);
	int bad = fflush(f) != 0 || fsync(fd) != 0;
	int saved = errno;
	if (fclose(f) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad || rename(tmp, path) != 0) {
		if (!bad)
			saved = errno;
		unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
}

/* Copies the rest of a line, its newline dropped, into OUT of SIZE. */
static void copy_value(char *out, size_t size, const char *value)
{
	size_t n = strcspn(value, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(out, value, n);
	out[n] = 0;
}

int run_info_read(const char *path, struct run_info *info)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	memset(info, 0, sizeof *info);
	info->status = -1;
	char line[2048];
	while (fgets(line, sizeof line, f)) {
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		const char *v = sp + 1;
		if (strcmp(line, "experiment") == 0)
			copy_value(info->experiment, sizeof info->experiment, v);
		else if (strcmp(line, "label") == 0)
			copy_value(info->label, sizeof info->label, v);
		else if (strcmp(line, "command") == 0)
			copy_value(info->command, sizeof info->command, v);
		else if (strcmp(line, "threads") == 0)
			info->threads = strtol(v, NULL, 10);
		else if (strcmp(line, "cores") == 0)
			info->cores = strtol(v, NULL, 10);
		else if (strcmp(line, "start") == 0)
			info->start = strtod(v, NULL);
		else if (strcmp(line, "wall") == 0)
			info->wall = strtod(v, NULL);
		else if (strcmp(line, "cpu") == 0)
			info->cpu = strtod(v, NULL);
		else if (strcmp(line, "status") == 0)
			info->status = (int)strtol(v, NULL, 10);
	}
	fclose(f);
	if (info->threads < 0)
		info->threads = 0;
	if (info->cores < 0)
		info->cores = 0;
	return info->experiment[0] ? 0 : -1;
}

int run_info_name(const char *name)
{
	size_t n = strlen(name), p = strlen(RUN_INFO_PREFIX), s = strlen(RUN_INFO_SUFFIX);
	return n > p + s && strncmp(name, RUN_INFO_PREFIX, p) == 0 &&
	       strcmp(name + n - s, RUN_INFO_SUFFIX) == 0;
}

long run_info_threads(const char *value)
{
	if (!value)
		return 0;
	char *end;
	errno = 0;
	long n = strtol(value, &end, 10);
	if (errno || end == value || (*end && *end != ',') || n <= 0 || n > 1000000)
		return 0;
	return n;
}
