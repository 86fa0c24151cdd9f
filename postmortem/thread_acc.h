/* thread_acc.h - one thread's values, gathered by context of the merged
 * tree.
 *
 * Samples add to the context they landed at; acc_finish then adds the
 * contexts above them and computes inclusive and exclusive values in one
 * pass from the deepest context up, instead of walking every sample's
 * path to the root.  Values are kept per metric, and a metric gets its
 * array only when the thread has a value of it: most of the metrics
 * (causes of idleness, types of overhead) are zero in most threads. */
#ifndef CULPRIT_THREAD_ACC_H
#define CULPRIT_THREAD_ACC_H

#include <stddef.h>
#include <stdint.h>

struct ctx_node;
struct acc;

struct acc *acc_new(size_t nmetric);
void acc_free(struct acc *a);
/* Adds V (nmetric values, zeros skipped) sampled at context CTX. */
void acc_sample(struct acc *a, uint32_t ctx, const double *v);
/* Adds every context above those sampled and computes their inclusive
 * and exclusive values; NODES is the merged tree's (parents before
 * children).  A statement's value is also its frame's self cost. */
void acc_finish(struct acc *a, const struct ctx_node *nodes);

/* The contexts after acc_finish: entry E's context, and its values of
 * METRIC (NULL when the thread has none of it, so all are zero). */
size_t acc_count(const struct acc *a);
uint32_t acc_context(const struct acc *a, size_t e);
const double *acc_inclusive(const struct acc *a, size_t metric);
const double *acc_exclusive(const struct acc *a, size_t metric);

#endif
