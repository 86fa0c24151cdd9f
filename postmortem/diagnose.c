/* diagnose.c - per-context diagnoses and the ranked list (diagnose.h).
 *
 * Three passes over the merged tree: which code is the program's and which
 * frame pays for the runtime code below it (struct shape, once), the two
 * parts of each program frame judged per event (struct candidate), and the
 * top-down walk that picks the list; then, for each diagnosed context,
 * which runtime calls its idleness and overhead are in. */
#define _GNU_SOURCE
#include "database.h"
#include "diagnose.h"
#include "fold.h"
#include "merge.h"
#include "overhead.h"
#include "source_file.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum diagnosis {
	DIAG_NONE,
	DIAG_MORE_PARALLELISM,
	DIAG_SERIAL,
	DIAG_TOO_FINE,
	DIAG_INEFFICIENT,
	DIAG_CONTENTION,
	DIAG_GIL,
};

static const char *const diag_name[] = {
	[DIAG_MORE_PARALLELISM] = "needs more parallelism",
	[DIAG_SERIAL] = "serial phase",
	[DIAG_TOO_FINE] = "too fine-grained",
	[DIAG_INEFFICIENT] = "inefficient parallelization",
	[DIAG_CONTENTION] = "lock contention",
	[DIAG_GIL] = "GIL-bound",
};

static const char *const diag_advice[] = {
	[DIAG_MORE_PARALLELISM] = "finer grain: more, smaller tasks or chunks, so idle workers "
				  "find work",
	[DIAG_SERIAL] = "parallelize it, or overlap it with parallel work: the other workers "
			"idle while it runs",
	[DIAG_TOO_FINE] = "coarser grain: fewer, larger tasks or chunks, so the runtime's "
			  "overhead is paid less often",
	[DIAG_INEFFICIENT] = "a different parallelization: no grain size fixes both idleness "
			     "and overhead",
	/* diagnose_event names the lock and the site when the waits do. */
	[DIAG_CONTENTION] = "contention: shorter critical sections or finer locks",
	[DIAG_GIL] = "one Python thread runs at a time: processes (multiprocessing), or the "
		     "work in code that releases the GIL (NumPy, a C extension)",
};

/* Problems of one kind explain each other in the list: a serial phase is
 * a function that needs more parallelism, with more specific advice. */
static int family(uint8_t diag)
{
	return diag == DIAG_SERIAL ? DIAG_MORE_PARALLELISM : diag;
}

/* What a diagnosis and its numbers are about: the frame and everything
 * below it, or only the runtime and system code that the frame calls. */
enum scope { SCOPE_INCLUSIVE, SCOPE_RUNTIME };
static const char *const scope_name[] = { "inclusive", "runtime" };

/* ---- the program's code and who pays for the rest --------------------- */

/* Per node, for all events.  Runtime code is code in a runtime's module, in
 * a transparent (system) module, outside every known module, or a
 * procedure that tags or rules mark as a runtime's; the rest is the
 * program's.  Diagnoses name program frames only: runtime code is charged
 * to its payer, the nearest program frame above it. */
struct shape {
	uint8_t *runtime;	/* node is runtime code (frames, and all inside them) */
	uint32_t *payer;	/* nearest program frame (or inlined frame) at or above;
				 * CTX_NONE */
	uint32_t *entry;	/* runtime code: the outermost runtime frame of its run,
				 * the call the program made */
	uint8_t *recursive;	/* program frame: its procedure recurs below it */
	uint8_t *internal;	/* a library's internals (internal_code): not named */
	uint32_t *first, *next;	/* children */
};

/* Whether frame (or inlined frame) NODE is runtime code.  KIND caches the
 * module kinds by string id. */
