/* merge.h - the experiment's calling-context tree.
 *
 * Every thread's tree, of every process, merges into one tree of source
 * contexts: a procedure frame, the call site in it (a line), the frame it
 * called, and so on down to the statement (a line) where samples landed.
 * Inlined calls are frames of their own below the call site they were
 * inlined at.  Two threads' frames merge when they name the same
 * procedure of the same module at the same place in the tree.
 *
 * Values: a statement's exclusive value is what was sampled there; a
 * frame's (or inlined frame's) exclusive value is its self cost, the sum
 * of its statements; call sites and roots have none.  Inclusive values
 * cover everything below.  Each value is kept summed over threads, with
 * its mean, minimum, maximum and standard deviation over all threads of
 * the experiment (a thread that never ran a context counts as zero).
 */
#ifndef CULPRIT_MERGE_H
#define CULPRIT_MERGE_H

#include "hindex.h"

#include <stddef.h>
#include <stdint.h>

struct experiment;
struct exp_thread;
struct strtab;
struct ovh_rules;

#define CTX_NONE 0xffffffffu

enum ctx_kind { CTX_ROOT, CTX_FRAME, CTX_INLINED, CTX_CALLSITE, CTX_STATEMENT, CTX_KINDS };
extern const char *const ctx_kind_name[CTX_KINDS];

struct ctx_node {
	uint32_t parent;	/* CTX_NONE for node 0, the experiment's root */
	uint32_t depth;
	uint32_t procedure;	/* string ids in the tree's strtab; 0 = none */
	uint32_t module;
	uint32_t file;
	uint32_t line;
	uint8_t kind;		/* enum ctx_kind */
	/* The native frames folded into it (fold.c), "a > b", outermost
	 * first, as first seen: a string id, 0 for none.  Not part of its
	 * identity: contexts that differ only there are one. */
	uint32_t folded;
};

struct ctx_event {
	char *name;		/* "cputime", "cycles" */
	char *unit;		/* unit of its values here: "seconds" or "count" */
	double scale;		/* raw value * scale = value in unit */
	uint32_t source;	/* enum mfile_event_source */
	uint32_t flags;		/* MFILE_EVENT_FREQ */
	uint64_t period;
};

struct ctx_metric {
	uint32_t event;		/* index in the tree's events */
	char *name;		/* "samples", "work", "idleness", ... */
	char *unit;
	double scale;		/* applied to raw column values */
	double total;		/* over the whole experiment */
};

/* One context's values for one metric. */
struct ctx_stat {
	double incl, excl;		/* sums over threads (the spread over
					   threads is the database's views') */
};

/* How a context where samples landed was classified (overhead.h): the
 * overhead type, 0 for none, and what decided it (a tag, a rule), 0 when
 * nothing did; both ids in the tree's strtab. */
struct ctx_class {
	uint32_t type, by;
};

/* The metrics derived from an event's columns: overhead moves work
 * classified as overhead; useful_work = work - overhead; effort = work +
 * idleness.  Indices into the tree's metrics; CTX_NONE where missing. */
struct ctx_derived {
	uint32_t work, idleness, overhead, useful, effort;
	uint32_t *typed;	/* per overhead type (ctree.otype) */
};

struct ctree {
	struct strtab *str;
	uint32_t kind_name[CTX_KINDS];	/* string ids of ctx_kind_name */
	unsigned char *fold;	/* by string id: flags of fold.c */
	size_t capfold;
	struct ctx_node *node;
	size_t n, cap;
	struct hindex index;		/* node identities -> node */
	struct ctx_event *event;
	size_t nevent;
	struct ctx_metric *metric;
	size_t nmetric;
	/* By metric: per node, NULL while every value is zero (most
	 * causes and types are zero in most experiments). */
	struct ctx_stat **mstat;
	size_t nthreads;
	/* Overhead: the rules, the types (strtab ids), the derived metrics
	 * per event, and each context's class once asked for. */
	const struct ovh_rules *rules;
	uint32_t *otype;
	size_t notype;
	struct ctx_derived *derived;	/* per event */
	struct ctx_class *cls;
	uint8_t *cls_done;
	size_t cls_cap;
	int8_t *transparent;		/* by module string id: -1 unknown */
	size_t ntransparent;
	/* Per node: whether a thread other than its process image's first
	 * (threads.seq > 0) has values at or below it; see ctree_secondary. */
	uint8_t *secondary;
	size_t nsecondary;
	/* Whether every thread's effort and useful_work are what the
	 * database's views compute from its work, idleness and overhead
	 * (ctree_derived_matches), so that they need not be stored. */
	int thread_derivable;
	/* The paths of the programs' executables (MFILE_MOD_MAIN), for the
	 * diagnoses: the program's own code, whatever its debug information. */
	char **executable;
	size_t nexecutable;
	/* Names of logical frames (logical.c), their index by (namespace,
	 * ident), and the widths of their keys' line bits, as a bit set. */
	struct logical_name *lname;
	size_t nlname, caplname;
	struct hindex lname_index;
	uint64_t lname_bits;
};

/* Whether metric M is one the database can compute (effort,
 * useful_work): then *FROM is work, *PLUS idleness or *MINUS overhead
 * (CTX_NONE where not used). */
int ctree_derived_metric(const struct ctree *t, uint32_t m, uint32_t *from, uint32_t *plus,
			 uint32_t *minus);

/* Whether the views' arithmetic, FROM + PLUS - MINUS as inclusive and
 * exclusive pairs, gives VALUE: a row where VALUE has one (not both
 * zero) and none where it has none, equal but for rounding. */
