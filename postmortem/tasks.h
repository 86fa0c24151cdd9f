/* tasks.h - task sizes and waiting times in the database (tasks.c). */
#ifndef CULPRIT_POSTMORTEM_TASKS_H
#define CULPRIT_POSTMORTEM_TASKS_H

#include <sqlite3.h>

struct experiment;

/* The tasks and task_buckets tables: each thread's task types, named,
 * while the threads' files are still loaded. */
void tasks_write(sqlite3 *db, const struct experiment *e);

#endif
