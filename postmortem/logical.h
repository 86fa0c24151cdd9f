/* logical.h - the names of logical frames (an interpreter's functions),
 * from every thread's LNAM section, for merge.c. */
#ifndef CULPRIT_LOGICAL_H
#define CULPRIT_LOGICAL_H

#include <stdint.h>

struct ctree;
struct experiment;

/* A procedure that logical frames stand for; strings as the tree's ids. */
struct logical_name {
	uint32_t ns, line_bits;
	uint64_t ident;
	uint32_t name, file, first_line;
};

/* Gathers the names of every thread of E into T (ctree_new).  Idents are
 * the same in every thread and process of a run, so one table serves
 * them all: a record's frames named in its creator's thread appear in the
 * trees of the threads that ran its work. */
void logical_names_build(struct ctree *t, const struct experiment *e);
void logical_names_free(struct ctree *t);

/* The procedure logical node (NS, KEY) stands for, and in *LINE the line
 * its key holds; NULL when no thread named it. */
const struct logical_name *logical_name_find(const struct ctree *t, uint32_t ns, uint64_t key,
					     uint32_t *line);

#endif
