/* waits.h - blocking waits in the database (waits.c). */
#ifndef CULPRIT_POSTMORTEM_WAITS_H
#define CULPRIT_POSTMORTEM_WAITS_H

#include <sqlite3.h>

struct experiment;

/* The waits table: each thread's wait sites, named, while the threads'
 * files are still loaded. */
void waits_write_sites(sqlite3 *db, const struct experiment *e);
/* Once the threads' metrics are in: their own time seen waiting
 * (thread_metrics waited, waited:CAUSE), and culprit_info's idleness,
 * "measured" or "not measured". */
void waits_write_threads(sqlite3 *db);

#endif