static int runtime_frame(const struct ctree *t, uint32_t node, int8_t *kind)
{
	const struct ctx_node *n = &t->node[node];
	const char *proc = strtab_get(t->str, n->procedure);
	if (!n->module)	/* code outside every known module; plugins' frames are the program's */
		return proc && strcmp(proc, "[unknown]") == 0;
	if (!t->rules)
		return 0;
	if (kind[n->module] < 0)
		kind[n->module] = (int8_t)ovh_module_kind(t->rules, strtab_get(t->str, n->module));
	if (kind[n->module] != OVH_MODULE_PROGRAM)
		return 1;
	return ovh_runtime_code(t->rules, proc, strtab_get(t->str, n->file));
}

static int same_procedure(const struct ctree *t, uint32_t a, uint32_t b)
{
	return t->node[a].procedure == t->node[b].procedure && t->node[a].module == t->node[b].module;
}

uint8_t *diagnose_runtime_code(const struct ctree *t)
{
	uint8_t *runtime = xcalloc(t->n + 1, 1);
	int8_t *kind = xmalloc(strtab_count(t->str) + 1);
	memset(kind, -1, strtab_count(t->str) + 1);
	/* Parents come before their children. */
	for (uint32_t i = 0; i < t->n; i++) {
		const struct ctx_node *nd = &t->node[i];
		int inherited = nd->parent != CTX_NONE && runtime[nd->parent];
		runtime[i] = (uint8_t)(nd->kind == CTX_FRAME || nd->kind == CTX_INLINED
				       ? runtime_frame(t, i, kind) : inherited);
	}
	free(kind);
	return runtime;
}

/* Whether NODE is a frame that a diagnosis may name: the program's, and
 * the functions of its source files the compiler inlined (a serial phase
 * inlined into main is where to look, not main), but not what it inlined
 * from headers: accessors, templates, helpers used everywhere. */
static int program_frame(const struct ctree *t, const struct shape *s, uint32_t node)
{
	const struct ctx_node *n = &t->node[node];
	if (n->kind == CTX_INLINED) {
		const char *file = strtab_get(t->str, n->file);
		if (!file || source_file_is_header(file))
			return 0;
	} else if (n->kind != CTX_FRAME) {
		return 0;
	}
	return !s->runtime[node] && !s->internal[node];
}

/* Per module string id: 1 for a program's executable (ctree.executable). */
static uint8_t *executables(const struct ctree *t)
{
	size_t nstr = strtab_count(t->str);
	uint8_t *exe = xcalloc(nstr + 1, 1);
	int8_t *seen = xcalloc(nstr + 1, 1);
	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t m = t->node[i].module;
		if (!m || m >= nstr || seen[m])
			continue;
		seen[m] = 1;
		const char *path = strtab_get(t->str, m);
		for (size_t k = 0; path && k < t->nexecutable; k++)
			exe[m] |= strcmp(path, t->executable[k]) == 0;
	}
	free(seen);
	return exe;
}

/* Whether frame NODE (program code, below program frame ABOVE, or
 * CTX_NONE) is internal code of a library that the program can only
 * call: code without a name (an address, "ENTRY (internal)"), or code of
 * a library other than the executable without debug information (a
 * system library: liblzma, zlib), called from a frame of its own module.
 * Its problems are those of the library's entry point, the program's
 * call into it, where the diagnoses name them. */
static int internal_code(const struct ctree *t, uint32_t node, uint32_t above, const uint8_t *exe)
{
	const struct ctx_node *n = &t->node[node];
	if (above == CTX_NONE || t->node[above].module != n->module || !n->module)
		return 0;
	return fold_unnamed(t, n->procedure) || (!n->file && !exe[n->module]);
}

