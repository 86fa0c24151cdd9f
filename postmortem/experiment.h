/* experiment.h - the measurement files of one or more culprit runs, loaded
 * and checked against each other.
 *
 * A run's directory holds process files (identity, events, load map) and
 * thread files (trees); a thread belongs to the process whose nonce it
 * names.  Files that are damaged, or threads whose process file is
 * missing, are skipped with a warning (or, with strict, end the load). */
#ifndef CULPRIT_EXPERIMENT_H
#define CULPRIT_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "mfile_read.h"

struct exp_run;
struct sym_module;
struct symbolizer;

struct exp_process {
	char *path;			/* the process file */
	char *dir;			/* its measurement directory */
	struct mfile *mf;
	const struct mfile_process *p;	/* = &mf->u.process */
	struct sym_module **module;	/* by index in p->modules */
	size_t nthreads;		/* threads that loaded */
	uint32_t id;			/* 1, 2, ... in load order */
	struct exp_run *run;		/* the culprit run it came from (runs.h) */
};

struct exp_thread {
	char *path;
	struct mfile *mf;		/* NULL once merged and freed */
	const struct mfile_thread *t;
	struct exp_process *proc;
	uint32_t id;			/* 1, 2, ... in load order */
	/* copied before the tree is freed */
	uint32_t seq, tid, end_reason;
	uint64_t start_ns, end_ns;
	char *name;
	const struct experiment *experiment;	/* that holds it */
	uint32_t *ctx_map;		/* node -> merged context, once merged */
	uint32_t ctx_nodes;
};

struct experiment {
	struct exp_process **proc;
	size_t nproc;
	struct exp_thread **thread;
	size_t nthread;
	size_t files_skipped;		/* damaged or orphaned */
	struct exp_run **run;		/* by id - 1 (runs.h) */
	size_t nrun;
};

/* Loads every measurement file in DIRS into *E with up to JOBS threads.
 * A directory without measurement files whose subdirectories have them
 * (`culprit scale`'s) stands for those subdirectories.
 * Problems with single files are warnings, or errors when STRICT.  Returns
 * 0, or -1 after printing one line when nothing usable was found or
 * (STRICT) a file was bad; *E is then empty and needs no freeing. */
int experiment_load(struct experiment *e, char *const *dirs, int ndirs, int jobs, int strict);
/* The same, reading only the thread files KEEP(ARG, PATH) wants (every
 * process file is read): one rank's share of `culprit prof --mpi`.  Its
 * threads are numbered among themselves, and having none is no error. */
typedef int (*exp_keep_fn)(void *arg, const char *path);
int experiment_load_some(struct experiment *e, char *const *dirs, int ndirs, int jobs,
			 int strict, exp_keep_fn keep, void *arg);
/* Frees what *E holds and leaves it empty; freeing an empty one is a no-op. */
void experiment_free(struct experiment *e);

/* Gives every process's modules a symbolizer module. */
void experiment_modules(struct experiment *e, struct symbolizer *sym);

/* The module with ID in process P, or NULL. */
struct sym_module *exp_module(const struct exp_process *p, uint32_t id, size_t *index);

/* Frees a thread's tree once it has been merged, keeping its identity. */
void exp_thread_release(struct exp_thread *t);

#endif
