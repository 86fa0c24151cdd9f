/* real.c - the C library's calls that the pthreads plugin wraps, looked
 * up once (see real.h for why at start). */
#define _GNU_SOURCE
#include "real.h"

#define DEFINE(fn) __typeof__(fn) *real_##fn;
#define DEFINE_V(fn, version) DEFINE(fn)
PTHREADS_REAL_CALLS(DEFINE, DEFINE_V)

void pthreads_real_init(void)
{
	/* Once: a call the C library lacks stays NULL, and asking again would
	 * take the loader's lock where real.h says it must not be waited for. */
	static int looked_up;
	if (looked_up)
		return;
	looked_up = 1;
#define LOOK_UP(fn) real_##fn = (__typeof__(fn) *)dlsym(RTLD_NEXT, #fn);
#define LOOK_UP_V(fn, version)                                                 \
	real_##fn = (__typeof__(fn) *)dlvsym(RTLD_NEXT, #fn, version);         \
	if (!real_##fn)                                                        \
		LOOK_UP(fn)
	PTHREADS_REAL_CALLS(LOOK_UP, LOOK_UP_V)
}
