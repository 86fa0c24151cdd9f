/* hindex.h - the tools' one hash index: finds an entry of the caller's
 * by its key, where the caller keeps its entries in its own arrays under
 * dense ids (0, 1, 2, ... as it made them) and says itself which id is
 * the one sought.
 *
 * Open addressing with linear probing.  A slot holds an id and the low 32
 * bits of its entry's hash, so that a probe compares hashes first and
 * looks at the caller's entry only when they are equal (nearly always
 * the entry sought), and growing moves slots without asking the caller
 * for a hash again.  The table doubles at half full.  Hashes must have
 * well-mixed low bits: make them with hash_mix (common/hash.h).
 *
 * A lookup is a loop over the candidates, inline, with the caller's test
 * in its body; where none matches, the position it ended at is where a
 * new id goes:
 *
 *	struct hindex_pos pos;
 *	for (uint32_t id = hindex_find(&x, h, &pos); id != HINDEX_NONE;
 *	     id = hindex_next(&x, &pos))
 *		if (same(&entry[id], key))
 *			return id;
 *	id = the caller's new entry;
 *	hindex_add(&x, &pos, id);
 *
 * Not for the collector's signal handler (it allocates). */
#ifndef CULPRIT_HINDEX_H
#define CULPRIT_HINDEX_H

#include <stddef.h>
#include <stdint.h>

/* No id: the end of a lookup's candidates. */
#define HINDEX_NONE UINT32_MAX

struct hindex_slot {
	uint32_t hash;		/* the low 32 bits of the entry's hash */
	uint32_t id;		/* the entry's id + 1; 0: the slot is empty */
};

/* An index.  All zeros is an empty one (hindex_reserve need not come
 * first); hindex_free frees it. */
struct hindex {
	struct hindex_slot *slot;	/* mask + 1 slots; NULL until the first id */
	size_t mask;
	size_t count;			/* ids indexed */
};

/* Where a lookup is: the slot it looks at, and the hash sought. */
struct hindex_pos {
	size_t i;
	uint32_t hash;
};

/* Makes room for COUNT ids in all, so that adding them grows nothing
 * (for a caller that knows how many it may add). */
void hindex_reserve(struct hindex *x, size_t count);
/* Frees X's slots; X is then an empty index. */
void hindex_free(struct hindex *x);
/* Grows X and adds ID at HASH: hindex_add's slow path. */
void hindex_grow_add(struct hindex *x, uint32_t hash, uint32_t id);

static inline uint32_t hindex_scan(const struct hindex *x, struct hindex_pos *pos)
{
	if (!x->slot)
		return HINDEX_NONE;
	for (;; pos->i = (pos->i + 1) & x->mask) {
		const struct hindex_slot *s = &x->slot[pos->i];
		if (!s->id)
			return HINDEX_NONE;
		if (s->hash == pos->hash)
			return s->id - 1;
	}
}

/* The first id indexed at HASH (the caller checks that its entry is the
 * one sought), or HINDEX_NONE; *POS is where the lookup is. */
static inline uint32_t hindex_find(const struct hindex *x, uint64_t hash, struct hindex_pos *pos)
{
	pos->hash = (uint32_t)hash;
	pos->i = (size_t)hash & x->mask;
	return hindex_scan(x, pos);
}

/* The next id at POS's hash after the one hindex_find or hindex_next
 * returned, or HINDEX_NONE. */
static inline uint32_t hindex_next(const struct hindex *x, struct hindex_pos *pos)
{
	pos->i = (pos->i + 1) & x->mask;
	return hindex_scan(x, pos);
}

/* Adds ID (below HINDEX_NONE) where the lookup at POS ended: it returned
 * HINDEX_NONE, and X has not changed since. */
static inline void hindex_add(struct hindex *x, const struct hindex_pos *pos, uint32_t id)
{
	if (2 * (x->count + 1) > x->mask + 1) {	/* also with no slots yet */
		hindex_grow_add(x, pos->hash, id);
		return;
	}
	x->slot[pos->i] = (struct hindex_slot){ pos->hash, id + 1 };
	x->count++;
}

#endif
