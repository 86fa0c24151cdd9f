/* scopes.h - the DWARF scopes that hold an address, as addr2line -i sees
 * them: the function, then each call inlined into it down to the
 * instruction (symbolize.c names them).
 *
 * libdw's dwarf_getscopes() misses two layouts that real programs use:
 * GCC nests a function it outlines (an OpenMP region's or task's body,
 * "main._omp_fn.0") inside the DIE of the function it came from, where
 * that function's ranges do not cover it; and GCC's -flto puts the
 * concrete code in one unit whose abstract origins lie in others, where
 * dwarf_getscopes() fails.  This walk follows the physical nesting alone
 * (imported partial units included) and finds nested functions through
 * an index of them per unit. */
#ifndef CULPRIT_SCOPES_H
#define CULPRIT_SCOPES_H

#include <elfutils/libdw.h>

/* A module's nested functions by unit, built on first need. */
struct scope_index;

struct scope_index *scope_index_new(void);
void scope_index_free(struct scope_index *ix);

/* Fills CHAIN (room for MAX) with the DIEs of unit CU that hold PC (an
 * address of the unit's own, without bias), outermost first: functions,
 * inlined calls and blocks.  A function nested in another's DIE starts
 * the chain: its code is its own, not its parent's.  Returns how many,
 * 0 when no function of CU covers PC.  The DIEs stay valid as long as
 * the Dwarf they came from. */
int scope_chain(struct scope_index *ix, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain, int max);

#endif
