/* ranks.c - an MPI run's ranks: each rank's totals, and the contexts whose
 * work differs most between ranks.
 *
 * A rank is a process with an MPI rank (processes.mpi_rank), and all the
 * processes with the same rank.  Its totals add up its threads'
 * (thread_metrics).  A context's work on each rank adds up its threads'
 * exclusive work there (context_thread_all), and the spread over ranks
 * counts a rank that never ran the context as zero, as the spread over
 * threads does.  The imbalance of a context is what the ranks would wait
 * for if a barrier followed it: n (max - mean), the time by which the
 * slowest rank's share exceeds each rank's share on average. */
#include "internal.h"
#include "tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dbr_ranks_free(struct dbr_rank *x, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(x[i].hosts);
	free(x);
}

int dbr_ranks(struct dbr *r, const char *event, struct dbr_rank **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	sqlite3_stmt *s = dbr_prepare(r,
		"SELECT p.mpi_rank, group_concat(DISTINCT p.host), count(DISTINCT p.id), "
		"count(DISTINCT t.id), "
		"coalesce(sum(CASE WHEN m.metric = 'work' THEN m.value END), 0), "
		"coalesce(sum(CASE WHEN m.metric = 'idleness' THEN m.value END), 0), "
		"coalesce(sum(CASE WHEN m.metric = 'effort' THEN m.value END), 0), "
		"coalesce(sum(CASE WHEN m.metric = 'waited:mpi' THEN m.value END), 0), "
		"coalesce(sum(CASE WHEN m.metric = 'waited' THEN m.value END), 0) "
		"FROM " TBL_PROCESSES " p JOIN " TBL_THREADS " t ON t.process_id = p.id "
		"LEFT JOIN thread_metrics m ON m.thread_id = t.id AND m.event = ?1 "
		"WHERE p.mpi_rank IS NOT NULL AND p.mpi_rank >= 0 "
		"GROUP BY p.mpi_rank ORDER BY p.mpi_rank");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		grow_array(out, &cap, *count + 1, sizeof **out);
		struct dbr_rank *k = &(*out)[(*count)++];
		k->rank = sqlite3_column_int(s, 0);
		k->hosts = dbr_text(s, 1);
		k->processes = sqlite3_column_int(s, 2);
		k->threads = sqlite3_column_int(s, 3);
		k->work = sqlite3_column_double(s, 4);
		k->idleness = sqlite3_column_double(s, 5);
		k->effort = sqlite3_column_double(s, 6);
		k->mpi_wait = sqlite3_column_double(s, 7);
		k->waited = sqlite3_column_double(s, 8);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		dbr_ranks_free(*out, *count);
		*out = NULL;
		*count = 0;
		return dbr_fail_sql(r);
	}
	return 0;
}

void dbr_rank_spread_free(struct dbr_rank_spread *x, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(x[i].procedure);
		free(x[i].file);
		free(x[i].call_file);
	}
	free(x);
}

/* Frames by their own (exclusive) work on each rank: a frame's own is
 * what its statements ran, so the frames that differ are where the ranks'
 * work differs, not every frame above them.  The program's frames: a
 * runtime's or the system's (contexts.runtime) are left out
 * (an MPI library's or OpenMP runtime's waiting is no work the ranks
 * differ in). */
static const char spread_sql[] =
	"WITH v AS (SELECT a.context_id AS c, p.mpi_rank AS rank, sum(a.exclusive) AS w "
	"  FROM context_thread_all a JOIN " TBL_THREADS " t ON t.id = a.thread_id "
	"  JOIN " TBL_PROCESSES " p ON p.id = t.process_id "
	"  JOIN " TBL_METRICS " m ON m.id = a.metric_id "
	"  WHERE m.event = ?1 AND m.metric = 'work' AND p.mpi_rank >= 0 "
	"  GROUP BY a.context_id, p.mpi_rank), "
	"s AS (SELECT c, sum(w) AS tot, max(w) AS mx, min(w) AS mn, count(*) AS k, "
	"  sum(w * w) AS sq FROM v GROUP BY c) "
	"SELECT s.c, x.procedure, x.file, x.line, s.tot, s.mx, s.mn, s.k, s.sq, "
	"  (SELECT rank FROM v WHERE v.c = s.c ORDER BY w DESC, rank LIMIT 1), "
	"  y.file, y.line "
	"FROM s JOIN contexts x ON x.id = s.c "
	"LEFT JOIN contexts y ON y.id = x.parent_id AND y.kind = 'callsite' "
	"WHERE x.kind = 'frame' AND s.tot > 0 AND x.runtime = 0";

