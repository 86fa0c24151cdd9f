/* real.h - the C library's definitions of the calls the pthreads plugin
 * wraps.
 *
 * RTLD_NEXT finds the definition after libculprit.so, the program's C
 * library.  The condition-variable calls have two versions in glibc (the
 * old LinuxThreads-compatible one and GLIBC_2.3.2's); dlsym may return
 * the old, which programs built today never use, so those are asked for
 * by version.  Each is looked up once, on its first call. */
#ifndef CULPRIT_PTHREADS_REAL_H
#define CULPRIT_PTHREADS_REAL_H

#include <dlfcn.h>

#define REAL(fn)                                                            \
	({                                                                  \
		static __typeof__(fn) *real_##fn;                          \
		if (!real_##fn)                                             \
			real_##fn = (__typeof__(fn) *)dlsym(RTLD_NEXT, #fn);  \
		real_##fn;                                                  \
	})

#define REAL_VERSIONED(fn, version)                                         \
	({                                                                  \
		static __typeof__(fn) *real_##fn;                          \
		if (!real_##fn)                                             \
			real_##fn = (__typeof__(fn) *)dlvsym(RTLD_NEXT, #fn, version); \
		if (!real_##fn)                                             \
			real_##fn = (__typeof__(fn) *)dlsym(RTLD_NEXT, #fn);  \
		real_##fn;                                                  \
	})

#endif
