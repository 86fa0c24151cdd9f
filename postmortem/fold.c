/* fold.c - which native frames stand for no frame of the source.
 *
 * OpenMP compilers move a region's or a task's body into a function of
 * their own and call it from the runtime: clang's .omp_outlined.,
 * .omp_outlined._debug__ and .omp_task_entry., GCC's fn._omp_fn.N.  Its
 * code is the body of the function that holds the construct, and its
 * logical parent (the region's or task's creation, from culprit's
 * context records) is already that function's call site: shown as a
 * frame of its own, every task level of a recursion took three rows.
 * The C library's start-up (_start, __libc_start_main, ...) is above
 * every program's main and says nothing about the program, and neither
 * does CPython's above a script's module frame (Py_RunMain, ...).  A thread's
 * start-up (clone, start_thread) is already cut where the thread was
 * created.
 *
 * The names are glob patterns; a name that matches one is folded.
 *
 * Also here: naming a library's unnamed internal code after the entry
 * point it runs under, the other way a native frame is made to read as
 * the program's author would. */
#define _GNU_SOURCE
#include "fold.h"
#include "merge.h"
#include "overhead.h"
#include "tools.h"

#include <fnmatch.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* BODY: code outlined from a construct of the procedure above it, whose
 * lines are that procedure's; else plumbing with lines of its own. */
static const struct fold_pattern {
	const char *glob;
	int body;
} fold_patterns[] = {
	/* clang */
	{ ".omp_outlined.*", 1 },
	{ ".omp_task_entry.*", 1 },
	{ ".omp_task_privates_map.*", 1 },
	/* GCC */
	{ "*._omp_fn.[0-9]*", 1 },
	{ "*._omp_cpyfn.[0-9]*", 1 },
	/* ... of C++, named by the symbol table: demangled as clones */
	{ "* [[]clone ._omp_fn.[0-9]*]", 1 },
	{ "* [[]clone ._omp_cpyfn.[0-9]*]", 1 },
	/* the C library's start-up, above main */
	{ "_start", 0 },
	{ "__libc_start_main", 0 },
	{ "__libc_start_main_*", 0 },
	{ "__libc_start_call_main", 0 },
	/* CPython's start-up, above the program's Python code: running a
	 * file, a -c string or the REPL down to the module's frame */
	{ "Py_BytesMain", 0 },
	{ "Py_Main", 0 },
	{ "Py_RunMain", 0 },
	{ "PyRun_*", 0 },
	{ "_PyRun_*", 0 },
	{ "PyEval_EvalCode", 0 },
	{ "pymain_*", 0 },
	{ "pyrun_*", 0 },
	/* CPython's calls, between a Python line and what it calls: the
	 * line's frame is the caller (unwind-plugins/python) */
	{ "_PyEval_Vector", 0 },
	{ "_PyEval_EvalFrame", 0 },
	{ "_PyFunction_Vectorcall", 0 },
	{ "_PyObject_MakeTpCall", 0 },
	{ "_PyObject_Call", 0 },
	{ "_PyObject_CallMethod*", 0 },
	{ "_PyObject_VectorcallTstate", 0 },
	{ "_PyObject_FastCall*", 0 },
	{ "PyObject_Call", 0 },
	{ "PyObject_Vectorcall*", 0 },
	{ "PyObject_CallOneArg", 0 },
	{ "PyObject_CallMethod*", 0 },
};

int fold_frame(const char *procedure)
{
	if (!procedure)
		return FOLD_NOT;
	for (size_t i = 0; i < sizeof fold_patterns / sizeof *fold_patterns; i++)
		if (fnmatch(fold_patterns[i].glob, procedure, 0) == 0)
			return fold_patterns[i].body ? FOLD_BODY : FOLD_PLUMBING;
	return FOLD_NOT;
}

/* ---- in the merged tree (merge.c) ---------------------------------------- */

/* Whether frames of procedure ID (a string id) are folded, remembered. */
/* T's flags for string ID, made room for. */
static unsigned char *flags_of(struct ctree *t, uint32_t id)
{
	if (id >= t->capfold) {
		size_t cap = t->capfold;
		grow_array(&t->fold, &cap, (size_t)id + 1, sizeof *t->fold);
		memset(t->fold + t->capfold, 0, cap - t->capfold);
		t->capfold = cap;
	}
	return &t->fold[id];
}

