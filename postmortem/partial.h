/* partial.h - one share of the merge, for `culprit prof --mpi`: the tree
 * one rank merged from a contiguous run of the experiment's threads, with
 * what the merge gave beside it (each thread's values and totals, the
 * trace rows), packed into bytes for another rank, and merged there into
 * that rank's tree.
 *
 * Why the database comes out as the serial merge's: the serial merge
 * numbers contexts and strings in the order it first meets them, thread
 * by thread.  A rank merges its threads in that same order, so the
 * contexts and strings it adds are in serial order among themselves;
 * merging shares in thread order, each share's contexts and strings in
 * its own numbering order, adds those that are new in the serial order
 * too.  Only the sums of values differ, in the last bits: floating-point
 * addition in another grouping.
 *
 * A share is a run of whole processes: a thread's references to its
 * creator's contexts (REF nodes) stay within its process. */
#ifndef CULPRIT_PARTIAL_H
#define CULPRIT_PARTIAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct ctree;
struct experiment;
struct trace_rows;
struct thread_values;
struct thread_row;

struct partial {
	struct ctree *tree;		/* borrowed: the rank's tree */
	struct trace_rows *trace;	/* borrowed: its trace rows */
	struct thread_row *value;	/* threads' values, in merge order */
	size_t nvalue, capvalue;
	uint32_t *thread;		/* threads merged, in order */
	double *total;			/* their totals, nmetric each */
	size_t nthread, capthread, captotal;
};

/* The rank of NRANKS whose share each thread of E is in (OWNER, by
 * thread): runs of whole processes, about equal in nodes and values,
 * rank 0's first. */
void partial_owners(const struct experiment *e, int nranks, int *owner);

void partial_init(struct partial *pt, struct ctree *tree, struct trace_rows *trace);
void partial_free(struct partial *pt);

/* Merges threads FIRST to END of E into the share, and frees every
 * thread's tree (the others', other ranks' to merge, first). */
void partial_merge(struct partial *pt, struct experiment *e, size_t first, size_t end);

/* The share as bytes (malloc'd), *LEN of them. */
unsigned char *partial_pack(const struct partial *pt, size_t *len);
/* Merges the packed share BYTES, of the threads right after this one's,
 * into this one; thread ids run from 1 to THREADS.  Returns 0, or -1
 * when the bytes are not a share of a tree with this one's metrics
 * (nothing is then trustworthy). */
int partial_absorb(struct partial *pt, const unsigned char *bytes, size_t len,
		   uint32_t threads);

/* Once every share is in: writes each thread's totals into DB and
 * returns the values for the rest of the writing, as the serial merge's
 * thread_values (which takes PT's values over); NULL after a message on
 * a database error. */
struct thread_values *partial_values(struct partial *pt, sqlite3 *db);

#endif
