/* fold.h - frames that are not the program's as its author wrote it:
 * compiler-generated outlining (OpenMP regions and tasks) and the C
 * library's start-up above main.  They are folded into the context
 * below them (merge.c); contexts.folded keeps their names. */
#ifndef CULPRIT_FOLD_H
#define CULPRIT_FOLD_H

/* Whether a frame of PROCEDURE is folded. */
int fold_frame(const char *procedure);

#endif
