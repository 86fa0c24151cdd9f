/* perfetto.c - the trace as Chrome trace-event JSON, the format that
 * ui.perfetto.dev, chrome://tracing and Speedscope's importer read:
 *
 *   - a process and a thread name for each thread ("M" events);
 *   - per thread, nested slices ("X"), as a flame chart over time: each
 *     frame of a sample's path is a slice, extended for as long as the
 *     samples after it keep that frame (and the frames above it); an idle
 *     worker's samples are one slice, idle:CAUSE.  A slice's args are its
 *     context, its source line, its depth and how many samples it holds;
 *   - per process, a counter ("C") of the threads working and idle, as
 *     the samples saw them, each time it changes.
 *
 * A sample stands for the time before it: since the thread's previous
 * sample, but no longer than its own value when that is time (a thread
 * that blocked between two CPU-time samples did not run in between).
 * Times are microseconds since the run started. */
#define _GNU_SOURCE
#include "export.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 512	/* outermost frames kept of deeper paths */

/* An open slice: a frame that the thread's recent samples all have. */
struct level {
	int64_t context;	/* < 0: -activity, for an idle worker */
	int activity;		/* of its first sample */
	double start, end;	/* seconds */
	long samples;
};

struct counter_point {
	int64_t pid;
	double time;
	uint32_t working, idle;
};

struct perfetto {
	const struct export *x;
	const struct dbr_tree *tree;
	const struct dbr_timeline_thread *thread;	/* by threads.id order */
	size_t nthreads;
	int time_unit;		/* the event's values are seconds */
	const struct dbr_timeline_thread *th;	/* the thread being read */
	int64_t last_thread;
	double last_time;	/* of its previous sample */
	struct level open[MAX_LEVELS];	/* its open slices, outermost first */
	int depth;
	int64_t path[MAX_LEVELS];	/* the sample's frames, outermost first */
	int first;		/* no event written yet */
	struct counter_point *point;
	size_t npoints, cap;
};

static const struct dbr_timeline_thread *thread_of(const struct perfetto *p, int64_t id)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->thread[i].id == id)
			return &p->thread[i];
	return NULL;
}

static void event_start(struct perfetto *p)
{
	fputs(p->first ? "\n" : ",\n", p->x->out);
	p->first = 0;
}

/* Writes open slice DEPTH of the current thread. */
static void put_slice(struct perfetto *p, int depth)
{
	const struct level *l = &p->open[depth];
	FILE *f = p->x->out;
	const struct dbr_ctx *c = l->context > 0 ? &p->tree->c[l->context - 1] : NULL;
	const char *name = c ? (c->procedure ? c->procedure : "?")
			     : dbr_activity_name((int)-l->context);
	int idle = l->activity >= DBR_ACT_IDLE && l->activity < DBR_ACT_MEASUREMENT;
	event_start(p);
	fputs("{\"ph\":\"X\",\"name\":", f);
	json_string(f, name);
	fprintf(f, ",\"cat\":\"%s\",\"pid\":%lld,\"tid\":%lld,\"ts\":%.3f,\"dur\":%.3f,"
		"\"args\":{\"samples\":%ld,\"depth\":%d", idle ? "idle"
		: dbr_activity_name(l->activity), (long long)p->th->pid, (long long)p->th->tid,
		l->start * 1e6, (l->end - l->start) * 1e6, l->samples, depth);
	if (c) {
		fprintf(f, ",\"context\":%lld", (long long)l->context);
		/* Where it was: the line its callee was called from, or sampled. */
		const struct dbr_ctx *at = NULL;
		if (depth + 1 < p->depth && p->open[depth + 1].context > 0)
			at = &p->tree->c[p->open[depth + 1].context - 1];
		if (c->file || (at && at->file)) {
			char *where = xasprintf("%s:%d", c->file ? c->file : at->file,
						c->file ? c->line : at->line);
			fputs(",\"source\":", f);
			json_string(f, where);
			free(where);
		}
	}
	fputs("}}", f);
}

/* Writes and closes the thread's open slices deeper than KEEP. */
static void close_to(struct perfetto *p, int keep)
{
	while (p->depth > keep)
		put_slice(p, --p->depth);
}

/* The frames of context ID's path, outermost first, into P->path (at most
 * MAX_LEVELS, the outermost); their count. */
static int frames_of(struct perfetto *p, int64_t id)
{
	int n = 0;
	for (uint32_t i = id >= 1 && (size_t)id <= p->tree->n ? (uint32_t)(id - 1) : UINT32_MAX;
	     i != UINT32_MAX; i = p->tree->c[i].parent) {
		char k = p->tree->c[i].kind;
		if (k == KIND_FRAME[0] || k == KIND_INLINED[0])
			n++;
	}
	int skip = n > MAX_LEVELS ? n - MAX_LEVELS : 0, at = n - skip;
	for (uint32_t i = id >= 1 && (size_t)id <= p->tree->n ? (uint32_t)(id - 1) : UINT32_MAX;
	     i != UINT32_MAX; i = p->tree->c[i].parent) {
		char k = p->tree->c[i].kind;
		if (k != KIND_FRAME[0] && k != KIND_INLINED[0])
			continue;
		if (skip > 0) {
			skip--;
			continue;
		}
		p->path[--at] = (int64_t)i + 1;
	}
	return n > MAX_LEVELS ? MAX_LEVELS : n;
}

