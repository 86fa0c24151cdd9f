/* strtab.c - interned strings: each distinct string stored once, named by
 * a dense id, found by the tools' hash index (hindex.h). */
#include "hash.h"
#include "hindex.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

struct strtab {
	char **str;		/* id -> string; str[0] = NULL */
	size_t count, cap;
	struct hindex index;	/* string -> id */
};

/* FNV-1a, one multiply a byte (hash_string's two mixes a byte cost four
 * times as much, on names of forty bytes), then mixed, so that the
 * index's low bits depend on every byte. */
static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return hash_mix(h);
}

struct strtab *strtab_new(void)
{
	struct strtab *t = xcalloc(1, sizeof *t);
	hindex_reserve(&t->index, 512);
	grow_array(&t->str, &t->cap, 1, sizeof *t->str);
	t->str[0] = NULL;
	t->count = 1;
	return t;
}

void strtab_free(struct strtab *t)
{
	if (!t)
		return;
	for (size_t i = 1; i < t->count; i++)
		free(t->str[i]);
	free(t->str);
	hindex_free(&t->index);
	free(t);
}

uint32_t strtab_intern(struct strtab *t, const char *s)
{
	if (!s)
		return 0;
	struct hindex_pos pos;
	for (uint32_t id = hindex_find(&t->index, hash(s), &pos); id != HINDEX_NONE;
	     id = hindex_next(&t->index, &pos))
		if (strcmp(t->str[id], s) == 0)
			return id;
	uint32_t id = (uint32_t)t->count;
	grow_array(&t->str, &t->cap, t->count + 1, sizeof *t->str);
	t->str[t->count++] = xstrdup(s);
	hindex_add(&t->index, &pos, id);
	return id;
}

const char *strtab_get(const struct strtab *t, uint32_t id)
{
	return id < t->count ? t->str[id] : NULL;
}

uint32_t strtab_count(const struct strtab *t)
{
	return (uint32_t)t->count;
}
