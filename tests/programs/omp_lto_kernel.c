/* omp_lto_kernel.c - the kernel omp_lto_main.c calls, inlined into it by
 * GCC's -flto (see there). */
double kernel(long units)
{
	double x = 1.0;
	for (long i = 0; i < units; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}
