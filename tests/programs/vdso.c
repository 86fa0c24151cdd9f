/* vdso.c - spends its time in the kernel's vdso: clock_gettime() on the
 * monotonic clock runs there without a system call.  usage: vdso [CALLS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 20000000;
	struct timespec ts;
	long sum = 0;
	for (long i = 0; i < calls; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += ts.tv_nsec & 1;
	}
	printf("vdso done %d\n", sum > 0);
	return 0;
}
