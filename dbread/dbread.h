/* dbread.h - reading a culprit database: the one read layer under every
 * reader (culprit report, culprit view, and the readers to come).
 *
 * It owns what every reader needs and must agree on: opening with the
 * version checks, the event and metric a reader shows (with what its
 * percentages are of), the procedure list, a context's children and path,
 * the diagnoses, per-thread values, and the one definition of a frame's
 * caller.  Readers format; they do not query the tables this covers.
 *
 * Context ids are 1..ncontexts, parents before children (culprit prof
 * writes them so).  Names come from schema.h.  Functions that can fail
 * return -1 (or NULL) with dbr_error() saying why in one line. */
#ifndef CULPRIT_DBREAD_H
#define CULPRIT_DBREAD_H

#include <stddef.h>
#include <stdint.h>

#include "schema.h"

struct dbr_tree;

/* An open database: what is in it is read through the functions below. */
struct dbr;

/* ---- open.c: opening, and what any query needs -------------------------- */

/* Opens PATH read-only as a culprit database with at least one event and
 * one context.  NULL after writing one line naming the problem and the fix
 * (missing, not culprit's, from a newer culprit, empty) into ERR. */
struct dbr *dbr_open(const char *path, char *err, size_t errlen);
void dbr_close(struct dbr *r);
const char *dbr_error(const struct dbr *r);
/* The path it was opened from. */
const char *dbr_file(const struct dbr *r);
/* Its events, in the order prof wrote them (at least one), and their units. */
size_t dbr_nevents(const struct dbr *r);
const char *dbr_event_name(const struct dbr *r, size_t i);
const char *dbr_event_unit(const struct dbr *r, size_t i);
/* How many contexts there are: ids 1..N. */
int64_t dbr_ncontexts(const struct dbr *r);

/* A number from culprit_info, or FALLBACK. */
double dbr_info_number(struct dbr *r, const char *key, double fallback);
/* Whether idleness was measured: 1, 0 (no runtime plugin followed the
 * workers' states: the idleness metrics are no measurement), or -1 when
 * the database does not say. */
int dbr_idleness_measured(struct dbr *r);
/* What to say where idleness was not measured. */
#define DBR_IDLENESS_UNMEASURED_HOW                                          \
	"idleness was not measured: no runtime told culprit when its threads waited "  \
	"(culprit run --no-waits, or a runtime of the program's own); declare its "   \
	"workers with the runtime API (include/culprit/culprit.h, doc/runtime-api.md)"

/* ---- metric.c: what a reader shows ---------------------------------------- */

struct dbr_choice {
	const char *event;	/* one of r->event's names */
	char *metric;
	char *unit;
	double total;		/* the metric's total */
	double base;		/* what percentages are of: the event's effort,
				 * or its work in a database without effort;
				 * all samples for the samples metric */
};

/* Chooses EVENT (NULL: the first) and METRIC (NULL: work) for OUT.  Fails
 * with the choices there are when either is not in the database. */
int dbr_choose(struct dbr *r, const char *event, const char *metric, struct dbr_choice *out);
void dbr_choice_free(struct dbr_choice *c);
/* The total of METRIC for EVENT; 0 (and *FOUND 0) when it has none. */
double dbr_metric_total(struct dbr *r, const char *event, const char *metric, int *found);
/* The index of NAME in METRICS (N), or -1: where a reader keeps values of
 * several metrics, in the order it asked for them. */
int dbr_metric_index(const char *const *metrics, size_t n, const char *name);
/* Whether two names (procedures, modules, files) are the same; NULLs
 * (no name) are the same as each other. */
int dbr_same_name(const char *a, const char *b);

/* ---- tree.c: the context tree in memory, and the callers of a frame ------------ */

struct dbr_ctx {
	uint32_t parent;	/* index (id - 1); UINT32_MAX at a root */
	uint32_t first, next;	/* children, in id order */
	uint32_t depth;
	char kind;		/* the first letter of its kind: r f i c s */
	const char *procedure, *module, *file;	/* owned by the tree */
	int line;
	/* The native frames folded into it, "a > b"; NULL for none. */
	const char *folded;
};

