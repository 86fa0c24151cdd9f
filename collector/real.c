/* real.c - finds the libc functions that our interposers wrap.
 *
 * RTLD_NEXT gives the definition after this library in the lookup order,
 * which is the program's libc (or another interposer loaded after us). */
#include "collector.h"

#include <dlfcn.h>

void *culprit_real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}
