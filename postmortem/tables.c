/* tables.c - fills the database's tables for `culprit prof` (tables.h).
 *
 * Strings are bound without a copy and rows go in key order where the
 * table is large: loading is most of prof's time on big experiments. */
#define _GNU_SOURCE
#include "config.h"
#include "tables.h"
#include "batch.h"
#include "database.h"
#include "diagnose.h"
#include "experiment.h"
#include "merge.h"
#include "mfile_format.h"
#include "overhead.h"
#include "runs.h"
#include "symbolize.h"
#include "tools.h"
#include "tasks.h"
#include "waits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Binds V without a copy: every string bound here outlives the statement's
 * next step (interned strings, the experiment's records). */
static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static void bind_real(sqlite3_stmt *s, int i, double v)
{
	sqlite3_bind_double(s, i, v);
}

/* What a metric's percentages are of: the total effort of its event, or
 * for samples, all samples.  0 when there is none. */
static double percent_base(const struct ctree *t, uint32_t metric)
{
	const struct ctx_metric *m = &t->metric[metric];
	if (strcmp(m->name, MET_SAMPLES) == 0)
		return m->total;
	uint32_t effort = t->derived[m->event].effort;
	return effort == CTX_NONE ? 0 : t->metric[effort].total;
}

static void bind_percent(sqlite3_stmt *s, int i, double v, double base)
{
	if (base > 0)
		sqlite3_bind_double(s, i, 100 * v / base);
	else
		sqlite3_bind_null(s, i);
}

static double seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* ---- per-thread values ----------------------------------------------------- */

struct thread_values {
	sqlite3 *db;
	const struct ctree *tree;
	struct thread_row *rows;	/* in the order the merge found them */
	size_t nrows, caprows;
	sqlite3_stmt *totals;		/* INSERT INTO thread_metrics */
	uint32_t *sole;			/* by context: see thread_values_sole */
	int sorted;			/* rows: only those to write, in order */
};

struct thread_values *thread_values_new(sqlite3 *db, const struct ctree *tree)
{
	sqlite3_stmt *totals = db_prepare(db, "INSERT INTO thread_metrics VALUES (?,?,?,?,?)");
	if (!totals)
		return NULL;
	struct thread_values *v = xcalloc(1, sizeof *v);
	v->db = db;
	v->tree = tree;
	v->totals = totals;
	return v;
}

void thread_values_free(struct thread_values *v)
{
	if (!v)
		return;
	sqlite3_finalize(v->totals);
	free(v->sole);
	free(v->rows);
	free(v);
}

static void thread_values_add_id(struct thread_values *v, uint32_t thread, uint32_t ctx,
				 uint32_t metric, double incl, double excl)
{
	grow_array(&v->rows, &v->caprows, v->nrows + 1, sizeof *v->rows);
	v->rows[v->nrows++] = (struct thread_row){ ctx, metric, thread, incl, excl };
}

void thread_values_adopt(struct thread_values *v, struct thread_row *rows, size_t n,
			 size_t cap)
{
	free(v->rows);
	v->rows = rows;
	v->nrows = n;
	v->caprows = cap;
}

void thread_values_add(void *values, const struct exp_thread *th, uint32_t ctx, uint32_t metric,
		       double incl, double excl)
{
	thread_values_add_id(values, th->id, ctx, metric, incl, excl);
}

int thread_values_totals(struct thread_values *v, const struct exp_thread *th,
			 const double *totals)
{
	return thread_values_totals_id(v, th->id, totals);
}

int thread_values_totals_id(struct thread_values *v, uint32_t thread, const double *totals)
{
	const struct ctree *t = v->tree;
	sqlite3_stmt *s = v->totals;
	int rc = 0;
	for (size_t m = 0; rc == 0 && m < t->nmetric; m++) {
		sqlite3_bind_int64(s, 1, thread);
		bind_text(s, 2, t->event[t->metric[m].event].name);
		bind_text(s, 3, t->metric[m].name);
		bind_real(s, 4, totals[m]);
		/* Of the thread's own effort. */
		uint32_t effort = t->derived[t->metric[m].event].effort;
		if (effort != CTX_NONE && strcmp(t->metric[m].name, MET_SAMPLES) != 0)
			bind_percent(s, 5, totals[m], totals[effort]);
		else
			sqlite3_bind_null(s, 5);
		rc = db_step_reset(v->db, s);
	}
	return rc;
}

size_t thread_values_count(const struct thread_values *v)
{
	return v->nrows;
}

static int by_key(const void *a, const void *b)
{
	const struct thread_row *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

const uint32_t *thread_values_sole(struct thread_values *v)
{
	if (v->sole)
		return v->sole;
	v->sole = xcalloc(v->tree->n + 1, sizeof *v->sole);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct thread_row *r = &v->rows[i];
		uint32_t *s = &v->sole[r->ctx];
		if (!*s)
			*s = r->thread;
		else if (*s != r->thread)
			*s = SOLE_SEVERAL;
	}
	return v->sole;
}

/* ---- per-experiment values ------------------------------------------------ */

struct run_row {
	uint32_t run, metric, ctx;
	double incl, excl;
};

struct run_values {
	struct run_row *rows;
	size_t n;
};

static int by_run_key(const void *a, const void *b)
{
	const struct run_row *x = a, *y = b;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

struct run_values *thread_values_by_run(const struct thread_values *v, const struct experiment *e)
{
	if (e->nrun < 2)
		return NULL;
	struct run_values *rv = xcalloc(1, sizeof *rv);
	rv->rows = xcalloc(v->nrows + 1, sizeof *rv->rows);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct thread_row *r = &v->rows[i];
		rv->rows[i] = (struct run_row){ e->thread[r->thread - 1]->proc->run->id, r->metric,
						r->ctx, r->incl, r->excl };
	}
	qsort(rv->rows, v->nrows, sizeof *rv->rows, by_run_key);
	/* One row per key, the threads' values summed. */
	size_t n = 0;
	for (size_t i = 0; i < v->nrows; i++) {
		struct run_row *r = &rv->rows[i];
		if (n && by_run_key(&rv->rows[n - 1], r) == 0) {
			rv->rows[n - 1].incl += r->incl;
			rv->rows[n - 1].excl += r->excl;
		} else {
			rv->rows[n++] = *r;
		}
	}
	rv->n = n;
	return rv;
}

int run_values_write(sqlite3 *db, struct run_values *rv)
{
	if (!rv)
		return 0;
	struct db_batch *b = db_batch_new(db, "stored_experiment_values", 5);
	for (size_t i = 0; i < rv->n; i++) {
		const struct run_row *r = &rv->rows[i];
		if (r->incl == 0 && r->excl == 0)
			continue;
		db_batch_int(b, r->run);
		db_batch_int(b, (int64_t)r->metric + 1);
		db_batch_int(b, (int64_t)r->ctx + 1);
		db_batch_real(b, r->incl);
		db_batch_real(b, r->excl);
	}
	int rc = db_batch_finish(b);
	run_values_free(rv);
	return rc;
}

void run_values_free(struct run_values *rv)
{
	if (!rv)
		return;
	free(rv->rows);
	free(rv);
}

/* Whether metric M is left to the views when DERIVABLE. */
static int left_to_views(const struct ctree *t, uint32_t m, int derivable)
{
	uint32_t from, plus, minus;
	return derivable && ctree_derived_metric(t, m, &from, &plus, &minus);
}

void thread_values_sort(struct thread_values *v, int derivable)
{
	const uint32_t *sole = thread_values_sole(v);
	/* A context one thread reached: its total says it all.  The rest
	 * (a few rows in six, typically) go in key order. */
	size_t n = 0;
	for (size_t i = 0; i < v->nrows; i++)
		if (sole[v->rows[i].ctx] == SOLE_SEVERAL &&
		    !left_to_views(v->tree, v->rows[i].metric, derivable))
			v->rows[n++] = v->rows[i];
	v->nrows = n;
	qsort(v->rows, n, sizeof *v->rows, by_key);
	v->sorted = 1;
}

int thread_values_write(struct thread_values *v, int derivable)
{
	if (!v->sorted)
		thread_values_sort(v, derivable);
	struct db_batch *b = db_batch_new(v->db, "stored_thread_values", 5);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct thread_row *r = &v->rows[i];
		db_batch_int(b, (int64_t)r->ctx + 1);
		db_batch_int(b, (int64_t)r->metric + 1);
		db_batch_int(b, r->thread);
		db_batch_real(b, r->incl);
		db_batch_real(b, r->excl);
	}
	int rc = db_batch_finish(b);
	thread_values_free(v);
	return rc;
}

