/* fold.h - frames that are not the program's as its author wrote it:
 * compiler-generated outlining (OpenMP regions and tasks) and the C
 * library's start-up above main.  They are folded into the context
 * below them (merge.c); contexts.folded keeps their names. */
#ifndef CULPRIT_FOLD_H
#define CULPRIT_FOLD_H

#include <stdint.h>

struct ctree;

/* How a frame folds: not at all; as plumbing (start-up, an interpreter's
 * calls), which has lines of its own and leaves no trace; or as the body
 * of a construct (OpenMP's outlined regions and tasks), whose lines and
 * calls are those of the procedure above it. */
enum fold_kind { FOLD_NOT, FOLD_PLUMBING, FOLD_BODY };

/* How a frame of PROCEDURE folds (enum fold_kind; 0: it does not). */
int fold_frame(const char *procedure);

/* How frames of procedure ID (a string id of T) fold; remembered. */
int fold_procedure(struct ctree *t, uint32_t id);
/* Whether procedure ID names code without a name of its own: an address
 * ("module+0xoffset") or internals named after their entry point. */
int fold_unnamed(const struct ctree *t, uint32_t id);
/* Procedure ID (a string id of T) is a "module+0xoffset" name: code
 * without a symbol. */
void fold_mark_address(struct ctree *t, uint32_t id);
/* The names FOLDED (a string id, 0: none) and then procedure ID, joined
 * by " > ", as a string id. */
uint32_t fold_append(struct ctree *t, uint32_t folded, uint32_t id);
/* MODULE (a string id) is the module of logical frames. */
void fold_mark_logical(struct ctree *t, uint32_t module);
/* Context C stands for the frames FOLDED too, if nothing was said yet. */
void fold_note(struct ctree *t, uint32_t c, uint32_t folded);
/* The name for an unnamed frame of module MOD below context C, after the
 * entry point it runs under: "__kmpc_omp_taskwait (internal)" (a library
 * without symbols for its internals, Debian's libomp, would otherwise
 * give one procedure per address).  Right under a logical frame (an
 * interpreter's function, whose module fold_mark_logical marked), or
 * right below the program's code for a parallel runtime's module (its
 * worker threads' start), after the module: "python3.11 (internal)",
 * "libomp.so.5 (internal)".  0 when the frame above is of
 * another module.  *INTERNAL_FRAME is that frame when it is itself internal, or
 * an address with no name above it (CTX_NONE otherwise): consecutive
 * unnamed frames are one. */
uint32_t fold_internal_name(struct ctree *t, uint32_t c, uint32_t mod,
			    uint32_t *internal_frame);

#endif
