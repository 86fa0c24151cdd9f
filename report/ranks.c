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

static void put_rows(const struct report *r, const struct dbr_rank *k, size_t nk,
		     const struct dbr_rank_spread *x, size_t nx, double wait, double imbalance)
{
	static const struct column columns[] = {
		{ "kind", CELL_TEXT, NULL }, { "rank", CELL_INT, NULL }, { "hosts", CELL_TEXT, NULL },
		{ "processes", CELL_INT, NULL }, { "threads", CELL_INT, NULL },
		{ "work", CELL_REAL, NULL }, { "mpi_wait", CELL_REAL, NULL },
		{ "other_idle", CELL_REAL, NULL }, { "procedure", CELL_TEXT, NULL },
		{ "file", CELL_TEXT, NULL }, { "line", CELL_INT, NULL }, { "mean", CELL_REAL, NULL },
		{ "min", CELL_REAL, NULL }, { "max", CELL_REAL, NULL }, { "stddev", CELL_REAL, NULL },
		{ "slowest", CELL_INT, NULL }, { "imbalance", CELL_REAL, NULL },
		{ "waited_for", CELL_REAL, NULL }, { "call_file", CELL_TEXT, NULL },
		{ "call_line", CELL_INT, NULL },
	};
	struct rows w;
	rows_begin(&w, r->format, columns, NCOLUMNS(columns));
	for (size_t i = 0; i < nk; i++) {
		cell_text(&w, "rank");
		cell_int(&w, k[i].rank);
		cell_text(&w, k[i].hosts);
		cell_int(&w, k[i].processes);
		cell_int(&w, k[i].threads);
		cell_real(&w, k[i].work);
		cell_real(&w, k[i].mpi_wait);
		cell_real(&w, k[i].waited - k[i].mpi_wait);
		rows_end_row(&w);
	}
	for (size_t i = 0; i < nx; i++) {
		cell_text(&w, "frame");
		for (int c = 0; c < 7; c++)
			cell_none(&w);
		cell_text(&w, x[i].procedure);
		cell_text(&w, x[i].file);
		cell_int(&w, x[i].line);
		cell_real(&w, x[i].mean);
		cell_real(&w, x[i].min);
		cell_real(&w, x[i].max);
		cell_real(&w, x[i].stddev);
		cell_int(&w, x[i].slowest);
		cell_real(&w, x[i].imbalance);
		cell_real(&w, imbalance > 0 ? wait * x[i].imbalance / imbalance : 0);
		cell_text(&w, x[i].call_file);
		if (x[i].call_file)
			cell_int(&w, x[i].call_line);
		rows_end_row(&w);
	}
	rows_end(&w);
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
	if (r->machine)
		put_rows(r, k, nk, x, nx, wait, imbalance);
	else
		put_text(r, k, nk, x, nx, wait, imbalance);
	dbr_rank_spread_free(x, nx);
	dbr_ranks_free(k, nk);
	return 0;
}
