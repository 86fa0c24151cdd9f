/* waits.h - blocking waits in the database (waits.c). */
#ifndef CULPRIT_POSTMORTEM_WAITS_H
#define CULPRIT_POSTMORTEM_WAITS_H

#include <sqlite3.h>
#include <stdint.h>

struct exp_thread;
struct experiment;

/* The waits table: each thread's wait sites, named, while the threads'
 * files are still loaded.  Returns 0, or -1 after a message (database.h),
 * as does the next. */
int waits_write_sites(sqlite3 *db, const struct experiment *e);
/* Once the threads' metrics are in: their own time seen waiting
 * (thread_metrics waited, waited:CAUSE), and culprit_info's idleness,
 * "measured" or "not measured". */
int waits_write_threads(sqlite3 *db);
/* Binds a call site of thread T (MODULE, a return address SITE in it) as
 * module, procedure, file and line, columns COL to COL + 3: the innermost
 * frame of the program's own at the call, inlined or not; an unknown
 * module's site as its raw address in the procedure. */
void waits_bind_site(sqlite3_stmt *s, int col, const struct exp_thread *t, uint32_t module,
		     uint64_t site);

#endif
