/* experiment.c - finds, loads and cross-checks measurement files.
 *
 * Loading (reading, checksumming and decoding) is the part of the
 * postmortem that grows with the number of threads, so it runs on all
 * cores.  Checks that span files happen here: a thread's columns must
 * name its process's events, and its frames its process's modules. */
#define _GNU_SOURCE
#include "experiment.h"
#include "runs.h"
#include "mfile_format.h"
#include "symbolize.h"
#include "tools.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct file {
	char *path;
	char *dir;
	struct mfile *mf;
	char err[600];
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

static int by_path(const void *a, const void *b)
{
	const struct file *x = a, *y = b;
	return strcmp(x->path, y->path);
}

static int by_process_seq(const void *a, const void *b)
{
	const struct exp_thread *x = *(struct exp_thread *const *)a;
	const struct exp_thread *y = *(struct exp_thread *const *)b;
	if (x->proc->id != y->proc->id)
		return x->proc->id < y->proc->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void load_one(void *arg, size_t i)
{
	struct file *f = (struct file *)arg + i;
	struct mfile_error err;
	if (mfile_load(f->path, &f->mf, &err) < 0)
		snprintf(f->err, sizeof f->err, "%s", err.msg);
}

/* Says why the file at PATH cannot be used: an error that will stop the
 * load when STRICT (setting *FAILED), else a warning that it is skipped. */
static void reject_file(int strict, int *failed, const char *path, const char *why)
{
	if (strict) {
		msg_error("%s: %s; stopping (--strict)", path, why);
		*failed = 1;
	} else {
		msg_warn("%s: %s; skipped", path, why);
	}
}

/* Checks what a thread file says against its process file. */
static const char *cross_check(const struct mfile_thread *t, const struct mfile_process *p,
			       char *buf, size_t size)
{
	for (uint32_t c = 0; c < t->ncolumns; c++)
		if (t->columns[c].event >= p->nevents) {
			snprintf(buf, size, "column %u names event %u, but its process has %u events",
				 c, t->columns[c].event, p->nevents);
			return buf;
		}
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct mfile_node *n = &t->nodes[i];
		if (n->kind != MFILE_NODE_FRAME || n->module == 0)
			continue;
		int found = 0;
		for (uint32_t m = 0; m < p->nmodules && !found; m++)
			found = p->modules[m].id == n->module;
		if (!found) {
			snprintf(buf, size, "node %u is in module %u, which its process file does "
				 "not list", i, n->module);
			return buf;
		}
	}
	return NULL;
}

/* The measurement files found so far, one entry each. */
struct file_list {
	struct file *file;
	size_t n, cap;
};

/* Frees the list and what its files still own (what no process or
 * thread took). */
static void free_files(struct file_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->file[i].path);
		free(l->file[i].dir);
		mfile_free(l->file[i].mf);
	}
	free(l->file);
	memset(l, 0, sizeof *l);
}