static int add_sample(void *arg, const struct dbr_trace_sample *s)
{
	struct perfetto *p = arg;
	if (s->thread_id != p->last_thread) {
		close_to(p, 0);
		p->th = thread_of(p, s->thread_id);
		p->last_thread = s->thread_id;
		p->last_time = -1;
	}
	if (!p->th)
		return 0;
	double span = p->last_time >= 0 ? s->time - p->last_time : s->value;
	if (p->time_unit && s->value < span)
		span = s->value;
	if (span < 0)
		span = 0;
	double start = s->time - span;
	/* A gap (a thread that did not run) ends every slice; the timer's
	 * value and its time stamp, read microseconds apart, are no gap:
	 * the sample then starts where the previous one ended. */
	if (p->depth) {
		if (start > p->open[0].end + span / 2 + 1e-6)
			close_to(p, 0);
		else
			start = p->open[0].end;
	}
	p->last_time = s->time;

	int idle = s->activity >= DBR_ACT_IDLE && s->activity < DBR_ACT_MEASUREMENT;
	int n = idle ? 1 : frames_of(p, s->context_id);
	if (idle)
		p->path[0] = -s->activity;
	int k = 0;
	while (k < p->depth && k < n && p->open[k].context == p->path[k])
		k++;
	close_to(p, k);
	for (int i = 0; i < k; i++) {
		p->open[i].end = s->time;
		p->open[i].samples++;
	}
	for (; k < n; k++)
		p->open[p->depth++] = (struct level){ p->path[k], s->activity, start, s->time, 1 };

	if (s->n_working || s->n_idle) {
		grow_array(&p->point, &p->cap, p->npoints + 1, sizeof *p->point);
		p->point[p->npoints++] = (struct counter_point){ p->th->pid, s->time, s->n_working,
								 s->n_idle };
	}
	return 0;
}

static int by_pid_time(const void *a, const void *b)
{
	const struct counter_point *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

/* The workers' counts per process, each time they change. */
static void put_counters(struct perfetto *p)
{
	if (p->npoints)
		qsort(p->point, p->npoints, sizeof *p->point, by_pid_time);
	for (size_t i = 0; i < p->npoints; i++) {
		const struct counter_point *c = &p->point[i];
		if (i && c->pid == c[-1].pid && c->working == c[-1].working && c->idle == c[-1].idle)
			continue;
		event_start(p);
		fprintf(p->x->out, "{\"ph\":\"C\",\"name\":\"workers\",\"pid\":%lld,\"ts\":%.3f,"
			"\"args\":{\"working\":%u,\"idle\":%u}}", (long long)c->pid, c->time * 1e6,
			c->working, c->idle);
	}
}

static void put_names(struct perfetto *p)
{
	FILE *f = p->x->out;
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct dbr_timeline_thread *th = &p->thread[i];
		if (i == 0 || th->pid != p->thread[i - 1].pid) {
			const char *exe = th->process ? strrchr(th->process, '/') : NULL;
			char *name = xasprintf("%s %lld", exe ? exe + 1 : th->process ? th->process : "?",
					       (long long)th->pid);
			event_start(p);
			fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"args\":"
				"{\"name\":", (long long)th->pid);
			json_string(f, name);
			fputs("}}", f);
			free(name);
		}
		event_start(p);
		fprintf(f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%lld,\"tid\":%lld,"
			"\"args\":{\"name\":", (long long)th->pid, (long long)th->tid);
		json_string(f, th->name ? th->name : "");
		fputs("}}", f);
	}
}

int export_perfetto(const struct export *x)
{
	struct dbr_timeline tl;
	if (dbr_timeline(x->db, x->event, 0, 0, 1, 0, &tl) < 0)
		return msg_error("%s", dbr_error(x->db));
	/* The open slices and the path are a few pages: not on the stack. */
	struct perfetto *p = xcalloc(1, sizeof *p);
	*p = (struct perfetto){ .x = x, .thread = tl.thread, .nthreads = tl.nthreads,
				.last_thread = -1, .first = 1 };
	p->tree = dbr_tree(x->db);
	int rc = 0;
	if (!p->tree) {
		rc = msg_error("%s", dbr_error(x->db));
		goto out;
	}
	for (size_t i = 0; i < dbr_nevents(x->db); i++)
		if (strcmp(dbr_event_name(x->db, i), x->event) == 0)
			p->time_unit = dbr_same_name(dbr_event_unit(x->db, i), "ns") ||
				       dbr_same_name(dbr_event_unit(x->db, i), "seconds");
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"culprit\",\"event\":",
	      x->out);
	json_string(x->out, x->event);
	fputs("},\"traceEvents\":[", x->out);
	put_names(p);
	if (dbr_trace_scan(x->db, x->event, add_sample, p) < 0)
		rc = msg_error("%s", dbr_error(x->db));
	close_to(p, 0);
	put_counters(p);
	fputs("\n]}\n", x->out);
out:
	free(p->point);
	free(p);
	dbr_timeline_free(&tl);
	return rc;
}
