/* timeline.c - the samples over time: what each thread did in each
 * stretch of a range, the parallelism profile, and the latency by
 * procedure (the trace table and parallelism view). */
#include "hash.h"
#include "hindex.h"
#include "internal.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dbr_activity_name(int a)
{
	if (a == DBR_ACT_WORK)
		return "work";
	if (a == DBR_ACT_OVERHEAD)
		return "overhead";
	if (a == DBR_ACT_MEASUREMENT)
		return "measurement";
	if (a >= DBR_ACT_IDLE && a < DBR_ACT_MEASUREMENT)
		return idle_cause((unsigned)(a - DBR_ACT_IDLE))->state;
	return "?";
}

char dbr_activity_mark(int a)
{
	if (a == DBR_ACT_WORK)
		return '#';
	if (a == DBR_ACT_OVERHEAD)
		return '+';
	if (a == DBR_ACT_MEASUREMENT)
		return 'm';
	if (a >= DBR_ACT_IDLE && a < DBR_ACT_MEASUREMENT)
		return idle_cause((unsigned)(a - DBR_ACT_IDLE))->mark;
	return '?';
}

void dbr_activity_legend(char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "# work  + overhead  m culprit  idle:");
	for (unsigned c = 0; c < CULPRIT_IDLE_CAUSES && n < size; c++)
		n += (size_t)snprintf(buf + n, size - n, " %c %s", idle_cause(c)->mark,
				      idle_cause(c)->name);
}

/* The activity a trace row's STATE (and whether its context is
 * overhead) stands for; -1 for a state this reader does not know. */
static int activity(const char *state, int overhead)
{
	if (!state)
		return -1;
	if (strcmp(state, "work") == 0)
		return overhead ? DBR_ACT_OVERHEAD : DBR_ACT_WORK;
	if (strcmp(state, "measurement") == 0)
		return DBR_ACT_MEASUREMENT;
	int cause = idle_cause_of_state_name(state);
	return cause >= 0 ? DBR_ACT_IDLE + cause : -1;
}

/* EVENT's rowid in the events table (the trace's event_id), or -1 after
 * setting the error: also for a database without a trace. */
static int64_t trace_event(struct dbr *r, const char *event)
{
	sqlite3_stmt *s = dbr_prepare(r, "SELECT rowid FROM " TBL_EVENTS " WHERE event = ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	int64_t id = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
	sqlite3_finalize(s);
	if (id < 0)
		dbr_fail(r, "%s: no event '%s'", r->path, event);
	return id;
}

/* The threads, in process and creation order, with the stretch their
 * samples of event EV span. */
static int read_threads(struct dbr *r, int64_t ev, struct dbr_timeline *t)
{
	sqlite3_stmt *s = dbr_prepare(r, "SELECT t.id, t.pid, t.tid, t.name, "
				      "(SELECT min(time) FROM " TBL_TRACE " WHERE thread_id = t.id "
				      "AND event_id = ?1), (SELECT max(time) FROM " TBL_TRACE
				      " WHERE thread_id = t.id AND event_id = ?1), p.executable FROM "
				      TBL_THREADS " t LEFT JOIN " TBL_PROCESSES " p ON p.id = "
				      "t.process_id ORDER BY t.process_id, t.seq, t.id");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, ev);
	size_t cap = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		grow_array(&t->thread, &cap, t->nthreads + 1, sizeof *t->thread);
		struct dbr_timeline_thread *th = &t->thread[t->nthreads++];
		th->id = sqlite3_column_int64(s, 0);
		th->pid = sqlite3_column_int64(s, 1);
		th->tid = sqlite3_column_int64(s, 2);
		th->name = dbr_text(s, 3);
		th->start = sqlite3_column_double(s, 4);
		th->end = sqlite3_column_double(s, 5);
		th->process = dbr_text(s, 6);
	}
	sqlite3_finalize(s);
	return 0;
}

/* Adds the samples of event EV in T's range into INTO, by thread, bucket
 * and activity; with FOCUS > 0, only those at that context and below. */
