/* api.c - the runtime API (include/culprit/culprit.h) inside the collector.
 *
 * These definitions are exported by the preloaded libculprit.so and so take
 * precedence over libculprit-api's empty ones.  A task is a logical context
 * record; running it makes the record the thread's current one, and
 * culprit_task_run's own frame marks where the task's work begins. */
#include "collector.h"
#include "culprit/culprit.h"

struct culprit_task;	/* never defined: a culprit_task * is a record */

EXPORT void culprit_worker_begin(void)
{
	workers_pool_declared();
	culprit_worker_set(CULPRIT_WORKING, 0);
}

EXPORT void culprit_worker_end(void)
{
	culprit_worker_set(CULPRIT_NOT_WORKER, 0);
}

EXPORT void culprit_worker_idle(enum culprit_wait why)
{
	if ((unsigned)why < CULPRIT_IDLE_CAUSES)
		culprit_worker_set(CULPRIT_IDLE, (enum culprit_idle_cause)why);
}

EXPORT void culprit_worker_busy(void)
{
	culprit_worker_set(CULPRIT_WORKING, 0);
}

EXPORT culprit_task *culprit_task_create(int skip)
{
	if (!culprit_config.active || skip < 0)
		return NULL;
	return (culprit_task *)ctx_capture(NULL, skip, culprit_boundary_collector, 0);
}

EXPORT void culprit_task_destroy(culprit_task *task)
{
	culprit_ctx_release((struct culprit_ctx *)task);
}

EXPORT __attribute__((noinline)) void culprit_task_run(culprit_task *task, void (*fn)(void *),
						       void *arg)
{
	struct culprit_ctx *ctx = (struct culprit_ctx *)task;
	enum culprit_idle_cause cause;
	enum culprit_worker_state state = workers_state(culprit_thread_self(), &cause);

	culprit_ctx_hold(ctx);
	struct culprit_ctx *prev = ctx ? culprit_ctx_set(ctx) : NULL;
	int waited = state == CULPRIT_IDLE || state == CULPRIT_WAITING;
	if (waited)
		culprit_worker_set(CULPRIT_WORKING, 0);
	/* The task is the program's work, even when our caller's is ours. */
	unsigned measuring = culprit_measuring;
	culprit_measuring = 0;
	fn(arg);
	culprit_measuring = measuring;
	/* A frame of ours stays on the stack below FN: the boundary. */
	__asm__ volatile("" ::: "memory");
	if (waited)
		culprit_worker_set(state, cause);
	if (ctx)
		culprit_ctx_set(prev);
	culprit_ctx_release(ctx);
}
