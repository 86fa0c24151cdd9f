/* mpi_hybrid.c - MPI and OpenMP together: each rank runs an OpenMP loop
 * whose iterations are unequal (statically scheduled, the first thread's
 * half heavier), then the ranks reduce.  Prints each rank's sum.  Built
 * by tests/run-mpi.sh with mpicc -fopenmp, where there is one. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

double iteration(long i, long n)
{
	volatile double s = 0;
	long work = i < n / 2 ? 3000000 : 1000000;
	for (long k = 0; k < work; k++)
		s += k * 1e-9;
	return s;
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double sum = 0, total = 0;
	long n = 200;
#pragma omp parallel for schedule(static) reduction(+ : sum)
	for (long i = 0; i < n; i++)
		sum += iteration(i, n);
	MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d threads %d sum %.3f\n", rank, omp_get_max_threads(), total);
	MPI_Finalize();
	return 0;
}
