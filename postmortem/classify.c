/* classify.c - what of the tree is overhead (overhead.h): each context
 * where samples landed classified once, on first need, by its line's tag
 * or the first rule matching it; and a sample's derived metrics (effort,
 * useful_work, overhead by type) from that class. */
#define _GNU_SOURCE
#include "merge.h"
#include "overhead.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

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
		out->type = ctree_intern(t, type);
		char *by = xasprintf("tag %s", file);
		out->by = ctree_intern(t, by);
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
	out->by = ctree_intern(t, by);
	free(by);
	if (strcmp(r->type, "-") != 0)
		out->type = ctree_intern(t, r->type);
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
void ctree_derive(struct ctree *t, uint32_t c, double *v)
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

void ctree_set_class(struct ctree *t, uint32_t node, const struct ctx_class *c)
{
	class_room(t, node);
	t->cls[node] = *c;
	t->cls_done[node] = 1;
}
