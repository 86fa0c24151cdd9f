/* runs.h - the loaded processes grouped by the `culprit run` they came
 * from: the database's experiments.
 *
 * A run is named by the CULPRIT_EXPERIMENT its processes carry (a
 * collector started without `culprit run` leaves none: its directory
 * names the run).  What the run file (common/run_info.h) says wins; what
 * it lacks comes from the measurements. */
#ifndef CULPRIT_RUNS_H
#define CULPRIT_RUNS_H

#include <stddef.h>

#include "experiment.h"

struct exp_run {
	uint32_t id;		/* experiments.id: by thread count, then start */
	char *name;		/* HOST-PID-TIME, or "directory DIR" */
	char *dir;		/* the directory of its first process */
	char label[72];		/* unique among the runs */
	long threads;		/* the run file's, else the most threads alive at once */
	long cores;		/* the CPUs it could run on; 0: not known */
	char *command;
	double start, wall;	/* seconds since 1970; seconds */
	double cpu;		/* CPU seconds of all its processes; < 0: not known */
	int status;		/* as a shell reports it; < 0: not known */
	int has_info;		/* a run file was found */
};

/* Groups E's processes into runs (E->run, each process's ->run) and
 * fills in what each run is. */
void experiment_runs(struct experiment *e);

#endif
