/* unwind_main.c - stacks that are hard to unwind.
 *   noinfo   the middle frame, mid_noinfo(), has no unwind information
 *            (unwind_noinfo.c is compiled without it) but keeps a frame
 *            pointer: the path must still be complete
 *   badrbp   bad_rbp_spin() (unwind_badrbp.S) points its frame pointer at
 *            unreadable memory while its unwind information relies on it:
 *            samples there must end as partial paths, never a crash
 * usage: unwind noinfo|badrbp */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "work.h"

volatile double sink;

__attribute__((noinline)) double leaf_work(long n) { return work_units(n); }
double mid_noinfo(long n);
void bad_rbp_spin(long rounds, void *unreadable);
__attribute__((noinline)) double good_work(long n) { return work_units(n); }

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "noinfo")) {
		sink += mid_noinfo(250000000);
		printf("noinfo done\n");
		return 0;
	}
	if (!strcmp(mode, "badrbp")) {
		char *p = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		for (int i = 0; i < 4; i++) {
			bad_rbp_spin(2500, p + 4096);
			sink += good_work(20000000);
		}
		printf("badrbp survived\n");
		return 0;
	}
	return 2;
}