static int by_imbalance(const void *a, const void *b)
{
	const struct dbr_rank_spread *x = a, *y = b;
	return x->imbalance < y->imbalance ? 1 : x->imbalance > y->imbalance ? -1
	       : x->context < y->context ? -1 : x->context > y->context;
}

int dbr_rank_spread(struct dbr *r, const char *event, int ranks, struct dbr_rank_spread **out,
		    size_t *count)
{
	*out = NULL;
	*count = 0;
	if (ranks < 1)
		return 0;
	sqlite3_stmt *s = dbr_prepare(r, spread_sql);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		grow_array(out, &cap, *count + 1, sizeof **out);
		struct dbr_rank_spread *x = &(*out)[(*count)++];
		double tot = sqlite3_column_double(s, 4), sq = sqlite3_column_double(s, 8);
		int k = sqlite3_column_int(s, 7);
		x->context = sqlite3_column_int64(s, 0);
		x->procedure = dbr_text(s, 1);
		x->file = dbr_text(s, 2);
		x->line = sqlite3_column_int(s, 3);
		x->call_file = dbr_text(s, 10);
		x->call_line = sqlite3_column_int(s, 11);
		x->mean = tot / ranks;
		x->max = sqlite3_column_double(s, 5);
		/* Ranks that never ran it count as zero. */
		x->min = k < ranks ? 0 : sqlite3_column_double(s, 6);
		double var = sq / ranks - x->mean * x->mean;
		x->stddev = var > 0 ? sqrt(var) : 0;
		x->slowest = sqlite3_column_int(s, 9);
		x->imbalance = ranks * (x->max - x->mean);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		dbr_rank_spread_free(*out, *count);
		*out = NULL;
		*count = 0;
		return dbr_fail_sql(r);
	}
	if (*count)
		qsort(*out, *count, sizeof **out, by_imbalance);
	return 0;
}

int dbr_rank_values(struct dbr *r, int64_t id, const char *event, const char *metric,
		    int exclusive, struct dbr_rank_stat *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *s = dbr_prepare(r,
		"WITH ranks AS (SELECT DISTINCT mpi_rank FROM " TBL_PROCESSES
		"  WHERE mpi_rank >= 0), "
		"v AS (SELECT p.mpi_rank AS rank, sum(CASE WHEN ?4 THEN a.exclusive "
		"  ELSE a.inclusive END) AS w "
		"  FROM context_thread_all a JOIN " TBL_THREADS " t ON t.id = a.thread_id "
		"  JOIN " TBL_PROCESSES " p ON p.id = t.process_id "
		"  JOIN " TBL_METRICS " m ON m.id = a.metric_id "
		"  WHERE a.context_id = ?1 AND m.event = ?2 AND m.metric = ?3 AND p.mpi_rank >= 0 "
		"  GROUP BY p.mpi_rank) "
		"SELECT (SELECT count(*) FROM ranks), count(v.rank), coalesce(sum(w), 0), "
		"  coalesce(max(w), 0), coalesce(min(w), 0), coalesce(sum(w * w), 0), "
		"  (SELECT rank FROM v ORDER BY w DESC, rank LIMIT 1) FROM v");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, event, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, metric, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, exclusive);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return dbr_fail_sql(r);
	}
	int ranks = sqlite3_column_int(s, 0), k = sqlite3_column_int(s, 1);
	out->ranks = ranks;
	if (ranks > 0) {
		double tot = sqlite3_column_double(s, 2), sq = sqlite3_column_double(s, 5);
		out->mean = tot / ranks;
		out->max = sqlite3_column_double(s, 3);
		out->min = k < ranks ? 0 : sqlite3_column_double(s, 4);
		double var = sq / ranks - out->mean * out->mean;
		out->stddev = var > 0 ? sqrt(var) : 0;
		out->slowest = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 6);
	}
	sqlite3_finalize(s);
	return 0;
}