/* ---- procedures ---------------------------------------------------------------- */

struct procedure_writer {
	sqlite3 *db;
	const struct ctree *tree;
	sqlite3_stmt *insert;		/* INSERT INTO procedure_metrics */
	int failed;			/* an insert failed: skip the rest */
};

static void procedure_value(void *arg, uint32_t procedure, uint32_t module, uint32_t file,
			    uint32_t metric, double incl, double excl)
{
	struct procedure_writer *w = arg;
	const struct ctree *t = w->tree;
	const struct ctx_metric *m = &t->metric[metric];
	sqlite3_stmt *s = w->insert;
	if (w->failed)
		return;
	bind_text(s, 1, strtab_get(t->str, procedure));
	bind_text(s, 2, strtab_get(t->str, module));
	bind_text(s, 3, strtab_get(t->str, file));
	bind_text(s, 4, t->event[m->event].name);
	bind_text(s, 5, m->name);
	bind_real(s, 6, incl);
	bind_real(s, 7, excl);
	double base = percent_base(t, metric);
	bind_percent(s, 8, incl, base);
	bind_percent(s, 9, excl, base);
	if (db_step_reset(w->db, s) < 0)
		w->failed = 1;
}

int tables_write_procedures(sqlite3 *db, const struct ctree *t)
{
	struct procedure_writer w = { db, t, NULL, 0 };
	w.insert = db_prepare(db, "INSERT INTO procedure_metrics VALUES (?,?,?,?,?,?,?,?,?)");
	if (!w.insert)
		return -1;
	ctree_procedures(t, procedure_value, &w);
	sqlite3_finalize(w.insert);
	return w.failed ? -1 : 0;
}

