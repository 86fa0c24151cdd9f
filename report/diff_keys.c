/* diff_keys.c - the keys `culprit diff` compares frames by (diff_keys.h):
 * made in one pass over a tree, parents first, and matched between two
 * trees key by key, parents first. */
#define _GNU_SOURCE
#include "diff_keys.h"
#include "dbread.h"
#include "hash.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(uint32_t parent, const char *procedure, const char *module,
			 const char *file, char kind, int line)
{
	return hash_mix((uint64_t)parent << 32 ^ (uint64_t)(uintptr_t)procedure) ^
	       hash_mix((uint64_t)(uintptr_t)module ^ (uint64_t)(uintptr_t)file << 11) ^
	       hash_mix((uint64_t)(unsigned)line << 8 ^ (unsigned char)kind);
}

static int key_is(const struct diff_key *k, uint32_t parent, const struct dbr_ctx *c, char kind,
		  int line)
{
	return k->parent == parent && k->procedure == c->procedure && k->module == c->module &&
	       k->file == c->file && k->kind == kind && k->line == line;
}

/* The key below PARENT for context C (index I) as KIND at LINE, made if
 * new. */
static uint32_t key_of(struct diff_keys *k, uint32_t parent, const struct dbr_ctx *c, uint32_t i,
		       char kind, int line)
{
	struct hindex_pos pos;
	uint64_t h = key_hash(parent, c->procedure, c->module, c->file, kind, line);
	for (uint32_t id = hindex_find(&k->index, h, &pos); id != HINDEX_NONE;
	     id = hindex_next(&k->index, &pos))
		if (key_is(&k->key[id], parent, c, kind, line))
			return id;
	grow_array(&k->key, &k->cap, k->n + 1, sizeof *k->key);
	uint32_t id = (uint32_t)k->n++;
	k->key[id] = (struct diff_key){ parent, DIFF_NONE, DIFF_NONE, DIFF_NONE, c->procedure,
					c->module, c->file, kind, line, 0, i, 0, 0, 0, 0 };
	hindex_add(&k->index, &pos, id);
	/* Children in the order made: appended. */
	if (parent != DIFF_NONE) {
		struct diff_key *p = &k->key[parent];
		if (p->last == DIFF_NONE)
			p->first = id;
		else
			k->key[p->last].next = id;
		p->last = id;
	}
	return id;
}

/* A key on the chain from AT up whose procedure is C's (a recursion to
 * fold into), or DIFF_NONE. */
static uint32_t on_path(const struct diff_keys *k, uint32_t at, const struct dbr_ctx *c)
{
	for (; at != DIFF_NONE; at = k->key[at].parent)
		if (k->key[at].procedure == c->procedure && k->key[at].module == c->module &&
		    k->key[at].file == c->file && k->key[at].kind != KIND_ROOT[0])
			return at;
	return DIFF_NONE;
}

/* Counts by key of the frames on the walk's path, grown with the keys. */
struct path_counts {
	uint32_t *n;
	size_t cap;
};

static uint32_t *count_of(struct path_counts *pc, uint32_t key)
{
	if (key >= pc->cap) {
		size_t old = pc->cap;
		grow_array(&pc->n, &pc->cap, (size_t)key + 1, sizeof *pc->n);
		memset(pc->n + old, 0, (pc->cap - old) * sizeof *pc->n);
	}
	return &pc->n[key];
}

/* Context I's key (a frame or root): its procedure's, or its path's, the
 * path of ABOVE (the key of the frame above it) and its own place in it. */
static uint32_t key_for(struct diff_keys *k, const struct dbr_tree *t, uint32_t i, uint32_t above,
			int by_procedure)
{
	const struct dbr_ctx *c = &t->c[i];
	int root = c->kind == KIND_ROOT[0];
	if (by_procedure)
		return key_of(k, DIFF_NONE, c, i, root ? KIND_ROOT[0] : KIND_FRAME[0], 0);
	uint32_t again = root ? DIFF_NONE : on_path(k, above, c);
	if (again != DIFF_NONE)
		return again;	/* a recursion: the earlier frame again */
	uint32_t p = c->parent;
	int line = p != UINT32_MAX && t->c[p].kind == KIND_CALLSITE[0] ? t->c[p].line : 0;
	return key_of(k, above, c, i, c->kind, line);
}

