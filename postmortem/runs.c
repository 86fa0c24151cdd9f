/* runs.c - processes grouped into the runs they came from (runs.h). */
#define _GNU_SOURCE
#include "runs.h"
#include "mfile_format.h"
#include "run_info.h"
#include "tools.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct exp_run *find_run(struct experiment *e, const char *name)
{
	for (size_t i = 0; i < e->nrun; i++)
		if (strcmp(e->run[i]->name, name) == 0)
			return e->run[i];
	return NULL;
}

/* Reads the run files of DIR into the runs they name. */
static void read_run_files(struct experiment *e, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	if (!d)
		return;
	while ((ent = readdir(d))) {
		if (!run_info_name(ent->d_name))
			continue;
		char *path = xasprintf("%s/%s", dir, ent->d_name);
		struct run_info info;
		struct exp_run *r;
		if (run_info_read(path, &info) == 0 && (r = find_run(e, info.experiment)) &&
		    !r->has_info) {
			r->has_info = 1;
			snprintf(r->label, sizeof r->label, "%s", info.label);
			r->threads = info.threads;
			r->cores = info.cores;
			free(r->command);
			r->command = xstrdup(info.command);
			r->start = info.start;
			r->wall = info.wall;
			r->cpu = info.cpu;
			r->status = info.status;
		}
		free(path);
	}
	closedir(d);
}

struct edge {
	uint64_t ns;
	int delta;
};

static int by_time(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->delta - y->delta;	/* an end before a start at the same time */
}

/* The most threads of run R alive at once. */
static long most_threads(const struct experiment *e, const struct exp_run *r)
{
	struct edge *edge = xcalloc(2 * e->nthread + 1, sizeof *edge);
	size_t n = 0;
	for (size_t i = 0; i < e->nthread; i++) {
		const struct exp_thread *t = e->thread[i];
		if (t->proc->run != r)
			continue;
		edge[n++] = (struct edge){ t->start_ns, +1 };
		edge[n++] = (struct edge){ t->end_ns > t->start_ns ? t->end_ns : t->start_ns, -1 };
	}
	qsort(edge, n, sizeof *edge, by_time);
	long alive = 0, most = 0;
	for (size_t i = 0; i < n; i++) {
		alive += edge[i].delta;
		if (alive > most)
			most = alive;
	}
	free(edge);
	return most;
}

/* What the measurements say of R where no run file does. */
static void from_measurements(const struct experiment *e, struct exp_run *r)
{
	const struct mfile_process *first = NULL;
	uint64_t start = UINT64_MAX, end = 0;
	for (size_t i = 0; i < e->nproc; i++) {
		const struct mfile_process *p = e->proc[i]->p;
		if (e->proc[i]->run != r)
			continue;
		if (!first || p->start_realtime_ns < first->start_realtime_ns)
			first = p;
		if (p->start_realtime_ns < start)
			start = p->start_realtime_ns;
		if (p->end_realtime_ns > end)
			end = p->end_realtime_ns;
	}
	if (r->threads <= 0)
		r->threads = most_threads(e, r);
	if (r->has_info || !first)
		return;
	r->start = (double)start / 1e9;
	r->wall = end > start ? (double)(end - start) / 1e9 : 0;
	r->cpu = -1;
	/* The status is the last program's that the first process ran. */
	const struct mfile_process *last = first;
	for (size_t i = 0; i < e->nproc; i++) {
		const struct mfile_process *p = e->proc[i]->p;
		if (e->proc[i]->run == r && p->pid == first->pid && p->generation > last->generation)
			last = p;
	}
	r->status = last->end_reason == MFILE_END_EXIT || last->end_reason == MFILE_END_EXIT_NOW
		    ? last->end_status
		    : last->end_reason == MFILE_END_SIGNAL ? 128 + last->end_status : -1;
	r->command = join_words(first->argv, first->argc);
}

static int by_threads_start(const void *a, const void *b)
{
	const struct exp_run *x = *(struct exp_run *const *)a, *y = *(struct exp_run *const *)b;
	if (x->threads != y->threads)
		return x->threads < y->threads ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Labels runs without one tN, and makes each label unique ("t4", "t4-2"). */
static void label_runs(struct experiment *e)
{
	for (size_t i = 0; i < e->nrun; i++) {
		struct exp_run *r = e->run[i];
		if (!r->label[0])
			snprintf(r->label, sizeof r->label, "t%ld", r->threads);
		char base[72];
		snprintf(base, sizeof base, "%s", r->label);
		for (int k = 2;; k++) {
			size_t j = 0;
			while (j < i && strcmp(e->run[j]->label, r->label) != 0)
				j++;
			if (j == i)
				break;
			snprintf(r->label, sizeof r->label, "%.60s-%d", base, k);
		}
	}
}

void experiment_runs(struct experiment *e)
{
	for (size_t i = 0; i < e->nproc; i++) {
		struct exp_process *p = e->proc[i];
		const char *x = p->p->experiment;
		char *name = x && *x ? xstrdup(x) : xasprintf("directory %s", p->dir);
		struct exp_run *r = find_run(e, name);
		if (r) {
			free(name);
		} else {
			r = xcalloc(1, sizeof *r);
			r->name = name;
			r->dir = xstrdup(p->dir);
			r->cpu = -1;
			r->status = -1;
			e->run = xrealloc(e->run, (e->nrun + 1) * sizeof *e->run);
			e->run[e->nrun++] = r;
		}
		p->run = r;
	}
	for (size_t i = 0; i < e->nproc; i++) {
		size_t j = 0;
		while (j < i && strcmp(e->proc[j]->dir, e->proc[i]->dir) != 0)
			j++;
		if (j == i)
			read_run_files(e, e->proc[i]->dir);
	}
	for (size_t i = 0; i < e->nrun; i++)
		from_measurements(e, e->run[i]);
	qsort(e->run, e->nrun, sizeof *e->run, by_threads_start);
	for (size_t i = 0; i < e->nrun; i++)
		e->run[i]->id = (uint32_t)i + 1;
	label_runs(e);
}