struct dbr_tree {
	struct dbr_ctx *c;	/* c[id - 1] */
	size_t n;
	struct strtab *names;
	uint8_t *recursive;	/* dbr_recursive's, once asked for */
};

/* The whole tree (read once, then kept); NULL after setting the error. */
const struct dbr_tree *dbr_tree(struct dbr *r);
/* Adds each context's METRIC for EVENT to INCL and EXCL (arrays of
 * r->ncontexts, indexed by id - 1, zero where there is no value: the
 * caller zeroes them). */
int dbr_tree_values(struct dbr *r, const char *event, const char *metric, double *incl,
		    double *excl);
int dbr_is_frame(char kind);
/* By context index: 1 for a frame (or inlined frame) of a procedure that
 * has a frame above it, a recursive call, whose value its outermost
 * frame's inclusive value holds already; what procedure_metrics leaves
 * out of a procedure's inclusive value.  Owned by R's tree; NULL after
 * setting the error. */
const uint8_t *dbr_recursive(struct dbr *r);
/* Where context index I's exclusive value counts as a frame's own value:
 * I for a frame, inlined frame or root; UINT32_MAX for a statement, whose
 * value is in its frame's already (the bodies the compiler outlined from
 * it included), or a call site (none). */
uint32_t dbr_own_frame(const struct dbr_tree *t, uint32_t i);
/* Calls FN for each context with a value of METRICS (N) for EVENT, in id
 * order, with its inclusive and exclusive values (N each): the stored
 * rows as they lie, so that a reader of every context needs memory for
 * one.  -1 with the error set. */
typedef void (*dbr_context_values_fn)(void *arg, int64_t id, const double *incl,
				      const double *excl);
int dbr_values_by_context(struct dbr *r, const char *event, const char *const *metrics, size_t n,
			  dbr_context_values_fn fn, void *arg);
/* The caller of frame or context ID: the frame whose call site it hangs
 * under, or, right under a root, that root (the program, a truncated
 * unwind), which nothing called.  0 for a root or an unknown id.  The
 * database's procedure_callers view says the same in SQL. */
int64_t dbr_caller(struct dbr *r, int64_t id);

/* A context's caller, as dbr_caller says, with the caller's kind letter
 * and procedure (interned: equal names are equal pointers, owned by R). */
struct dbr_caller_of {
	int64_t caller;		/* 0: none */
	char kind;
	const char *procedure;
};
/* The callers of the N contexts IDS into OUT, without reading the whole
 * tree when it is not read yet: a procedure's 100,000 frames cost 100,000
 * lookups, not the million contexts of the tree. */
int dbr_callers(struct dbr *r, const int64_t *ids, size_t n, struct dbr_caller_of *out);
/* Finishes callers found two levels up: where OUT has -1 (not a frame or
 * root there), and for all when the tree is read, dbr_caller decides. */
int dbr_callers_walk(struct dbr *r, const int64_t *ids, size_t n, struct dbr_caller_of *out);
/* Schema 7 on: the name of names.id ID, interned in R; NULL for none. */
const char *dbr_name(struct dbr *r, int64_t id);
/* A context kind's name in the database ("frame") from its letter. */
const char *dbr_kind_name(char kind);

/* ---- procedures.c: the procedure list ---------------------------------------- */

struct dbr_procedure {
	char *procedure, *module, *file;
	double *incl, *excl;	/* one per metric asked for */
};

/* Every procedure with its values of METRICS (N of them) for EVENT, sorted
 * by procedure, module, file.  *OUT is the caller's (dbr_procedures_free). */
int dbr_procedures(struct dbr *r, const char *event, const char *const *metrics, size_t n,
		   struct dbr_procedure **out, size_t *count);
void dbr_procedures_free(struct dbr_procedure *p, size_t count);

/* The frames (frame and inlined contexts) of procedure P with a value of
 * any of METRICS (N) for EVENT, in id order: their ids and values, as one
 * dbr_procedure each (only incl and excl set), and unless CALLERS is
 * NULL, their callers (dbr_callers; *CALLERS is the caller's to free).
 * The callers views start from these and go up with dbr_callers. */
int dbr_procedure_frames(struct dbr *r, const struct dbr_procedure *p, const char *event,
			 const char *const *metrics, size_t n, int64_t **ids,
			 struct dbr_procedure **values, struct dbr_caller_of **callers,
			 size_t *count);

