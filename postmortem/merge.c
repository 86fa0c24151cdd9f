/* merge.c - merges threads' trees into the experiment's calling-context
 * tree, and computes inclusive values (procedures.c sums them by
 * procedure; their spread over threads is for the database's views).
 *
 * A thread's tree is translated node by node, parents first: a FRAME node
 * becomes a short path of contexts (the frame, the call sites of calls
 * inlined into it, the inlined frames, and a final call site or
 * statement), found or added in one hash table of context identities.
 * The thread's values are then gathered sparsely, keyed by context, so a
 * thread costs memory in proportion to the contexts it touched.
 */
#define _GNU_SOURCE
#include "experiment.h"
#include "fold.h"
#include "hash.h"
#include "logical.h"
#include "merge.h"
#include "mfile_format.h"
#include "overhead.h"
#include "schema.h"
#include "symbolize.h"
#include "thread_acc.h"
#include "tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const ctx_kind_name[CTX_KINDS] = {
	[CTX_ROOT] = KIND_ROOT,
	[CTX_FRAME] = KIND_FRAME,
	[CTX_INLINED] = KIND_INLINED,
	[CTX_CALLSITE] = KIND_CALLSITE,
	[CTX_STATEMENT] = KIND_STATEMENT,
};

static uint64_t node_hash(const struct ctx_node *n)
{
	return hash_mix(((uint64_t)n->parent << 32 | n->procedure) ^
		   hash_mix((uint64_t)n->module << 32 | n->file) ^
		   hash_mix((uint64_t)n->line << 8 | n->kind));
}

static int same(const struct ctx_node *a, const struct ctx_node *b)
{
	return a->parent == b->parent && a->procedure == b->procedure && a->module == b->module &&
	       a->file == b->file && a->line == b->line && a->kind == b->kind;
}

/* The context with this identity below PARENT, added if new. */
static uint32_t child(struct ctree *t, uint32_t parent, int kind, uint32_t procedure,
		      uint32_t module, uint32_t file, uint32_t line)
{
	struct ctx_node key = { parent, 0, procedure, module, file, line, (uint8_t)kind, 0 };
	struct hindex_pos pos;
	for (uint32_t id = hindex_find(&t->index, node_hash(&key), &pos); id != HINDEX_NONE;
	     id = hindex_next(&t->index, &pos))
		if (same(&t->node[id], &key))
			return id;
	if (t->n == t->cap) {
		size_t cap = t->cap;
		grow_array(&t->node, &cap, t->n + 1, sizeof *t->node);
		for (size_t m = 0; m < t->nmetric; m++)
			if (t->mstat[m])
				t->mstat[m] = xrealloc(t->mstat[m], cap * sizeof *t->mstat[m]);
		t->cap = cap;
	}
	uint32_t id = (uint32_t)t->n++;
	key.depth = parent == CTX_NONE ? 0 : t->node[parent].depth + 1;
	t->node[id] = key;
	for (size_t m = 0; m < t->nmetric; m++)
		if (t->mstat[m])
			t->mstat[m][id] = (struct ctx_stat){ 0, 0 };
	hindex_add(&t->index, &pos, id);
	return id;
}

static uint32_t intern(struct ctree *t, const char *s)
{
	return strtab_intern(t->str, s);
}

/* ---- events and metrics ------------------------------------------------ */

static uint32_t find_event(const struct ctree *t, const char *name)
{
	for (size_t i = 0; i < t->nevent; i++)
		if (strcmp(t->event[i].name, name) == 0)
			return (uint32_t)i;
	return CTX_NONE;
}

uint32_t ctree_event(const struct ctree *t, const char *name)
{
	return find_event(t, name);
}

static uint32_t find_metric(const struct ctree *t, uint32_t event, const char *name)
{
	for (size_t i = 0; i < t->nmetric; i++)
		if (t->metric[i].event == event && strcmp(t->metric[i].name, name) == 0)
			return (uint32_t)i;
	return CTX_NONE;
}

/* Metrics in a fixed order: by event, then samples, work, idleness,
 * overhead, useful_work, effort, and the rest by name. */
static int metric_rank(const char *name)
{
	static const char *const first[] = { MET_SAMPLES, MET_WORK, MET_IDLENESS, MET_OVERHEAD,
					     MET_USEFUL, MET_EFFORT };
	for (int i = 0; i < 6; i++)
		if (strcmp(name, first[i]) == 0)
			return i;
	return 6;
}

static int by_metric(const void *a, const void *b)
{
	const struct ctx_metric *x = a, *y = b;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	int rx = metric_rank(x->name), ry = metric_rank(y->name);
	if (rx != ry)
		return rx - ry;
	return strcmp(x->name, y->name);
}