static int read_buckets(struct dbr *r, int64_t ev, int64_t focus, struct dbr_timeline *t,
			double *into)
{
	const char *sql =
		"SELECT x.thread_id, CAST((x.time - ?2) * ?3 AS INTEGER), x.state, "
		"c.overhead_id IS NOT NULL, total(x.value) FROM " TBL_TRACE " x LEFT JOIN "
		TBL_CONTEXT_TREE " c ON c.id = x.context_id WHERE x.event_id = ?1 AND "
		"x.time >= ?2 AND x.time < ?4 GROUP BY 1, 2, 3, 4";
	const char *sql_focus =
		"WITH RECURSIVE sub(id) AS (SELECT ?5 UNION SELECT c.id FROM "
		TBL_CONTEXT_TREE " c JOIN sub ON c.parent_id = sub.id) "
		"SELECT x.thread_id, CAST((x.time - ?2) * ?3 AS INTEGER), x.state, "
		"c.overhead_id IS NOT NULL, total(x.value) FROM " TBL_TRACE " x JOIN "
		TBL_CONTEXT_TREE " c ON c.id = x.context_id WHERE x.event_id = ?1 AND "
		"x.time >= ?2 AND x.time < ?4 AND x.context_id IN sub GROUP BY 1, 2, 3, 4";
	sqlite3_stmt *s = dbr_prepare(r, focus > 0 ? sql_focus : sql);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, ev);
	sqlite3_bind_double(s, 2, t->from);
	sqlite3_bind_double(s, 3, t->nbuckets / (t->to - t->from));
	sqlite3_bind_double(s, 4, t->to);
	if (focus > 0)
		sqlite3_bind_int64(s, 5, focus);
	/* Thread ids are 1..threads (prof numbers them so): their rows by id. */
	size_t *row_of = xcalloc(t->nthreads + 1, sizeof *row_of);
	for (size_t k = 0; k < t->nthreads; k++)
		if (t->thread[k].id >= 1 && (size_t)t->thread[k].id <= t->nthreads)
			row_of[t->thread[k].id] = k + 1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		int64_t b = sqlite3_column_int64(s, 1);
		int a = activity((const char *)sqlite3_column_text(s, 2), sqlite3_column_int(s, 3));
		size_t k = id >= 1 && (size_t)id <= t->nthreads ? row_of[id] : 0;
		if (k-- == 0 || a < 0 || b < 0 || b >= t->nbuckets)
			continue;
		into[((size_t)k * (size_t)t->nbuckets + (size_t)b) * DBR_ACTIVITIES + (size_t)a] +=
			sqlite3_column_double(s, 4);
	}
	free(row_of);
	sqlite3_finalize(s);
	return 0;
}

int dbr_timeline(struct dbr *r, const char *event, double from, double to, int nbuckets,
		 int64_t focus, struct dbr_timeline *out)
{
	memset(out, 0, sizeof *out);
	int64_t ev = trace_event(r, event);
	if (ev < 0)
		return -1;
	out->duration = dbr_info_number(r, "trace_duration", 0);
	if (!(from >= 0))
		from = 0;
	if (to <= from)
		to = out->duration > from ? out->duration : from + 1;
	out->from = from;
	out->to = to;
	out->nbuckets = nbuckets < 1 ? 1 : nbuckets;
	if (read_threads(r, ev, out) < 0)
		goto fail;
	size_t cells = (out->nthreads ? out->nthreads : 1) * (size_t)out->nbuckets * DBR_ACTIVITIES;
	out->seconds = xcalloc(cells, sizeof *out->seconds);
	if (read_buckets(r, ev, 0, out, out->seconds) < 0)
		goto fail;
	if (focus > 0) {
		out->focus = xcalloc(cells, sizeof *out->focus);
		if (read_buckets(r, ev, focus, out, out->focus) < 0)
			goto fail;
	}
	return 0;
fail:
	dbr_timeline_free(out);
	return -1;
}

void dbr_timeline_free(struct dbr_timeline *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		free(t->thread[i].name);
		free(t->thread[i].process);
	}
	free(t->thread);
	free(t->seconds);
	free(t->focus);
	memset(t, 0, sizeof *t);
}

int dbr_trace_scan(struct dbr *r, const char *event,
		   int (*fn)(void *arg, const struct dbr_trace_sample *s), void *arg)
{
	int64_t ev = trace_event(r, event);
	if (ev < 0)
		return -1;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT x.thread_id, x.time, x.context_id, x.state, "
				      "c.overhead_id IS NOT NULL, x.n_working, x.n_idle, x.value "
				      "FROM " TBL_TRACE " x LEFT JOIN " TBL_CONTEXT_TREE " c ON "
				      "c.id = x.context_id WHERE x.event_id = ?1 "
				      "ORDER BY x.thread_id, x.time");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, ev);
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct dbr_trace_sample t = {
			.thread_id = sqlite3_column_int64(s, 0),
			.time = sqlite3_column_double(s, 1),
			.context_id = sqlite3_column_int64(s, 2),
			.activity = activity((const char *)sqlite3_column_text(s, 3),
					     sqlite3_column_int(s, 4)),
			.n_working = (uint32_t)sqlite3_column_int64(s, 5),
			.n_idle = (uint32_t)sqlite3_column_int64(s, 6),
			.value = sqlite3_column_double(s, 7),
		};
		if (t.activity < 0)
			continue;	/* a state from a newer culprit */
		if (fn(arg, &t))
			break;
	}
	sqlite3_finalize(s);
	return 0;
}

