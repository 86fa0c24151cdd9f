/* database.c - the schema, and opening databases for reading and writing.
 *
 * The schema below is the one definition; doc/schema.md explains every
 * table and view.  Its rule: a table named stored_* is storage, numbers
 * where the interface has names, compact, free to change with a version
 * (culprit's own readers read it for speed); every other table and view
 * is the documented interface, whose names new versions keep.  The views
 * are joins SQLite flattens into a reader's query, so that the interface
 * is the fast way to ask too (bench/schema_queries.sh).  A database
 * records its schema version in PRAGMA user_version; culprit's readers
 * read that one version. */
#include "database.h"
#include "tools.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The number of threads the per-context statistics are over. */
#define VALUE_THREADS "(SELECT n FROM value_threads)"

/* A metric's value in COLUMN: the stored row w's, plus derived_plus's
 * row p, minus derived_minus's row n (0 where there is none), for a
 * metric the database computes (metrics.derived_from: the arithmetic
 * stored_derivable() in tables.c checks); w's alone for a stored one. */
#define DERIVED_VALUE(column)                                                 \
	"w." column " + coalesce(p." column ", 0) - coalesce(n." column ", 0)"

const char db_schema_sql[] =
	/* What made the database. */
	"CREATE TABLE culprit_info (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;\n"
	/* Processes and threads: who was measured. */
	"CREATE TABLE processes (\n"
	"  id INTEGER PRIMARY KEY, pid INTEGER, ppid INTEGER, generation INTEGER,\n"
	"  mpi_rank INTEGER, host TEXT, executable TEXT, command TEXT, cwd TEXT,\n"
	"  start_time REAL, end_time REAL, end_reason TEXT, end_status INTEGER,\n"
	"  experiment TEXT, measurement_file TEXT,\n"
	"  experiment_id INTEGER REFERENCES experiments(id));\n"
	/* One row per culprit run (schema 10): by thread count, then start. */
	"CREATE TABLE experiments (\n"
	"  id INTEGER PRIMARY KEY, label TEXT UNIQUE, threads INTEGER, command TEXT,\n"
	"  start_time REAL, wall_time REAL, cpu_time REAL, exit_status INTEGER,\n"
	"  run TEXT, directory TEXT, cores INTEGER);\n"
	"CREATE TABLE threads (\n"
	"  id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES processes(id),\n"
	"  pid INTEGER, tid INTEGER, seq INTEGER, mpi_rank INTEGER, name TEXT,\n"
	"  start_time REAL, end_time REAL, end_reason TEXT, measurement_file TEXT);\n"
	"CREATE TABLE thread_counters (\n"
	"  thread_id INTEGER REFERENCES threads(id), name TEXT, value INTEGER,\n"
	"  PRIMARY KEY (thread_id, name)) WITHOUT ROWID;\n"
	/* What was sampled, and the metrics derived from it. */
	/* In the order culprit run was given them (rowid order). */
	"CREATE TABLE events (\n"
	"  event TEXT PRIMARY KEY, unit TEXT, source TEXT, period REAL, frequency REAL,\n"
	"  description TEXT);\n"
	/* percent: of the event's total effort (samples: of all samples). */
	"CREATE TABLE metrics (\n"
	"  event TEXT REFERENCES events(event), metric TEXT, unit TEXT, description TEXT,\n"
	"  total REAL, percent REAL,\n"
	/* Its number in context_values, and what its percentages are of. */
	"  id INTEGER UNIQUE, percent_base REAL,\n"
	/* effort and useful_work, when not stored (schema 9): computed from
	 * the metric derived_from (work), plus derived_plus (idleness), minus
	 * derived_minus (overhead); all NULL for a stored metric. */
	"  derived_from INTEGER, derived_plus INTEGER, derived_minus INTEGER,\n"
	"  PRIMARY KEY (event, metric));\n"
	"CREATE TABLE modules (\n"
	"  id INTEGER PRIMARY KEY, path TEXT, build_id TEXT, line_info INTEGER, problem TEXT,\n"
	"  file TEXT);\n"
	"CREATE TABLE notes (\n"
	"  process_id INTEGER REFERENCES processes(id), thread_id INTEGER REFERENCES threads(id),\n"
	"  note TEXT);\n"
	/* The calling-context tree and its values. */
	/* Every name the tree uses, once: procedures, modules, files, kinds,
	 * overhead types and what decided them, folded frames. */
	"CREATE TABLE stored_names (id INTEGER PRIMARY KEY, name TEXT UNIQUE);\n"
	/* The tree as stored: names by number (contexts below spells them). */
	"CREATE TABLE stored_contexts (\n"
	"  id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES stored_contexts(id),\n"
	"  depth INTEGER, kind_id INTEGER REFERENCES stored_names(id),\n"
	"  procedure_id INTEGER REFERENCES stored_names(id), module_id INTEGER REFERENCES stored_names(id),\n"
	"  file_id INTEGER REFERENCES stored_names(id), line INTEGER,\n"
	/* Where samples landed: the overhead type, and the tag or rule that
	 * decided it (also a rule that said "not overhead"). */
	"  overhead_id INTEGER REFERENCES stored_names(id), overhead_by_id INTEGER REFERENCES stored_names(id),\n"
	/* The native frames folded into it: compiler outlining, start-up. */
	"  folded_id INTEGER REFERENCES stored_names(id),\n"
	/* The one thread that reached it (NULL: several, or none): its
	 * values are that thread's, and no per-thread row repeats them. */
	"  thread_id INTEGER REFERENCES threads(id),\n"
	/* 1: a runtime's or the system's code, not the program's (schema 10). */
	"  runtime INTEGER);\n"
	/* Joins, not scalar subqueries: a reader's condition on a name
	 * (procedure = 'fib') then finds the name first and the contexts
	 * by index, instead of spelling out every context. */
	"CREATE VIEW contexts (id, parent_id, depth, kind, procedure, module, file, line,\n"
	"    overhead, overhead_by, folded, thread_id, runtime) AS\n"
	"  SELECT t.id, t.parent_id, t.depth, k.name, p.name, m.name, f.name, t.line,\n"
	"    o.name, b.name, d.name, t.thread_id, t.runtime\n"
	"  FROM stored_contexts t\n"
	"  LEFT JOIN stored_names k ON k.id = t.kind_id\n"
	"  LEFT JOIN stored_names p ON p.id = t.procedure_id\n"
	"  LEFT JOIN stored_names m ON m.id = t.module_id\n"
	"  LEFT JOIN stored_names f ON f.id = t.file_id\n"
	"  LEFT JOIN stored_names o ON o.id = t.overhead_id\n"
	"  LEFT JOIN stored_names b ON b.id = t.overhead_by_id\n"
	"  LEFT JOIN stored_names d ON d.id = t.folded_id;\n"
	/* Values as stored: numbers, not names, and only those not zero;
	 * the views below give them their documented names and columns. */
	"CREATE TABLE stored_values (\n"
	"  context_id INTEGER REFERENCES stored_contexts(id), metric_id INTEGER REFERENCES metrics(id),\n"
	"  inclusive REAL, exclusive REAL,\n"
	"  PRIMARY KEY (context_id, metric_id)) WITHOUT ROWID;\n"
	"CREATE TABLE stored_thread_values (\n"
	"  context_id INTEGER REFERENCES stored_contexts(id), metric_id INTEGER REFERENCES metrics(id),\n"
	"  thread_id INTEGER REFERENCES threads(id), inclusive REAL, exclusive REAL,\n"
	"  PRIMARY KEY (context_id, metric_id, thread_id)) WITHOUT ROWID;\n"
	/* The stored values, and the metrics computed from them (metrics.
	 * derived_from): half of all rows, where they are not stored.  One
	 * join, not a UNION (SQLite materializes a compound view a reader
	 * joins: 3 s to read one context's values at a million contexts). */
	"CREATE VIEW context_values (context_id, metric_id, inclusive, exclusive) AS\n"
	"  SELECT w.context_id, d.id, " DERIVED_VALUE("inclusive") ",\n"
	"    " DERIVED_VALUE("exclusive") "\n"
	"  FROM metrics d JOIN stored_values w ON w.metric_id = coalesce(d.derived_from, d.id)\n"
	"  LEFT JOIN stored_values p ON p.context_id = w.context_id AND p.metric_id = d.derived_plus\n"
	"  LEFT JOIN stored_values n ON n.context_id = w.context_id AND n.metric_id = d.derived_minus\n"
	"  WHERE d.derived_from IS NULL OR " DERIVED_VALUE("inclusive") " <> 0\n"
	"    OR " DERIVED_VALUE("exclusive") " <> 0;\n"
	"CREATE VIEW context_thread_values (context_id, metric_id, thread_id, inclusive,\n"
	"    exclusive) AS\n"
	"  SELECT w.context_id, d.id, w.thread_id, " DERIVED_VALUE("inclusive") ",\n"
	"    " DERIVED_VALUE("exclusive") "\n"
	"  FROM metrics d JOIN stored_thread_values w ON w.metric_id = coalesce(d.derived_from, d.id)\n"
	"  LEFT JOIN stored_thread_values p ON p.context_id = w.context_id\n"
	"    AND p.metric_id = d.derived_plus AND p.thread_id = w.thread_id\n"
	"  LEFT JOIN stored_thread_values n ON n.context_id = w.context_id\n"
	"    AND n.metric_id = d.derived_minus AND n.thread_id = w.thread_id\n"
	"  WHERE d.derived_from IS NULL OR " DERIVED_VALUE("inclusive") " <> 0\n"
	"    OR " DERIVED_VALUE("exclusive") " <> 0;\n"
	/* Each experiment's own values, every metric, only when there are
	 * several (with one, they are context_values). */
	"CREATE TABLE stored_experiment_values (\n"
	"  experiment_id INTEGER REFERENCES experiments(id), metric_id INTEGER REFERENCES metrics(id),\n"
	"  context_id INTEGER REFERENCES stored_contexts(id), inclusive REAL, exclusive REAL,\n"
	"  PRIMARY KEY (experiment_id, metric_id, context_id)) WITHOUT ROWID;\n"
	"CREATE VIEW experiment_metrics (experiment_id, context_id, event, metric, inclusive,\n"
	"    exclusive) AS\n"
	"  SELECT v.experiment_id, v.context_id, m.event, m.metric, v.inclusive, v.exclusive\n"
	"  FROM stored_experiment_values v JOIN metrics m ON m.id = v.metric_id\n"
	"  UNION ALL\n"
	"  SELECT x.id, v.context_id, m.event, m.metric, v.inclusive, v.exclusive\n"
	"  FROM experiments x, context_values v JOIN metrics m ON m.id = v.metric_id\n"
	"  WHERE (SELECT count(*) FROM experiments) = 1;\n"
	/* The number of threads the per-context statistics are over: all
	 * threads with values anywhere (a thread without a value at a
	 * context counts 0 there). */
	"CREATE VIEW value_threads (n) AS\n"
	"  SELECT CAST(value AS REAL) FROM culprit_info WHERE key = 'value_threads';\n"
	/* Every thread's value at every context it reached. */
	"CREATE VIEW context_thread_all (context_id, metric_id, thread_id, inclusive, exclusive)\n"
	"  AS SELECT context_id, metric_id, thread_id, inclusive, exclusive\n"
	"  FROM context_thread_values\n"
	"  UNION ALL\n"
	"  SELECT v.context_id, v.metric_id, c.thread_id, v.inclusive, v.exclusive\n"
	"  FROM context_values v JOIN stored_contexts c ON c.id = v.context_id\n"
	"  WHERE c.thread_id IS NOT NULL;\n"
	"CREATE VIEW context_thread_metrics (context_id, thread_id, event, metric, inclusive,\n"
	"    exclusive) AS\n"
	"  SELECT a.context_id, a.thread_id, m.event, m.metric, a.inclusive, a.exclusive\n"
	"  FROM context_thread_all a JOIN metrics m ON m.id = a.metric_id;\n"
	/* An MPI run's values by rank: its threads' summed (a rank that
	 * never reached a context has no row there). */
	"CREATE VIEW context_rank_metrics (context_id, mpi_rank, event, metric, inclusive,\n"
	"    exclusive) AS\n"
	"  SELECT a.context_id, p.mpi_rank, m.event, m.metric, sum(a.inclusive),\n"
	"    sum(a.exclusive)\n"
	"  FROM context_thread_all a JOIN metrics m ON m.id = a.metric_id\n"
	"  JOIN threads t ON t.id = a.thread_id JOIN processes p ON p.id = t.process_id\n"
	"  WHERE p.mpi_rank >= 0 GROUP BY a.context_id, p.mpi_rank, a.metric_id;\n"
	/* A join with metrics, so that a reader's event and metric find the
	 * metric first and a context's values by key (a LEFT JOIN of it, which
	 * SQLite cannot flatten, reads them all: join it instead).  The
	 * statistics are computed only for the rows and columns asked for. */
	"CREATE VIEW context_metrics (context_id, event, metric, inclusive, exclusive,\n"
	"    inclusive_mean, inclusive_min, inclusive_max, inclusive_stddev,\n"
	"    exclusive_mean, exclusive_min, exclusive_max, exclusive_stddev,\n"
	"    inclusive_percent, exclusive_percent) AS\n"
	"  SELECT v.context_id, mt.event, mt.metric, v.inclusive, v.exclusive,\n"
	"    v.inclusive / " VALUE_THREADS ",\n"
	"    (SELECT CASE WHEN count(*) < " VALUE_THREADS " THEN 0.0 ELSE min(a.inclusive) END\n"
	"     FROM context_thread_all a WHERE a.context_id = v.context_id\n"
	"     AND a.metric_id = v.metric_id AND a.inclusive <> 0),\n"
	"    (SELECT max(a.inclusive) FROM context_thread_all a\n"
	"     WHERE a.context_id = v.context_id AND a.metric_id = v.metric_id),\n"
	"    (SELECT sqrt(max(0, sum(a.inclusive * a.inclusive) / " VALUE_THREADS "\n"
	"                        - (v.inclusive / " VALUE_THREADS ") * (v.inclusive / " VALUE_THREADS ")))\n"
	"     FROM context_thread_all a WHERE a.context_id = v.context_id\n"
	"     AND a.metric_id = v.metric_id),\n"
	"    v.exclusive / " VALUE_THREADS ",\n"
	"    (SELECT CASE WHEN count(*) < " VALUE_THREADS " THEN 0.0 ELSE min(a.exclusive) END\n"
	"     FROM context_thread_all a WHERE a.context_id = v.context_id\n"
	"     AND a.metric_id = v.metric_id AND a.exclusive <> 0),\n"
	"    (SELECT max(a.exclusive) FROM context_thread_all a\n"
	"     WHERE a.context_id = v.context_id AND a.metric_id = v.metric_id),\n"
	"    (SELECT sqrt(max(0, sum(a.exclusive * a.exclusive) / " VALUE_THREADS "\n"
	"                        - (v.exclusive / " VALUE_THREADS ") * (v.exclusive / " VALUE_THREADS ")))\n"
	"     FROM context_thread_all a WHERE a.context_id = v.context_id\n"
	"     AND a.metric_id = v.metric_id),\n"
	"    CASE WHEN mt.percent_base > 0 THEN 100 * v.inclusive / mt.percent_base END,\n"
	"    CASE WHEN mt.percent_base > 0 THEN 100 * v.exclusive / mt.percent_base END\n"
	"  FROM metrics mt JOIN context_values v ON v.metric_id = mt.id;\n"
	/* The samples over time (schema 8): time in seconds since the run
	 * started (culprit_info's trace_origin, in seconds since 1970);
	 * event_id is the events table's rowid; context_id is NULL for an
	 * idle thread.  n_working and n_idle: the process's workers as the
	 * sample saw them (0 0: not known). */
	"CREATE TABLE trace (\n"
	"  thread_id INTEGER REFERENCES threads(id), time REAL, event_id INTEGER,\n"
	"  context_id INTEGER REFERENCES stored_contexts(id), state TEXT,\n"
	"  n_working INTEGER, n_idle INTEGER, value REAL,\n"
	"  PRIMARY KEY (thread_id, time, event_id)) WITHOUT ROWID;\n"
	/* Wall-clock time by the number of threads working at once: k
	 * threads working for a second give k seconds of samples, each
	 * weighing 1/k.  What no working thread covers is n_working 0. */
	"CREATE VIEW parallelism (event, n_working, seconds, percent) AS\n"
	"  WITH run(duration) AS (SELECT CAST(value AS REAL) FROM culprit_info\n"
	"                         WHERE key = 'trace_duration'),\n"
	"  busy(event_id, n, seconds) AS (SELECT event_id, n_working, sum(value / n_working)\n"
	"    FROM trace WHERE state = 'work' AND n_working > 0 GROUP BY event_id, n_working),\n"
	"  spans(event_id, n, seconds) AS (SELECT event_id, n, seconds FROM busy\n"
	"    UNION ALL SELECT event_id, 0, max(0, (SELECT duration FROM run) - sum(seconds))\n"
	"    FROM busy GROUP BY event_id)\n"
	"  SELECT e.event, s.n, s.seconds,\n"
	"    CASE WHEN (SELECT duration FROM run) > 0\n"
	"      THEN 100 * s.seconds / (SELECT duration FROM run) END\n"
	"  FROM spans s JOIN events e ON e.rowid = s.event_id;\n"
	/* The same at each context, its own samples (exclusive). */
	"CREATE VIEW context_parallelism (context_id, event, n_working, seconds) AS\n"
	"  SELECT t.context_id, e.event, t.n_working, sum(t.value / t.n_working)\n"
	"  FROM trace t JOIN events e ON e.rowid = t.event_id\n"
	"  WHERE t.state = 'work' AND t.n_working > 0\n"
	"  GROUP BY t.context_id, t.event_id, t.n_working;\n"
	"CREATE TABLE procedure_metrics (\n"
	"  procedure TEXT, module TEXT, file TEXT, event TEXT, metric TEXT,\n"
	"  inclusive REAL, exclusive REAL, inclusive_percent REAL, exclusive_percent REAL);\n"
	/* percent: of the thread's own effort for the event. */
	/* Where threads blocked (waits.c): one row per thread and site. */
	"CREATE TABLE waits (\n"
	"  thread_id INTEGER REFERENCES threads(id), kind TEXT, cause TEXT, object INTEGER,\n"
	"  module TEXT, procedure TEXT, file TEXT, line INTEGER, address INTEGER,\n"
	"  count INTEGER, seconds REAL, max_seconds REAL);\n"
	/* Task types (the call that created them) per thread (schema 10). */
	"CREATE TABLE tasks (\n"
	"  id INTEGER PRIMARY KEY, thread_id INTEGER REFERENCES threads(id), module TEXT,\n"
	"  procedure TEXT, file TEXT, line INTEGER, site INTEGER, count INTEGER, size REAL,\n"
	"  wait REAL, folded TEXT);\n"
	/* Their log2 histograms: bucket b counts [2^b, 2^(b+1)) ns. */
	"CREATE TABLE stored_task_buckets (\n"
	"  task_id INTEGER REFERENCES tasks(id), kind TEXT, bucket INTEGER, count INTEGER);\n"
	/* By site as well: GCC gives the calls of two task constructs of a
	 * function the same line. */
	"CREATE VIEW task_types (experiment_id, procedure, file, line, module, site, tasks, size,\n"
	"    wait) AS\n"
	"  SELECT p.experiment_id, t.procedure, t.file, t.line, t.module, t.site, sum(t.count),\n"
	"    sum(t.size), sum(t.wait)\n"
	"  FROM tasks t JOIN threads h ON h.id = t.thread_id JOIN processes p ON p.id = h.process_id\n"
	"  GROUP BY p.experiment_id, t.module, t.site, t.procedure, t.file, t.line;\n"
	"CREATE VIEW task_histograms (experiment_id, procedure, file, line, module, site, kind,\n"
	"    bucket, from_seconds, to_seconds, tasks) AS\n"
	"  SELECT p.experiment_id, t.procedure, t.file, t.line, t.module, t.site, b.kind, b.bucket,\n"
	"    CASE b.bucket WHEN 0 THEN 0 ELSE (1 << b.bucket) * 1e-9 END,\n"
	"    (1 << (b.bucket + 1)) * 1e-9, sum(b.count)\n"
	"  FROM stored_task_buckets b JOIN tasks t ON t.id = b.task_id\n"
	"  JOIN threads h ON h.id = t.thread_id\n"
	"  JOIN processes p ON p.id = h.process_id\n"
	"  GROUP BY p.experiment_id, t.module, t.site, t.procedure, t.file, t.line, b.kind, b.bucket;\n"
	"CREATE TABLE thread_metrics (\n"
	"  thread_id INTEGER REFERENCES threads(id), event TEXT, metric TEXT, value REAL,\n"
	"  percent REAL, PRIMARY KEY (thread_id, event, metric)) WITHOUT ROWID;\n"
	/* The overhead rules in the order they were tried (overhead.h). */
	"CREATE TABLE overhead_rules (\n"
	"  rank INTEGER PRIMARY KEY, field TEXT, pattern TEXT, type TEXT, origin TEXT);\n"
	/* Contexts worth a look, with what to do about them. */
	/* How far the figures can be trusted (quality.c). */
	"CREATE TABLE measurement_quality (\n"
	"  item TEXT PRIMARY KEY, value REAL, unit TEXT, percent REAL, advice TEXT)\n"
	"  WITHOUT ROWID;\n"
	"CREATE TABLE diagnoses (\n"
	"  context_id INTEGER REFERENCES stored_contexts(id), event TEXT, diagnosis TEXT, advice TEXT,\n"
	"  rank INTEGER, effort REAL, effort_percent REAL, idleness_percent REAL,\n"
	"  overhead_percent REAL, waste_percent REAL, scope TEXT, runtime_percent REAL,\n"
	"  runtime TEXT,\n"
	"  PRIMARY KEY (context_id, event)) WITHOUT ROWID;\n"
	/* Views for the common questions. */
	"CREATE VIEW context_paths (id, path) AS\n"
	"  WITH RECURSIVE p(id, path) AS (\n"
	"    SELECT id, coalesce(procedure, kind) FROM contexts WHERE parent_id IS NULL\n"
	"    UNION ALL\n"
	"    SELECT c.id, p.path || ' > ' || CASE c.kind\n"
	"        WHEN 'callsite' THEN coalesce(c.file, '?') || ':' || coalesce(c.line, '?')\n"
	"        WHEN 'statement' THEN coalesce(c.file, '?') || ':' || coalesce(c.line, '?')\n"
	"        ELSE coalesce(c.procedure, c.kind) END\n"
	"    FROM contexts c JOIN p ON c.parent_id = p.id)\n"
	"  SELECT id, path FROM p;\n"
	/* The caller of a frame: the frame above its call site, or for a
	 * frame right below a root, that root (the program, a partial unwind). */
	"CREATE VIEW procedure_callers (procedure, module, file, caller, event, metric, inclusive)\n"
	"  AS SELECT f.procedure, f.module, f.file,\n"
	"         CASE p.kind WHEN 'callsite' THEN coalesce(c.procedure, '?')\n"
	"                     ELSE coalesce(p.procedure, '<program root>') END,\n"
	"         m.event, m.metric, sum(m.inclusive)\n"
	"  FROM contexts f\n"
	"  JOIN context_metrics m ON m.context_id = f.id\n"
	"  JOIN contexts p ON p.id = f.parent_id\n"
	"  LEFT JOIN contexts c ON c.id = p.parent_id\n"
	"  WHERE f.kind IN ('frame', 'inlined')\n"
	"  GROUP BY f.procedure, f.module, f.file, 4, m.event, m.metric;\n"
	/* The waits by site and object, over all threads. */
	"CREATE VIEW wait_sites (kind, cause, procedure, file, line, module, object, threads,\n"
	"    count, seconds, max_seconds, mean_seconds) AS\n"
	"  SELECT kind, cause, procedure, file, line, module, object, count(DISTINCT thread_id),\n"
	"         sum(count), sum(seconds), max(max_seconds), sum(seconds) / sum(count)\n"
	"  FROM waits GROUP BY kind, cause, procedure, file, line, module, object;\n"
	"CREATE VIEW thread_summary (thread_id, pid, tid, name, event, metric, value) AS\n"
	"  SELECT t.id, t.pid, t.tid, t.name, m.event, m.metric, m.value\n"
	"  FROM threads t JOIN thread_metrics m ON m.thread_id = t.id;\n"
	/* Where the effort went: useful work, overhead by type, idleness by
	 * cause; the parts add up to the event's effort (100%). */
	"CREATE VIEW effort_summary (event, category, metric, value, percent) AS\n"
	"  SELECT m.event,\n"
	"         CASE WHEN m.metric = 'useful_work' THEN 'useful work'\n"
	"              WHEN m.metric LIKE 'overhead:%' THEN 'overhead' ELSE 'idleness' END,\n"
	"         m.metric, m.total, CASE WHEN e.total > 0 THEN 100.0 * m.total / e.total END\n"
	"  FROM metrics m JOIN metrics e ON e.event = m.event AND e.metric = 'effort'\n"
	"  WHERE m.metric = 'useful_work' OR m.metric LIKE 'overhead:%'\n"
	"     OR m.metric LIKE 'idleness:%';\n"
	"CREATE VIEW thread_effort_summary (thread_id, event, category, metric, value, percent)\n"
	"  AS SELECT m.thread_id, m.event,\n"
	"         CASE WHEN m.metric = 'useful_work' THEN 'useful work'\n"
	"              WHEN m.metric LIKE 'overhead:%' THEN 'overhead' ELSE 'idleness' END,\n"
	"         m.metric, m.value, m.percent\n"
	"  FROM thread_metrics m\n"
	"  WHERE m.metric = 'useful_work' OR m.metric LIKE 'overhead:%'\n"
	"     OR m.metric LIKE 'idleness:%';\n"
	/* Which tag or rule classified the code of each procedure. */
	"CREATE VIEW procedure_overhead (procedure, module, overhead, overhead_by, contexts) AS\n"
	"  SELECT procedure, module, overhead, overhead_by, count(*) FROM contexts\n"
	"  WHERE overhead_by IS NOT NULL\n"
	"  GROUP BY procedure, module, overhead, overhead_by;\n";