static void shape_make(struct shape *s, const struct ctree *t)
{
	size_t n = t->n;
	s->runtime = diagnose_runtime_code(t);
	s->recursive = xcalloc(n + 1, 1);
	s->internal = xcalloc(n + 1, 1);
	uint8_t *exe = executables(t);
	/* The nearest frame above each node, program code or not. */
	uint32_t *frame_above = xmalloc((n + 1) * sizeof *frame_above);
	s->payer = xmalloc((n + 1) * sizeof *s->payer);
	s->entry = xmalloc((n + 1) * sizeof *s->entry);
	s->first = xmalloc((n + 1) * sizeof *s->first);
	s->next = xmalloc((n + 1) * sizeof *s->next);
	memset(s->first, 0xff, (n + 1) * sizeof *s->first);

	for (uint32_t i = (uint32_t)n; i-- > 1;) {
		s->next[i] = s->first[t->node[i].parent];
		s->first[t->node[i].parent] = i;
	}
	/* Parents come before their children. */
	for (uint32_t i = 0; i < n; i++) {
		const struct ctx_node *nd = &t->node[i];
		uint32_t up = nd->parent;
		int inherited = up != CTX_NONE && s->runtime[up];
		s->payer[i] = up == CTX_NONE ? CTX_NONE : s->payer[up];
		s->entry[i] = s->runtime[i] ? (inherited ? s->entry[up] : i) : CTX_NONE;
		frame_above[i] = up == CTX_NONE ? CTX_NONE
			: t->node[up].kind == CTX_FRAME || t->node[up].kind == CTX_INLINED
			? up : frame_above[up];
		if ((nd->kind != CTX_FRAME && nd->kind != CTX_INLINED) || s->runtime[i])
			continue;
		if (internal_code(t, i, frame_above[i], exe)) {
			s->internal[i] = 1;	/* the entry point above pays */
			continue;
		}
		if (!program_frame(t, s, i))
			continue;	/* inlined from a header: its caller pays */
		s->payer[i] = i;
		/* The nearest program frame above of the same procedure. */
		for (uint32_t a = up == CTX_NONE ? CTX_NONE : s->payer[up]; a != CTX_NONE;
		     a = t->node[a].parent == CTX_NONE ? CTX_NONE : s->payer[t->node[a].parent])
			if (same_procedure(t, a, i)) {
				s->recursive[a] = 1;
				break;
			}
	}
	free(frame_above);
	free(exe);
}

static void shape_free(struct shape *s)
{
	free(s->runtime);
	free(s->recursive);
	free(s->internal);
	free(s->payer);
	free(s->entry);
	free(s->first);
	free(s->next);
}

/* ---- judging ------------------------------------------------------------ */

/* Part of the tree's values for one event. */
struct part {
	double effort;
	/* Idleness but a launcher's wait for its threads to end (join): that
	 * is blamed evenly on all the work it waited for, and says nothing
	 * about where parallelism is lacking. */
	double idle;
	double ovh;
	double serial;		/* idleness:serial: no parallel work while it ran */
	double barrier;		/* idleness:barrier: others waited at a barrier for it */
	double lock;		/* idleness:lock: others waited for a lock */
	double gil;		/* idleness:gil: others waited for CPython's GIL */
};

struct candidate {
	struct part incl;	/* the frame and everything below it */
	struct part calls;	/* the runtime code it calls: program frames only */
	uint8_t incl_diag, calls_diag;	/* enum diagnosis of each part */
	uint8_t calls_secondary;	/* a thread other than a first one ran those calls */
	uint8_t diag, scope;	/* the row's: DIAG_NONE for no row; enum scope */
	uint32_t rank;		/* place in the list, 0 for none */
};

/* The metric indices of one event. */
struct ev_metrics {
	uint32_t effort, idle, ovh, serial, barrier, lock, join, gil;
};

static double waste(const struct part *p)
{
	return p->idle + p->ovh;
}

static const struct part *row_part(const struct candidate *c)
{
	return c->scope == SCOPE_RUNTIME ? &c->calls : &c->incl;
}

