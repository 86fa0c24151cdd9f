/* real.c - finds the libc functions that our interposers wrap.
 *
 * RTLD_NEXT gives the definition after this library in the lookup order,
 * which is the program's libc (or another interposer loaded after us).
 * The wrapped calls are looked up together, once (real.h says why). */
#define _GNU_SOURCE
#include "collector.h"
#include "real.h"

#define DEFINE(fn) __typeof__(fn) *real_##fn;
CULPRIT_REAL_CALLS(DEFINE)

void *culprit_real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

void culprit_real_init(void)
{
	/* Once: a call the C library lacks stays NULL, and asking again would
	 * take the loader's lock where real.h says it must not be waited for. */
	static int looked_up;
	if (looked_up)
		return;
	looked_up = 1;
#define LOOK_UP(fn) real_##fn = (__typeof__(fn) *)culprit_real(#fn);
	CULPRIT_REAL_CALLS(LOOK_UP)
}
