/* ranks.c - `culprit report --by-rank`: an MPI run's ranks side by side.
 *
 * Per rank: its work, its threads' time waiting in blocking MPI calls for
 * other ranks (the MPI plugin's idleness:mpi, their own time) and their
 * other idle time.  Then the frames whose own work differs most between
 * ranks, with mean, min, max, spread and the slowest rank: the ranks that
 * finish such a frame early wait for the slowest at the next collective
 * or receive.  Each frame's imbalance, n (max - mean), is what a barrier
 * after it would make the ranks wait in all; the waiting the ranks did
 * is shared out over the frames in proportion, as the estimate of which
 * code they waited for (doc/idleness.md). */
#define _GNU_SOURCE
#include "report.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES_SHOWN 10

static void put_text(const struct report *r, const struct dbr_rank *k, size_t nk,
		     const struct dbr_rank_spread *x, size_t nx, double wait, double imbalance)
{
	double work = 0, max = 0;
	int busiest = 0;
	for (size_t i = 0; i < nk; i++) {
		work += k[i].work;
		if (k[i].work > max) {
			max = k[i].work;
			busiest = k[i].rank;
		}
	}
	put_title(r, "by rank");
	printf("%s: %zu MPI ranks; each rank's threads: their work, their time waiting in MPI\n"
	       "calls for other ranks, and their other idle time\n\n", r->ch.event, nk);
	printf("%6s  %-16s %5s %7s %10s %10s %8s %10s\n", "rank", "host", "procs", "threads",
	       "work", "MPI wait", "waiting", "other idle");
	for (size_t i = 0; i < nk; i++) {
		double own = k[i].work + k[i].waited;
		const char *host = k[i].hosts ? k[i].hosts : "?";
		printf("%6d  ", k[i].rank);
		int len = put_safe(host, 16);
		printf("%*s %5d %7d %10.3f %10.3f %7.1f%% %10.3f\n", len < 16 ? 16 - len : 0, "",
		       k[i].processes, k[i].threads,
		       k[i].work, k[i].mpi_wait, own > 0 ? 100 * k[i].mpi_wait / own : 0,
		       k[i].waited - k[i].mpi_wait);
	}
	double mean = nk ? work / (double)nk : 0;
	printf("\nimbalance: the busiest rank, %d, worked %.3f s, %.2f times the mean (%.3f s); "
	       "the ranks\nwaited %.3f s in MPI calls in all\n", busiest, max,
	       mean > 0 ? max / mean : 0, mean, wait);
	if (!nx)
		return;
	printf("\nframes whose own work differs most between ranks (a rank that never ran one "
	       "counts 0);\nwaited for: the ranks' MPI wait shared out by imbalance\n\n");
	printf("%9s %10s %9s %9s %9s %9s %7s  %s\n", "imbalance", "waited for", "mean", "min",
	       "max", "stddev", "slowest", "frame");
	for (size_t i = 0; i < nx && i < FRAMES_SHOWN && x[i].imbalance > 0; i++) {
		printf("%9.3f %10.3f %9.3f %9.3f %9.3f %9.3f %7d  ", x[i].imbalance,
		       imbalance > 0 ? wait * x[i].imbalance / imbalance : 0, x[i].mean, x[i].min,
		       x[i].max, x[i].stddev, x[i].slowest);
		put_safe(x[i].procedure ? x[i].procedure : "?", 40);
		/* Where it was called: a procedure called from several lines
		 * (HPCCG's waxpby) is one row per call. */
		if (x[i].call_file)
			printf("  <- %s:%d", base_name(x[i].call_file), x[i].call_line);
		else if (x[i].file)
			printf(" (%s:%d)", base_name(x[i].file), x[i].line);
		putchar('\n');
	}
}

static void put_csv_rows(const struct dbr_rank *k, size_t nk, const struct dbr_rank_spread *x,
			 size_t nx, double wait, double imbalance)
{
	printf("kind,rank,hosts,processes,threads,work,mpi_wait,other_idle,procedure,file,line,"
	       "mean,min,max,stddev,slowest,imbalance,waited_for,call_file,call_line\n");
	for (size_t i = 0; i < nk; i++) {
		printf("rank,%d,", k[i].rank);
		put_csv(k[i].hosts);
		printf(",%d,%d,%.9g,%.9g,%.9g,,,,,,,,,,,,\n", k[i].processes, k[i].threads, k[i].work,
		       k[i].mpi_wait, k[i].waited - k[i].mpi_wait);
	}
	for (size_t i = 0; i < nx; i++) {
		printf("frame,,,,,,,,");
		put_csv(x[i].procedure);
		putchar(',');
		put_csv(x[i].file);
		printf(",%d,%.9g,%.9g,%.9g,%.9g,%d,%.9g,%.9g,", x[i].line, x[i].mean, x[i].min,
		       x[i].max, x[i].stddev, x[i].slowest, x[i].imbalance,
		       imbalance > 0 ? wait * x[i].imbalance / imbalance : 0);
		put_csv(x[i].call_file);
		if (x[i].call_file)
			printf(",%d", x[i].call_line);
		else
			putchar(',');
		putchar('\n');
	}
}

int report_ranks(const struct report *r)
{
	struct dbr_rank *k;
	struct dbr_rank_spread *x = NULL;
	size_t nk, nx = 0;
	if (dbr_ranks(r->db, r->ch.event, &k, &nk) < 0)
		return msg_error("%s", dbr_error(r->db));
	if (nk == 0) {
		dbr_ranks_free(k, nk);
		return msg_error("the database holds no MPI ranks: run the program as `mpirun "
				 "-np N culprit run -o DIR ./app`, then `culprit prof DIR`");
	}
	if (dbr_rank_spread(r->db, r->ch.event, (int)nk, &x, &nx) < 0) {
		dbr_ranks_free(k, nk);
		return msg_error("%s", dbr_error(r->db));
	}
	double wait = 0, imbalance = 0;
	for (size_t i = 0; i < nk; i++)
		wait += k[i].mpi_wait;
	for (size_t i = 0; i < nx; i++)
		imbalance += x[i].imbalance;
	if (r->csv)
		put_csv_rows(k, nk, x, nx, wait, imbalance);
	else
		put_text(r, k, nk, x, nx, wait, imbalance);
	dbr_rank_spread_free(x, nx);
	dbr_ranks_free(k, nk);
	return 0;
}
