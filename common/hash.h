/* hash.h - the 64-bit mixing function the collector's and the postmortem's
 * hash tables share (the finalizer of MurmurHash3): every input bit moves
 * every output bit, so table slots can be taken from the low bits.
 * async-signal-safe. */
#ifndef CULPRIT_HASH_H
#define CULPRIT_HASH_H

#include <stdint.h>

static inline uint64_t hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* H with string S mixed in, and its end (so that "ab","c" and "a","bc"
 * differ).  Not for the collector's signal handler: S is walked whole. */
static inline uint64_t hash_string(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = hash_mix(h ^ (unsigned char)*s);
	return hash_mix(h ^ 0xff);
}

#endif
