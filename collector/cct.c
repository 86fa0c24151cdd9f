/* cct.c - per-thread calling-context trees that a signal handler can grow.
 *
 * Nodes live in one anonymous mapping, indexed by id, so the tree can be
 * written out by walking an array and grown with mremap() without fixing
 * pointers.  Children are found through one open-addressing hash table per
 * tree keyed by (parent, kind, flags, module, key).  Both grow by
 * doubling; the table is rebuilt when it would pass half full.  Only mmap,
 * mremap and munmap are called, so all of this is async-signal-safe.
 */
#define _GNU_SOURCE
#include "collector.h"
#include "hash.h"

#include <string.h>
#include <sys/mman.h>

#define INITIAL_NODES 4096u

static uint64_t node_hash(uint32_t parent, uint8_t kind, uint8_t flags,
			  uint32_t module, uint64_t key)
{
	return hash_mix(key ^ hash_mix((uint64_t)parent << 32 | module) ^
		   ((uint64_t)kind << 56 | (uint64_t)flags << 48));
}

static size_t table_bytes(uint32_t slots)
{
	return (size_t)slots * sizeof(uint32_t);
}

int cct_init(struct cct *c, uint32_t ncolumns, uint32_t limit)
{
	memset(c, 0, sizeof *c);
	c->ncolumns = ncolumns;
	c->node_size = sizeof(struct cct_node) + ncolumns * sizeof(double);
	c->limit = limit < 2 ? 2 : limit;
	c->capacity = INITIAL_NODES < c->limit ? INITIAL_NODES : c->limit;
	c->nodes = culprit_map(c->capacity * c->node_size);
	c->table_mask = 2 * INITIAL_NODES - 1;
	c->table = culprit_map(table_bytes(c->table_mask + 1));
	if (!c->nodes || !c->table) {
		cct_destroy(c);
		return -1;
	}
	struct cct_node *root = cct_node(c, 0);
	root->parent = CCT_NONE;
	root->kind = MFILE_NODE_ROOT;
	c->count = 1;
	return 0;
}

void cct_destroy(struct cct *c)
{
	if (c->nodes)
		culprit_unmap(c->nodes, c->capacity * c->node_size);
	if (c->table)
		culprit_unmap(c->table, table_bytes(c->table_mask + 1));
	c->nodes = NULL;
	c->table = NULL;
	trace_free(&c->trace);
	c->count = c->capacity = 0;
}

/* async-signal-safe */
static int grow_nodes(struct cct *c)
{
	uint32_t want = c->capacity * 2;
	if (want > c->limit)
		want = c->limit;
	if (want <= c->capacity)
		return -1;
	void *p = mremap(c->nodes, c->capacity * c->node_size, want * c->node_size,
			 MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return -1;
	c->nodes = p;
	c->capacity = want;
	return 0;
}

/* async-signal-safe */
static int grow_table(struct cct *c)
{
	uint32_t slots = 2 * (c->table_mask + 1);
	uint32_t *t = culprit_map(table_bytes(slots));
	if (!t)
		return -1;
	for (uint32_t id = 1; id < c->count; id++) {
		const struct cct_node *n = cct_node(c, id);
		uint64_t h = node_hash(n->parent, n->kind, n->flags, n->module, n->key);
		uint32_t i = (uint32_t)h & (slots - 1);
		while (t[i])
			i = (i + 1) & (slots - 1);
		t[i] = id;
	}
	culprit_unmap(c->table, table_bytes(c->table_mask + 1));
	c->table = t;
	c->table_mask = slots - 1;
	return 0;
}

/* async-signal-safe */
uint32_t cct_child(struct cct *c, uint32_t parent, uint8_t kind, uint8_t flags,
		   uint32_t module, uint64_t key)
{
	uint64_t h = node_hash(parent, kind, flags, module, key);
	uint32_t i = (uint32_t)h & c->table_mask;

	for (;;) {
		uint32_t id = c->table[i];
		if (!id)
			break;
		const struct cct_node *n = cct_node(c, id);
		if (n->key == key && n->parent == parent && n->module == module &&
		    n->kind == kind && n->flags == flags)
			return id;
		i = (i + 1) & c->table_mask;
	}

	/* Not there: add it. */
	if (c->count >= c->capacity && grow_nodes(c) < 0) {
		c->limit_hit = 1;
		return CCT_NONE;
	}
	if (2 * (c->count + 1) > c->table_mask + 1) {
		if (grow_table(c) < 0) {
			c->limit_hit = 1;
			return CCT_NONE;
		}
		i = (uint32_t)h & c->table_mask;
		while (c->table[i])
			i = (i + 1) & c->table_mask;
	}
	uint32_t id = c->count++;
	struct cct_node *n = cct_node(c, id);
	memset(n, 0, c->node_size);	/* fresh pages are zero; reused ones may not be */
	n->parent = parent;
	n->kind = kind;
	n->flags = flags;
	n->module = module;
	n->key = key;
	c->table[i] = id;
	return id;
}
