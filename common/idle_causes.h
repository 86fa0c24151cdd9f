/* idle_causes.h - the causes of idleness, defined once.
 *
 * Why an idle worker waits decides where its idleness goes and how every
 * part of culprit names it: the plugin interface's enum, the collector's
 * columns and its blame, the measurement file's trace states, the
 * database's metrics and trace, the summary's words and the timelines'
 * marks all come from the table below.  A new cause is one line here,
 * appended: the number of a cause (its place) and its trace state are in
 * measurement files, so neither changes once released.
 *
 * Per cause:
 *   ID      its enum name, CULPRIT_IDLE_<ID>
 *   NAME    the metric is "idleness:NAME", the trace state "idle:NAME"
 *   STATE   its trace state in measurement files (mfile_format.h): 1 + the
 *           cause for the first seven, then past the measurement's 8
 *   MARK    its letter in the timelines (report --timeline, the viewer)
 *   CLAIM   how its waiting threads claim the CPUs the working threads
 *           leave free, each counted once (collector/idle_share.c,
 *           doc/idleness.md); the idleness is blamed on the code the
 *           process's working threads ran:
 *             FIRST      shared with the other FIRST causes, by threads
 *             LAST       what the FIRST causes leave (a thread joining
 *                        others would wait even were their waits gone)
 *             ELSEWHERE  nothing: the wait is for other processes (MPI
 *                        ranks; report --by-rank weighs it)
 *   SHOWN   whether summaries show it when it is 0: ALWAYS (OpenMP's
 *           causes: "no imbalance" is news) or IF_ANY
 *   LABEL   the summary's words for it
 *   ADVICE  what to do when it costs a context its scaling (report --scaling)
 *   DESC    the metrics table's description of its metric
 *
 * async-signal-safe: the collector's sample handler reads the table.
 */
#ifndef CULPRIT_IDLE_CAUSES_H
#define CULPRIT_IDLE_CAUSES_H

#include <stddef.h>
#include <string.h>

#define CULPRIT_IDLE_CAUSE_TABLE(X) \
	X(SERIAL, "serial", 1, 's', FIRST, ALWAYS, "serialization", \
	  "serial phase; parallelize it, or overlap it with parallel work", \
	  "idleness while workers had no parallel work: serial code ran") \
	X(BARRIER, "barrier", 2, 'b', FIRST, ALWAYS, "imbalance at barriers", \
	  "needs more parallelism; finer grain, so idle threads find work", \
	  "idleness while workers waited at a barrier for the rest: load imbalance") \
	X(LOCK, "lock", 3, 'l', FIRST, ALWAYS, "synchronization (locks)", \
	  "lock contention; shorter critical sections or finer locks", \
	  "idleness while workers waited for a lock or critical section") \
	X(TASKWAIT, "taskwait", 4, 't', FIRST, ALWAYS, "waiting for child tasks", \
	  "needs more parallelism; finer grain, so idle threads find work", \
	  "idleness while workers waited for child tasks to finish") \
	X(JOIN, "join", 5, 'j', LAST, IF_ANY, "waiting for threads to end", \
	  "threads wait; see report --waits", \
	  "idleness while threads waited for other threads to end (pthread_join)") \
	X(SLEEP, "sleep", 6, 'z', FIRST, IF_ANY, "sleeping", \
	  "threads wait; see report --waits", \
	  "idleness while threads slept (nanosleep, usleep, sleep)") \
	X(IO, "io", 7, 'i', FIRST, IF_ANY, "blocked in I/O", \
	  "threads wait; see report --waits", \
	  "idleness while threads were blocked in I/O (culprit run --io-idle)") \
	X(GIL, "gil", 9, 'g', FIRST, IF_ANY, "waiting for the Python GIL", \
	  "threads wait; see report --waits", \
	  "idleness while Python threads waited for the global interpreter lock: " \
	  "blamed on the code that held it") \
	X(MPI, "mpi", 10, 'w', ELSEWHERE, IF_ANY, "waiting in MPI for other ranks", \
	  "threads wait; see report --waits", \
	  "a rank's threads waiting in blocking MPI calls for other ranks (their own " \
	  "time, in thread_metrics' waited:mpi; culprit report --by-rank weighs it " \
	  "against the ranks' imbalance)")

/* Why an idle worker waits (the plugin interface: unwind-plugins/plugin.h). */
enum culprit_idle_cause {
#define IDLE_CAUSE_ENUM(id, ...) CULPRIT_IDLE_##id,
	CULPRIT_IDLE_CAUSE_TABLE(IDLE_CAUSE_ENUM)
#undef IDLE_CAUSE_ENUM
	CULPRIT_IDLE_CAUSES
};

enum idle_claim {
	IDLE_CLAIM_ELSEWHERE,
	IDLE_CLAIM_FIRST,
	IDLE_CLAIM_LAST
};

#define IDLE_SHOWN_ALWAYS 1
#define IDLE_SHOWN_IF_ANY 0

struct idle_cause {
	const char *name;	/* "serial" */
	const char *metric;	/* "idleness:serial" */
	const char *state;	/* "idle:serial" */
	unsigned char trace_state;
	char mark;
	enum idle_claim claim;
	int shown_always;
	const char *label;
	const char *advice;
	const char *description;
};

/* Cause C's entry (C < CULPRIT_IDLE_CAUSES). */
static inline const struct idle_cause *idle_cause(unsigned c)
{
	static const struct idle_cause causes[CULPRIT_IDLE_CAUSES] = {
#define IDLE_CAUSE_ENTRY(id, name, state, mark, claim, shown, label, advice, desc) \
	[CULPRIT_IDLE_##id] = { name, "idleness:" name, "idle:" name, state, mark, \
				IDLE_CLAIM_##claim, IDLE_SHOWN_##shown, label, advice, desc },
		CULPRIT_IDLE_CAUSE_TABLE(IDLE_CAUSE_ENTRY)
#undef IDLE_CAUSE_ENTRY
	};
	return &causes[c];
}

/* The cause whose metric is METRIC ("idleness:lock"), or -1.  Not for the
 * sample handler. */
static inline int idle_cause_of_metric(const char *metric)
{
	for (unsigned c = 0; metric && c < CULPRIT_IDLE_CAUSES; c++)
		if (strcmp(metric, idle_cause(c)->metric) == 0)
			return (int)c;
	return -1;
}

/* The cause called NAME ("lock"), or -1. */
static inline int idle_cause_of_name(const char *name)
{
	for (unsigned c = 0; name && c < CULPRIT_IDLE_CAUSES; c++)
		if (strcmp(name, idle_cause(c)->name) == 0)
			return (int)c;
	return -1;
}

/* The cause whose trace state's name is STATE ("idle:lock"), or -1. */
static inline int idle_cause_of_state_name(const char *state)
{
	for (unsigned c = 0; state && c < CULPRIT_IDLE_CAUSES; c++)
		if (strcmp(state, idle_cause(c)->state) == 0)
			return (int)c;
	return -1;
}

#endif
