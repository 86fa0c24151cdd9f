/* timeline.h - what the timeline's files share (timeline.c reads the
 * trace and acts on keys, timeline_draw.c draws the pane); the viewer
 * sees view.h's timeline_* functions only. */
#ifndef CULPRIT_TIMELINE_H
#define CULPRIT_TIMELINE_H

#include "view.h"

#define LABEL_W 13		/* a row's label, then the cells */
#define MAX_TYPES 16		/* overhead types told apart */

struct vtimeline {
	size_t ev;			/* the event it was read for */
	char *problem;			/* why there is no timeline, or NULL */
	struct dbr_timeline outline;	/* the threads and the run's length */
	/* The samples, thread by thread, each thread's in time order. */
	size_t n;
	double *time, *value, *blame;	/* blame: idleness blamed on it */
	uint32_t *ctx;			/* context index + 1; 0: none (idle) */
	uint16_t *row;			/* index into outline.thread */
	uint8_t *act;			/* enum dbr_activity */
	/* Depth-first numbers: the subtree of context index i is the
	 * contexts numbered pre[i] to last[i]. */
	uint32_t *pre, *last;
	size_t nctx;
	/* By context index: its overhead type, 1..ntypes, 0 for none; each
	 * type's letter. */
	uint8_t *otype;
	char type_char[MAX_TYPES];
	size_t ntypes;
	/* What is shown: the window, the cursor, a mark, the range, and
	 * whether a row is a process rather than a thread. */
	double from, to, cursor, mark;
	double kept_mark;		/* the mark before a mouse press */
	double range_from, range_to;	/* range_to > range_from: active */
	double *range_incl, *range_excl;	/* by context index, VM_COUNT each */
	int per_process;
};

/* The column of time T in a pane W cells wide, or -1 outside the window. */
int timeline_column(const struct vtimeline *t, double time, int w);
/* The pane's timeline, read for the event shown (timeline.c). */
struct vtimeline *timeline_of(struct vui *u);

#endif
