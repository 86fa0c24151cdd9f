/* export.h - `culprit export`: a database in a format other tools open,
 * all reading through dbread/.
 *
 *   export.c     the command: options, the output file
 *   perfetto.c   the trace as Chrome trace-event JSON, which
 *                ui.perfetto.dev and chrome://tracing open
 *   json.c       JSON strings: escaped, valid UTF-8 whatever the
 *                program named its functions and threads */
#ifndef CULPRIT_EXPORT_H
#define CULPRIT_EXPORT_H

#include <stdio.h>

#include "dbread.h"

struct export {
	struct dbr *db;
	const char *event;	/* the event exported */
	FILE *out;
};

/* The trace as trace events; EXIT_OK, or EXIT_FAIL after a message. */
int export_perfetto(const struct export *x);

/* ---- json.c ---- */

/* S as a JSON string, quotes included (NULL: ""). */
void json_string(FILE *f, const char *s);

#endif
