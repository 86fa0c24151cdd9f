/* tasks.h - task sizes and waiting times in the database (tasks.c). */
#ifndef CULPRIT_POSTMORTEM_TASKS_H
#define CULPRIT_POSTMORTEM_TASKS_H

#include <sqlite3.h>

struct experiment;

/* The tasks and task_buckets tables: each thread's task types, named,
 * while the threads' files are still loaded.  Returns 0, or -1 after a
 * message (database.h), as does the next. */
int tasks_write(sqlite3 *db, const struct experiment *e);
/* Once the tree is in: a task type whose creating call is in a body the
 * compiler outlined (clang's .omp_outlined., which names no function of
 * the source) is named after the source function around its line, as the
 * tree folds such bodies; tasks.folded keeps the outlined name. */
int tasks_name_outlined(sqlite3 *db);

#endif
