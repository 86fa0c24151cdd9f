/* plan.h - what rank 0 of `culprit prof --mpi` tells the other ranks
 * after reading every measurement file, so that each reads only its
 * share and still builds a tree like rank 0's: the overhead types (from
 * every module's symbols), the threads' columns (every metric), the
 * logical frames' names (every thread's), a fingerprint of the overhead
 * rules (the same rules on every host), and each thread file's rank and
 * id. */
#ifndef CULPRIT_PLAN_H
#define CULPRIT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "logical.h"
#include "merge.h"

struct experiment;
struct ovh_rules;

struct plan_thread {
	char *path;		/* a thread file of this rank's */
	uint32_t id;		/* its threads.id */
};

struct plan {
	char **type;
	size_t ntype;
	struct ctree_columns columns;
	struct logical_name_text *lname;
	size_t nlname;
	uint64_t rules;			/* plan_rules_fingerprint */
	uint32_t threads;		/* in the experiment, every rank's */
	struct plan_thread *thread;	/* this rank's, sorted by path */
	size_t nthread;
};

/* Rank 0's plan from E (read whole), its TREE (new: its overhead types
 * and logical names), RULES and each thread's OWNER (partial_owners):
 * bytes (malloc'd), *LEN of them. */
unsigned char *plan_pack(const struct experiment *e, const struct ctree *tree,
			 const struct ovh_rules *rules, const int *owner, size_t *len);
/* RANK's part of the packed plan.  Returns 0, or -1 when the bytes are
 * not a plan. */
int plan_unpack(struct plan *plan, const unsigned char *bytes, size_t len, int rank);
void plan_free(struct plan *plan);

/* Whether PATH is one of the plan's thread files (an exp_keep_fn), and
 * its id, or 0. */
int plan_keeps(void *plan, const char *path);
uint32_t plan_id(const struct plan *plan, const char *path);

/* The rules, each field of each in order, as one number. */
uint64_t plan_rules_fingerprint(const struct ovh_rules *rules);

#endif