/* ---- the experiment, its tree and its symbols ---------------------------------- */

/* Each writer below returns 0, or -1 after a message (database.h). */

static int write_notes(sqlite3 *db, const struct mfile *mf, uint32_t process, uint32_t thread)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO notes VALUES (?,?,?)");
	int rc = s ? 0 : -1;
	for (uint32_t i = 0; rc == 0 && i < mf->nnotes; i++) {
		sqlite3_bind_int64(s, 1, process);
		if (thread)
			sqlite3_bind_int64(s, 2, thread);
		else
			sqlite3_bind_null(s, 2);
		bind_text(s, 3, mf->notes[i]);
		rc = db_step_reset(db, s);
	}
	sqlite3_finalize(s);
	return rc;
}

static int write_processes(sqlite3 *db, const struct experiment *e)
{
	sqlite3_stmt *s = db_prepare(db,
		"INSERT INTO processes (id, pid, ppid, generation, mpi_rank, host, executable, "
		"command, cwd, start_time, end_time, end_reason, end_status, experiment, "
		"measurement_file, experiment_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	int rc = s ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < e->nproc; i++) {
		const struct exp_process *ep = e->proc[i];
		const struct mfile_process *p = ep->p;
		char *cmd = join_words(p->argv, p->argc);
		sqlite3_bind_int64(s, 1, ep->id);
		sqlite3_bind_int64(s, 2, p->pid);
		sqlite3_bind_int64(s, 3, p->ppid);
		sqlite3_bind_int64(s, 4, p->generation);
		if (p->mpi_rank >= 0)
			sqlite3_bind_int64(s, 5, p->mpi_rank);
		else
			sqlite3_bind_null(s, 5);
		bind_text(s, 6, p->host);
		bind_text(s, 7, p->exe);
		bind_text(s, 8, cmd);
		bind_text(s, 9, p->cwd);
		bind_real(s, 10, seconds(p->start_realtime_ns));
		bind_real(s, 11, seconds(p->end_realtime_ns));
		bind_text(s, 12, mfile_end_reason_name(p->end_reason));
		if (p->end_status >= 0)
			sqlite3_bind_int64(s, 13, p->end_status);
		else
			sqlite3_bind_null(s, 13);
		bind_text(s, 14, p->experiment);
		bind_text(s, 15, ep->path);
		sqlite3_bind_int64(s, 16, ep->run->id);
		rc = db_step_reset(db, s);
		if (rc == 0)
			rc = write_notes(db, ep->mf, ep->id, 0);
		free(cmd);
	}
	sqlite3_finalize(s);
	return rc;
}