static void add_metric(struct ctree *t, size_t *cap, uint32_t ev, const char *name)
{
	if (find_metric(t, ev, name) != CTX_NONE)
		return;
	grow_array(&t->metric, cap, t->nmetric + 1, sizeof *t->metric);
	struct ctx_metric *m = &t->metric[t->nmetric++];
	int samples = strcmp(name, MET_SAMPLES) == 0;
	m->event = ev;
	m->name = xstrdup(name);
	m->unit = xstrdup(samples ? "samples" : t->event[ev].unit);
	m->scale = samples ? 1 : t->event[ev].scale;
	m->total = 0;
}

struct ctree *ctree_new(const struct experiment *e, const struct ovh_rules *rules,
			char *const *types, size_t ntypes, const struct ctree_columns *more)
{
	struct ctree *t = xcalloc(1, sizeof *t);
	size_t cap = 0;

	t->thread_derivable = 1;

	t->str = strtab_new();
	for (int k = 0; k < CTX_KINDS; k++)
		t->kind_name[k] = intern(t, ctx_kind_name[k]);
	for (size_t i = 0; i < e->nproc; i++) {
		const struct mfile_process *p = e->proc[i]->p;
		for (uint32_t k = 0; k < p->nevents; k++) {
			if (find_event(t, p->events[k].name) != CTX_NONE)
				continue;
			grow_array(&t->event, &cap, t->nevent + 1, sizeof *t->event);
			struct ctx_event *ev = &t->event[t->nevent++];
			int ns = strcmp(p->events[k].unit, "ns") == 0;
			ev->name = xstrdup(p->events[k].name);
			ev->unit = xstrdup(ns ? "seconds" : "count");
			ev->scale = ns ? 1e-9 : 1;
			ev->source = p->events[k].source;
			ev->flags = p->events[k].flags;
			ev->period = p->events[k].period;
		}
	}
	cap = 0;
	for (size_t i = 0; i < e->nproc; i++) {
		const struct mfile_process *p = e->proc[i]->p;
		for (uint32_t k = 0; k < p->nmodules; k++) {
			if (!(p->modules[k].flags & MFILE_MOD_MAIN) || !p->modules[k].path)
				continue;
			size_t j = 0;
			while (j < t->nexecutable && strcmp(t->executable[j], p->modules[k].path))
				j++;
			if (j == t->nexecutable) {
				grow_array(&t->executable, &cap, t->nexecutable + 1,
					   sizeof *t->executable);
				t->executable[t->nexecutable++] = xstrdup(p->modules[k].path);
			}
		}
	}
	cap = 0;
	for (size_t i = 0; i < e->nthread; i++) {
		const struct mfile_thread *th = e->thread[i]->t;
		const struct mfile_process *p = e->thread[i]->proc->p;
		for (uint32_t c = 0; c < th->ncolumns; c++) {
			uint32_t ev = find_event(t, p->events[th->columns[c].event].name);
			add_metric(t, &cap, ev, th->columns[c].metric);
		}
	}
	for (size_t i = 0; more && i < more->n; i++) {
		uint32_t ev = find_event(t, more->event[i]);
		if (ev != CTX_NONE)
			add_metric(t, &cap, ev, more->metric[i]);
	}
	/* The overhead metrics of every event that has work. */
	t->rules = rules;
	t->otype = xcalloc(ntypes + 1, sizeof *t->otype);
	for (size_t k = 0; k < ntypes; k++)
		t->otype[t->notype++] = intern(t, types[k]);
	for (uint32_t ev = 0; ev < t->nevent; ev++) {
		if (find_metric(t, ev, MET_WORK) == CTX_NONE)
			continue;
		add_metric(t, &cap, ev, MET_OVERHEAD);
		add_metric(t, &cap, ev, MET_USEFUL);
		add_metric(t, &cap, ev, MET_EFFORT);
		for (size_t k = 0; k < ntypes; k++) {
			char *name = xasprintf(MET_OVERHEAD_PREFIX "%s", types[k]);
			add_metric(t, &cap, ev, name);
			free(name);
		}
	}
	qsort(t->metric, t->nmetric, sizeof *t->metric, by_metric);
	t->derived = xcalloc(t->nevent + 1, sizeof *t->derived);
	for (uint32_t ev = 0; ev < t->nevent; ev++) {
		struct ctx_derived *d = &t->derived[ev];
		d->work = find_metric(t, ev, MET_WORK);
		d->idleness = find_metric(t, ev, MET_IDLENESS);
		d->overhead = find_metric(t, ev, MET_OVERHEAD);
		d->useful = find_metric(t, ev, MET_USEFUL);
		d->effort = find_metric(t, ev, MET_EFFORT);
		d->typed = xcalloc(ntypes + 1, sizeof *d->typed);
		for (size_t k = 0; k < ntypes; k++) {
			char *name = xasprintf(MET_OVERHEAD_PREFIX "%s", types[k]);
			d->typed[k] = find_metric(t, ev, name);
			free(name);
		}
	}

	t->mstat = xcalloc(t->nmetric + 1, sizeof *t->mstat);
	hindex_reserve(&t->index, 2048);
	child(t, CTX_NONE, CTX_ROOT, intern(t, "<program root>"), 0, 0, 0);
	logical_names_build(t, e);
	return t;
}

