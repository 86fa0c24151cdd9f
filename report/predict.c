/* predict.c - the scaling model `report --scaling --predict` fits.
 *
 * T(p) = s + w/p + c (p - 1): a serial part s that no thread count
 * shortens (Amdahl's), parallel work w shared by p threads, and a cost c
 * that each added thread brings (its start-up, contention, bookkeeping:
 * seed 004's growth terms, in their simplest form).  Fitted by least
 * squares to the measured points, in relative terms (each point's error
 * divided by its time, so that the short runs at many threads count as
 * much as the long ones).  With three points there is no room for c; with
 * two the model passes through both, which gives its terms (the serial
 * fraction) but no error, so no prediction. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Solves the N x N system A x = B (N <= 3) by elimination with partial
 * pivoting.  Returns 0, or -1 when it is singular. */
static int solve(double a[3][3], double b[3], int n, double x[3])
{
	for (int col = 0; col < n; col++) {
		int best = col;
		for (int row = col + 1; row < n; row++)
			if (fabs(a[row][col]) > fabs(a[best][col]))
				best = row;
		if (fabs(a[best][col]) < 1e-12)
			return -1;
		if (best != col) {
			for (int k = 0; k < n; k++) {
				double t = a[col][k];
				a[col][k] = a[best][k];
				a[best][k] = t;
			}
			double t = b[col];
			b[col] = b[best];
			b[best] = t;
		}
		for (int row = col + 1; row < n; row++) {
			double f = a[row][col] / a[col][col];
			for (int k = col; k < n; k++)
				a[row][k] -= f * a[col][k];
			b[row] -= f * b[col];
		}
	}
	for (int row = n - 1; row >= 0; row--) {
		double v = b[row];
		for (int k = row + 1; k < n; k++)
			v -= a[row][k] * x[k];
		x[row] = v / a[row][row];
	}
	return 0;
}

double scaling_model(const struct scaling_fit *f, double p)
{
	return f->s + f->w / p + f->c * (p - 1);
}

int scaling_fit(const double *p, const double *t, size_t n, struct scaling_fit *f)
{
	memset(f, 0, sizeof *f);
	f->npoints = n;
	if (n < 2) {
		snprintf(f->why, sizeof f->why, "a fit needs runs at 3 thread counts or more; "
			 "there is 1");
		return -1;
	}
	f->nparams = n >= 4 ? 3 : 2;
	double a[3][3] = { { 0 } }, b[3] = { 0 }, x[3] = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (!(p[i] > 0) || !(t[i] > 0)) {
			snprintf(f->why, sizeof f->why, "a run has no time to fit");
			return -1;
		}
		/* Relative least squares: each row divided by its time. */
		double phi[3] = { 1 / t[i], 1 / (p[i] * t[i]), (p[i] - 1) / t[i] };
		for (int j = 0; j < f->nparams; j++) {
			for (int k = 0; k < f->nparams; k++)
				a[j][k] += phi[j] * phi[k];
			b[j] += phi[j];	/* t[i] / t[i] */
		}
	}
	if (solve(a, b, f->nparams, x) < 0) {
		snprintf(f->why, sizeof f->why, "the thread counts do not tell the terms apart");
		return -1;
	}
	f->s = x[0];
	f->w = x[1];
	f->c = f->nparams == 3 ? x[2] : 0;
	double sum2 = 0;
	for (size_t i = 0; i < n; i++) {
		double e = fabs(scaling_model(f, p[i]) - t[i]) / t[i];
		if (e > f->max_error)
			f->max_error = e;
		sum2 += e * e;
	}
	f->rms_error = sqrt(sum2 / (double)n);
	double t1 = f->s + f->w;
	f->serial_fraction = t1 > 0 ? f->s / t1 : 0;
	if (n == 2)
		snprintf(f->why, sizeof f->why, "a fit needs runs at 3 thread counts or more: "
			 "through 2 the model passes exactly, and its error is unknown");
	else if (f->max_error > SCALING_FIT_MAX_ERROR)
		snprintf(f->why, sizeof f->why, "the model misses a measured point by %.0f%% "
			 "(more than %.0f%%): the runs do not follow it", 100 * f->max_error,
			 100 * SCALING_FIT_MAX_ERROR);
	else if (f->s < -0.05 * t1 || f->w < 0)
		snprintf(f->why, sizeof f->why, "the fit has a negative %s part: the runs do not "
			 "follow the model", f->w < 0 ? "parallel" : "serial");
	else
		f->good = 1;
	return f->good ? 0 : -1;
}
