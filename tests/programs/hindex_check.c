/* hindex_check.c - the checks of the tools' hash index (tools-lib/hindex.h),
 * run by tests/run-hindex.sh: each prints "PASS: what" or "FAIL: what".
 *
 * The entries are 64-bit keys in an array, as a caller keeps them; hashes
 * are made to collide (in their low bits, in all their stored bits, or
 * whole) so that a lookup must go past other entries and ask the caller. */
#include "hash.h"
#include "hindex.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>

static int failed;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	failed |= !ok;
}

/* The caller's side: keys by id, and how a key is hashed. */
struct keys {
	uint64_t *key;
	size_t n, cap;
	uint64_t (*hash)(uint64_t key);
	struct hindex index;
	size_t asked;		/* entries compared, over all lookups */
};

/* Key K's id, HINDEX_NONE when it has none; with ADD, a new one. */
static uint32_t id_of(struct keys *k, uint64_t key, int add)
{
	struct hindex_pos pos;
	for (uint32_t id = hindex_find(&k->index, k->hash(key), &pos); id != HINDEX_NONE;
	     id = hindex_next(&k->index, &pos)) {
		k->asked++;
		if (k->key[id] == key)
			return id;
	}
	if (!add)
		return HINDEX_NONE;
	grow_array(&k->key, &k->cap, k->n + 1, sizeof *k->key);
	k->key[k->n] = key;
	hindex_add(&k->index, &pos, (uint32_t)k->n);
	return (uint32_t)k->n++;
}

static uint64_t good_hash(uint64_t key)
{
	return hash_mix(key);
}

/* Seven homes: long runs of occupied slots. */
static uint64_t few_homes(uint64_t key)
{
	return key % 7;
}

/* The same low 32 bits for all, other high bits: what a slot stores of
 * the hash cannot tell them apart. */
static uint64_t same_low_bits(uint64_t key)
{
	return hash_mix(key) << 32 | 0x5a5a5a5au;
}

/* One hash for every key. */
static uint64_t one_hash(uint64_t key)
{
	(void)key;
	return 42;
}

/* Adds keys 1..N (key i * 3, so that others fall between), then checks
 * that each has the id it was given, once, that the keys between are
 * absent, and the load. */
static void exercise(const char *name, uint64_t (*hash)(uint64_t), size_t n)
{
	struct keys k = { .hash = hash };
	char what[160];
	int ok = 1;
	for (size_t i = 0; i < n; i++)
		ok &= id_of(&k, 3 * (i + 1), 1) == i;
	snprintf(what, sizeof what, "%s: %zu keys added get ids 0..%zu in order", name, n, n - 1);
	check(ok && k.n == n && k.index.count == n, what);

	ok = 1;
	for (size_t i = 0; i < n; i++)
		ok &= id_of(&k, 3 * (i + 1), 1) == i;
	snprintf(what, sizeof what, "%s: adding them again finds them, adds none", name);
	check(ok && k.n == n && k.index.count == n, what);

	ok = 1;
	for (size_t i = 0; i < n; i++)
		ok &= id_of(&k, 3 * (i + 1) + 1, 0) == HINDEX_NONE;
	snprintf(what, sizeof what, "%s: keys never added are not found", name);
	check(ok, what);

	snprintf(what, sizeof what, "%s: at most half full after growing (%zu of %zu slots)",
		 name, k.index.count, k.index.mask + 1);
	check(2 * k.index.count <= k.index.mask + 1, what);

	hindex_free(&k.index);
	snprintf(what, sizeof what, "%s: freed, an index is empty and usable again", name);
	ok = k.index.count == 0 && id_of(&k, 3, 0) == HINDEX_NONE;
	k.n = 0;
	ok &= id_of(&k, 5, 1) == 0 && id_of(&k, 5, 0) == 0;
	check(ok, what);
	hindex_free(&k.index);
	free(k.key);
}

int main(void)
{
	struct keys k = { .hash = good_hash };
	struct hindex_pos pos;
	check(hindex_find(&k.index, 1, &pos) == HINDEX_NONE && k.index.count == 0,
	      "a zeroed index is empty");

	exercise("mixed hash", good_hash, 100000);
	exercise("seven homes", few_homes, 3000);
	exercise("same low 32 bits", same_low_bits, 3000);
	exercise("one hash for all", one_hash, 500);

	/* With a well-mixed hash a lookup nearly never asks about another
	 * entry than its own: the stored hash turns the others away. */
	struct keys m = { .hash = good_hash };
	for (uint64_t i = 0; i < 200000; i++)
		id_of(&m, i, 1);
	m.asked = 0;
	for (uint64_t i = 0; i < 200000; i++)
		id_of(&m, i, 0);
	char what[160];
	snprintf(what, sizeof what, "200000 hits compare %zu entries (at most 1%% more than one each)",
		 m.asked);
	check(m.asked <= 202000, what);
	hindex_free(&m.index);
	free(m.key);

	/* Room made beforehand: adding that many moves nothing. */
	struct keys r = { .hash = good_hash };
	hindex_reserve(&r.index, 5000);
	const struct hindex_slot *before = r.index.slot;
	size_t slots = r.index.mask + 1;
	for (uint64_t i = 0; i < 5000; i++)
		id_of(&r, i * 7919, 1);
	check(r.index.slot == before && r.index.mask + 1 == slots && r.index.count == 5000,
	      "after hindex_reserve(5000), 5000 adds do not grow the index");
	hindex_reserve(&r.index, 10);
	check(r.index.slot == before, "a smaller reservation keeps the slots");
	id_of(&r, 1, 1);
	int all = 1;
	for (uint64_t i = 0; i < 5000; i++)
		all &= id_of(&r, i * 7919, 0) == i;
	check(all && id_of(&r, 1, 0) == 5000, "past the reservation it grows, every key kept");
	hindex_free(&r.index);
	free(r.key);
	return failed;
}
