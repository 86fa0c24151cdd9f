/* trace.c - the samples over time: the trace table (see trace.h). */
#include "trace.h"

#include "batch.h"
#include "database.h"
#include "experiment.h"
#include "merge.h"
#include "mfile_format.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trace_rows_init(struct trace_rows *r, const struct experiment *e)
{
	memset(r, 0, sizeof *r);
	for (size_t i = 0; i < e->nproc; i++) {
		const struct mfile_process *p = e->proc[i]->p;
		if (i == 0 || p->start_monotonic_ns < r->origin_ns) {
			r->origin_ns = p->start_monotonic_ns;
			r->origin_realtime = (double)p->start_realtime_ns / 1e9;
		}
		if (p->end_monotonic_ns > r->end_ns)
			r->end_ns = p->end_monotonic_ns;
	}
}

static int idle_state(uint32_t state)
{
	return mfile_trace_is_idle(state);
}

void trace_rows_add_thread(struct trace_rows *r, struct ctree *t,
			   const struct exp_thread *th)
{
	const struct mfile_thread *mt = th->t;
	const struct mfile_process *p = th->proc->p;
	if (!mt->trace.records)
		return;
	r->threads++;
	r->dropped += mt->trace.dropped;
	/* The thread's events as the tree's, and their scale. */
	uint32_t event[256];
	for (uint32_t k = 0; k < 256; k++)
		event[k] = k < p->nevents ? ctree_event(t, p->events[k].name) : CTX_NONE;

	struct mfile_trace_iter *it = xmalloc(sizeof *it);
	struct mfile_trace_record rec;
	grow_array(&r->row, &r->cap, r->n + mt->trace.records, sizeof *r->row);
	mfile_trace_begin(mt, it);
	while (mfile_trace_next(it, &rec) > 0) {
		uint32_t ev = event[rec.event];
		if (ev == CTX_NONE)
			continue;	/* an event the process file does not list */
		struct trace_row *row = &r->row[r->n++];
		/* A thread's clock read a little before the process's start
		 * (its first sample in the constructor) is time 0. */
		row->time = rec.time_ns > r->origin_ns ? (double)(rec.time_ns - r->origin_ns) / 1e9 : 0;
		row->value = (double)rec.value * t->event[ev].scale;
		row->thread = th->id;
		row->ctx = idle_state(rec.state) || rec.node >= th->ctx_nodes
			   ? CTX_NONE : ctree_value_context(t, th, rec.node);
		row->working = rec.working;
		row->idle = rec.idle;
		row->state = (uint8_t)rec.state;
		row->event = (uint8_t)ev;
	}
	free(it);
}

static int by_thread_time(const void *a, const void *b)
{
	const struct trace_row *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->event > y->event) - (x->event < y->event);
}

static int put_info(sqlite3 *db, const char *key, double value)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT OR REPLACE INTO culprit_info VALUES (?,?)");
	if (!s)
		return -1;
	char text[64];
	snprintf(text, sizeof text, "%.9f", value);
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, text, -1, SQLITE_TRANSIENT);
	int rc = db_step_reset(db, s);
	sqlite3_finalize(s);
	return rc;
}

int trace_rows_write(sqlite3 *db, struct trace_rows *r)
{
	/* A thread's records are in time order; two events' records at
	 * the same ns would make the same key: the second is dropped. */
	if (r->n)
		qsort(r->row, r->n, sizeof *r->row, by_thread_time);
	struct db_batch *b = db_batch_new(db, "trace", 8);
	const struct trace_row *last = NULL;
	double end = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct trace_row *row = &r->row[i];
		if (last && last->thread == row->thread && last->time == row->time &&
		    last->event == row->event)
			continue;
		last = row;
		db_batch_int(b, row->thread);
		db_batch_real(b, row->time);
		db_batch_int(b, row->event + 1);
		if (row->ctx == CTX_NONE)
			db_batch_null(b);
		else
			db_batch_int(b, (int64_t)row->ctx + 1);
		db_batch_text(b, mfile_trace_state_name(row->state));
		db_batch_int(b, row->working);
		db_batch_int(b, row->idle);
		db_batch_real(b, row->value);
		if (row->time > end)
			end = row->time;
	}
	int rc = db_batch_finish(b);
	/* The run's length: to its last process's end, or its last sample
	 * (a snapshot's end is when it was written). */
	double ended = r->end_ns > r->origin_ns ? (double)(r->end_ns - r->origin_ns) / 1e9 : 0;
	if (rc == 0 && (put_info(db, "trace_origin", r->origin_realtime) < 0 ||
			put_info(db, "trace_duration", ended > end ? ended : end) < 0 ||
			(r->dropped && put_info(db, "trace_dropped", (double)r->dropped) < 0)))
		rc = -1;
	free(r->row);
	r->row = NULL;
	r->n = r->cap = 0;
	return rc;
}