/* ---- contexts.c: children and paths -------------------------------------------- */

struct dbr_child {
	int64_t id;
	char kind;
	char *procedure, *module, *file;
	int line;
	char *site_file;	/* the call site looked through, if any */
	int site_line;
	double *incl, *excl;	/* one per metric asked for */
};

/* The children of context PARENT with their values of METRICS (N) for
 * EVENT, in id order.  Call sites are looked through: the frames they
 * lead to are returned with the call site's file and line.  Children
 * without any value are left out. */
int dbr_children(struct dbr *r, int64_t parent, const char *event, const char *const *metrics,
		 size_t n, struct dbr_child **out, size_t *count);
/* Frees C's members (not C). */
void dbr_child_clear(struct dbr_child *c);
void dbr_children_free(struct dbr_child *c, size_t count);
/* The path from the root to ID as "a > [inlined] b > c" (frames and
 * roots); a new string, NULL on failure. */
char *dbr_path(struct dbr *r, int64_t id);
/* The ids from the root down to ID, call sites left out; at most MAX. */
size_t dbr_ancestors(struct dbr *r, int64_t id, int64_t *ids, size_t max);

/* ---- diagnoses.c ------------------------------------------------------------------ */

struct dbr_diagnosis {
	int64_t context_id;
	int rank;		/* 0: not ranked */
	char *diagnosis, *advice;
	double effort, effort_percent, idleness_percent, overhead_percent, waste_percent;
	char *scope;		/* "inclusive", or DIAG_SCOPE_RUNTIME */
	int has_runtime_percent;
	double runtime_percent;
	char *runtime;		/* the runtime calls and their shares, or NULL */
};

/* The ranked diagnoses for EVENT, in rank order.  Databases from before
 * the scope and runtime columns read as diagnoses of whole contexts. */
int dbr_diagnoses(struct dbr *r, const char *event, struct dbr_diagnosis **out, size_t *count);
/* The diagnosis of context ID for EVENT, ranked or not: 1 found, 0 none. */
int dbr_diagnosis_of(struct dbr *r, const char *event, int64_t id, struct dbr_diagnosis *out);
void dbr_diagnosis_clear(struct dbr_diagnosis *d);
void dbr_diagnoses_free(struct dbr_diagnosis *d, size_t count);

/* ---- threads.c: per-thread values ------------------------------------------------- */

struct dbr_thread_value {
	int64_t thread_id;
	char *name;		/* "tid name" */
	double value;
};

struct dbr_spread {
	int have;		/* the context has the metric */
	double mean, min, max, stddev;	/* over the threads */
	struct dbr_thread_value *thread;
	size_t nthreads;
};

/* Context ID's METRIC for EVENT across the threads (inclusive or
 * EXCLUSIVE): the summary and each thread's value (at most 256). */
int dbr_thread_values(struct dbr *r, int64_t id, const char *event, const char *metric,
		      int exclusive, struct dbr_spread *out);
void dbr_spread_free(struct dbr_spread *s);

/* ---- experiments.c: the runs in one database ------------------------------- */

struct dbr_experiment {
	int64_t id;
	char *label, *command;
	long threads;
	long cores;		/* the CPUs it could run on; 0: not known */
	double wall;		/* seconds */
	double cpu;		/* CPU seconds; < 0: not known */
	int status;		/* exit status as a shell says it; < 0: not known */
};
/* The experiments, by id (thread count, then start). */
int dbr_experiments(struct dbr *r, struct dbr_experiment **out, size_t *count);
void dbr_experiments_free(struct dbr_experiment *x, size_t count);
/* The metrics of EVENT in the database's order, into *OUT (N); the caller
 * frees the array and its strings. */
int dbr_event_metrics(struct dbr *r, const char *event, char ***out, size_t *count);
/* Experiment X's values of METRICS (N) for EVENT, added into INCL and
 * EXCL, each N arrays of r->ncontexts one after the other (metric k's
 * value at context id is at [k * ncontexts + id - 1]; zeroed by the
 * caller).  With one experiment, its values are the database's. */