void ctree_free(struct ctree *t)
{
	if (!t)
		return;
	free(t->fold);
	for (size_t i = 0; i < t->nexecutable; i++)
		free(t->executable[i]);
	free(t->executable);
	logical_names_free(t);
	for (size_t i = 0; i < t->nevent; i++) {
		free(t->event[i].name);
		free(t->event[i].unit);
	}
	for (size_t i = 0; i < t->nmetric; i++) {
		free(t->metric[i].name);
		free(t->metric[i].unit);
	}
	for (size_t i = 0; i < t->nevent; i++)
		free(t->derived[i].typed);
	free(t->derived);
	free(t->otype);
	free(t->cls);
	free(t->cls_done);
	free(t->transparent);
	free(t->secondary);
	free(t->event);
	free(t->metric);
	free(t->node);
	for (size_t m = 0; m < t->nmetric; m++)
		free(t->mstat[m]);
	free(t->mstat);
	hindex_free(&t->index);
	strtab_free(t->str);
	free(t);
}

/* ---- translating a thread --------------------------------------------- */

static uint64_t lookup_address(const struct mfile_node *n)
{
	/* A return address points after its call; name the call itself. */
	return (n->flags & MFILE_NODE_EXACT) || n->key == 0 ? n->key : n->key - 1;
}

void ctree_want_addresses(const struct experiment *e)
{
	for (size_t i = 0; i < e->nthread; i++) {
		const struct exp_thread *th = e->thread[i];
		for (uint32_t k = 1; k < th->t->nnodes; k++) {
			const struct mfile_node *n = &th->t->nodes[k];
			struct sym_module *m;
			if (n->kind == MFILE_NODE_FRAME && n->module &&
			    (m = exp_module(th->proc, n->module, NULL)))
				sym_want(m, lookup_address(n));
		}
	}
}

static void intern_result(struct ctree *t, struct sym_result *r)
{
	if (r->interned)
		return;
	for (unsigned j = 0; j < r->nframes; j++) {
		struct sym_frame *f = &r->frame[j];
		f->id_procedure = intern(t, f->procedure);
		f->id_decl_file = intern(t, f->decl_file);
		f->id_file = intern(t, f->file);
	}
	r->interned = 1;
}

/* The name a module is shown by: its path, or [vdso]. */
static uint32_t module_id(struct ctree *t, const struct mfile_module *m)
{
	return intern(t, (m->flags & MFILE_MOD_VDSO) ? "[vdso]" : m->path);
}

/* The procedure whose body the compiler outlined, for code of module
 * MOD folded below context C: C is the call site of the construct (where
 * the region or task was opened, as the runtime plugin roots it) or a call
 * site inside the body, named after that procedure, in the same module.
 * 0 below a root, a runtime's frame (GCC's task copy function called by
 * GOMP_task, a libgomp thread's start without a plugin), or code without
 * a name: the body is then a frame of its own. */
static uint32_t body_owner(const struct ctree *t, uint32_t c, uint32_t mod)
{
	const struct ctx_node *n = &t->node[c];
	if (n->kind != CTX_CALLSITE && n->kind != CTX_FRAME && n->kind != CTX_INLINED)
		return 0;
	if (n->module != mod || fold_unnamed(t, n->procedure))
		return 0;
	return n->procedure;
}

/* The call site of a construct's body at FILE:LINE, below C (whose
 * procedure wrote the body): C itself when it is that line already (the
 * outlined function's own call of more outlined code, at the construct's
 * line, is the construct's call site). */
static uint32_t body_site(struct ctree *t, uint32_t c, uint32_t mod, uint32_t file,
			  uint32_t line)
{
	const struct ctx_node *n = &t->node[c];
	if (n->kind == CTX_CALLSITE && n->file == file && n->line == line)
		return c;
	return child(t, c, CTX_CALLSITE, n->procedure, mod, file, line);
}

