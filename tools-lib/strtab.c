/* strtab.c - interned strings: each distinct string stored once, named by
 * a dense id.  An open-addressing hash table over the ids. */
#include "tools.h"

#include <stdlib.h>
#include <string.h>

struct strtab {
	char **str;		/* id -> string; str[0] = NULL */
	size_t count, cap;
	uint32_t *slot;		/* hash slots holding ids; 0 = empty */
	size_t mask;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct strtab *strtab_new(void)
{
	struct strtab *t = xcalloc(1, sizeof *t);
	t->mask = 1023;
	t->slot = xcalloc(t->mask + 1, sizeof *t->slot);
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
	free(t->slot);
	free(t);
}

static void rehash(struct strtab *t)
{
	size_t n = (t->mask + 1) * 2;
	uint32_t *slot = xcalloc(n, sizeof *slot);
	for (size_t id = 1; id < t->count; id++) {
		size_t i = hash(t->str[id]) & (n - 1);
		while (slot[i])
			i = (i + 1) & (n - 1);
		slot[i] = (uint32_t)id;
	}
	free(t->slot);
	t->slot = slot;
	t->mask = n - 1;
}

uint32_t strtab_intern(struct strtab *t, const char *s)
{
	if (!s)
		return 0;
	size_t i = hash(s) & t->mask;
	while (t->slot[i]) {
		if (strcmp(t->str[t->slot[i]], s) == 0)
			return t->slot[i];
		i = (i + 1) & t->mask;
	}
	uint32_t id = (uint32_t)t->count;
	grow_array(&t->str, &t->cap, t->count + 1, sizeof *t->str);
	t->str[t->count++] = xstrdup(s);
	t->slot[i] = id;
	if (2 * t->count > t->mask)
		rehash(t);
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