/* Flags by string id: whether the fold rules were asked, and what they
 * said (two bits: enum fold_kind); whether the name stands for code
 * without a symbol (an address, or named after its entry point). */
enum { FOLD_ASKED = 1, FOLD_KIND_SHIFT = 1, FOLD_KIND_MASK = 6, FOLD_UNNAMED = 8,
       FOLD_LOGICAL = 16, FOLD_RUNTIME_ASKED = 32, FOLD_RUNTIME = 64 };

/* Whether MODULE (a string id) is a parallel runtime's (the overhead
 * rules say so: libomp, libgomp, TBB); remembered. */
static int runtime_module(struct ctree *t, uint32_t module)
{
	unsigned char *f = flags_of(t, module);
	if (!(*f & FOLD_RUNTIME_ASKED))
		*f |= FOLD_RUNTIME_ASKED |
		      (t->rules && ovh_module_kind(t->rules, strtab_get(t->str, module)) ==
					   OVH_MODULE_RUNTIME ? FOLD_RUNTIME : 0);
	return (*f & FOLD_RUNTIME) != 0;
}

int fold_procedure(struct ctree *t, uint32_t id)
{
	unsigned char *f = flags_of(t, id);
	if (!(*f & FOLD_ASKED))
		*f |= FOLD_ASKED | fold_frame(strtab_get(t->str, id)) << FOLD_KIND_SHIFT;
	return (*f & FOLD_KIND_MASK) >> FOLD_KIND_SHIFT;
}

int fold_unnamed(const struct ctree *t, uint32_t id)
{
	return id < t->capfold && (t->fold[id] & FOLD_UNNAMED);
}

void fold_mark_address(struct ctree *t, uint32_t id)
{
	*flags_of(t, id) |= FOLD_UNNAMED;
}

void fold_mark_logical(struct ctree *t, uint32_t module)
{
	*flags_of(t, module) |= FOLD_LOGICAL;
}

/* "BASENAME (internal)" for module MOD, marked unnamed. */
static uint32_t module_internal(struct ctree *t, uint32_t mod)
{
	const char *path = strtab_get(t->str, mod);
	const char *base = path ? strrchr(path, '/') : NULL;
	char *internal = xasprintf("%s (internal)", base ? base + 1 : path ? path : "?");
	uint32_t id = strtab_intern(t->str, internal);
	free(internal);
	*flags_of(t, id) |= FOLD_UNNAMED;
	return id;
}

/* The folded names FOLDED (a string id, 0: none) and then procedure ID. */
uint32_t fold_append(struct ctree *t, uint32_t folded, uint32_t id)
{
	if (!folded)
		return id;
	char *both = xasprintf("%s > %s", strtab_get(t->str, folded), strtab_get(t->str, id));
	uint32_t r = strtab_intern(t->str, both);
	free(both);
	return r;
}

/* Context C stands for the frames FOLDED too, if nothing was said yet. */
void fold_note(struct ctree *t, uint32_t c, uint32_t folded)
{
	if (folded && !t->node[c].folded)
		t->node[c].folded = folded;
}

/* fold.h says what; FOLD_UNNAMED marks both kinds of names it stops at. */
uint32_t fold_internal_name(struct ctree *t, uint32_t c, uint32_t mod,
			    uint32_t *internal_frame)
{
	*internal_frame = CTX_NONE;
	for (; c != CTX_NONE && c != 0; c = t->node[c].parent) {
		const struct ctx_node *n = &t->node[c];
		/* Under an interpreter's function: its own code, which has
		 * no entry point of its own above; and a runtime's code run
		 * right below the program (its worker threads' start, below
		 * the context the runtime plugin roots them at), which a
		 * user knows by the runtime's name alone. */
		if (n->module != mod)
			return (*flags_of(t, n->module) & FOLD_LOGICAL) || runtime_module(t, mod)
			       ? module_internal(t, mod) : 0;
		if (n->kind != CTX_FRAME && n->kind != CTX_INLINED)
			continue;
		/* Internal already, or itself only an address: the same
		 * unnamed code goes on. */
		if (*flags_of(t, n->procedure) & FOLD_UNNAMED) {
			*internal_frame = c;
			return n->procedure;
		}
		const char *name = strtab_get(t->str, n->procedure);
		char *internal = xasprintf("%s (internal)", name ? name : "?");
		uint32_t id = strtab_intern(t->str, internal);
		free(internal);
		*flags_of(t, id) |= FOLD_UNNAMED;
		return id;
	}
	return 0;
}