/* The contexts one native frame stands for, below PARENT; returns the
 * last (a call site, or for the sampled instruction a statement).
 * Frames that fold (fold.c) add no context: PENDING holds the names
 * folded just above (0: none) and their module, and says on return those
 * that still wait for a context of the frames below. */
struct fold_pending {
	uint32_t names, module;
};

static uint32_t frame_contexts(struct ctree *t, uint32_t parent, const struct exp_process *p,
			       const struct mfile_node *n, uint32_t *modcache,
			       struct fold_pending *pending)
{
	uint32_t pend = pending->names, pend_module = pending->module;
	*pending = (struct fold_pending){ 0, 0 };
	int exact = n->flags & MFILE_NODE_EXACT;
	size_t mi = 0;
	struct sym_module *m = n->module ? exp_module(p, n->module, &mi) : NULL;

	if (!m) {
		uint32_t unknown = intern(t, "[unknown]");
		uint32_t f = child(t, parent, CTX_FRAME, unknown, 0, 0, 0);
		return exact ? f : child(t, f, CTX_CALLSITE, unknown, 0, 0, 0);
	}
	if (!modcache[mi])
		modcache[mi] = module_id(t, &p->p->modules[mi]);
	uint32_t mod = modcache[mi];
	struct sym_result *r = sym_resolve(m, lookup_address(n));
	intern_result(t, r);

	if (r->frame[0].unnamed && pend && pend_module == mod && !exact) {
		/* Right below a folded frame of its module: internals of
		 * what was folded (CPython's start-up, pymain_run_python
		 * between Py_RunMain and _PyRun_AnyFileObject; its calls'
		 * plumbing), folded with it.  Sampled there, it is not. */
		*pending = (struct fold_pending){ fold_append(t, pend, r->frame[0].id_procedure), mod };
		return parent;
	}
	if (r->frame[0].unnamed) {
		fold_mark_address(t, r->frame[0].id_procedure);
		uint32_t above, name = fold_internal_name(t, parent, mod, &above);
		if (name && above != CTX_NONE)	/* more of the same internals */
			return exact ? above : parent;
		if (name) {
			uint32_t f = child(t, parent, CTX_FRAME, name, mod, 0, 0);
			fold_note(t, f, r->frame[0].id_procedure);	/* the address */
			return exact ? f : child(t, f, CTX_CALLSITE, name, mod, 0, 0);
		}
	}

	uint32_t cur = parent;
	for (unsigned j = 0; j < r->nframes; j++) {
		const struct sym_frame *f = &r->frame[j];
		int fold = fold_procedure(t, f->id_procedure);
		/* A body with no procedure above it to own it (its creation
		 * was not found: it hangs from a root) stays a frame. */
		if (fold == FOLD_BODY && !body_owner(t, cur, mod))
			fold = FOLD_NOT;
		if (fold) {
			pend = fold_append(t, pend, f->id_procedure);
			/* A construct's body with a call inlined into it: the
			 * call's line, in the procedure that wrote the body
			 * (unless what was inlined is more of the outlining). */
			if (fold == FOLD_BODY && j + 1 < r->nframes && f->file &&
			    !fold_procedure(t, r->frame[j + 1].id_procedure)) {
				cur = body_site(t, cur, mod, f->id_file, f->line);
				fold_note(t, cur, pend);
				pend = 0;
			}
			continue;
		}
		cur = child(t, cur, j ? CTX_INLINED : CTX_FRAME, f->id_procedure, mod,
			    f->id_decl_file, f->decl_line);
		fold_note(t, cur, pend);
		pend = 0;
		if (j + 1 < r->nframes)	/* where the next, inlined, call is */
			cur = child(t, cur, CTX_CALLSITE, f->id_procedure, mod, f->id_file, f->line);
	}
	const struct sym_frame *last = &r->frame[r->nframes - 1];
	uint32_t proc = last->id_procedure;
	if (pend) {
		/* The innermost frame folded.  A construct's body is code of
		 * the procedure above: its calls hang under their own lines,
		 * its samples are statements named after that procedure.
		 * Other folded code (start-up, plumbing) leaves no trace:
		 * the frames it calls take its place. */
		int body = fold_procedure(t, last->id_procedure) == FOLD_BODY;
		/* Plumbing sampled on a line of its own: named after the
		 * code that called it (a Python line), whatever its module. */
		const struct ctx_node *above = &t->node[cur];
		uint32_t owner = body ? body_owner(t, cur, mod)
			: above->kind == CTX_ROOT ? 0 : above->procedure;
		if (!exact) {
			if (body && owner && last->file) {
				uint32_t site = body_site(t, cur, mod, last->id_file, last->line);
				fold_note(t, site, pend);
				return site;
			}
			*pending = (struct fold_pending){ pend, mod };
			return cur;
		}
		if (owner)
			proc = owner;
		if (body && owner && !last->file) {
			/* No line information: a statement without a line,
			 * still the procedure's own. */
			uint32_t leaf = child(t, cur, CTX_STATEMENT, proc, mod, 0, 0);
			fold_note(t, leaf, pend);
			return leaf;
		}
	}
	uint32_t leaf = cur;
	if (!exact)
		leaf = child(t, cur, CTX_CALLSITE, proc, mod, last->id_file, last->line);
	else if (last->file)
		leaf = child(t, cur, CTX_STATEMENT, proc, mod, last->id_file, last->line);
	fold_note(t, leaf, pend);
	return leaf;	/* without line information: the frame itself */
}

