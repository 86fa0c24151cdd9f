/* bytes.h - bytes that one rank of `culprit prof --mpi` packs and another
 * unpacks (partial.c, plan.c): the machine's own integers and doubles,
 * strings with their length, and a reader that checks every length
 * against what is left and stays failed once it fails. */
#ifndef CULPRIT_BYTES_H
#define CULPRIT_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tools.h"

struct pack {
	unsigned char *b;
	size_t n, cap;
};

static inline void put(struct pack *p, const void *v, size_t len)
{
	if (len == 0)
		return;		/* V may be NULL: an empty share's arrays */
	grow_array(&p->b, &p->cap, p->n + len, 1);
	memcpy(p->b + p->n, v, len);
	p->n += len;
}

static inline void put_u32(struct pack *p, uint32_t v) { put(p, &v, sizeof v); }
static inline void put_u64(struct pack *p, uint64_t v) { put(p, &v, sizeof v); }
static inline void put_f64(struct pack *p, double v) { put(p, &v, sizeof v); }

struct unpack {
	const unsigned char *p, *end;
	int bad;
};

static inline int get(struct unpack *u, void *v, size_t len)
{
	if (u->bad || (size_t)(u->end - u->p) < len) {
		u->bad = 1;
		memset(v, 0, len);
		return -1;
	}
	memcpy(v, u->p, len);
	u->p += len;
	return 0;
}

static inline uint32_t get_u32(struct unpack *u) { uint32_t v; get(u, &v, sizeof v); return v; }
static inline uint64_t get_u64(struct unpack *u) { uint64_t v; get(u, &v, sizeof v); return v; }
static inline double get_f64(struct unpack *u) { double v; get(u, &v, sizeof v); return v; }

/* A count of items of SIZE bytes each that the rest can hold. */
static inline uint64_t get_count(struct unpack *u, size_t size)
{
	uint64_t n = get_u64(u);
	if (size && n > (uint64_t)(u->end - u->p) / size)
		u->bad = 1;
	return u->bad ? 0 : n;
}

static inline void put_str(struct pack *p, const char *s)
{
	uint32_t len = (uint32_t)strlen(s) + 1;
	put_u32(p, len);
	put(p, s, len);
}

/* A string of the bytes (NUL-terminated there), copied; NULL when bad. */
static inline char *get_str(struct unpack *u)
{
	uint32_t len = get_u32(u);
	if (u->bad || len == 0 || len > (size_t)(u->end - u->p) || u->p[len - 1] != 0) {
		u->bad = 1;
		return NULL;
	}
	char *s = xstrdup((const char *)u->p);
	u->p += len;
	return s;
}

#endif
