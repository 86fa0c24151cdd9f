/* work.h - the unit of CPU work every test program uses.
 *
 * A floating-point dependency chain: the same instructions at the same cost
 * on every iteration, nothing to vectorise, and a result the caller must
 * store (GCC deletes calls to pure functions whose results go unused). */
#ifndef CULPRIT_TEST_WORK_H
#define CULPRIT_TEST_WORK_H

extern volatile double sink;

static inline double work_units(long n)
{
	double x = 1.0;
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

#endif