/* The contexts a logical frame (an interpreter's function) stands for,
 * below PARENT, as frame_contexts does for a native frame: the frame,
 * then its statement where the sample landed (an exact node) or the line
 * it called from; PEND the names folded just above.  Returns the last. */
static uint32_t logical_contexts(struct ctree *t, uint32_t parent, const struct mfile_node *n,
				 uint32_t pend)
{
	uint32_t line;
	const struct logical_name *l = logical_name_find(t, n->module, n->key, &line);
	if (!l) {
		char *name = xasprintf("<logical %u:%#llx>", n->module, (unsigned long long)n->key);
		uint32_t f = child(t, parent, CTX_FRAME, intern(t, name), 0, 0, 0);
		free(name);
		fold_note(t, f, pend);
		return f;
	}
	fold_mark_logical(t, l->file);
	uint32_t f = child(t, parent, CTX_FRAME, l->name, l->file, l->file, l->first_line);
	fold_note(t, f, pend);
	if (!line)
		return f;
	int kind = (n->flags & MFILE_NODE_EXACT) ? CTX_STATEMENT : CTX_CALLSITE;
	return child(t, f, kind, l->name, l->file, l->file, line);
}

/* A context with a name only, at the top: markers and unresolved roots. */
static uint32_t named_root(struct ctree *t, const char *name)
{
	return child(t, 0, CTX_ROOT, intern(t, name), 0, 0, 0);
}

/* The context a REF node points to: a node of another thread of the same
 * process, merged before this one. */
static uint32_t resolve_ref(struct ctree *t, const struct exp_thread *th, uint64_t key,
			    const struct experiment *e)
{
	uint32_t seq = (uint32_t)(key >> 32), node = (uint32_t)key;
	for (size_t i = 0; e && i < e->nthread; i++) {
		const struct exp_thread *o = e->thread[i];
		if (o->proc == th->proc && o->seq == seq && o->ctx_map && node < o->ctx_nodes)
			return o->ctx_map[node];
	}
	return named_root(t, "<unresolved logical root>");
}

/* ---- overhead ------------------------------------------------------------ */

static int is_frame(const struct ctree *t, uint32_t c)
{
	return t->node[c].kind == CTX_FRAME || t->node[c].kind == CTX_INLINED;
}

/* The nearest frame (or inlined frame) above C. */
static uint32_t up_frame(const struct ctree *t, uint32_t c)
{
	for (c = t->node[c].parent; c != CTX_NONE; c = t->node[c].parent)
		if (is_frame(t, c))
			return c;
	return CTX_NONE;
}

static int transparent(struct ctree *t, uint32_t module)
{
	if (module >= t->ntransparent) {
		size_t n = t->ntransparent;
		grow_array(&t->transparent, &t->ntransparent, (size_t)module + 1, 1);
		memset(t->transparent + n, -1, t->ntransparent - n);
	}
	if (t->transparent[module] < 0)
		t->transparent[module] = (int8_t)ovh_transparent(t->rules, strtab_get(t->str, module));
	return t->transparent[module];
}

static uint32_t type_index(const struct ctree *t, uint32_t type)
{
	for (size_t k = 0; k < t->notype; k++)
		if (t->otype[k] == type)
			return (uint32_t)k;
	return CTX_NONE;
}

/* Classifies context C, where samples landed (overhead.h): its line's tag,
 * else the first rule matching its procedure, its file, and the module
 * and entry point of its run of frames, past transparent modules. */
