/* diff_keys.h - what `culprit diff` compares, and how two trees' frames
 * are matched (diff_keys.c).
 *
 * A frame's key is its calling path with recursion folded: a frame whose
 * procedure is already on its path is that earlier frame again, so that
 * the thousands of paths a task recursion's samples fall on (which
 * branch, how deep: the scheduler's and the sampler's choice, different
 * in every run) become the handful the program wrote.  Call lines are
 * part of a path (a warm-up and a timed run of the same code differ),
 * but not those of the calls inside a folded recursion.  Or, with
 * --by=procedure, a frame's key is its procedure alone. */
#ifndef CULPRIT_DIFF_KEYS_H
#define CULPRIT_DIFF_KEYS_H

#include "hindex.h"

#include <stddef.h>
#include <stdint.h>

struct dbr_tree;

#define DIFF_NONE UINT32_MAX

struct diff_key {
	uint32_t parent;		/* key index; DIFF_NONE for a top */
	uint32_t first, next, last;	/* children, in the order made */
	const char *procedure, *module, *file;	/* the tree's (interned) */
	char kind;			/* of its first frame: r f i */
	int line;			/* the line of the call into it; 0: none */
	int recursive;			/* a frame of it has one above: a recursion */
	uint32_t context;		/* its first frame (a context index) */
	double incl, excl;		/* the values compared */
	double samples_incl, samples_excl;	/* for the noise */
};

struct diff_keys {
	struct diff_key *key;
	size_t n, cap;
	struct hindex index;		/* identity -> key */
};

/* Keys for the frames (and roots) of T, with their values summed: by
 * context index, INCL and EXCL the values compared, SAMPLES_INCL and
 * SAMPLES_EXCL the samples behind them.  BY_PROCEDURE: a key per
 * procedure.  A key's inclusive value counts a frame only when no frame
 * above it has that key (a recursion, direct or mutual). */
void diff_keys_build(struct diff_keys *k, const struct dbr_tree *t, int by_procedure,
		     const double *incl, const double *excl, const double *samples_incl,
		     const double *samples_excl);
void diff_keys_free(struct diff_keys *k);

/* For each key of B, the index + 1 of the key of A with the same path (or
 * procedure), 0 for none; the caller frees it. */
uint32_t *diff_keys_match(const struct diff_keys *a, const struct diff_keys *b);

/* Key I's path as "main > [recursive] fib > [inlined] leaf" (with LINES,
 * each frame followed by the line of its call of the next: "main:231 >
 * zran3:953 > vranlc"); by procedure, "name (file)".  A new string. */
char *diff_key_path(const struct diff_keys *k, uint32_t i, int by_procedure, int lines);

#endif
