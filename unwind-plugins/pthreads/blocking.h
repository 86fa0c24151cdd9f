/* blocking.h - a wrapped call that blocks, bracketed for the worker state
 * (culprit_block_begin, plugin.h).  For the plugin's exported wrappers:
 * their return address is the call site in the program. */
#ifndef CULPRIT_PTHREADS_BLOCKING_H
#define CULPRIT_PTHREADS_BLOCKING_H

#include <errno.h>

/* The wrappers are exported from libculprit.so (exports.map). */
#define EXPORT __attribute__((visibility("default")))

#define SITE __builtin_return_address(0)

/* CALL's result, the thread idle for CAUSE while it runs, a wait at
 * AT (the call site); errno as CALL left it. */
#define BLOCKING_AT(at, kind, cause, object, call)                          \
	({                                                                  \
		struct culprit_block w_;                                    \
		culprit_block_begin(&w_, kind, cause, object, at);          \
		__typeof__(call) rc_ = call;                                \
		int errno_ = errno;                                         \
		culprit_block_end(&w_);                                     \
		errno = errno_;                                             \
		rc_;                                                        \
	})
#define BLOCKING(kind, cause, object, call) BLOCKING_AT(SITE, kind, cause, object, call)

#endif