static int write_threads(sqlite3 *db, const struct experiment *e)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO threads (id, process_id, pid, tid, seq, "
				     "mpi_rank, name, start_time, end_time, end_reason, "
				     "measurement_file) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
	sqlite3_stmt *c = s ? db_prepare(db, "INSERT INTO thread_counters VALUES (?,?,?)") : NULL;
	int rc = c ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < e->nthread; i++) {
		const struct exp_thread *t = e->thread[i];
		const struct mfile_process *p = t->proc->p;
		sqlite3_bind_int64(s, 1, t->id);
		sqlite3_bind_int64(s, 2, t->proc->id);
		sqlite3_bind_int64(s, 3, p->pid);
		sqlite3_bind_int64(s, 4, t->tid);
		sqlite3_bind_int64(s, 5, t->seq);
		if (p->mpi_rank >= 0)
			sqlite3_bind_int64(s, 6, p->mpi_rank);
		else
			sqlite3_bind_null(s, 6);
		bind_text(s, 7, t->name);
		bind_real(s, 8, seconds(t->start_ns));
		bind_real(s, 9, seconds(t->end_ns));
		bind_text(s, 10, mfile_end_reason_name(t->end_reason));
		bind_text(s, 11, t->path);
		rc = db_step_reset(db, s);
		if (rc == 0)
			rc = write_notes(db, t->mf, t->proc->id, t->id);
		for (uint32_t k = 0; rc == 0 && k < t->t->ncounters; k++) {
			sqlite3_bind_int64(c, 1, t->id);
			bind_text(c, 2, t->t->counters[k].name);
			sqlite3_bind_int64(c, 3, (sqlite3_int64)t->t->counters[k].value);
			rc = db_step_reset(db, c);
		}
	}
	sqlite3_finalize(s);
	sqlite3_finalize(c);
	return rc;
}

static int write_experiments(sqlite3 *db, const struct experiment *e)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO experiments (id, label, threads, command, "
				     "start_time, wall_time, cpu_time, exit_status, run, directory, "
				     "cores) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
	int rc = s ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < e->nrun; i++) {
		const struct exp_run *r = e->run[i];
		sqlite3_bind_int64(s, 1, r->id);
		bind_text(s, 2, r->label);
		sqlite3_bind_int64(s, 3, r->threads);
		bind_text(s, 4, r->command);
		bind_real(s, 5, r->start);
		bind_real(s, 6, r->wall);
		if (r->cpu >= 0)
			bind_real(s, 7, r->cpu);
		else
			sqlite3_bind_null(s, 7);
		if (r->status >= 0)
			sqlite3_bind_int64(s, 8, r->status);
		else
			sqlite3_bind_null(s, 8);
		bind_text(s, 9, r->name);
		bind_text(s, 10, r->dir);
		if (r->cores > 0)
			sqlite3_bind_int64(s, 11, r->cores);
		else
			sqlite3_bind_null(s, 11);
		rc = db_step_reset(db, s);
	}
	sqlite3_finalize(s);
	return rc;
}

int tables_write_identity(sqlite3 *db, const struct experiment *e)
{
	if (write_experiments(db, e) < 0 || write_processes(db, e) < 0 ||
	    write_threads(db, e) < 0 || waits_write_sites(db, e) < 0 || tasks_write(db, e) < 0)
		return -1;
	return 0;
}