static uint8_t judge(const struct part *p, double total, const struct diag_thresholds *th,
		     int first_threads_only)
{
	if (p->effort <= 0 || waste(p) / total < th->share)
		return DIAG_NONE;
	int hi = p->idle / p->effort >= th->idleness, ho = p->ovh / p->effort >= th->overhead;
	/* Others waited mostly for the GIL: that is the news, whatever the
	 * interpreter's own share (CPython's code counts as a runtime's, some
	 * 10% of pure Python's effort, near the overhead threshold now that a
	 * free CPU counts once). */
	if (hi && p->gil > 0.5 * p->idle)
		return DIAG_GIL;
	if (hi && ho)
		return DIAG_INEFFICIENT;
	if (ho)
		return DIAG_TOO_FINE;
	if (!hi)
		return DIAG_NONE;
	/* Others waited mostly for locks while it ran. */
	if (p->lock > 0.5 * p->idle)
		return DIAG_CONTENTION;
	/* The cause that dominates: workers with no parallel work at all
	 * (serial code ran), or, for code only first threads ran, also
	 * workers waiting for it to get somewhere (an OpenMP single, the
	 * serial step before a pthreads program's "go" signal); else load
	 * imbalance or too few tasks. */
	double serial = first_threads_only ? p->serial + p->barrier : p->serial;
	return serial > 0.5 * p->idle ? DIAG_SERIAL : DIAG_MORE_PARALLELISM;
}

static void get_part(const struct ctree *t, uint32_t node, const struct ev_metrics *m, int excl,
		     struct part *p)
{
	const uint32_t id[8] = { m->effort, m->idle, m->ovh, m->serial, m->barrier, m->lock,
				 m->join, m->gil };
	double v[8];
	for (int k = 0; k < 8; k++) {
		const struct ctx_stat *st = id[k] == CTX_NONE ? NULL : ctree_stat(t, node, id[k]);
		v[k] = !st ? 0 : excl ? st->excl : st->incl;
	}
	*p = (struct part){ v[0], v[1] - v[6], v[2], v[3], v[4], v[5], v[7] };
}

/* Fills C (t->n) for one event: each program frame's parts and their
 * diagnoses. */
static void judge_all(const struct ctree *t, const struct shape *s, const struct ev_metrics *m,
		      double total, const struct diag_thresholds *th, struct candidate *c)
{
	for (uint32_t i = 0; i < t->n; i++) {
		const struct ctx_node *n = &t->node[i];
		if ((n->kind != CTX_FRAME && n->kind != CTX_INLINED) || s->runtime[i])
			continue;
		get_part(t, i, m, 0, &c[i].incl);
	}
	/* Runtime code's own values, to the frame that pays for them.
	 * Frames' and inlined frames' exclusive values add up without
	 * counting a sample twice. */
	for (uint32_t i = 0; i < t->n; i++) {
		const struct ctx_node *n = &t->node[i];
		if ((n->kind != CTX_FRAME && n->kind != CTX_INLINED) || !s->runtime[i] ||
		    s->payer[i] == CTX_NONE)
			continue;
		struct part x, *to = &c[s->payer[i]].calls;
		get_part(t, i, m, 1, &x);
		to->effort += x.effort;
		to->idle += x.idle;
		to->ovh += x.ovh;
		to->serial += x.serial;
		to->barrier += x.barrier;
		to->lock += x.lock;
		to->gil += x.gil;
		c[s->payer[i]].calls_secondary |= (uint8_t)ctree_secondary(t, i);
	}
	for (uint32_t i = 0; i < t->n; i++) {
		c[i].incl_diag = judge(&c[i].incl, total, th, !ctree_secondary(t, i));
		c[i].calls_diag = judge(&c[i].calls, total, th, !c[i].calls_secondary);
		c[i].diag = c[i].incl_diag ? c[i].incl_diag : c[i].calls_diag;
		c[i].scope = c[i].incl_diag ? SCOPE_INCLUSIVE : SCOPE_RUNTIME;
	}
}

/* ---- the list ------------------------------------------------------------ */

struct walk {
	const struct ctree *t;
	const struct shape *s;
	struct candidate *c;	/* per node */
	uint32_t *listed;	/* nodes listed, in order found */
	size_t nlisted, caplisted;
};

/* Calls FN for each program frame nearest below NODE (through call sites,
 * inlined frames, statements and runtime code). */
