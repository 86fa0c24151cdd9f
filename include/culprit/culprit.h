/* culprit.h - tell the culprit profiler about a runtime's workers and tasks.
 *
 * A parallel runtime (a thread pool, a task scheduler) calls these so that
 * culprit can compute idleness and put each task's work under the code
 * that created it.  Link with the stub library (`pkg-config --libs
 * culprit`): when the program runs without culprit every call does nothing
 * but return; under `culprit run` the collector provides them.
 *
 *   worker threads:  culprit_worker_begin() as a thread joins the pool,
 *                    culprit_worker_idle(why) when it waits for work,
 *                    culprit_worker_busy() when it works again,
 *                    culprit_worker_end() as it leaves.
 *   tasks:           culprit_task_create() where the user's code creates a
 *                    task (inside the runtime's spawn function);
 *                    culprit_task_run() to run it, on any thread;
 *                    culprit_task_destroy() when it will not run again.
 *
 * Idleness: while some workers are idle, samples of working workers are
 * charged idleness = their value x idle workers / working workers, split by
 * why the idle ones wait.  Threads that never call culprit_worker_begin()
 * are not workers: they are neither idle nor charged.
 *
 * All functions are thread-safe; none may be called from a signal handler.
 * See doc/runtime-api.md and examples/runtime/pool.c.
 */
#ifndef CULPRIT_CULPRIT_H
#define CULPRIT_CULPRIT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Why an idle worker waits. */
enum culprit_wait {
	CULPRIT_WAIT_SERIAL = 0,	/* no parallel work exists (serial code runs) */
	CULPRIT_WAIT_BARRIER = 1,	/* others still work: a barrier, imbalance */
	CULPRIT_WAIT_LOCK = 2,		/* a lock or critical section */
	CULPRIT_WAIT_TASKWAIT = 3,	/* its child tasks */
	CULPRIT_WAIT_JOIN = 4,		/* another thread's end */
	CULPRIT_WAIT_SLEEP = 5,		/* a timer: it sleeps */
	CULPRIT_WAIT_IO = 6,		/* input or output */
};

/* The calling thread joins the runtime's worker pool, working. */
void culprit_worker_begin(void);
/* The calling thread leaves the pool. */
void culprit_worker_end(void);
/* The calling worker waits, for reason WHY. */
void culprit_worker_idle(enum culprit_wait why);
/* The calling worker works again. */
void culprit_worker_busy(void);

/* A task, as culprit knows it: where it was created. */
typedef struct culprit_task culprit_task;

/* Records the calling context as a new task's origin.  SKIP is the number
 * of the runtime's own frames between the user's call and this one (0
 * when the user's code calls culprit_task_create itself, 1 when it calls
 * the runtime's spawn function, which calls this).  Returns a handle for
 * culprit_task_run; NULL when not profiled (culprit_task_run accepts it). */
culprit_task *culprit_task_create(int skip);

/* Runs FN(ARG) as TASK on the calling thread: its samples are placed
 * under the task's origin, and a worker counts as working meanwhile.
 * A task may be run more than once (a repeated loop body, say). */
void culprit_task_run(culprit_task *task, void (*fn)(void *), void *arg);

/* Forgets TASK (NULL is fine). */
void culprit_task_destroy(culprit_task *task);

#ifdef __cplusplus
}
#endif

#endif
