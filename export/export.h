/* export.h - `culprit export`: a database in a format other tools open,
 * all reading through dbread/.
 *
 *   export.c     the command: options, the output file
 *   perfetto.c   the trace as Chrome trace-event JSON, which
 *                ui.perfetto.dev and chrome://tracing open
 *   stacks.c     the profile as a value per leaf path, which the
 *                stack-sample formats are made of
 *   folded.c     folded stacks (flamegraph.pl, inferno, speedscope)
 *   speedscope.c speedscope's JSON, a profile per metric
 *   pprof.c      pprof's profile.proto, gzipped (protobuf-c and zlib,
 *                which configure requires)
 * JSON strings come from tools-lib (json_string). */
#ifndef CULPRIT_EXPORT_H
#define CULPRIT_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "dbread.h"

struct export {
	struct dbr *db;
	const char *event;	/* the event exported */
	const char *unit;	/* its unit: "seconds" or "count" */
	const char *metric;	/* --metric, or NULL (folded: work) */
	FILE *out;
};

/* Each writes the database in its format; 0, or -1 after a message. */
int export_perfetto(const struct export *x);
int export_folded(const struct export *x);
int export_speedscope(const struct export *x);
int export_pprof(const struct export *x);

/* ---- stacks.c ---- */

struct stacks {
	struct dbr *db;
	const struct dbr_tree *tree;
	const char *event;
	const char *const *metric;	/* the metrics read, NM of them */
	size_t nm;
};
/* Reads the tree for METRICS (N) of EVENT into S; 0, or -1 after a
 * message. */
int stacks_open(struct stacks *s, struct dbr *db, const char *event, const char *const *metrics,
		size_t n);
void stacks_close(struct stacks *s);
/* Calls FN for each leaf with a value (context index LEAF, its NM values),
 * in context order; a frame may come more than once (its own value, and
 * each body folded under its call sites).  0, or -1 after a message. */
typedef void (*stacks_leaf_fn)(void *arg, uint32_t leaf, const double *values);
int stacks_each(const struct stacks *s, stacks_leaf_fn fn, void *arg);
/* The frames and roots from below the program root down to LEAF, as
 * context indices outermost first, into IDS (at most MAX); how many. */
size_t stacks_path(const struct stacks *s, uint32_t leaf, uint32_t *ids, size_t max);
/* The line FRAME is at on the way down to NEXT: its call site's line, or
 * its own declaration's when there is none. */
int stacks_line_of(const struct stacks *s, uint32_t frame, uint32_t next);
/* What a metric's values are multiplied by for the integer formats, and
 * the unit that makes ("microseconds", "samples", "count"). */
double stacks_scale(const char *unit, const char *metric, const char **out_unit);


#endif