/* Children of a context are looked up by the viewer at every expansion.
 * Value-ordered queries and the frames of a procedure scan: comparing a
 * number in every context takes 0.14 s at 680k contexts, the same as
 * with an index for a procedure with many frames, and the index on
 * procedure_id cost 0.6 s of prof's time and 10 bytes per context. */
static const char *indexes_sql =
	"CREATE INDEX contexts_parent ON stored_contexts(parent_id);\n"
	"CREATE INDEX procedure_metrics_name ON procedure_metrics(procedure);\n";

int db_finish_load(sqlite3 *db)
{
	/* Statistics from a sample of each index are enough for its plans. */
	if (db_exec(db, indexes_sql) < 0 || db_exec(db, "PRAGMA analysis_limit = 1000; ANALYZE;") < 0)
		return -1;
	return 0;
}

/* Into BUF, for "cannot write FILE: ...": SQLITE_REASON (SQLite's words
 * for the last failure on DB), the system's reason and the way out.
 * SQLite calls any write the system refused "disk I/O error": the errno
 * of the failed call tells a full disk or file-size limit (ENOSPC, EFBIG)
 * from a failing disk.  Returns 0 when the failure is not the storage's
 * (a bug: BUF is empty). */
static int storage_failure(sqlite3 *db, const char *sqlite_reason, char *buf, size_t size)
{
	int code = sqlite3_errcode(db) & 0xff, sys = 0;
	buf[0] = 0;
	if (code != SQLITE_FULL && code != SQLITE_IOERR && code != SQLITE_CANTOPEN)
		return 0;
	if (sqlite3_file_control(db, "main", SQLITE_FCNTL_LAST_ERRNO, &sys) != SQLITE_OK || !sys)
		sys = sqlite3_system_errno(db);
	const char *fix = sys == EFBIG ? "raise the file-size limit (ulimit -f)"
			  : code == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT ? "make room for it"
			  : NULL;
	snprintf(buf, size, "%s%s%s%s; %s%swrite it elsewhere with -o, and run culprit prof "
		 "again (the measurements are untouched)", sqlite_reason, sys ? " (" : "",
		 sys ? strerror(sys) : "", sys ? ")" : "", fix ? fix : "", fix ? ", or " : "");
	return 1;
}