static void classify(struct ctree *t, uint32_t c, struct ctx_class *out)
{
	const struct ctx_node *n = &t->node[c];
	char type[64];

	out->type = out->by = 0;
	if (!n->module || !t->rules || (n->kind != CTX_STATEMENT && !is_frame(t, c)))
		return;
	const char *file = n->kind == CTX_STATEMENT ? strtab_get(t->str, n->file) : NULL;
	if (ovh_file_tag(file, type, sizeof type)) {
		out->type = intern(t, type);
		char *by = xasprintf("tag %s", file);
		out->by = intern(t, by);
		free(by);
		return;
	}
	uint32_t f = is_frame(t, c) ? c : up_frame(t, c);
	while (f != CTX_NONE && transparent(t, t->node[f].module)) {
		uint32_t m = t->node[f].module;
		while (f != CTX_NONE && t->node[f].module == m)
			f = up_frame(t, f);
	}
	uint32_t entry = f;
	for (uint32_t g = f == CTX_NONE ? CTX_NONE : up_frame(t, f);
	     g != CTX_NONE && t->node[g].module == t->node[f].module; g = up_frame(t, g))
		entry = g;
	struct ovh_subject s = {
		.procedure = strtab_get(t->str, n->procedure),
		.file = file,
		.module = f == CTX_NONE ? NULL : strtab_get(t->str, t->node[f].module),
		.entry = entry == CTX_NONE ? NULL : strtab_get(t->str, t->node[entry].procedure),
	};
	const struct ovh_rule *r = ovh_match(t->rules, &s);
	if (!r)
		return;
	char *by = xasprintf("rule %s: %s %s %s", r->origin, ovh_field_name[r->field], r->pattern,
			     r->type);
	out->by = intern(t, by);
	free(by);
	if (strcmp(r->type, "-") != 0)
		out->type = intern(t, r->type);
}

static void class_room(struct ctree *t, uint32_t c)
{
	if (c >= t->cls_cap) {
		size_t old = t->cls_cap, cap = old;
		grow_array(&t->cls, &cap, (size_t)c + 1, sizeof *t->cls);
		t->cls_done = xrealloc(t->cls_done, cap);
		memset(t->cls_done + old, 0, cap - old);
		t->cls_cap = cap;
	}
}

static const struct ctx_class *class_of(struct ctree *t, uint32_t c)
{
	class_room(t, c);
	if (!t->cls_done[c]) {
		classify(t, c, &t->cls[c]);
		t->cls_done[c] = 1;
	}
	return &t->cls[c];
}

const struct ctx_class *ctree_class(const struct ctree *t, uint32_t node)
{
	return node < t->cls_cap && t->cls_done[node] ? &t->cls[node] : NULL;
}

/* Fills the derived metrics of values V sampled at context C. */
static void derive(struct ctree *t, uint32_t c, double *v)
{
	const struct ctx_class *cls = NULL;
	for (size_t ev = 0; ev < t->nevent; ev++) {
		const struct ctx_derived *d = &t->derived[ev];
		if (d->work == CTX_NONE || d->overhead == CTX_NONE)
			continue;
		double work = v[d->work], idle = d->idleness == CTX_NONE ? 0 : v[d->idleness];
		if (work == 0 && idle == 0)
			continue;
		v[d->effort] = work + idle;
		v[d->useful] = work;
		if (!cls)
			cls = class_of(t, c);
		if (cls->type && work != 0) {
			uint32_t k = type_index(t, cls->type);
			v[d->overhead] = work;
			v[d->useful] = 0;
			if (k != CTX_NONE && d->typed[k] != CTX_NONE)
				v[d->typed[k]] = work;
		}
	}
}

/* Maps every node of thread TH's tree to a context of T, adding those
 * that are new; the map stays with TH (ctx_map) for the threads it made. */
static uint32_t *map_thread_nodes(struct ctree *t, struct exp_thread *th)
{
	const struct mfile_thread *mt = th->t;
	const struct exp_process *p = th->proc;
	uint32_t *map = xmalloc(mt->nnodes * sizeof *map);
	uint32_t *modcache = xcalloc(p->p->nmodules + 1, sizeof *modcache);
	/* Per node: names folded there that wait for a context below. */
	struct fold_pending *pending = xcalloc(mt->nnodes, sizeof *pending);

	map[0] = 0;
	for (uint32_t i = 1; i < mt->nnodes; i++) {
		const struct mfile_node *n = &mt->nodes[i];
		uint32_t parent = map[n->parent];
		switch (n->kind) {
		case MFILE_NODE_MARKER:
			if (n->parent != 0) {
				/* Frames left out in the middle of a path too
				 * deep for the limit: its outermost frames are
				 * above, its innermost below. */
				map[i] = child(t, parent, CTX_FRAME, intern(t, "<truncated>"), 0, 0, 0);
				break;
			}
			map[i] = named_root(t, n->key == MFILE_MARKER_TRUNCATED ? "<truncated unwind>"
										: "<partial unwind>");
			break;
		case MFILE_NODE_REF:
			map[i] = resolve_ref(t, th, n->key, th->experiment);
			break;
		case MFILE_NODE_LOGICAL:
			map[i] = logical_contexts(t, parent, n, pending[n->parent].names);
			break;
		default:
			pending[i] = pending[n->parent];
			map[i] = frame_contexts(t, parent, p, n, modcache, &pending[i]);
			break;
		}
	}
	free(pending);
	free(modcache);
	th->ctx_map = map;
	th->ctx_nodes = mt->nnodes;
	return map;
}