int dbr_experiment_values(struct dbr *r, int64_t x, size_t nexperiments, const char *event,
			  const char *const *metrics, size_t n, double *incl, double *excl);
/* A process that did not end by exit or exec: killed by a signal (a
 * crash), or its end not recorded. */
struct dbr_process_end {
	int64_t pid;
	int mpi_rank;		/* -1: none */
	char *command;		/* its command line, or its executable */
	char *reason;		/* processes.end_reason: "signal" or "unknown" */
	int signal;		/* the signal's number; 0 when not by a signal */
};
/* Those processes, by id, into *OUT (N); the caller frees them with
 * dbr_process_ends_free. */
int dbr_process_ends(struct dbr *r, struct dbr_process_end **out, size_t *count);
void dbr_process_ends_free(struct dbr_process_end *p, size_t count);
/* By context id - 1: 1 where the code is a runtime's or the system's, not
 * the program's (contexts.runtime).  The
 * caller frees it. */
uint8_t *dbr_runtime_code(struct dbr *r);

/* ---- modules and events (contexts.c, metric.c) --------------------------------- */

struct dbr_module {
	char *path, *build_id;	/* build_id: hexadecimal, or NULL */
};
/* The modules table. */
int dbr_modules(struct dbr *r, struct dbr_module **out, size_t *count);
void dbr_modules_free(struct dbr_module *m, size_t count);
/* EVENT's nominal sampling period in its unit (1 / frequency when sampled
 * at a frequency); 0 when unknown. */
double dbr_event_period(struct dbr *r, const char *event);

/* ---- tasks.c: task sizes and waits by type --------------------------------- */

#define DBR_TASK_BUCKETS 32
struct dbr_task_type {
	int64_t experiment;
	char *procedure, *file, *module;	/* the line that creates them */
	int line;
	int64_t site;		/* the creating call, in its module */
	double tasks, size, wait;	/* count; seconds in all */
	double hist[2][DBR_TASK_BUCKETS];	/* [0] sizes, [1] waits: bucket b is
						 * [2^b, 2^(b+1)) ns */
};
/* Every task type of every experiment, by experiment, then most time in
 * all first.  None (0) in a database without tasks. */
int dbr_task_types(struct dbr *r, struct dbr_task_type **out, size_t *count);
void dbr_task_types_free(struct dbr_task_type *t, size_t count);

/* ---- ranks.c: an MPI run's ranks ------------------------------------------- */

/* A rank: the processes with one MPI rank, and its totals for an event. */
struct dbr_rank {
	int rank;
	char *hosts;		/* the hosts its processes ran on, comma-separated */
	int processes, threads;
	double work, idleness, effort;	/* sums over its threads */
	double mpi_wait;	/* its threads' own time in blocking MPI calls */
	double waited;		/* its threads' own time idle, every cause */
};
/* Every rank, by number; none (0) in a run that was not MPI. */
int dbr_ranks(struct dbr *r, const char *event, struct dbr_rank **out, size_t *count);
void dbr_ranks_free(struct dbr_rank *x, size_t count);

/* A frame's own work over RANKS ranks (a rank that never ran it counts as
 * zero): mean, min, max, stddev, the rank with the most, and the
 * imbalance, RANKS (max - mean): what a barrier after it would make the
 * ranks wait in all. */
struct dbr_rank_spread {
	int64_t context;
	char *procedure, *file;
	int line;
	char *call_file;	/* the call site it was called from, or NULL */
	int call_line;
	double mean, min, max, stddev, imbalance;
	int slowest;
};
/* The frames that have work, most imbalanced first. */
int dbr_rank_spread(struct dbr *r, const char *event, int ranks, struct dbr_rank_spread **out,
		    size_t *count);
void dbr_rank_spread_free(struct dbr_rank_spread *x, size_t count);

/* Context ID's METRIC for EVENT over the ranks (inclusive or EXCLUSIVE),
 * a rank that never reached it counting 0; RANKS 0 in a run that was not
 * MPI, SLOWEST -1 when no rank has a value. */
struct dbr_rank_stat {
	int ranks, slowest;
	double mean, min, max, stddev;
};
int dbr_rank_values(struct dbr *r, int64_t id, const char *event, const char *metric,
		    int exclusive, struct dbr_rank_stat *out);