/* Says why the last statement on DB failed (REASON: SQLite's words);
 * returns -1. */
static int db_failed(sqlite3 *db, const char *reason)
{
	char why[512];
	if (!storage_failure(db, reason, why, sizeof why))
		return msg_error("database error: %s", reason);
	return msg_error("cannot write %s: %s", sqlite3_db_filename(db, "main"), why);
}

int db_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	db_failed(db, msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		db_failed(db, sqlite3_errmsg(db));
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

int db_step_reset(sqlite3 *db, sqlite3_stmt *stmt)
{
	int rc = sqlite3_step(stmt) == SQLITE_DONE ? 0 : db_failed(db, sqlite3_errmsg(db));
	sqlite3_reset(stmt);
	return rc;
}

int db_step_row(sqlite3 *db, sqlite3_stmt *stmt)
{
	int rc = sqlite3_step(stmt);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? rc : db_failed(db, sqlite3_errmsg(db));
}

void db_discard(sqlite3 *db, const char *path)
{
	sqlite3_stmt *s;
	while ((s = sqlite3_next_stmt(db, NULL)))
		sqlite3_finalize(s);
	sqlite3_close(db);
	unlink(path);
}

sqlite3 *db_create(const char *tmp_path, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	unlink(tmp_path);
	if (sqlite3_open_v2(tmp_path, &db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
				    SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot create %s: %s", tmp_path,
			 db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	/* Written once, then renamed into place: no journal needed. */
	char *msg = NULL, pragma[64], why[512];
	snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d;", DB_SCHEMA_VERSION);
	if (sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
			     "PRAGMA page_size = 8192; PRAGMA cache_size = -262144;"
			     "PRAGMA temp_store = MEMORY;", NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(db, db_schema_sql, NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(db, pragma, NULL, NULL, &msg) != SQLITE_OK) {
		const char *reason = msg ? msg : sqlite3_errmsg(db);
		snprintf(err, errlen, "cannot create %s: %s", tmp_path,
			 storage_failure(db, reason, why, sizeof why) ? why : reason);
		sqlite3_free(msg);
		sqlite3_close(db);
		unlink(tmp_path);
		return NULL;
	}
	return db;
}

