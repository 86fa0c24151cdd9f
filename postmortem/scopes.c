/* scopes.c - the chain of DWARF scopes that hold an address (scopes.h).
 *
 * Two passes.  The first descends from the unit through the scopes whose
 * ranges hold the address, into namespaces, classes and imported partial
 * units on the way (dwz and LTO put functions there).  When it finds no
 * function, the address is in a function nested where its parent's
 * ranges do not reach (GCC's outlined OpenMP bodies): the unit's nested
 * functions, indexed once by address, give it, and the descent goes on
 * from there. */
#include "scopes.h"
#include "tools.h"

#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>

/* Deeper DIE nesting than any compiler makes: a damaged file stops here. */
#define MAX_NESTING 128
/* Imported units followed at once, at most: their offsets, so that a unit
 * that imports itself (a damaged or hostile file) is not followed again. */
#define MAX_IMPORTS 16
/* DIEs one walk visits at most: imports can make a small file a huge
 * tree (a unit that imports another twice, that one twice, ...). */
#define MAX_VISITS (1u << 22)

/* Where a walk is: the imports it is inside, and what it has visited. */
struct walk {
	Dwarf_Off import[MAX_IMPORTS];
	int nimports;
	unsigned visits;
};

/* Follows imported_unit DIE into W's unit UNIT, unless it is one W is
 * inside already or too many deep; 1 when it may. */
static int enter_import(struct walk *w, Dwarf_Die *die, Dwarf_Die *unit)
{
	Dwarf_Attribute attr;
	if (w->nimports == MAX_IMPORTS || !dwarf_attr(die, DW_AT_import, &attr) ||
	    !dwarf_formref_die(&attr, unit))
		return 0;
	Dwarf_Off off = dwarf_dieoffset(unit);
	for (int i = 0; i < w->nimports; i++)
		if (w->import[i] == off)
			return 0;
	w->import[w->nimports++] = off;
	return 1;
}

/* One range of a nested function. */
struct nested_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off die;		/* the function's DIE */
};

struct unit_nested {
	Dwarf_Off unit;		/* the unit's DIE offset */
	struct nested_range *r;	/* by lo */
	size_t n;
};

struct scope_index {
	struct unit_nested *unit;
	size_t n, cap;
};

struct scope_index *scope_index_new(void)
{
	return xcalloc(1, sizeof(struct scope_index));
}

void scope_index_free(struct scope_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->n; i++)
		free(ix->unit[i].r);
	free(ix->unit);
	free(ix);
}

/* DIEs with code of their own, whose ranges say where. */
static int is_code_scope(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_entry_point:
		return 1;
	default:
		return 0;
	}
}

/* DIEs without code that may hold functions. */
static int is_container(int tag)
{
	switch (tag) {
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return 1;
	default:
		return 0;
	}
}

/* Appends to CHAIN (N so far) the scopes below PARENT that hold PC;
 * returns the new count. */
static int descend(struct walk *w, Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *chain, int n,
		   int max, int nesting)
{
	Dwarf_Die child, unit;
	if (nesting >= MAX_NESTING || dwarf_child(parent, &child) != 0)
		return n;
	do {
		if (++w->visits > MAX_VISITS)
			return n;
		int tag = dwarf_tag(&child);
		if (is_code_scope(tag)) {
			if (dwarf_haspc(&child, pc) <= 0)
				continue;
			if (n < max)
				chain[n++] = child;
			return descend(w, &child, pc, chain, n, max, nesting + 1);
		}
		int k = n;
		if (is_container(tag)) {
			k = descend(w, &child, pc, chain, n, max, nesting + 1);
		} else if (tag == DW_TAG_imported_unit && enter_import(w, &child, &unit)) {
			k = descend(w, &unit, pc, chain, n, max, nesting + 1);
			w->nimports--;
		}
		if (k > n)
			return k;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

static int by_lo(const void *a, const void *b)
{
	const struct nested_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Adds to U every function below DIE that sits inside a code scope
 * (IN_CODE: DIE is one or is inside one), with each of its ranges. */
static void collect_nested(struct walk *w, struct unit_nested *u, size_t *cap, Dwarf_Die *die,
			   int in_code, int nesting)
{
	Dwarf_Die child, unit;
	if (nesting >= MAX_NESTING || dwarf_child(die, &child) != 0)
		return;
	do {
		if (++w->visits > MAX_VISITS)
			return;
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram && in_code) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				grow_array(&u->r, cap, u->n + 1, sizeof *u->r);
				u->r[u->n++] = (struct nested_range){ lo, hi, dwarf_dieoffset(&child) };
			}
		}
		if (is_code_scope(tag) || is_container(tag)) {
			collect_nested(w, u, cap, &child, in_code || is_code_scope(tag), nesting + 1);
		} else if (tag == DW_TAG_imported_unit && enter_import(w, &child, &unit)) {
			collect_nested(w, u, cap, &unit, in_code, nesting + 1);
			w->nimports--;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The nested functions of unit CU, indexed on first need. */
static const struct unit_nested *unit_index(struct scope_index *ix, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	for (size_t i = 0; i < ix->n; i++)
		if (ix->unit[i].unit == off)
			return &ix->unit[i];
	grow_array(&ix->unit, &ix->cap, ix->n + 1, sizeof *ix->unit);
	struct unit_nested *u = &ix->unit[ix->n++];
	*u = (struct unit_nested){ .unit = off };
	size_t cap = 0;
	struct walk w = { .nimports = 0 };
	collect_nested(&w, u, &cap, cu, 0, 0);
	if (u->n)	/* qsort(NULL, 0) is undefined */
		qsort(u->r, u->n, sizeof *u->r, by_lo);
	return u;
}

/* The innermost nested function of U whose range holds PC, into FN. */
static int nested_at(const struct unit_nested *u, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn)
{
	size_t lo = 0, hi = u->n;
	while (lo < hi) {	/* past the last range starting at or below pc */
		size_t mid = lo + (hi - lo) / 2;
		if (u->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges of functions do not overlap, but a damaged file's may:
	 * look back a little. */
	for (size_t i = lo; i-- > 0 && lo - i <= 16;)
		if (pc < u->r[i].hi)
			return dwarf_offdie(dwarf_cu_getdwarf(cu->cu), u->r[i].die, fn) != NULL;
	return 0;
}

static int has_function(const Dwarf_Die *chain, int n)
{
	for (int i = 0; i < n; i++)
		if (dwarf_tag((Dwarf_Die *)&chain[i]) == DW_TAG_subprogram)
			return 1;
	return 0;
}

int scope_chain(struct scope_index *ix, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain, int max)
{
	if (max < 1)
		return 0;
	struct walk w = { .nimports = 0 };
	int n = descend(&w, cu, pc, chain, 0, max, 0);
	if (has_function(chain, n))
		return n;
	Dwarf_Die fn;
	if (!nested_at(unit_index(ix, cu), cu, pc, &fn))
		return 0;
	chain[0] = fn;
	w = (struct walk){ .nimports = 0 };
	return descend(&w, &fn, pc, chain, 1, max, 0);
}
