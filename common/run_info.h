/* run_info.h - what `culprit run` knows of a run that the collector does
 * not: its label and thread count, and the program's wall-clock time, CPU
 * time and exit status as its parent saw them.
 *
 * `culprit run` writes one file per run into the measurement directory,
 * `run-EXPERIMENT.info` (EXPERIMENT as the processes' CULPRIT_EXPERIMENT,
 * so that runs sharing a directory do not collide), after the program
 * ends.  Text, one "key value" line each; `culprit prof` reads it into
 * the `experiments` table.  A run whose driver was killed has none, and
 * prof then takes what it can from the process files. */
#ifndef CULPRIT_RUN_INFO_H
#define CULPRIT_RUN_INFO_H

#include <stddef.h>

#define RUN_INFO_PREFIX "run-"
#define RUN_INFO_SUFFIX ".info"

struct run_info {
	char experiment[128];	/* HOST-PID-TIME, as processes.experiment */
	char label[64];		/* --label, or "" */
	long threads;		/* --threads, or the OMP_NUM_THREADS it ran with; 0: unknown */
	long cores;		/* the CPUs it was allowed to run on; 0: unknown */
	char command[1024];	/* the command line, words joined by spaces */
	double start;		/* when the program started, seconds since 1970 */
	double wall;		/* how long it ran, seconds */
	double cpu;		/* its CPU time, user and system, all its processes */
	int status;		/* exit status as a shell reports it (128+N: signal N) */
};

/* Writes INFO to DIR/run-EXPERIMENT.info, synced.  Returns 0, or -1 with
 * errno. */
int run_info_write(const char *dir, const struct run_info *info);

/* Reads PATH into *INFO.  Returns 0, or -1 when it cannot be read or is
 * not a run file (no experiment line).  Unknown keys are skipped: later
 * versions may add some. */
int run_info_read(const char *path, struct run_info *info);

/* Whether NAME (a file name, no directory) is a run file's. */
int run_info_name(const char *name);

/* The first thread count in VALUE, as OMP_NUM_THREADS writes them ("8",
 * "8,4" for nested levels); 0 when it is not one. */
long run_info_threads(const char *value);

#endif