static void each_frame_below(struct walk *w, uint32_t node, void (*fn)(struct walk *, uint32_t, void *),
			     void *arg)
{
	for (uint32_t k = w->s->first[node]; k != CTX_NONE; k = w->s->next[k]) {
		if (program_frame(w->t, w->s, k))
			fn(w, k, arg);
		else
			each_frame_below(w, k, fn, arg);
	}
}

struct cover {
	int family;
	double waste;
};

static void add_cover(struct walk *w, uint32_t k, void *arg)
{
	struct cover *cv = arg;
	const struct candidate *c = &w->c[k];
	if (c->incl_diag && family(c->incl_diag) == cv->family)
		cv->waste += waste(&c->incl);
	else if (c->calls_diag && family(c->calls_diag) == cv->family)
		cv->waste += waste(&c->calls);
}

static void visit(struct walk *w, uint32_t node, uint8_t inherited);

static void visit_frame(struct walk *w, uint32_t k, void *arg)
{
	visit(w, k, *(uint8_t *)arg);
}

static void list(struct walk *w, uint32_t node, uint8_t diag, uint8_t scope)
{
	grow_array(&w->listed, &w->caplisted, w->nlisted + 1, sizeof *w->listed);
	w->listed[w->nlisted++] = node;
	w->c[node].diag = diag;
	w->c[node].scope = scope;
}

/* Top down: a problem is listed at the program frame where it stops being
 * explained by the program frames below it; the frames below a listed one
 * that have a problem of their own are listed too, those below a listed
 * recursion only for a different problem.  A frame whose own numbers are not
 * diagnosed, or are explained below it, is still listed for the runtime
 * code it calls when that part is (as the runtime frames themselves were
 * before diagnoses named the program's code only). */
static void visit(struct walk *w, uint32_t node, uint8_t inherited)
{
	struct candidate *c = &w->c[node];
	uint8_t pass = inherited;
	int listed = 0;
	if (program_frame(w->t, w->s, node) && c->incl_diag && c->incl_diag != inherited) {
		struct cover cv = { family(c->incl_diag), 0 };
		if (!w->s->recursive[node])
			each_frame_below(w, node, add_cover, &cv);
		if (w->s->recursive[node] || cv.waste < 0.8 * waste(&c->incl)) {
			list(w, node, c->incl_diag, SCOPE_INCLUSIVE);
			/* The frames below that hold part of it are listed
			 * for it too (main's serial phase, and the function
			 * that is most of it); a recursion once. */
			if (w->s->recursive[node])
				pass = c->incl_diag;
			listed = 1;
		}
	}
	if (!listed && program_frame(w->t, w->s, node) && c->calls_diag &&
	    c->calls_diag != inherited) {
		list(w, node, c->calls_diag, SCOPE_RUNTIME);
		pass = c->calls_diag;
	}
	each_frame_below(w, node, visit_frame, &pass);
}

static int most_waste_first(const void *a, const void *b, void *arg)
{
	const struct candidate *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	double wx = waste(row_part(&c[x])), wy = waste(row_part(&c[y]));
	return wx != wy ? (wx > wy ? -1 : 1) : (x < y ? -1 : x > y);
}

/* ---- where in the runtime --------------------------------------------------- */

/* A runtime call's share of one diagnosis. */
struct call_share {
	uint32_t procedure, module;	/* of the call's entry frame (string ids) */
	double waste;
};

struct calls {
	struct call_share *share;
	size_t n, cap;
	double total;
};

static void calls_add(struct calls *cs, uint32_t procedure, uint32_t module, double w)
{
	cs->total += w;
	for (size_t k = 0; k < cs->n; k++)
		if (cs->share[k].procedure == procedure && cs->share[k].module == module) {
			cs->share[k].waste += w;
			return;
		}
	grow_array(&cs->share, &cs->cap, cs->n + 1, sizeof *cs->share);
	cs->share[cs->n++] = (struct call_share){ procedure, module, w };
}

