/* nesting.c - which nodes of a tree sit below another of the same key:
 * the inner frames of a recursion, whose inclusive value their outermost
 * frame holds already.  The one walk behind "recursion counted once" in
 * prof's procedure totals, the read layer's callers and the viewer's
 * procedures of a time range. */
#include "tools.h"

#include <stdlib.h>
#include <string.h>

#define LEAVING 0x80000000u

void mark_nested(size_t n, const uint32_t *parent, const uint32_t *key, uint32_t nkeys,
		 uint8_t *nested)
{
	memset(nested, 0, n);
	if (n == 0)
		return;
	/* Children lists, in index order; then depth first without recursion
	 * (a tree may be a million deep): a node to enter it, the node with
	 * LEAVING set to leave it after its children. */
	uint32_t *first = xmalloc(n * sizeof *first), *next = xmalloc(n * sizeof *next);
	uint32_t *open = xcalloc((size_t)nkeys + 1, sizeof *open);
	uint32_t *stack = xmalloc((2 * n + 1) * sizeof *stack);
	memset(first, 0xff, n * sizeof *first);
	for (size_t i = n; i-- > 0;) {
		next[i] = UINT32_MAX;
		if (parent[i] != UINT32_MAX && parent[i] < n) {
			next[i] = first[parent[i]];
			first[parent[i]] = (uint32_t)i;
		}
	}
	for (size_t root = 0; root < n; root++) {
		if (parent[root] != UINT32_MAX && parent[root] < n)
			continue;
		size_t sp = 0;
		stack[sp++] = (uint32_t)root;
		while (sp) {
			uint32_t top = stack[--sp];
			uint32_t i = top & ~LEAVING;
			uint32_t k = key[i];
			if (top & LEAVING) {
				open[k]--;
				continue;
			}
			if (k < nkeys) {
				nested[i] = open[k]++ > 0;
				stack[sp++] = i | LEAVING;
			}
			for (uint32_t c = first[i]; c != UINT32_MAX; c = next[c])
				stack[sp++] = c;
		}
	}
	free(stack);
	free(open);
	free(first);
	free(next);
}