/* ---- timeline.c: the samples over time ------------------------------------- */

/* What a thread was doing in a stretch of time, by the samples in it. */
enum dbr_activity {
	DBR_ACT_WORK,		/* the program's own work */
	DBR_ACT_OVERHEAD,	/* work in a context classified as overhead */
	DBR_ACT_IDLE,		/* + enum culprit_idle_cause: an idle worker */
	DBR_ACT_MEASUREMENT = DBR_ACT_IDLE + CULPRIT_IDLE_CAUSES,	/* culprit's own work */
	DBR_ACTIVITIES
};
/* "work", "overhead", "idle:barrier", ... "measurement". */
const char *dbr_activity_name(int activity);
/* The activity's mark in a timeline ('#' work, a letter per cause, ...). */
char dbr_activity_mark(int activity);
/* What the marks mean, one line in BUF: "# work  + overhead  m culprit
 * idle: s serial b barrier ..." (about 100 bytes). */
void dbr_activity_legend(char *buf, size_t size);

struct dbr_timeline_thread {
	int64_t id, pid, tid;
	char *name;
	char *process;		/* its process's executable */
	double start, end;	/* its life, in trace time (seconds) */
};

struct dbr_timeline {
	double from, to;	/* the range, in seconds since the run started */
	int nbuckets;		/* equal stretches of it */
	double duration;	/* the run's length */
	struct dbr_timeline_thread *thread;
	size_t nthreads;
	/* seconds[(t * nbuckets + b) * DBR_ACTIVITIES + a]: the event's
	 * value of thread t's samples in bucket b doing a. */
	double *seconds;
	/* The same for the samples at context FOCUS and below (when asked). */
	double *focus;
};

/* EVENT's samples from FROM to TO (TO <= FROM: to the run's end) in
 * NBUCKETS stretches, per thread; with FOCUS > 0, also those at that
 * context and below.  Fails for a database without a trace. */
int dbr_timeline(struct dbr *r, const char *event, double from, double to, int nbuckets,
		 int64_t focus, struct dbr_timeline *out);
void dbr_timeline_free(struct dbr_timeline *t);

/* One sample of the trace. */
struct dbr_trace_sample {
	int64_t thread_id;
	double time;		/* seconds since the run started */
	int64_t context_id;	/* 0 for an idle thread */
	int activity;		/* enum dbr_activity */
	uint32_t n_working, n_idle;
	double value;		/* in the event's unit */
};
/* Calls FN with each of EVENT's samples, thread by thread (threads.id
 * order), each thread's in time order; FN returns nonzero to stop. */
int dbr_trace_scan(struct dbr *r, const char *event,
		   int (*fn)(void *arg, const struct dbr_trace_sample *s), void *arg);

/* Wall-clock time with N threads working, from the parallelism view. */
struct dbr_parallelism {
	uint32_t n_working;
	double seconds, percent;
	double work, idleness;	/* the samples' own values there, and the
				 * idleness they were blamed with */
};
/* EVENT's parallelism profile, by n_working (0 first). */
int dbr_parallelism(struct dbr *r, const char *event, struct dbr_parallelism **out,
		    size_t *count);

/* Where the wall-clock time went: each sample weighs 1/n_working (its
 * latency), beside its plain value (work); a procedure's samples are those
 * at its frames and below them (inclusive; a recursion counts once), its
 * self latency those at its own code.  The program's procedures only:
 * runtime and system code (contexts.runtime) counts for the program frame
 * that called it. */
struct dbr_latency {
	char *procedure, *module;
	double latency, work, self;
};
/* The LIMIT procedures with the most latency for EVENT, most first. */
int dbr_latency(struct dbr *r, const char *event, int limit, struct dbr_latency **out,
		size_t *count);
void dbr_latency_free(struct dbr_latency *l, size_t count);

/* ---- source.c: values by line and by name ---------------------------------- */

/* PROCEDURE's lines in MODULE, by file and line, each a statement row
 * with its exclusive METRICS (N) of EVENT summed over the line's
 * contexts (incl = excl).  Free with dbr_children_free. */
int dbr_procedure_lines(struct dbr *r, const char *event, const char *const *metrics, size_t n,
			const char *procedure, const char *module, struct dbr_child **out,
			size_t *count);