/* Whether frame NODE has no name of its own: "?", culprit's
 * "MODULE+0xADDR" for code that no symbol covers (stripped runtimes), or
 * internals named after their entry point or module. */
static int unnamed(const struct ctree *t, uint32_t node)
{
	const char *proc = strtab_get(t->str, t->node[node].procedure);
	const char *mod = strtab_get(t->str, t->node[node].module);
	if (!proc || strcmp(proc, "?") == 0 || fold_unnamed(t, t->node[node].procedure))
		return 1;
	if (!mod)
		return 0;
	const char *base = strrchr(mod, '/') ? strrchr(mod, '/') + 1 : mod;
	size_t len = strlen(base);
	return strncmp(proc, base, len) == 0 && strncmp(proc + len, "+0x", 3) == 0;
}

/* Every row's runtime calls, by entry frame: each runtime frame's own
 * idleness and overhead goes to every row above it whose part holds it.
 * Calls into a module's unnamed code count as one, procedure 0. */
static void gather_calls(const struct ctree *t, const struct shape *s, const struct candidate *c,
			 const struct ev_metrics *m, struct calls *out)
{
	uint32_t *row_above = xmalloc((t->n + 1) * sizeof *row_above);
	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t up = t->node[i].parent;
		row_above[i] = c[i].diag ? i : up == CTX_NONE ? CTX_NONE : row_above[up];
	}
	for (uint32_t i = 0; i < t->n; i++) {
		const struct ctx_node *n = &t->node[i];
		if ((n->kind != CTX_FRAME && n->kind != CTX_INLINED) || !s->runtime[i] ||
		    s->payer[i] == CTX_NONE)
			continue;
		struct part x;
		get_part(t, i, m, 1, &x);
		if (waste(&x) <= 0)
			continue;
		const struct ctx_node *e = &t->node[s->entry[i]];
		uint32_t proc = unnamed(t, s->entry[i]) ? 0 : e->procedure;
		uint32_t own = s->payer[i];
		for (uint32_t r = row_above[n->parent]; r != CTX_NONE;
		     r = t->node[r].parent == CTX_NONE ? CTX_NONE : row_above[t->node[r].parent])
			if (c[r].scope == SCOPE_INCLUSIVE || r == own)
				calls_add(&out[r], proc, e->module, waste(&x));
	}
	free(row_above);
}

static int most_share_first(const void *a, const void *b)
{
	const struct call_share *x = a, *y = b;
	return x->waste != y->waste ? (x->waste > y->waste ? -1 : 1)
				    : (x->procedure > y->procedure) - (x->procedure < y->procedure);
}