int dbr_parallelism(struct dbr *r, const char *event, struct dbr_parallelism **out,
		    size_t *count)
{
	*out = NULL;
	*count = 0;
	int64_t ev = trace_event(r, event);
	if (ev < 0)
		return -1;
	sqlite3_stmt *s = dbr_prepare(r, "SELECT p.n_working, p.seconds, p.percent, "
				      "(SELECT total(value) FROM " TBL_TRACE " WHERE event_id = ?2 "
				      "AND state = 'work' AND n_working = p.n_working), "
				      "(SELECT total(value * n_idle / n_working) FROM " TBL_TRACE
				      " WHERE event_id = ?2 AND state = 'work' AND n_working = "
				      "p.n_working AND n_working > 0) FROM " VIEW_PARALLELISM
				      " p WHERE p.event = ?1 ORDER BY p.n_working");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, ev);
	size_t cap = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		grow_array(out, &cap, *count + 1, sizeof **out);
		struct dbr_parallelism *p = &(*out)[(*count)++];
		p->n_working = (uint32_t)sqlite3_column_int64(s, 0);
		p->seconds = sqlite3_column_double(s, 1);
		p->percent = sqlite3_column_double(s, 2);
		/* At 0 working, the samples are those of threads that are no
		 * workers: not part of the profile's time. */
		p->work = p->n_working ? sqlite3_column_double(s, 3) : 0;
		p->idleness = sqlite3_column_double(s, 4);
	}
	sqlite3_finalize(s);
	return 0;
}

/* A procedure's latency while it is being added up. */
struct lat_entry {
	const char *procedure, *module;	/* interned by the tree */
	double latency, work, self;
	size_t walk;			/* the last sample walk that added to it */
};

struct lat_table {
	struct lat_entry *e;
	size_t n, cap;
	struct hindex index;		/* (procedure, module) -> entry */
};

/* The entry of PROCEDURE in MODULE, made if new. */
static struct lat_entry *lat_find(struct lat_table *t, const char *procedure, const char *module)
{
	uint64_t h = hash_mix((uint64_t)(uintptr_t)procedure ^
			      hash_mix((uint64_t)(uintptr_t)module));
	struct hindex_pos pos;
	for (uint32_t i = hindex_find(&t->index, h, &pos); i != HINDEX_NONE;
	     i = hindex_next(&t->index, &pos))
		if (t->e[i].procedure == procedure && t->e[i].module == module)
			return &t->e[i];
	grow_array(&t->e, &t->cap, t->n + 1, sizeof *t->e);
	t->e[t->n] = (struct lat_entry){ procedure, module, 0, 0, 0, 0 };
	hindex_add(&t->index, &pos, (uint32_t)t->n);
	return &t->e[t->n++];
}

static int by_latency(const void *a, const void *b)
{
	const struct lat_entry *x = a, *y = b;
	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	return strcmp(x->procedure, y->procedure);
}

int dbr_latency(struct dbr *r, const char *event, int limit, struct dbr_latency **out,
		size_t *count)
{
	*out = NULL;
	*count = 0;
	int64_t ev = trace_event(r, event);
	const struct dbr_tree *tree = ev < 0 ? NULL : dbr_tree(r);
	if (!tree)
		return -1;
	/* Each context's own samples; a thread that is no worker (n_working
	 * 0) counts as working alone. */
	sqlite3_stmt *s = dbr_prepare(r, "SELECT context_id, total(value / max(n_working, 1)), "
				      "total(value) FROM " TBL_TRACE " WHERE event_id = ?1 AND "
				      "state = 'work' GROUP BY context_id");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, ev);
	/* The program's procedures: runtime and system code counts for the
	 * program frame that called it, as in the diagnoses. */
	uint8_t *runtime = dbr_runtime_code(r);
	if (!runtime) {
		sqlite3_finalize(s);
		return -1;
	}
	struct lat_table t = { 0 };
	size_t walk = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		double latency = sqlite3_column_double(s, 1), work = sqlite3_column_double(s, 2);
		if (id < 1 || (size_t)id > tree->n)
			continue;
		walk++;
		int own = 1;	/* the innermost procedure is the sample's own code */
		for (uint32_t i = (uint32_t)(id - 1); i != UINT32_MAX; i = tree->c[i].parent) {
			const struct dbr_ctx *c = &tree->c[i];
			if ((c->kind != KIND_FRAME[0] && c->kind != KIND_INLINED[0]) || !c->procedure ||
			    runtime[i])
				continue;
			struct lat_entry *e = lat_find(&t, c->procedure, c->module);
			if (own)
				e->self += latency;
			own = 0;
			if (e->walk == walk)
				continue;	/* a recursion: once per sample */
			e->walk = walk;
			e->latency += latency;
			e->work += work;
		}
	}
	sqlite3_finalize(s);
	free(runtime);
	if (t.n)
		qsort(t.e, t.n, sizeof *t.e, by_latency);
	size_t n = t.n < (size_t)limit ? t.n : (size_t)limit;
	*out = xcalloc(n + 1, sizeof **out);
	for (size_t i = 0; i < n; i++)
		(*out)[i] = (struct dbr_latency){ xstrdup(t.e[i].procedure),
						  t.e[i].module ? xstrdup(t.e[i].module) : NULL,
						  t.e[i].latency, t.e[i].work, t.e[i].self };
	*count = n;
	free(t.e);
	hindex_free(&t.index);
	return 0;
}

void dbr_latency_free(struct dbr_latency *l, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(l[i].procedure);
		free(l[i].module);
	}
	free(l);
}