static int measurement_name(const char *name)
{
	return ends_with(name, ".process") || ends_with(name, ".thread");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The subdirectories of DIR that hold measurement files, sorted (`culprit
 * scale`'s DIR/t1, DIR/t2, ...), into *OUT; returns how many. */
static size_t run_subdirectories(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	size_t n = 0, cap = 0;
	*out = NULL;
	if (!d)
		return 0;
	while ((ent = readdir(d))) {
		if (ent->d_name[0] == '.')
			continue;
		char *sub = xasprintf("%s/%s", dir, ent->d_name);
		struct stat st;
		DIR *s = stat(sub, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(sub) : NULL;
		struct dirent *f;
		int holds = 0;
		while (s && !holds && (f = readdir(s)))
			holds = measurement_name(f->d_name);
		if (s)
			closedir(s);
		if (holds) {
			grow_array(out, &cap, n + 1, sizeof **out);
			(*out)[n++] = sub;
		} else {
			free(sub);
		}
	}
	closedir(d);
	if (n > 1)
		qsort(*out, n, sizeof **out, by_name);
	return n;
}

static int list_files(const char *dir, struct file_list *l);

/* Adds the measurement files of directory DIR to L, or those of its
 * subdirectories when it has none itself.  Returns 0, or -1 after a
 * message when DIR is not a measurement directory. */
static int list_directory(const char *dir, struct file_list *l)
{
	size_t before = l->n;
	if (list_files(dir, l) < 0)
		return -1;
	if (l->n > before)
		return 0;
	char **sub;
	size_t nsub = run_subdirectories(dir, &sub);
	for (size_t i = 0; i < nsub; i++) {
		list_files(sub[i], l);
		free(sub[i]);
	}
	free(sub);
	if (l->n == before) {
		msg_error("%s holds no measurement files (.process, .thread); give a "
			  "directory written by `culprit run` or `culprit scale`", dir);
		return -1;
	}
	return 0;
}

/* Adds the measurement files in directory DIR itself to L.  Returns 0, or
 * -1 after a message when DIR is not a directory. */
static int list_files(const char *dir, struct file_list *l)
{
	struct stat st;
	if (stat(dir, &st) != 0) {
		msg_error("%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		msg_error("%s is not a directory; give the directory `culprit run` wrote", dir);
		return -1;
	}
	DIR *d = opendir(dir);
	if (!d) {
		msg_error("%s: %s", dir, strerror(errno));
		return -1;
	}
	struct dirent *ent;
	while ((ent = readdir(d))) {
		if (!measurement_name(ent->d_name))
			continue;
		grow_array(&l->file, &l->cap, l->n + 1, sizeof *l->file);
		struct file *f = &l->file[l->n++];
		memset(f, 0, sizeof *f);
		f->path = xasprintf("%s/%s", dir, ent->d_name);
		f->dir = xstrdup(dir);
	}
	closedir(d);
	return 0;
}

/* Makes a process of every process file that loaded, taking the file's
 * path, directory and contents; reports the files that did not load. */
static void adopt_processes(struct experiment *e, struct file_list *l, int strict, int *failed)
{
	for (size_t i = 0; i < l->n; i++) {
		struct file *f = &l->file[i];
		if (!f->mf) {
			reject_file(strict, failed, f->path, f->err);
			e->files_skipped++;
			continue;
		}
		if (f->mf->kind != MFILE_PROCESS)
			continue;
		struct exp_process *p = xcalloc(1, sizeof *p);
		p->path = f->path;
		p->dir = f->dir;
		p->mf = f->mf;
		p->p = &f->mf->u.process;
		p->id = (uint32_t)e->nproc + 1;
		f->path = f->dir = NULL;
		f->mf = NULL;
		e->proc = xrealloc(e->proc, (e->nproc + 1) * sizeof *e->proc);
		e->proc[e->nproc++] = p;
	}
}

/* The process of thread T, whose file is in DIR: the one there with its
 * nonce; NULL if none. */
static struct exp_process *thread_owner(const struct experiment *e, const struct mfile_thread *t,
					const char *dir)
{
	for (size_t k = 0; k < e->nproc; k++)
		if (e->proc[k]->p->nonce == t->process_nonce && strcmp(e->proc[k]->dir, dir) == 0)
			return e->proc[k];
	return NULL;
}

/* Makes a thread of thread file F of process OWNER, taking the file's
 * path and contents. */
static void add_thread(struct experiment *e, struct file *f, struct exp_process *owner)
{
	const struct mfile_thread *t = &f->mf->u.thread;
	struct exp_thread *th = xcalloc(1, sizeof *th);
	th->path = f->path;
	th->mf = f->mf;
	th->t = t;
	th->proc = owner;
	th->id = (uint32_t)e->nthread + 1;
	th->seq = t->seq;
	th->tid = t->tid;
	th->end_reason = t->end_reason;
	th->start_ns = t->start_realtime_ns;
	th->end_ns = t->end_realtime_ns;
	th->name = xstrdup(t->name);
	th->experiment = e;
	owner->nthreads++;
	f->path = NULL;
	f->mf = NULL;
	e->thread = xrealloc(e->thread, (e->nthread + 1) * sizeof *e->thread);
	e->thread[e->nthread++] = th;
}

/* Makes a thread of every thread file whose process is known and whose
 * contents agree with it; reports the others. */
static void adopt_threads(struct experiment *e, struct file_list *l, int strict, int *failed)
{
	for (size_t i = 0; i < l->n; i++) {
		struct file *f = &l->file[i];
		if (!f->mf || f->mf->kind != MFILE_THREAD)
			continue;
		const struct mfile_thread *t = &f->mf->u.thread;
		struct exp_process *owner = thread_owner(e, t, f->dir);
		char why[300];
		const char *bad = NULL;
		if (!owner) {
			snprintf(why, sizeof why, "no process file in its directory has its nonce "
				 "%016llx (was the process killed with SIGKILL?)",
				 (unsigned long long)t->process_nonce);
			bad = why;
		} else {
			bad = cross_check(t, owner->p, why, sizeof why);
		}
		if (bad) {
			reject_file(strict, failed, f->path, bad);
			e->files_skipped++;
			mfile_free(f->mf);
			f->mf = NULL;
			continue;
		}
		add_thread(e, f, owner);
	}
}

/* One line per process whose files are snapshots taken while it ran: it
 * never ended normally, so what it did after the last one is missing. */
static void warn_unfinished(const struct experiment *e)
{
	for (size_t i = 0; i < e->nproc; i++) {
		const struct mfile_process *p = e->proc[i]->p;
		if (!e->proc[i]->mf->snapshot_ns)
			continue;
		const char *base = p->exe ? strrchr(p->exe, '/') : NULL;
		char *name = xstrdup(base ? base + 1 : p->exe ? p->exe : "?");
		make_safe(name);
		msg_warn("process %u (%s) did not end normally, or its last files could not be "
			 "written (killed by SIGKILL or the OOM killer? a full disk?): its "
			 "measurements are a snapshot from %.1f s after it started, and what it "
			 "ran after that is missing", p->pid, name,
			 (double)(p->end_monotonic_ns - p->start_monotonic_ns) * 1e-9);
		free(name);
	}
}

/* Drops the thread files of L that KEEP does not want, unread. */
static void keep_threads(struct file_list *l, exp_keep_fn keep, void *arg)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++) {
		struct file *f = &l->file[i];
		if (ends_with(f->path, ".thread") && !keep(arg, f->path)) {
			free(f->path);
			free(f->dir);
			continue;
		}
		l->file[n++] = *f;
	}
	l->n = n;
}

int experiment_load(struct experiment *e, char *const *dirs, int ndirs, int jobs, int strict)
{
	return experiment_load_some(e, dirs, ndirs, jobs, strict, NULL, NULL);
}

int experiment_load_some(struct experiment *e, char *const *dirs, int ndirs, int jobs,
			 int strict, exp_keep_fn keep, void *arg)
{
	struct file_list files = { NULL, 0, 0 };
	int failed = 0;

	memset(e, 0, sizeof *e);
	for (int d = 0; d < ndirs && !failed; d++)
		failed = list_directory(dirs[d], &files) < 0;
	if (!failed) {
		qsort(files.file, files.n, sizeof *files.file, by_path);
		if (keep)
			keep_threads(&files, keep, arg);
		progress_start("reading");
		progress_update("%zu files", files.n);
		parallel_for(jobs, files.n, load_one, files.file);
		/* Processes first, so that threads can find theirs. */
		adopt_processes(e, &files, strict, &failed);
		adopt_threads(e, &files, strict, &failed);
		progress_end();
		/* Threads in process and creation order (t2 before t10), numbered so. */
		if (e->nthread)	/* none: a rank of prof --mpi with no share */
			qsort(e->thread, e->nthread, sizeof *e->thread, by_process_seq);
		for (size_t i = 0; i < e->nthread; i++)
			e->thread[i]->id = (uint32_t)i + 1;
	}
	free_files(&files);
	if (!failed) {
		warn_unfinished(e);
		experiment_runs(e);
	}
	if (!failed && e->nthread == 0 && !keep) {
		msg_error("no usable thread measurements in %s%s", dirs[0],
			  ndirs > 1 ? " and the others" : "");
		failed = 1;
	}
	if (failed) {
		experiment_free(e);
		return -1;
	}
	return 0;
}

void experiment_modules(struct experiment *e, struct symbolizer *sym)
{
	for (size_t i = 0; i < e->nproc; i++) {
		struct exp_process *p = e->proc[i];
		p->module = xcalloc(p->p->nmodules + 1, sizeof *p->module);
		for (uint32_t m = 0; m < p->p->nmodules; m++) {
			const struct mfile_module *mod = &p->p->modules[m];
			if (mod->flags & MFILE_MOD_VDSO) {
				char *path = xasprintf("%s/%s", p->dir, mod->path);
				p->module[m] = symbolizer_module(sym, path, mod->build_id,
								 mod->build_id_len, "[vdso]");
				free(path);
			} else {
				p->module[m] = symbolizer_module(sym, mod->path, mod->build_id,
								 mod->build_id_len, NULL);
			}
		}
	}
}

struct sym_module *exp_module(const struct exp_process *p, uint32_t id, size_t *index)
{
	/* Ids are 1, 2, ... in order; search in case a writer skipped some. */
	if (id >= 1 && id <= p->p->nmodules && p->p->modules[id - 1].id == id) {
		if (index)
			*index = id - 1;
		return p->module ? p->module[id - 1] : NULL;
	}
	for (uint32_t m = 0; m < p->p->nmodules; m++)
		if (p->p->modules[m].id == id) {
			if (index)
				*index = m;
			return p->module ? p->module[m] : NULL;
		}
	return NULL;
}

void exp_thread_release(struct exp_thread *t)
{
	mfile_free(t->mf);
	t->mf = NULL;
	t->t = NULL;
}

void experiment_free(struct experiment *e)
{
	for (size_t i = 0; i < e->nthread; i++) {
		exp_thread_release(e->thread[i]);
		free(e->thread[i]->path);
		free(e->thread[i]->name);
		free(e->thread[i]->ctx_map);
		free(e->thread[i]);
	}
	for (size_t i = 0; i < e->nproc; i++) {
		mfile_free(e->proc[i]->mf);
		free(e->proc[i]->module);
		free(e->proc[i]->path);
		free(e->proc[i]->dir);
		free(e->proc[i]);
	}
	for (size_t i = 0; i < e->nrun; i++) {
		free(e->run[i]->name);
		free(e->run[i]->dir);
		free(e->run[i]->command);
		free(e->run[i]);
	}
	free(e->run);
	free(e->thread);
	free(e->proc);
	memset(e, 0, sizeof *e);
}
