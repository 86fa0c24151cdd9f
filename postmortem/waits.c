/* waits.c - blocking waits in the database.
 *
 * The collector counts, per thread, where a working thread blocked: the
 * call site, the object (a lock's address), the kind of call, how often,
 * how long (collector/waits.c, the WAIT section).  Here the sites get
 * names and source lines, and go into the `waits` table; the
 * `wait_sites` view sums them over threads.
 *
 * Two per-thread facts come from the threads' counters.  A wall-clock
 * event samples blocked threads too: their samples add nothing to the
 * tree (their waiting is blamed on the threads that worked), but they
 * are the thread's own time waiting, by cause: thread_metrics `waited`
 * and `waited:CAUSE`.  And a run in which no thread ever declared a
 * worker state (no runtime plugin took part: the waits were not
 * followed, `culprit run --no-waits`, and no OpenMP or runtime API) has
 * no idleness to report, which is not the same as none: culprit_info's
 * `idleness` says "not measured" and the report says so.
 */
#define _GNU_SOURCE
#include "waits.h"
#include "database.h"
#include "experiment.h"
#include "mfile_read.h"
#include "symbolize.h"
#include "tools.h"

#include <stdio.h>
#include <string.h>

/* enum culprit_block_kind (unwind-plugins/plugin.h), by number. */
static const char *const kind_name[] = { NULL, "mutex", "rwlock", "semaphore", "condition",
					 "barrier", "join", "sleep", "io", "mpi" };
#define NKINDS (sizeof kind_name / sizeof *kind_name)

/* The cause a wait counted as: its column's name, "idleness:CAUSE". */
static const char *cause_of(const struct mfile_thread *t, const struct mfile_wait *w)
{
	const char *name = w->cause < t->ncolumns ? t->columns[w->cause].metric : NULL;
	const char *colon = name ? strchr(name, ':') : NULL;
	return colon ? colon + 1 : name;
}

static void bind_opt_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

/* Whether FILE is a system header: code of the C or C++ library inlined
 * into the program (std::condition_variable::wait, say), not the
 * program's own. */
static int system_header(const char *file)
{
	static const char *const dirs[] = { "/usr/include/", "/usr/local/include/",
					    "/usr/lib/gcc/" };
	for (size_t i = 0; file && i < sizeof dirs / sizeof *dirs; i++)
		if (strncmp(file, dirs[i], strlen(dirs[i])) == 0)
			return 1;
	return 0;
}

/* The frame that names R's call site: the innermost whose source is not a
 * system header, so that a wait inlined from the C++ library is named by
 * the program's code that called it; else the innermost. */
static const struct sym_frame *site_frame(const struct sym_result *r)
{
	for (unsigned i = r->nframes; i-- > 0;)
		if (r->frame[i].file && !system_header(r->frame[i].file))
			return &r->frame[i];
	return &r->frame[r->nframes - 1];
}

void waits_bind_site(sqlite3_stmt *s, int col, const struct exp_thread *t, uint32_t module,
		     uint64_t site)
{
	struct sym_module *m = module ? exp_module(t->proc, module, NULL) : NULL;
	if (!m) {
		char raw[32];
		snprintf(raw, sizeof raw, "0x%llx", (unsigned long long)site);
		sqlite3_bind_null(s, col);
		sqlite3_bind_text(s, col + 1, raw, -1, SQLITE_TRANSIENT);
		sqlite3_bind_null(s, col + 2);
		sqlite3_bind_null(s, col + 3);
		return;
	}
	/* A return address: the call is the byte before. */
	struct sym_result *r = sym_resolve(m, site ? site - 1 : 0);
	const struct sym_frame *f = site_frame(r);
	bind_opt_text(s, col, sym_module_name(m));
	bind_opt_text(s, col + 1, f->procedure);
	bind_opt_text(s, col + 2, f->file);
	if (f->file)
		sqlite3_bind_int64(s, col + 3, f->line);
	else
		sqlite3_bind_null(s, col + 3);
}

int waits_write_sites(sqlite3 *db, const struct experiment *e)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO waits VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
	int rc = s ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < e->nthread; i++) {
		const struct exp_thread *t = e->thread[i];
		for (uint32_t k = 0; rc == 0 && t->t && k < t->t->nwaits; k++) {
			const struct mfile_wait *w = &t->t->waits[k];
			sqlite3_bind_int64(s, 1, t->id);
			bind_opt_text(s, 2, w->kind < NKINDS ? kind_name[w->kind] : NULL);
			bind_opt_text(s, 3, cause_of(t->t, w));
			if (w->object)
				sqlite3_bind_int64(s, 4, (sqlite3_int64)w->object);
			else
				sqlite3_bind_null(s, 4);
			waits_bind_site(s, 5, t, w->module, w->site);
			sqlite3_bind_int64(s, 9, (sqlite3_int64)w->site);
			sqlite3_bind_int64(s, 10, (sqlite3_int64)w->count);
			sqlite3_bind_double(s, 11, (double)w->total_ns / 1e9);
			sqlite3_bind_double(s, 12, (double)w->max_ns / 1e9);
			rc = db_step_reset(db, s);
		}
	}
	sqlite3_finalize(s);
	return rc;
}

int waits_write_threads(sqlite3 *db)
{
	/* idle_value:EVENT:CAUSE counts the event's raw unit: nanoseconds
	 * for the time events, whose metrics are in seconds. */
	return db_exec(db,
		"INSERT INTO thread_metrics (thread_id, event, metric, value)\n"
		"  SELECT c.thread_id, e.event,\n"
		"         'waited:' || substr(c.name, length('idle_value:' || e.event || ':') + 1),\n"
		"         c.value * CASE e.unit WHEN 'seconds' THEN 1e-9 ELSE 1 END\n"
		"  FROM thread_counters c JOIN events e\n"
		"    ON substr(c.name, 1, length('idle_value:' || e.event || ':'))\n"
		"       = 'idle_value:' || e.event || ':'\n"
		"  WHERE c.value > 0;\n"
		"INSERT INTO thread_metrics (thread_id, event, metric, value)\n"
		"  SELECT thread_id, event, 'waited', sum(value) FROM thread_metrics\n"
		"  WHERE metric LIKE 'waited:%' GROUP BY thread_id, event;\n"
		/* Of the time the thread was sampled: working or waiting. */
		"UPDATE thread_metrics AS w SET percent = 100.0 * w.value / (\n"
		"    (SELECT t.value FROM thread_metrics t WHERE t.thread_id = w.thread_id\n"
		"     AND t.event = w.event AND t.metric = 'waited') + coalesce(\n"
		"    (SELECT e.value FROM thread_metrics e WHERE e.thread_id = w.thread_id\n"
		"     AND e.event = w.event AND e.metric = 'effort'), 0))\n"
		"  WHERE w.metric LIKE 'waited%';\n"
		/* Measurements older than the counter say nothing. */
		"INSERT INTO culprit_info SELECT 'idleness', CASE WHEN total(value) > 0\n"
		"  THEN 'measured' ELSE 'not measured' END FROM thread_counters\n"
		"  WHERE name = 'worker:changes' HAVING count(*) > 0;\n"
		/* No measurement is no number. */
		"UPDATE metrics SET total = NULL, percent = NULL WHERE metric LIKE 'idleness%'\n"
		"  AND (SELECT value FROM culprit_info WHERE key = 'idleness') = 'not measured';\n");
}