void diff_keys_build(struct diff_keys *k, const struct dbr_tree *t, int by_procedure,
		     const double *incl, const double *excl, const double *samples_incl,
		     const double *samples_excl)
{
	const struct dbr_ctx *c = t->c;
	memset(k, 0, sizeof *k);
	/* Per context: its key (frames and roots), and the key of the
	 * nearest frame or root above it. */
	uint32_t *of = xmalloc((t->n + 1) * sizeof *of);
	uint32_t *above = xmalloc((t->n + 1) * sizeof *above);
	struct path_counts on = { NULL, 0 };
	/* Depth first, without recursion (a tree may be a million deep): an
	 * index to enter a context, its complement to leave it.  A frame
	 * whose key a frame above it has already (a recursion, direct or
	 * through others) adds to the key's own values, not its inclusive
	 * ones: those hold it already. */
	uint32_t *stack = NULL;
	size_t sp = 0, cap = 0;
	for (uint32_t r = 0; r < t->n; r++) {
		if (c[r].parent != UINT32_MAX)
			continue;
		grow_array(&stack, &cap, sp + 1, sizeof *stack);
		stack[sp++] = r;
		while (sp) {
			uint32_t i = stack[--sp];
			if (i >= (uint32_t)t->n) {
				(*count_of(&on, of[~i]))--;
				continue;
			}
			uint32_t p = c[i].parent;
			above[i] = p == UINT32_MAX ? DIFF_NONE : of[p] != DIFF_NONE ? of[p] : above[p];
			of[i] = DIFF_NONE;
			if (dbr_is_frame(c[i].kind) || c[i].kind == KIND_ROOT[0]) {
				of[i] = key_for(k, t, i, above[i], by_procedure);
				uint32_t *n = count_of(&on, of[i]);
				struct diff_key *x = &k->key[of[i]];
				x->excl += excl[i];
				x->samples_excl += samples_excl[i];
				if (*n) {
					x->recursive = 1;
				} else {
					x->incl += incl[i];
					x->samples_incl += samples_incl[i];
				}
				(*n)++;
				grow_array(&stack, &cap, sp + 1, sizeof *stack);
				stack[sp++] = ~i;
			}
			for (uint32_t ch = c[i].first; ch != UINT32_MAX; ch = c[ch].next) {
				grow_array(&stack, &cap, sp + 1, sizeof *stack);
				stack[sp++] = ch;
			}
		}
	}
	free(stack);
	free(on.n);
	free(above);
	free(of);
}

void diff_keys_free(struct diff_keys *k)
{
	free(k->key);
	hindex_free(&k->index);
	memset(k, 0, sizeof *k);
}

static int same_key(const struct diff_key *x, const struct diff_key *y)
{
	return x->kind == y->kind && x->line == y->line &&
	       dbr_same_name(x->procedure, y->procedure) && dbr_same_name(x->module, y->module) &&
	       dbr_same_name(x->file, y->file);
}

/* A hash of a top key's names, by content (the two trees intern apart). */
static uint64_t top_hash(const struct diff_key *x)
{
	uint64_t h = hash_string(hash_string(hash_string((unsigned char)x->kind, x->procedure),
					     x->module), x->file);
	return hash_mix(h ^ (uint64_t)(unsigned)x->line);
}

/* The index + 1 of the top key of A whose content is Y's, 0 for none. */
static uint32_t top_key(const struct hindex *top, const struct diff_keys *a,
			const struct diff_key *y)
{
	struct hindex_pos pos;
	for (uint32_t j = hindex_find(top, top_hash(y), &pos); j != HINDEX_NONE;
	     j = hindex_next(top, &pos))
		if (same_key(&a->key[j], y))
			return j + 1;
	return 0;
}

uint32_t *diff_keys_match(const struct diff_keys *a, const struct diff_keys *b)
{
	uint32_t *match = xcalloc(b->n + 1, sizeof *match);
	/* A's keys with no parent (every key, by procedure), by content;
	 * of two alike, the first. */
	struct hindex top = { 0 };
	for (uint32_t i = 0; i < a->n; i++) {
		const struct diff_key *x = &a->key[i];
		if (x->parent != DIFF_NONE)
			continue;
		struct hindex_pos pos;
		uint32_t j = hindex_find(&top, top_hash(x), &pos);
		while (j != HINDEX_NONE && !same_key(&a->key[j], x))
			j = hindex_next(&top, &pos);
		if (j == HINDEX_NONE)
			hindex_add(&top, &pos, i);
	}
	for (uint32_t i = 0; i < b->n; i++) {
		const struct diff_key *y = &b->key[i];
		if (y->parent == DIFF_NONE) {
			match[i] = top_key(&top, a, y);
			continue;
		}
		uint32_t p = match[y->parent];
		if (!p)
			continue;
		for (uint32_t k = a->key[p - 1].first; k != DIFF_NONE; k = a->key[k].next)
			if (same_key(&a->key[k], y)) {
				match[i] = k + 1;
				break;
			}
	}
	hindex_free(&top);
	return match;
}

/* Key X's name as shown: "[inlined] [recursive] name". */
static char *label(const struct diff_key *x)
{
	return xasprintf("%s%s%s", x->kind == KIND_INLINED[0] ? "[inlined] " : "",
			 x->recursive ? "[recursive] " : "", x->procedure ? x->procedure : "?");
}

char *diff_key_path(const struct diff_keys *k, uint32_t i, int by_procedure, int lines)
{
	const struct diff_key *x = &k->key[i];
	if (by_procedure) {
		const char *where = x->file ? x->file : x->module;
		const char *base = where && strrchr(where, '/') ? strrchr(where, '/') + 1 : where;
		return xasprintf("%s%s%s%s", x->procedure ? x->procedure : "?", base ? " (" : "",
				 base ? base : "", base ? ")" : "");
	}
	char *out = NULL;
	int below = 0;	/* the line of the call into the key below */
	for (uint32_t at = i; at != DIFF_NONE; at = k->key[at].parent) {
		char *name = label(&k->key[at]);
		char *more;
		if (lines && below > 0)
			more = xasprintf("%s:%d%s%s", name, below, out ? " > " : "", out ? out : "");
		else
			more = xasprintf("%s%s%s", name, out ? " > " : "", out ? out : "");
		free(name);
		free(out);
		out = more;
		below = k->key[at].line;
	}
	return out ? out : xstrdup("?");
}