/* What each event and metric is, for the events and metrics tables. */
static const char *const descriptions[][2] = {
	{ "cputime", "CPU time of each thread" },
	{ "realtime", "wall-clock time of each thread, blocked or not" },
	{ MET_SAMPLES, "samples recorded" },
	{ MET_WORK, "the event's measured value in threads that were not idle workers" },
	{ MET_IDLENESS, "work times idle workers over working workers: idleness blamed on the "
			"code that ran while other workers idled" },
	{ MET_OVERHEAD, "work in the parallel runtime rather than the program: instructions "
			"tagged or matched by an overhead rule" },
	{ MET_USEFUL, "work minus overhead: the program's own computation" },
	{ MET_EFFORT, "work plus idleness: everything the workers spent, working or not" },
	{ MET_MEASUREMENT, "the event's value in samples taken in culprit's own work (its "
			   "callbacks and captures), where it was paid: the measurement's cost, "
			   "not in work" },
};

/* NAME's description, or OTHERWISE. */
static const char *description(const char *name, const char *otherwise)
{
	int cause = idle_cause_of_metric(name);
	if (cause >= 0)
		return idle_cause((unsigned)cause)->description;
	for (size_t i = 0; i < sizeof descriptions / sizeof *descriptions; i++)
		if (strcmp(name, descriptions[i][0]) == 0)
			return descriptions[i][1];
	return otherwise;
}

int tables_write_events(sqlite3 *db, const struct ctree *t, int derivable)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO events VALUES (?,?,?,?,?,?)");
	int rc = s ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < t->nevent; i++) {
		const struct ctx_event *ev = &t->event[i];
		bind_text(s, 1, ev->name);
		bind_text(s, 2, ev->unit);
		bind_text(s, 3, mfile_source_name(ev->source));
		if (ev->flags & MFILE_EVENT_FREQ) {
			sqlite3_bind_null(s, 4);
			bind_real(s, 5, (double)ev->period);
		} else {
			bind_real(s, 4, (double)ev->period * ev->scale);
			if (ev->scale != 1)
				bind_real(s, 5, 1.0 / ((double)ev->period * ev->scale));
			else
				sqlite3_bind_null(s, 5);
		}
		bind_text(s, 6, description(ev->name, "a perf_event counter (libpfm4 name)"));
		rc = db_step_reset(db, s);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	s = db_prepare(db, "INSERT INTO metrics VALUES (?,?,?,?,?,?,?,?,?,?,?)");
	rc = s ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < t->nmetric; i++) {
		const struct ctx_metric *m = &t->metric[i];
		char *described = NULL;
		bind_text(s, 1, t->event[m->event].name);
		bind_text(s, 2, m->name);
		bind_text(s, 3, m->unit);
		if (strncmp(m->name, MET_OVERHEAD_PREFIX, strlen(MET_OVERHEAD_PREFIX)) == 0)
			described = xasprintf("work in the parallel runtime's code classified as %s "
					      "overhead (see contexts.overhead_by)", m->name + strlen(MET_OVERHEAD_PREFIX));
		bind_text(s, 4, described ? described : description(m->name, ""));
		bind_real(s, 5, m->total);
		bind_percent(s, 6, m->total, percent_base(t, (uint32_t)i));
		sqlite3_bind_int64(s, 7, (sqlite3_int64)i + 1);	/* context_values.metric_id */
		bind_real(s, 8, percent_base(t, (uint32_t)i));
		uint32_t from[3];
		if (left_to_views(t, (uint32_t)i, derivable))
			ctree_derived_metric(t, (uint32_t)i, &from[0], &from[1], &from[2]);
		else
			from[0] = from[1] = from[2] = CTX_NONE;
		for (int k = 0; k < 3; k++) {
			if (from[k] == CTX_NONE)
				sqlite3_bind_null(s, 9 + k);
			else
				sqlite3_bind_int64(s, 9 + k, (sqlite3_int64)from[k] + 1);
		}
		rc = db_step_reset(db, s);
		free(described);
	}
	sqlite3_finalize(s);
	return rc;
}

