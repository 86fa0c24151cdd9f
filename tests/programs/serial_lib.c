/* serial_lib.c - a library the test builds without debug information, as
 * a system library comes: lib_entry() is what programs call, lib_inner()
 * its internal code, where the work is (omp_serial.c). */
extern volatile double sink;

static __attribute__((noinline)) double lib_inner(long units)
{
	double x = 1.0;
	for (long i = 0; i < units; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

__attribute__((noinline)) void lib_entry(long units)
{
	sink = lib_inner(units);
}