uint32_t ctree_value_context(struct ctree *t, const struct exp_thread *th, uint32_t node)
{
	uint32_t c = th->ctx_map[node];
	uint32_t root = ctree_owner(t->node, c);
	if (root == CTX_NONE || t->node[root].kind != CTX_ROOT)
		return c;
	/* No frame to be the exclusive value of: a frame the start-up
	 * folded (culprit's own work called right from
	 * __libc_start_call_main), or a sample without frames.  A frame of
	 * their own below the root, named after the folded frame (or
	 * "[unknown]"), so that every sample is a frame's exclusive value. */
	const struct mfile_node *n = &th->t->nodes[node];
	const struct exp_process *p = th->proc;
	size_t mi = 0;
	struct sym_module *m = n->kind == MFILE_NODE_FRAME && n->module
			       ? exp_module(p, n->module, &mi) : NULL;
	if (!m)
		return child(t, root, CTX_FRAME, intern(t, "[unknown]"), 0, 0, 0);
	struct sym_result *r = sym_resolve(m, lookup_address(n));
	intern_result(t, r);
	const struct sym_frame *f = &r->frame[r->nframes - 1];
	return child(t, root, CTX_FRAME, f->id_procedure, module_id(t, &p->p->modules[mi]),
		     f->id_decl_file, f->decl_line);
}

/* Adds thread TH's values, by context, into A (which starts empty), and
 * its totals by metric into TOTALS: each column becomes its metric of T,
 * scaled, and the derived metrics are computed node by node. */
static void gather_thread_values(struct ctree *t, const struct exp_thread *th, struct acc *a,
				 double *totals)
{
	const struct mfile_thread *mt = th->t;
	const struct exp_process *p = th->proc;
	size_t nm = t->nmetric;

	/* Which of our metrics each column is, and its scale. */
	uint32_t *col = xmalloc((mt->ncolumns + 1) * sizeof *col);
	for (uint32_t c = 0; c < mt->ncolumns; c++) {
		uint32_t ev = find_event(t, p->p->events[mt->columns[c].event].name);
		col[c] = find_metric(t, ev, mt->columns[c].metric);
	}
	double *v = xcalloc(nm, sizeof *v);
	memset(totals, 0, nm * sizeof *totals);
	/* Values come grouped by node; add each node's values at once. */
	for (uint32_t i = 0; i < mt->nvalues;) {
		uint32_t node = mt->values[i].node;
		memset(v, 0, nm * sizeof *v);
		for (; i < mt->nvalues && mt->values[i].node == node; i++) {
			uint32_t m = col[mt->values[i].column];
			if (m == CTX_NONE)
				continue;
			v[m] += mt->values[i].value * t->metric[m].scale;
		}
		uint32_t ctx = ctree_value_context(t, th, node);
		derive(t, ctx, v);
		for (size_t m = 0; m < nm; m++)
			totals[m] += v[m];
		acc_sample(a, ctx, v);
	}
	free(v);
	free(col);
}

int ctree_derived_metric(const struct ctree *t, uint32_t m, uint32_t *from, uint32_t *plus,
			 uint32_t *minus)
{
	const struct ctx_derived *d = &t->derived[t->metric[m].event];
	*from = *plus = *minus = CTX_NONE;
	if (d->work == CTX_NONE || d->overhead == CTX_NONE || (m != d->effort && m != d->useful))
		return 0;
	*from = d->work;
	if (m == d->effort)
		*plus = d->idleness;
	else
		*minus = d->overhead;
	return 1;
}

