/* mpi_imbalance.c - MPI ranks of unequal work before a barrier: rank 0
 * does four times the others' work (in heavy()), the others light(),
 * then all meet at MPI_Barrier, and reduce.  Each rank times its work and
 * its wait on MPI_Wtime, and its work on its thread's CPU clock, and
 * prints them ("rank 1 work 0.131 wait 0.203 cpu 0.129").  With a second argument "crash", rank 1 ends by SIGSEGV after
 * its work instead, and the launcher ends the others.  Built by
 * tests/run-mpi.sh with mpicc, where there is one. */
#include <mpi.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double heavy(long n)
{
	volatile double s = 0;
	for (long i = 0; i < n; i++)
		s += i * 1e-9;
	return s;
}

double light(long n)
{
	volatile double s = 0;
	for (long i = 0; i < n; i++)
		s += i * 1e-9;
	return s;
}

int main(int argc, char **argv)
{
	int rank;
	long n = argc > 1 ? atol(argv[1]) : 100000000L;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double t0 = MPI_Wtime(), c0 = cpu_now();
	double s = rank == 0 ? heavy(4 * n) : light(n);
	double t1 = MPI_Wtime(), c1 = cpu_now();
	if (argc > 2 && strcmp(argv[2], "crash") == 0 && rank == 1)
		raise(SIGSEGV);
	MPI_Barrier(MPI_COMM_WORLD);
	double t2 = MPI_Wtime();
	double total;
	MPI_Reduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	printf("rank %d work %.3f wait %.3f cpu %.3f\n", rank, t1 - t0, t2 - t1, c1 - c0);
	MPI_Finalize();
	return 0;
}
