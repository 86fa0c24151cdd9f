/* logical.h - the names of logical frames (an interpreter's functions),
 * from every thread's LNAM section, for merge.c. */
#ifndef CULPRIT_LOGICAL_H
#define CULPRIT_LOGICAL_H

#include <stddef.h>
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

/* A name with its strings: another tree's table, as `culprit prof --mpi`
 * sends it.  T's table becomes N of them (rank 0 gathered every thread's;
 * another rank reads only its share's files). */
struct logical_name_text {
	uint32_t ns, line_bits;
	uint64_t ident;
	uint32_t first_line;
	char *name, *file;
};
void logical_names_replace(struct ctree *t, const struct logical_name_text *names, size_t n);

/* The procedure logical node (NS, KEY) stands for, and in *LINE the line
 * its key holds; NULL when no thread named it. */
const struct logical_name *logical_name_find(const struct ctree *t, uint32_t ns, uint64_t key,
					     uint32_t *line);

#endif
