/* mpi_rank.h - a process's MPI rank, as its launcher says it: the one
 * list of the variables, for the collector (which records the rank and
 * names the rank's files after it) and for `culprit run` (which shares
 * the launch's directory).  Header only: both sides read the environment
 * before anything runs, outside any signal handler. */
#ifndef CULPRIT_MPI_RANK_H
#define CULPRIT_MPI_RANK_H

#include <stdlib.h>

/* The first of these that holds a non-negative whole number. */
static const char *const mpi_rank_variables[] = {
	"OMPI_COMM_WORLD_RANK",	/* Open MPI */
	"PMIX_RANK",		/* PMIx launchers */
	"PMI_RANK",		/* MPICH, Intel MPI */
	"MV2_COMM_WORLD_RANK",	/* MVAPICH2 */
	"MPI_RANKID",		/* HPE MPT */
	"SLURM_PROCID",		/* srun without a PMI rank */
};

/* The rank, and in *VARIABLE the variable that said it; -1 when none. */
static inline int mpi_rank_from_env(const char **variable)
{
	for (size_t i = 0; i < sizeof mpi_rank_variables / sizeof *mpi_rank_variables; i++) {
		const char *v = getenv(mpi_rank_variables[i]);
		char *end;
		if (!v || !*v)
			continue;
		long r = strtol(v, &end, 10);
		if (*end == 0 && r >= 0 && r < 0x7fffffff) {
			*variable = mpi_rank_variables[i];
			return (int)r;
		}
	}
	*variable = NULL;
	return -1;
}

#endif
