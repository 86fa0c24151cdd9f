/* hindex.c - the hash index's growing (hindex.h): the rare path, kept out
 * of the callers' inline lookups. */
#include "hindex.h"
#include "tools.h"

#include <stdlib.h>

/* Fewest slots a table has: a few cache lines. */
#define MIN_SLOTS 16

/* Puts ID at HASH in the first empty slot from its home.  Slots know
 * their hashes, so a table is rebuilt without the caller. */
static void place(struct hindex *x, uint32_t hash, uint32_t id_plus_1)
{
	size_t i = hash & x->mask;
	while (x->slot[i].id)
		i = (i + 1) & x->mask;
	x->slot[i] = (struct hindex_slot){ hash, id_plus_1 };
}

/* Rebuilds X with SLOTS slots (a power of two). */
static void rebuild(struct hindex *x, size_t slots)
{
	/* The stored hash is 32 bits: past 2^32 slots it would no longer
	 * say where an entry belongs.  2^31 ids of 8-byte slots is 32 GiB
	 * of index, beyond any tree culprit makes. */
	if ((uint64_t)slots > (uint64_t)1 << 32) {
		msg_error("a hash index of more than 2^31 entries: too large");
		exit(EXIT_FAIL);
	}
	struct hindex_slot *old = x->slot;
	size_t n = old ? x->mask + 1 : 0;
	x->slot = xcalloc(slots, sizeof *x->slot);
	x->mask = slots - 1;
	for (size_t i = 0; i < n; i++)
		if (old[i].id)
			place(x, old[i].hash, old[i].id);
	free(old);
}

void hindex_reserve(struct hindex *x, size_t count)
{
	size_t slots = MIN_SLOTS;
	while (slots < 2 * count)
		slots *= 2;
	if (!x->slot || slots > x->mask + 1)
		rebuild(x, slots);
}

void hindex_grow_add(struct hindex *x, uint32_t hash, uint32_t id)
{
	hindex_reserve(x, x->count + 1);
	place(x, hash, id + 1);
	x->count++;
}

void hindex_free(struct hindex *x)
{
	free(x->slot);
	*x = (struct hindex){ NULL, 0, 0 };
}
