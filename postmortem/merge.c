/* merge.c - translates a thread's tree into the experiment's
 * calling-context tree (ctree.c), node by node, parents first: a FRAME
 * node becomes a short path of contexts (the frame, the call sites of
 * calls inlined into it, the inlined frames, and a final call site or
 * statement), a logical node its logical frames, a reference the context
 * it names.  values.c then adds the thread's values at those contexts.
 */
#define _GNU_SOURCE
#include "experiment.h"
#include "fold.h"
#include "logical.h"
#include "merge.h"
#include "symbolize.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

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
		f->id_procedure = ctree_intern(t, f->procedure);
		f->id_decl_file = ctree_intern(t, f->decl_file);
		f->id_file = ctree_intern(t, f->file);
	}
	r->interned = 1;
}

/* The name a module is shown by: its path, or [vdso]. */
static uint32_t module_id(struct ctree *t, const struct mfile_module *m)
{
	return ctree_intern(t, (m->flags & MFILE_MOD_VDSO) ? "[vdso]" : m->path);
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
	return ctree_child(t, c, CTX_CALLSITE, n->procedure, mod, file, line);
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
		uint32_t unknown = ctree_intern(t, "[unknown]");
		uint32_t f = ctree_child(t, parent, CTX_FRAME, unknown, 0, 0, 0);
		return exact ? f : ctree_child(t, f, CTX_CALLSITE, unknown, 0, 0, 0);
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
			uint32_t f = ctree_child(t, parent, CTX_FRAME, name, mod, 0, 0);
			fold_note(t, f, r->frame[0].id_procedure);	/* the address */
			return exact ? f : ctree_child(t, f, CTX_CALLSITE, name, mod, 0, 0);
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
		cur = ctree_child(t, cur, j ? CTX_INLINED : CTX_FRAME, f->id_procedure, mod,
			    f->id_decl_file, f->decl_line);
		fold_note(t, cur, pend);
		pend = 0;
		if (j + 1 < r->nframes)	/* where the next, inlined, call is */
			cur = ctree_child(t, cur, CTX_CALLSITE, f->id_procedure, mod, f->id_file, f->line);
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
			uint32_t leaf = ctree_child(t, cur, CTX_STATEMENT, proc, mod, 0, 0);
			fold_note(t, leaf, pend);
			return leaf;
		}
	}
	uint32_t leaf = cur;
	if (!exact)
		leaf = ctree_child(t, cur, CTX_CALLSITE, proc, mod, last->id_file, last->line);
	else if (last->file)
		leaf = ctree_child(t, cur, CTX_STATEMENT, proc, mod, last->id_file, last->line);
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
		uint32_t f = ctree_child(t, parent, CTX_FRAME, ctree_intern(t, name), 0, 0, 0);
		free(name);
		fold_note(t, f, pend);
		return f;
	}
	fold_mark_logical(t, l->file);
	uint32_t f = ctree_child(t, parent, CTX_FRAME, l->name, l->file, l->file, l->first_line);
	fold_note(t, f, pend);
	if (!line)
		return f;
	int kind = (n->flags & MFILE_NODE_EXACT) ? CTX_STATEMENT : CTX_CALLSITE;
	return ctree_child(t, f, kind, l->name, l->file, l->file, line);
}

/* A context with a name only, at the top: markers and unresolved roots. */
static uint32_t named_root(struct ctree *t, const char *name)
{
	return ctree_child(t, 0, CTX_ROOT, ctree_intern(t, name), 0, 0, 0);
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

uint32_t *ctree_map_thread(struct ctree *t, struct exp_thread *th)
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
				map[i] = ctree_child(t, parent, CTX_FRAME, ctree_intern(t, "<truncated>"), 0, 0, 0);
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
		return ctree_child(t, root, CTX_FRAME, ctree_intern(t, "[unknown]"), 0, 0, 0);
	struct sym_result *r = sym_resolve(m, lookup_address(n));
	intern_result(t, r);
	const struct sym_frame *f = &r->frame[r->nframes - 1];
	return ctree_child(t, root, CTX_FRAME, f->id_procedure, module_id(t, &p->p->modules[mi]),
		     f->id_decl_file, f->decl_line);
}

/* Adds thread TH's values, by context, into A (which starts empty), and
 * its totals by metric into TOTALS: each column becomes its metric of T,
 * scaled, and the derived metrics are computed node by node. */
