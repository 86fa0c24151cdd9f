/* varint.h - the variable-length integers of the TRAC section
 * (mfile_format.h): 7 bits a byte, least significant first, and zigzag
 * for signed values.  Inline and allocation-free: the collector encodes
 * in its sample handler, the reader decodes with bounds checks. */
#ifndef CULPRIT_VARINT_H
#define CULPRIT_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10	/* bytes of a 64-bit value */

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Writes V at P (room for VARINT_MAX bytes); returns the bytes written. */
static inline size_t varint_put(unsigned char *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/* Reads a varint from *P, not past END, into *V and moves *P past it.
 * Returns 0, or -1 when it runs past END or over 64 bits. */
static inline int varint_get(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -1;
		unsigned char b = *(*p)++;
		if (shift == 63 && b > 1)
			return -1;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

#endif
