/* fold.c - which native frames stand for no frame of the source.
 *
 * OpenMP compilers move a region's or a task's body into a function of
 * their own and call it from the runtime: clang's .omp_outlined.,
 * .omp_outlined._debug__ and .omp_task_entry., GCC's fn._omp_fn.N.  Its
 * code is the body of the function that holds the construct, and its
 * logical parent (the region's or task's creation, from culprit's
 * context records) is already that function's call site: shown as a
 * frame of its own, every task level of a recursion took three rows.
 * The C library's start-up (_start, __libc_start_main, ...) is above
 * every program's main and says nothing about the program.  A thread's
 * start-up (clone, start_thread) is already cut where the thread was
 * created.
 *
 * The names are glob patterns; a name that matches one is folded. */
#define _GNU_SOURCE
#include "fold.h"

#include <fnmatch.h>
#include <stddef.h>

static const char *const folded[] = {
	/* clang */
	".omp_outlined.*",
	".omp_task_entry.*",
	".omp_task_privates_map.*",
	/* GCC */
	"*._omp_fn.[0-9]*",
	"*._omp_cpyfn.[0-9]*",
	/* the C library's start-up, above main */
	"_start",
	"__libc_start_main",
	"__libc_start_main_*",
	"__libc_start_call_main",
};

int fold_frame(const char *procedure)
{
	if (!procedure)
		return 0;
	for (size_t i = 0; i < sizeof folded / sizeof *folded; i++)
		if (fnmatch(folded[i], procedure, 0) == 0)
			return 1;
	return 0;
}
