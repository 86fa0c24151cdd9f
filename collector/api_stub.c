/* api_stub.c - libculprit-api: the runtime API (include/culprit/culprit.h)
 * doing nothing.  Runtimes link with it; under `culprit run` the preloaded
 * collector's definitions come first and take over. */
#include "culprit/culprit.h"

#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT void culprit_worker_begin(void) {}
EXPORT void culprit_worker_end(void) {}
EXPORT void culprit_worker_idle(enum culprit_wait why) { (void)why; }
EXPORT void culprit_worker_busy(void) {}
EXPORT culprit_task *culprit_task_create(int skip) { (void)skip; return NULL; }
EXPORT void culprit_task_destroy(culprit_task *task) { (void)task; }

EXPORT void culprit_task_run(culprit_task *task, void (*fn)(void *), void *arg)
{
	(void)task;
	fn(arg);
}
