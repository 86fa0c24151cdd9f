/* run_health.c - what went wrong in the measurement itself, for the last
 * line of `culprit run`: samples dropped, unwinds that stopped early,
 * waits not recorded, and thread files that are missing or damaged.  A
 * user should not have to run prof to learn that the run lost data. */
#define _GNU_SOURCE
#include "driver.h"
#include "mfile_format.h"
#include "mfile_read.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t counter(const struct mfile_thread *t, const char *name)
{
	for (uint32_t i = 0; i < t->ncounters; i++)
		if (strcmp(t->counters[i].name, name) == 0)
			return t->counters[i].value;
	return 0;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n > k && strcmp(s + n - k, tail) == 0;
}

void run_remove_spares(const char *dir, const struct launch *owner)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] == '.' && ends_with(e->d_name, ".process.spare") &&
		    (!owner || launch_owns(owner, e->d_name)))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

void run_health_read(const char *dir, const struct launch *owner, struct run_health *h)
{
	memset(h, 0, sizeof *h);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	uint64_t expected = 0, found = 0;
	while ((e = readdir(d))) {
		int thread = ends_with(e->d_name, ".thread");
		if ((!thread && !ends_with(e->d_name, ".process")) ||
		    (owner && !launch_owns(owner, e->d_name)))
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		struct mfile *mf;
		struct mfile_error err;
		if (mfile_load(path, &mf, &err) < 0) {
			h->damaged++;
		} else if (thread && mf->kind == MFILE_THREAD) {
			const struct mfile_thread *t = &mf->u.thread;
			found++;
			h->samples += counter(t, "samples");
			h->dropped += counter(t, "dropped:busy") + counter(t, "dropped:tree_full");
			h->partial += counter(t, "unwind:partial");
			h->truncated += counter(t, "unwind:truncated");
			h->waits_lost += counter(t, "waits:lost");
			h->throttled += counter(t, "throttled");
			mfile_free(mf);
		} else {
			if (mf->kind == MFILE_PROCESS) {
				expected += mf->u.process.thread_count;
				h->unfinished += mf->snapshot_ns != 0;
			}
			mfile_free(mf);
		}
		free(path);
	}
	closedir(d);
	h->missing = expected > found ? expected - found : 0;
}

/* Appends "; TEXT" to OUT (of SIZE). */
static void add(char *out, size_t size, const char *fmt, unsigned long long n,
		const char *what)
{
	size_t len = strlen(out);
	snprintf(out + len, size - len, fmt, len ? "; " : "", n, what);
}

void run_health_text(const struct run_health *h, char *out, size_t size)
{
	out[0] = 0;
	if (h->unfinished)
		add(out, size, "%s%llu %s", h->unfinished, h->unfinished == 1
		    ? "process did not end normally, or its last file was not written (killed? "
		      "a full disk?): its files are a snapshot"
		    : "processes did not end normally, or their last files were not written "
		      "(killed? a full disk?): their files are snapshots");
	if (h->dropped) {
		size_t len = strlen(out);
		snprintf(out + len, size - len, "%s%llu of %llu samples dropped",
			 len ? "; " : "", (unsigned long long)h->dropped,
			 (unsigned long long)(h->samples + h->dropped));
	}
	if (h->partial)
		add(out, size, "%s%llu %s", h->partial, "samples unwound only partly");
	if (h->truncated)
		add(out, size, "%s%llu %s", h->truncated, "samples deeper than the depth limit");
	if (h->throttled)
		add(out, size, "%s%llu %s", h->throttled,
		    "signals merged into later samples: unwinding took over a quarter of the "
		    "time (deep stacks? lower --max-depth or the rate)");
	if (h->waits_lost)
		add(out, size, "%s%llu %s", h->waits_lost, "waits not recorded");
	if (h->missing)
		add(out, size, "%s%llu %s", h->missing, "thread files missing");
	if (h->damaged)
		add(out, size, "%s%llu %s", h->damaged, "files damaged");
}

int run_health_serious(const struct run_health *h)
{
	unsigned long long all = h->samples + h->dropped;
	return h->missing || h->damaged || h->unfinished ||
	       (all > 0 && 100 * (h->dropped + h->partial + h->truncated) >= 5 * all);
}