/* Context ID on its own, with its METRICS (N) of EVENT; the caller frees
 * OUT's members with dbr_child_clear. */
int dbr_context(struct dbr *r, int64_t id, const char *event, const char *const *metrics,
		size_t n, struct dbr_child *out);
/* The lines of PROCEDURE in FILE with their inclusive METRIC of EVENT
 * summed (statements and call sites), by line.  The caller frees both. */
int dbr_line_values(struct dbr *r, const char *event, const char *metric, const char *procedure,
		    const char *file, int **lines, double **values, size_t *count);
/* Up to MAX frames whose procedure holds WHAT (any case) with inclusive
 * METRIC of EVENT above 0, the most first, into IDS. */
int dbr_search(struct dbr *r, const char *event, const char *metric, const char *what,
	       int64_t *ids, size_t max, size_t *count);
/* By context id - 1: the overhead type of each context the database
 * classified ("scheduling"), else NULL; names are R's.  The caller frees
 * the array; NULL after setting the error. */
const char **dbr_overhead_types(struct dbr *r);

/* ---- effort.c: where the effort went, and how far to trust it ------------------ */

/* A row of measurement_quality: "samples:partial", 12, "samples", 0.3, ... */
struct dbr_quality {
	char *item;
	double value;
	char *unit;
	double percent;
	char *advice;
};
/* Every row, by item. */
int dbr_quality(struct dbr *r, struct dbr_quality **out, size_t *count);
void dbr_quality_free(struct dbr_quality *q, size_t count);
/* ITEM's row among Q (COUNT), or NULL. */
const struct dbr_quality *dbr_quality_find(const struct dbr_quality *q, size_t count,
					   const char *item);

/* A part of the effort (the effort_summary view): "useful work",
 * "overhead" by type, "idleness" by cause. */
struct dbr_effort_part {
	char *category, *metric;
	double value, percent;
};
/* EVENT's parts, in the summary's order: useful work, overhead (most
 * first), idleness by cause (idle_causes.h's order). */
int dbr_effort_summary(struct dbr *r, const char *event, struct dbr_effort_part **out,
		       size_t *count);
void dbr_effort_summary_free(struct dbr_effort_part *p, size_t count);

/* Whether some thread was seen waiting in EVENT's samples (thread_metrics'
 * waited): 1, 0, or -1 on error. */
int dbr_threads_waited(struct dbr *r, const char *event);

/* A thread with effort, and its percents of it by the patterns asked for. */
struct dbr_thread_share {
	int64_t id, tid;
	char *name;
	double effort;
	double *percent;	/* one per pattern */
};
/* The threads with EVENT's effort, by id, each with the sum of its
 * percents of the metrics matching each of PATTERNS (N; SQL LIKE:
 * "overhead:%"). */
int dbr_thread_shares(struct dbr *r, const char *event, const char *const *patterns, size_t n,
		      struct dbr_thread_share **out, size_t *count);
void dbr_thread_shares_free(struct dbr_thread_share *t, size_t count);

/* ---- waits.c: where threads blocked, and who kept them waiting ---------------- */

struct dbr_wait_site {
	char *kind, *cause;		/* "mutex", "lock" */
	char *procedure, *file, *module;
	int line;
	int has_object;
	int64_t object;			/* the lock's address, the thread joined */
	int64_t threads, count;
	double seconds, max_seconds;
};
/* The wait sites, longest first. */
int dbr_wait_sites(struct dbr *r, struct dbr_wait_site **out, size_t *count);
void dbr_wait_sites_free(struct dbr_wait_site *w, size_t count);
/* The waits of PROCEDURE (in FILE, NULL: any; at LINE, 0: any) by kind,
 * longest first: kind, count, seconds and max_seconds set. */
int dbr_wait_totals(struct dbr *r, const char *procedure, const char *file, int line,
		    struct dbr_wait_site **out, size_t *count);

struct dbr_top {
	int64_t context_id;
	double value;
};
/* The LIMIT frames with the most exclusive METRIC of EVENT, most first. */
int dbr_top_frames(struct dbr *r, const char *event, const char *metric, size_t limit,
		   struct dbr_top **out, size_t *count);

#endif