/* Adds a name id to row B, marking it USED; 0 (no name) is a null. */
static void batch_name(struct db_batch *b, uint32_t id, uint8_t *used)
{
	if (id) {
		used[id] = 1;
		db_batch_int(b, id);
	} else {
		db_batch_null(b);
	}
}

/* The names the contexts used, by the tree's string ids. */
static int write_names(sqlite3 *db, const struct ctree *t, const uint8_t *used)
{
	struct db_batch *b = db_batch_new(db, "stored_names", 2);
	for (uint32_t id = 1; id < strtab_count(t->str); id++) {
		if (!used[id])
			continue;
		db_batch_int(b, id);
		db_batch_text(b, strtab_get(t->str, id));
	}
	return db_batch_finish(b);
}

static int write_contexts(sqlite3 *db, const struct ctree *t, const uint32_t *sole)
{
	uint8_t *used = xcalloc(strtab_count(t->str) + 1, 1);
	uint8_t *runtime = diagnose_runtime_code(t);
	struct db_batch *b = db_batch_new(db, "stored_contexts", 13);
	for (size_t i = 0; i < t->n; i++) {
		const struct ctx_node *node = &t->node[i];
		db_batch_int(b, (int64_t)i + 1);
		if (node->parent == CTX_NONE)
			db_batch_null(b);
		else
			db_batch_int(b, (int64_t)node->parent + 1);
		db_batch_int(b, node->depth);
		batch_name(b, t->kind_name[node->kind], used);
		batch_name(b, node->procedure, used);
		batch_name(b, node->module, used);
		batch_name(b, node->file, used);
		if (node->line)
			db_batch_int(b, node->line);
		else
			db_batch_null(b);
		const struct ctx_class *cls = ctree_class(t, (uint32_t)i);
		batch_name(b, cls ? cls->type : 0, used);
		batch_name(b, cls ? cls->by : 0, used);
		batch_name(b, node->folded, used);
		if (sole[i] && sole[i] != SOLE_SEVERAL)
			db_batch_int(b, sole[i]);
		else
			db_batch_null(b);
		db_batch_int(b, runtime[i]);
	}
	int rc = db_batch_finish(b);
	free(runtime);
	if (rc == 0)
		rc = write_names(db, t, used);
	free(used);
	return rc;
}

/* Context I's pair of metric M, zeros for CTX_NONE. */
static void stat_pair(const struct ctree *t, uint32_t i, uint32_t m, double out[2])
{
	const struct ctx_stat *st = m == CTX_NONE ? NULL : ctree_stat(t, i, m);
	out[0] = st ? st->incl : 0;
	out[1] = st ? st->excl : 0;
}

int tables_derivable(const struct ctree *t)
{
	if (!t->thread_derivable)
		return 0;
	for (uint32_t m = 0; m < t->nmetric; m++) {
		uint32_t from, plus, minus;
		if (!ctree_derived_metric(t, m, &from, &plus, &minus))
			continue;
		for (uint32_t i = 0; i < t->n; i++) {
			double f[2], p[2], x[2], v[2];
			stat_pair(t, i, from, f);
			stat_pair(t, i, plus, p);
			stat_pair(t, i, minus, x);
			stat_pair(t, i, m, v);
			if (!ctree_derived_matches(f, p, x, v))
				return 0;
		}
	}
	return 1;
}