/* Equal but for the rounding of sums taken in another order. */
static int nearly(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

int ctree_derived_matches(const double from[2], const double plus[2], const double minus[2],
			  const double value[2])
{
	/* As SQLite computes it: (from + plus) - minus, in doubles. */
	double in = from[0] + plus[0] - minus[0], ex = from[1] + plus[1] - minus[1];
	int computed = (from[0] != 0 || from[1] != 0) && (in != 0 || ex != 0);
	int stored = value[0] != 0 || value[1] != 0;
	if (computed != stored)
		return 0;
	return !stored || (nearly(in, value[0]) && nearly(ex, value[1]));
}

/* Metric M's pair at entry E of A, zeros where the thread has none. */
static void acc_pair(const struct acc *a, uint32_t m, size_t e, double out[2])
{
	const double *in = m == CTX_NONE ? NULL : acc_inclusive(a, m);
	out[0] = in ? in[e] : 0;
	out[1] = in ? acc_exclusive(a, m)[e] : 0;
}

/* Clears T->thread_derivable unless the views would give this thread's
 * effort and useful_work from its other values, at every context. */
static void check_derivable(struct ctree *t, const struct acc *a)
{
	size_t n = acc_count(a);
	for (uint32_t m = 0; m < t->nmetric && t->thread_derivable; m++) {
		uint32_t from, plus, minus;
		if (!ctree_derived_metric(t, m, &from, &plus, &minus))
			continue;
		for (size_t e = 0; e < n; e++) {
			double f[2], p[2], x[2], v[2];
			acc_pair(a, from, e, f);
			acc_pair(a, plus, e, p);
			acc_pair(a, minus, e, x);
			acc_pair(a, m, e, v);
			if (!ctree_derived_matches(f, p, x, v)) {
				t->thread_derivable = 0;
				break;
			}
		}
	}
}

/* Adds the thread's values gathered in A to T's, and passes each to SINK. */
static void add_values(struct ctree *t, const struct exp_thread *th, const struct acc *a,
		       ctx_thread_sink sink, void *arg)
{
	size_t n = acc_count(a);
	for (size_t m = 0; m < t->nmetric; m++) {
		const double *in = acc_inclusive(a, m), *ex = acc_exclusive(a, m);
		if (!in)
			continue;
		if (!t->mstat[m])
			t->mstat[m] = xcalloc(t->cap, sizeof *t->mstat[m]);
		struct ctx_stat *stat = t->mstat[m];
		for (size_t e = 0; e < n; e++) {
			if (in[e] == 0 && ex[e] == 0)
				continue;
			uint32_t ctx = acc_context(a, e);
			stat[ctx].incl += in[e];
			stat[ctx].excl += ex[e];
			if (sink)
				sink(arg, th, ctx, (uint32_t)m, in[e], ex[e]);
		}
	}
}

void ctree_add_thread(struct ctree *t, struct exp_thread *th, ctx_thread_sink sink,
		      void *arg, double *totals)
{
	map_thread_nodes(t, th);	/* kept with TH: th->ctx_map */
	struct acc *a = acc_new(t->nmetric);
	gather_thread_values(t, th, a, totals);
	acc_finish(a, t->node);

	t->nthreads++;
	size_t n = acc_count(a);
	if (th->seq != 0 && n) {
		if (t->nsecondary < t->n) {
			size_t old = t->nsecondary;
			grow_array(&t->secondary, &t->nsecondary, t->n, 1);
			memset(t->secondary + old, 0, t->nsecondary - old);
		}
		for (size_t e = 0; e < n; e++)
			t->secondary[acc_context(a, e)] = 1;
	}
	check_derivable(t, a);
	add_values(t, th, a, sink, arg);
	for (size_t m = 0; m < t->nmetric; m++)
		t->metric[m].total += totals[m];
	acc_free(a);
}

/* ---- another tree's state (partial.c) ----------------------------------- */

uint32_t ctree_child(struct ctree *t, uint32_t parent, int kind, uint32_t procedure,
		     uint32_t module, uint32_t file, uint32_t line)
{
	return child(t, parent, kind, procedure, module, file, line);
}

void ctree_set_class(struct ctree *t, uint32_t node, const struct ctx_class *c)
{
	class_room(t, node);
	t->cls[node] = *c;
	t->cls_done[node] = 1;
}

void ctree_mark_secondary(struct ctree *t, uint32_t node)
{
	if (t->nsecondary <= node) {
		size_t old = t->nsecondary;
		grow_array(&t->secondary, &t->nsecondary, t->n, 1);
		memset(t->secondary + old, 0, t->nsecondary - old);
	}
	t->secondary[node] = 1;
}

int ctree_secondary(const struct ctree *t, uint32_t node)
{
	return node < t->nsecondary && t->secondary[node];
}