/* The name a module goes by in a summary: its file name up to ".so". */
static void module_label(const struct ctree *t, uint32_t module, char *buf, size_t size)
{
	const char *path = strtab_get(t->str, module);
	if (!path) {
		snprintf(buf, size, "unknown code");
		return;
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *so = strstr(base, ".so");
	snprintf(buf, size, "%.*s", (int)(so && so > base ? so - base : (long)strlen(base)), base);
}

#define CALLS_SHOWN 3		/* runtime calls named in a summary, at most */
#define CALLS_MIN_SHARE 0.01	/* ... each with this share of the waste, at least */

/* One line: the runtime calls that hold the most of WASTE, grouped by
 * module, as "libomp: __kmpc_omp_taskwait 62%, __kmpc_omp_task 30%;
 * libc: printf 5%"; NULL when none holds CALLS_MIN_SHARE. */
static char *calls_text(const struct ctree *t, struct calls *cs, double w)
{
	if (cs->n == 0 || w <= 0)
		return NULL;
	qsort(cs->share, cs->n, sizeof *cs->share, most_share_first);
	size_t shown = 0;
	while (shown < cs->n && shown < CALLS_SHOWN && cs->share[shown].waste >= CALLS_MIN_SHARE * w)
		shown++;
	if (!shown)
		return NULL;
	char *out = xstrdup(""), label[256];
	uint8_t done[CALLS_SHOWN] = { 0 };
	for (size_t k = 0; k < shown; k++) {
		if (done[k])
			continue;
		module_label(t, cs->share[k].module, label, sizeof label);
		char *more = xasprintf("%s%s%s:", out, *out ? "; " : "", label);
		free(out);
		out = more;
		for (size_t j = k; j < shown; j++) {
			if (done[j] || cs->share[j].module != cs->share[k].module)
				continue;
			const char *name = strtab_get(t->str, cs->share[j].procedure);
			more = xasprintf("%s%s %s %.0f%%", out, j == k ? "" : ",",
					 name ? name : "unnamed code", 100 * cs->share[j].waste / w);
			free(out);
			out = more;
			done[j] = 1;
		}
	}
	return out;
}

/* ---- writing -------------------------------------------------------------- */

static uint32_t find_metric(const struct ctree *t, uint32_t ev, const char *name)
{
	for (uint32_t k = 0; k < t->nmetric; k++)
		if (t->metric[k].event == ev && strcmp(t->metric[k].name, name) == 0)
			return k;
	return CTX_NONE;
}

/* Returns 0, or -1 after a message (database.h). */
static int write_rows(sqlite3 *db, sqlite3_stmt *ins, const struct ctree *t, uint32_t ev,
		      const struct candidate *c, struct calls *cs, double total,
		      const char *contention)
{
	int rc = 0;
	for (uint32_t i = 0; rc == 0 && i < t->n; i++) {
		if (c[i].diag == DIAG_NONE)
			continue;
		const struct part *p = row_part(&c[i]);
		char *where = calls_text(t, &cs[i], waste(p));
		sqlite3_bind_int64(ins, 1, (sqlite3_int64)i + 1);
		sqlite3_bind_text(ins, 2, t->event[ev].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, diag_name[c[i].diag], -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, c[i].diag == DIAG_CONTENTION && contention ? contention
				  : diag_advice[c[i].diag], -1, SQLITE_STATIC);
		if (c[i].rank)
			sqlite3_bind_int64(ins, 5, c[i].rank);
		else
			sqlite3_bind_null(ins, 5);
		sqlite3_bind_double(ins, 6, p->effort);
		sqlite3_bind_double(ins, 7, 100 * p->effort / total);
		sqlite3_bind_double(ins, 8, 100 * p->idle / p->effort);
		sqlite3_bind_double(ins, 9, 100 * p->ovh / p->effort);
		sqlite3_bind_double(ins, 10, 100 * waste(p) / total);
		sqlite3_bind_text(ins, 11, scope_name[c[i].scope], -1, SQLITE_STATIC);
		sqlite3_bind_double(ins, 12, waste(p) > 0 ? 100 * cs[i].total / waste(p) : 0);
		if (where)
			sqlite3_bind_text(ins, 13, where, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(ins, 13);
		rc = db_step_reset(db, ins);
		free(where);
	}
	return rc;
}

/* The lock that threads waited for longest, and where, as advice:
 * "contention on mutex 0x... at worker (file.c:77): ...", into *OUT;
 * NULL when the waits name none.  Returns 0, or -1 after a message. */
static int contention_advice(sqlite3 *db, char **out)
{
	sqlite3_stmt *s = db_prepare(db, "SELECT kind, object, procedure, file, line "
				     "FROM wait_sites WHERE cause = 'lock' ORDER BY seconds DESC "
				     "LIMIT 1");
	*out = NULL;
	if (!s)
		return -1;
	int rc = db_step_row(db, s);
	if (rc == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(s, 0);
		const char *proc = (const char *)sqlite3_column_text(s, 2);
		const char *file = (const char *)sqlite3_column_text(s, 3);
		const char *base = file ? strrchr(file, '/') : NULL;
		char line[32] = "";
		if (file)
			snprintf(line, sizeof line, ":%d", sqlite3_column_int(s, 4));
		*out = xasprintf("contention on %s %#llx at %s%s%s%s%s: shorter critical sections "
				 "or finer locks", kind ? kind : "lock",
				 (unsigned long long)sqlite3_column_int64(s, 1), proc ? proc : "?",
				 file ? " (" : "", file ? (base ? base + 1 : file) : "", line,
				 file ? ")" : "");
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

/* One event's judgements: a candidate and its calls per context. */
struct diag_event {
	struct candidate *c;	/* NULL: the event has no effort */
	struct calls *cs;
	double total;
};

struct diag_result {
	const struct ctree *t;
	struct diag_event *ev;	/* per event of T */
};

static void judge_event(const struct ctree *t, const struct shape *s, uint32_t ev,
			const struct diag_thresholds *th, struct diag_event *out)
{
	const struct ctx_derived *d = &t->derived[ev];
	if (d->effort == CTX_NONE)
		return;
	double total = t->metric[d->effort].total;
	if (total <= 0)
		return;
	struct ev_metrics m = { d->effort, d->idleness, d->overhead,
				find_metric(t, ev, CAUSE_METRIC(SERIAL)),
				find_metric(t, ev, CAUSE_METRIC(BARRIER)),
				find_metric(t, ev, CAUSE_METRIC(LOCK)), find_metric(t, ev, CAUSE_METRIC(JOIN)),
				find_metric(t, ev, CAUSE_METRIC(GIL)) };

	struct walk w = { .t = t, .s = s };
	w.c = xcalloc(t->n + 1, sizeof *w.c);
	judge_all(t, s, &m, total, th, w.c);
	visit(&w, 0, DIAG_NONE);
	if (w.nlisted)
		qsort_r(w.listed, w.nlisted, sizeof *w.listed, most_waste_first, w.c);
	for (size_t k = 0; k < w.nlisted; k++)
		w.c[w.listed[k]].rank = (uint32_t)k + 1;
	free(w.listed);

	out->cs = xcalloc(t->n + 1, sizeof *out->cs);
	gather_calls(t, s, w.c, &m, out->cs);
	out->c = w.c;
	out->total = total;
}

struct diag_result *diagnose(const struct ctree *t, const struct diag_thresholds *th)
{
	struct diag_result *d = xcalloc(1, sizeof *d);
	d->t = t;
	d->ev = xcalloc(t->nevent + 1, sizeof *d->ev);
	struct shape s;
	shape_make(&s, t);
	for (uint32_t ev = 0; ev < t->nevent; ev++)
		judge_event(t, &s, ev, th, &d->ev[ev]);
	shape_free(&s);
	return d;
}

int diagnose_write(sqlite3 *db, struct diag_result *d)
{
	const struct ctree *t = d->t;
	sqlite3_stmt *ins = db_prepare(db, "INSERT INTO diagnoses (context_id, event, diagnosis, "
					   "advice, rank, effort, effort_percent, idleness_percent, "
					   "overhead_percent, waste_percent, scope, runtime_percent, "
					   "runtime) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
	int rc = ins ? 0 : -1;
	for (uint32_t ev = 0; rc == 0 && ev < t->nevent; ev++) {
		struct diag_event *e = &d->ev[ev];
		if (!e->c)
			continue;
		char *contention;
		rc = contention_advice(db, &contention);
		if (rc == 0)
			rc = write_rows(db, ins, t, ev, e->c, e->cs, e->total, contention);
		free(contention);
	}
	sqlite3_finalize(ins);
	diagnose_free(d);
	return rc;
}

void diagnose_free(struct diag_result *d)
{
	if (!d)
		return;
	for (uint32_t ev = 0; ev < d->t->nevent; ev++) {
		struct diag_event *e = &d->ev[ev];
		if (!e->c)
			continue;
		for (uint32_t i = 0; i < d->t->n; i++)
			free(e->cs[i].share);
		free(e->cs);
		free(e->c);
	}
	free(d->ev);
	free(d);
}