int ctree_derived_matches(const double from[2], const double plus[2], const double minus[2],
			  const double value[2]);

/* Called for each (context, metric) a thread has a value at, after the
 * thread is merged: the thread's own inclusive and exclusive values. */
typedef void (*ctx_thread_sink)(void *arg, const struct exp_thread *t, uint32_t ctx,
				uint32_t metric, double incl, double excl);

/* Columns of threads that are not in an experiment: events and metrics
 * by name, each pair a metric of the tree (`culprit prof --mpi`: a rank
 * reads its share of the threads, and its tree has every thread's
 * metrics). */
struct ctree_columns {
	char **event, **metric;
	size_t n;
};

/* An empty tree with the events and metrics of every thread of E (and of
 * MORE, or NULL), and for each event the overhead metrics: overhead,
 * useful_work, effort and overhead:TYPE for each of TYPES (NTYPES),
 * classified by RULES. */
struct ctree *ctree_new(const struct experiment *e, const struct ovh_rules *rules,
			char *const *types, size_t ntypes, const struct ctree_columns *more);
/* The class of context NODE, if samples landed there; NULL otherwise. */
const struct ctx_class *ctree_class(const struct ctree *t, uint32_t node);
void ctree_free(struct ctree *t);

/* Merges thread T (whose process's modules must be resolvable) into the
 * tree and reports its values to SINK.  TOTALS (nmetric) gets the thread's
 * totals.  Threads whose contexts other threads refer to (creators) must
 * be merged first; ctree_merge_all() orders them so. */
void ctree_add_thread(struct ctree *t, struct exp_thread *th, ctx_thread_sink sink,
		      void *arg, double *totals);

/* Whether a thread other than its process image's first thread (the one
 * that runs main) has values at NODE or below it.  Code that only first
 * threads ran is where serial code runs: OpenMP runs everything outside
 * parallel regions on the initial thread, and pthreads' threads are
 * rooted below the pthread_create call that made them. */
int ctree_secondary(const struct ctree *t, uint32_t node);

/* Asks the symbolizer for every address the experiment's threads hold. */
void ctree_want_addresses(const struct experiment *e);
/* The index of the event called NAME in T->event, or CTX_NONE. */
uint32_t ctree_event(const struct ctree *t, const char *name);

/* Calls SINK once per procedure and metric with the procedure's totals:
 * recursion counted once in inclusive values (procedures.c). */
typedef void (*ctx_procedure_sink)(void *arg, uint32_t procedure, uint32_t module,
				   uint32_t file, uint32_t metric, double incl, double excl);
void ctree_procedures(const struct ctree *t, ctx_procedure_sink sink, void *arg);

/* The context that values sampled at node NODE of thread TH (merged
 * already) count at: the node's context, or for one with no frame to be
 * the exclusive value of (below a root, past call sites), a frame of its
 * own below that root (made if new), named after the node's frame.  The
 * trace (trace.c) places samples where the values are. */
uint32_t ctree_value_context(struct ctree *t, const struct exp_thread *th, uint32_t node);

/* The invariant every view relies on: each sample's value is exactly one
 * frame's or inlined frame's exclusive value (a procedure's), so that
 * those add up to the root's inclusive value, metric by metric.  0 when they do;
 * -1 with the first metric that does not, its frames' sum and its total
 * (a merge that left values where no view looks: prof says so). */
int ctree_check_exclusive(const struct ctree *t, uint32_t *metric, double *owned, double *total);

/* The context with this identity below PARENT, added if new (ctree.c;
 * partial.c merges another tree's with it too).  Context NODE's class, as
 * another tree worked it out; a thread other than a first one reached
 * NODE (partial.c). */
uint32_t ctree_child(struct ctree *t, uint32_t parent, int kind, uint32_t procedure,
		     uint32_t module, uint32_t file, uint32_t line);
void ctree_set_class(struct ctree *t, uint32_t node, const struct ctx_class *c);
void ctree_mark_secondary(struct ctree *t, uint32_t node);

/* ---- between the parts of the tree (ctree.c, merge.c, classify.c,
 * values.c) ---- */

/* S's id in the tree's strings, added if new. */
uint32_t ctree_intern(struct ctree *t, const char *s);
/* The index of EVENT's metric NAME in T->metric, or CTX_NONE. */
uint32_t ctree_find_metric(const struct ctree *t, uint32_t event, const char *name);
/* Maps every node of thread TH's tree to a context of T, adding those
 * that are new; the map stays with TH (ctx_map) for the threads it made
 * (merge.c). */
uint32_t *ctree_map_thread(struct ctree *t, struct exp_thread *th);
/* Fills the derived metrics (effort, useful_work, overhead by type) of
 * values V sampled at context C (classify.c). */
void ctree_derive(struct ctree *t, uint32_t c, double *v);

/* The context whose self cost samples at context C are: C itself, or
 * for a statement or call site the nearest frame, inlined frame or root
 * above it past call sites (a body the compiler outlined hangs under the
 * construct's call site and the body's own call sites). */
static inline uint32_t ctree_owner(const struct ctx_node *nodes, uint32_t c)
{
	while (c != CTX_NONE &&
	       (nodes[c].kind == CTX_STATEMENT || nodes[c].kind == CTX_CALLSITE))
		c = nodes[c].parent;
	return c;
}

static inline const struct ctx_stat *ctree_stat(const struct ctree *t, uint32_t node,
					       uint32_t metric)
{
	static const struct ctx_stat zero;
	return t->mstat[metric] ? &t->mstat[metric][node] : &zero;
}

#endif