int tables_write_tree(sqlite3 *db, const struct ctree *t, const uint32_t *sole, int derivable)
{
	sqlite3_stmt *info = db_prepare(db, "INSERT INTO culprit_info VALUES ('value_threads', ?)");
	if (!info)
		return -1;
	/* What the per-context statistics of the context_metrics view are over. */
	sqlite3_bind_int64(info, 1, (sqlite3_int64)t->nthreads);
	int rc = db_step_reset(db, info);
	sqlite3_finalize(info);
	/* One table at a time: each insert then appends to one B-tree. */
	if (rc < 0 || write_contexts(db, t, sole) < 0)
		return -1;
	progress_update("context values");
	uint8_t *skip = xcalloc(t->nmetric + 1, 1);
	for (uint32_t k = 0; k < t->nmetric; k++)
		skip[k] = (uint8_t)left_to_views(t, k, derivable);
	struct db_batch *v = db_batch_new(db, "stored_values", 4);
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < t->nmetric; k++) {
			const struct ctx_stat *st = ctree_stat(t, (uint32_t)i, (uint32_t)k);
			if ((st->incl == 0 && st->excl == 0) || skip[k])
				continue;
			db_batch_int(v, (int64_t)i + 1);
			db_batch_int(v, (int64_t)k + 1);
			db_batch_real(v, st->incl);
			db_batch_real(v, st->excl);
		}
	}
	free(skip);
	return db_batch_finish(v);
}

int tables_write_modules(sqlite3 *db, struct symbolizer *sym)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO modules VALUES (?,?,?,?,?,?)");
	int rc = s ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < symbolizer_count(sym); i++) {
		struct sym_module *m = symbolizer_at(sym, i);
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i + 1);
		/* The name contexts.module uses: [vdso] for the kernel's. */
		bind_text(s, 2, sym_module_name(m));
		char id[129];
		sym_module_build_id(m, id);
		bind_text(s, 3, id[0] ? id : NULL);
		sqlite3_bind_int64(s, 4, sym_module_has_lines(m));
		bind_text(s, 5, sym_module_used(m) ? sym_module_problem(m) : NULL);
		bind_text(s, 6, sym_module_path(m));
		rc = db_step_reset(db, s);
	}
	sqlite3_finalize(s);
	return rc;
}

int tables_write_info(sqlite3 *db, char *const *dirs, int ndirs)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO culprit_info VALUES (?,?)");
	if (!s)
		return -1;
	char when[64];
	time_t t = time(NULL);
	struct tm tm;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", localtime_r(&t, &tm));
	char *all = join_words(dirs, (size_t)ndirs);
	const char *kv[][2] = {
		{ INFO_FORMAT_KEY, INFO_FORMAT_VALUE },
		{ "culprit_version", PACKAGE_VERSION },
		{ "created", when },
		{ "measurements", all },
	};
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof kv / sizeof kv[0]; i++) {
		bind_text(s, 1, kv[i][0]);
		bind_text(s, 2, kv[i][1]);
		rc = db_step_reset(db, s);
	}
	char v[16];
	snprintf(v, sizeof v, "%d", DB_SCHEMA_VERSION);
	bind_text(s, 1, "schema_version");
	bind_text(s, 2, v);
	if (rc == 0)
		rc = db_step_reset(db, s);
	sqlite3_finalize(s);
	free(all);
	return rc;
}

/* ---- how the figures were made ---------------------------------------------- */

int tables_write_rules(sqlite3 *db, const struct ovh_rules *rules)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO overhead_rules VALUES (?,?,?,?,?)");
	int rc = s ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < rules->n; i++) {
		const struct ovh_rule *r = &rules->rule[i];
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i + 1);
		bind_text(s, 2, ovh_field_name[r->field]);
		bind_text(s, 3, r->pattern);
		bind_text(s, 4, r->type);
		bind_text(s, 5, r->origin);
		rc = db_step_reset(db, s);
	}
	sqlite3_finalize(s);
	return rc;
}

int tables_write_thresholds(sqlite3 *db, const struct diag_thresholds *th)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO culprit_info VALUES (?,?)");
	int rc = s ? 0 : -1;
	const char *key[] = { "diagnose_idleness_percent", "diagnose_overhead_percent",
			      "diagnose_share_percent" };
	double v[] = { th->idleness, th->overhead, th->share };
	for (int i = 0; rc == 0 && i < 3; i++) {
		char buf[32];
		snprintf(buf, sizeof buf, "%g", 100 * v[i]);
		bind_text(s, 1, key[i]);
		bind_text(s, 2, buf);
		rc = db_step_reset(db, s);
	}
	sqlite3_finalize(s);
	return rc;
}

