/* prof.h - `culprit prof`'s steps (prof.c), shared with its MPI form
 * (prof_mpi.c, the program culprit-prof-mpi that `culprit prof --mpi`
 * becomes): the options, the checks, the load, and the writing of the
 * database around a merge that either does. */
#ifndef CULPRIT_PROF_H
#define CULPRIT_PROF_H

#include <sqlite3.h>

#include "diagnose.h"
#include "experiment.h"
#include "merge.h"
#include "overhead.h"
#include "trace.h"

extern const char prof_usage[];

/* Names of overhead types, each once; the merge makes a metric of each. */
struct type_set {
	char **name;		/* owned, as are the strings */
	size_t n, cap;
};

#define MAX_RULE_FILES 64

/* What `culprit prof` was asked to do. */
struct prof_options {
	const char *output;		/* -o, or NULL: the first DIR's name + .db */
	int jobs;			/* -j: threads to work with */
	int jobs_given;			/* -j was given */
	int force;			/* --force: replace OUTPUT */
	int strict;			/* --strict: stop at a bad file */
	int quiet;			/* -q: no summary line */
	int default_rules;		/* 0 with --no-default-rules */
	int show_rules;			/* --show-rules: print them, write nothing */
	int help;			/* -h: print the usage, do nothing else */
	const char *rule_files[MAX_RULE_FILES];	/* --overhead-rules, in order */
	int nrule_files;
	struct diag_thresholds thresholds;	/* --diagnose-* */
	char *const *dirs;		/* the measurement directories (within argv) */
	int ndirs;
};

/* What one run of culprit prof holds, freed in one place (prof_free). */
struct prof {
	struct ovh_rules rules;		/* the rules in the order tried */
	char *out;			/* the database to write */
	char *tmp;			/* where it is written before the rename */
	struct experiment e;		/* the loaded measurements */
	struct symbolizer *sym;		/* every sampled module, named */
	struct type_set types;		/* the overhead types, sorted */
	struct ctree *tree;		/* the experiment's merged tree */
	struct trace_rows trace;	/* the samples over time */
};

/* Reads the command line into *O.  Returns EXIT_OK, or the status to exit
 * with after a message.  Stops at -h, like the usage it asks for. */
int prof_parse_options(int argc, char **argv, struct prof_options *o);
/* The checks that need no reading: the rules, the directories named, the
 * output.  Returns EXIT_OK, or the status after a message; *DONE when
 * there is nothing more to do (--show-rules: print P->rules). */
int prof_check(const struct prof_options *o, struct prof *p, int *done);
/* Loads the measurements (with KEEP, NULL for all, only the thread files
 * it wants: experiment_load_some) and names their addresses: EXIT_OK or
 * EXIT_FAIL after a message. */
int prof_load(const struct prof_options *o, struct prof *p, exp_keep_fn keep, void *arg);
/* P's empty tree, with the metrics of every thread and overhead type,
 * and its trace rows' origin.  With MORE, the columns of threads not
 * loaded, P's overhead types are the ones given by prof_add_type. */
void prof_new_tree(struct prof *p, const struct ctree_columns *more);
void prof_add_type(struct prof *p, const char *type);
/* Merges every thread into P->tree, with their trace rows into P->trace,
 * and returns their values (tables.h), every thread's totals written
 * into DB; NULL after a message on a database error. */
typedef struct thread_values *(*prof_merge_fn)(sqlite3 *db, struct prof *p, void *arg);
/* Writes the database, merging with MERGE(db, P, ARG) once the
 * processes and threads are in; it is written beside P->out and renamed
 * into place when complete.  Returns 0, or -1 after a message (a full
 * disk, say), with no file left: the half-written one is removed, and a
 * P->out it was to replace is as it was. */
int prof_write_database(const struct prof_options *o, struct prof *p, prof_merge_fn merge,
			void *arg);
/* The summary line (unless -q), with HOW after the time: ", 4 ranks". */
void prof_summary(const struct prof_options *o, const struct prof *p, double started,
		  const char *how);
void prof_free(struct prof *p);

/* `culprit prof --mpi`: becomes culprit-prof-mpi with the same ARGV, or
 * says that this culprit was built without MPI.  Returns only on error:
 * -1 after a message. */
int prof_exec_mpi(char **argv);

#endif
