/* summary.c - where the effort went: useful work, overhead by type and
 * idleness by cause, for the run and for each thread, and how far to
 * trust it (the measurement's quality). */
#define _GNU_SOURCE
#include "report.h"
#include "tools.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The summary's last part: what culprit took, and samples that lost part
 * of their path. */
static int put_quality(const struct report *r, struct rows *w)
{
	static const char *const label[][2] = {
		{ QUALITY_CULPRIT, "culprit itself" },
		{ QUALITY_CALLBACKS, "  in its callbacks" },
		{ QUALITY_HANDLER, "  in its sample handler" },
		{ QUALITY_SAMPLES, "samples taken" },
		{ QUALITY_PARTIAL, "  with a partial path" },
		{ QUALITY_TRUNCATED, "  cut at the depth limit" },
		{ QUALITY_DROPPED, "  dropped" },
		{ QUALITY_THROTTLED, "  merged (handler throttled)" },
		{ QUALITY_THREADS_MISSING, "threads missing" },
	};
	struct dbr_quality *q;
	size_t nq;
	if (dbr_quality(r->db, &q, &nq) < 0)
		return msg_error("%s", dbr_error(r->db));
	if (!r->machine)
		printf("\nhow far to trust it, %% of the threads' sampled time or of samples:\n");
	for (size_t i = 0; i < sizeof label / sizeof label[0]; i++) {
		const struct dbr_quality *row = dbr_quality_find(q, nq, label[i][0]);
		if (!row)
			continue;
		const char *unit = row->unit;
		if (r->machine) {
			cell_none(w);
			cell_none(w);
			cell_text(w, "quality");
			cell_text(w, label[i][0]);
			cell_text(w, unit ? unit : "");
			cell_real(w, row->value);
			cell_real(w, row->percent);
			rows_end_row(w);
		} else if (dbr_same_name(unit, "seconds"))
			printf("%-28s %12s s %7.1f\n", label[i][1], amount("seconds", row->value),
			       row->percent);
		else
			printf("%-28s %12.0f   %7.1f\n", label[i][1], row->value, row->percent);
	}
	dbr_quality_free(q, nq);
	return 0;
}

/* The run's rows: category, part, value and share of all effort. */
static int put_totals(const struct report *r, struct rows *w)
{
	struct dbr_effort_part *part_of;
	size_t nparts;
	if (dbr_effort_summary(r->db, r->ch.event, &part_of, &nparts) < 0)
		return msg_error("%s", dbr_error(r->db));
	double sum = 0, psum = 0;
	int unmeasured = dbr_idleness_measured(r->db) == 0;
	for (size_t i = 0; i < nparts; i++) {
		const char *cat = part_of[i].category ? part_of[i].category : "";
		const char *metric = part_of[i].metric ? part_of[i].metric : "";
		double v = part_of[i].value, p = part_of[i].percent;
		int cause = idle_cause_of_metric(metric);
		const char *label = cause >= 0 ? idle_cause((unsigned)cause)->label : NULL;
		int overhead = strcmp(cat, MET_OVERHEAD) == 0;
		char part[128];
		snprintf(part, sizeof part, "%s", overhead ? metric + strlen(MET_OVERHEAD_PREFIX)
						  : label ? label : "");
		sum += v;
		psum += p;
		int no_number = unmeasured && strncmp(metric, "idleness", 8) == 0;
		if (r->machine) {
			cell_none(w);
			cell_none(w);
			cell_text(w, cat);
			cell_text(w, metric);
			cell_text(w, part);
			if (!no_number) {
				cell_real(w, v);
				cell_real(w, p);
			}
			rows_end_row(w);
			continue;
		}
		if (overhead && v == 0)
			continue;	/* types of other runtimes */
		if (v == 0 && (cause < 0 || !idle_cause((unsigned)cause)->shown_always))
			continue;	/* causes only some programs have */
		if (no_number) {
			printf("%-12s %-40s %12s %7s\n", cat, part, "not measured", "");
			continue;
		}
		printf("%-12s ", cat);
		put_safe(part, 40);
		printf("%*s %12s %7.1f\n", 40 - (int)strlen(part) > 0 ? 40 - (int)strlen(part) : 0, "",
		       amount(r->ch.unit, v), p);
	}
	dbr_effort_summary_free(part_of, nparts);
	if (!r->machine)
		printf("%-12s %-40s %12s %7.1f\n\n", "total", "", amount(r->ch.unit, sum), psum);
	if (unmeasured && !r->machine)
		printf("note: %s\n\n", DBR_IDLENESS_UNMEASURED_HOW);
	return 0;
}

/* The per-thread table's columns: useful work, overhead, the time seen
 * waiting (if any), and the causes of idleness that the run has (and
 * those shown always). */
struct thread_column {
	const char *metric, *heading, *part;
};

static size_t thread_columns(const struct report *r, struct thread_column *col)
{
	size_t n = 0;
	col[n++] = (struct thread_column){ MET_USEFUL, "useful", "useful work" };
	col[n++] = (struct thread_column){ MET_OVERHEAD_PREFIX "%", "overhead", "overhead" };
	/* A wall-clock event saw threads waiting: their own share of it. */
	if (dbr_threads_waited(r->db, r->ch.event) > 0)
		col[n++] = (struct thread_column){ MET_WAITED, "waited", "time seen waiting" };
	if (dbr_idleness_measured(r->db) == 0)
		return n;	/* no numbers to show */
	for (unsigned c = 0; c < CULPRIT_IDLE_CAUSES; c++) {
		const struct idle_cause *ic = idle_cause(c);
		if (!ic->shown_always && !(dbr_metric_total(r->db, r->ch.event, ic->metric, NULL) > 0))
			continue;
		col[n++] = (struct thread_column){ ic->metric, ic->name, ic->label };
	}
	return n;
}

/* Each thread, as a share of its own effort. */
static int put_threads(const struct report *r, struct rows *w)
{
	struct thread_column col[3 + CULPRIT_IDLE_CAUSES];
	size_t ncol = thread_columns(r, col);
	const char *pattern[3 + CULPRIT_IDLE_CAUSES];
	for (size_t k = 0; k < ncol; k++)
		pattern[k] = col[k].metric;
	struct dbr_thread_share *t;
	size_t nt;
	if (dbr_thread_shares(r->db, r->ch.event, pattern, ncol, &t, &nt) < 0)
		return msg_error("%s", dbr_error(r->db));
	if (!r->machine) {
		int waited = ncol > 2 && strcmp(col[2].metric, MET_WAITED) == 0;
		printf("per thread, %% of its own effort%s:\n%6s %8s %-16s %10s",
		       waited ? " (waited: % of its samples taken while it waited)" : "",
		       "thread", "tid", "name", r->ch.unit);
		for (size_t k = 0; k < ncol; k++)
			printf(" %8s", col[k].heading);
		putchar('\n');
	}
	for (size_t i = 0; i < nt; i++) {
		const char *name = t[i].name;
		if (r->machine) {
			for (size_t k = 0; k < ncol; k++) {
				cell_int(w, t[i].id);
				cell_text(w, name);
				cell_text(w, k == 0 ? "useful work" : k == 1 ? "overhead" : "idleness");
				cell_text(w, k == 1 ? MET_OVERHEAD : col[k].metric);
				cell_text(w, col[k].part);
				cell_real(w, t[i].effort * t[i].percent[k] / 100);
				cell_real(w, t[i].percent[k]);
				rows_end_row(w);
			}
			continue;
		}
		printf("%6lld %8lld ", (long long)t[i].id, (long long)t[i].tid);
		put_safe(name ? name : "", 16);
		int len = name ? (int)strlen(name) : 0;
		printf("%*s %10s", len < 16 ? 16 - len : 0, "", amount(r->ch.unit, t[i].effort));
		for (size_t k = 0; k < ncol; k++)
			printf(" %8.1f", t[i].percent[k]);
		putchar('\n');
	}
	dbr_thread_shares_free(t, nt);
	return 0;
}

/* A machine-readable row of MPI waiting: a rank's (WHO) or, NULL, all. */
static void mpi_row(struct rows *w, const char *who, double seconds, double percent)
{
	cell_none(w);
	if (who)
		cell_text(w, who);
	else
		cell_none(w);
	cell_text(w, "mpi");
	cell_text(w, "waited:mpi");
	cell_text(w, idle_cause(CULPRIT_IDLE_MPI)->label);
	cell_real(w, seconds);
	cell_real(w, percent);
	rows_end_row(w);
}

/* An MPI run's waiting: the ranks' threads' own time in blocking MPI
 * calls, for other ranks.  It is no idleness of this process's (nothing
 * here is blamed for it, idle_causes.h), so the effort above leaves it
 * out; but it is often most of what keeps an MPI program from scaling. */
static int put_mpi(const struct report *r, struct rows *w)
{
	struct dbr_rank *k;
	size_t nk;
	if (dbr_ranks(r->db, r->ch.event, &k, &nk) < 0)
		return msg_error("%s", dbr_error(r->db));
	double wait = 0, own = 0, lo = 0, hi = 0;
	for (size_t i = 0; i < nk; i++) {
		double mine = k[i].work + k[i].waited;
		double share = mine > 0 ? 100 * k[i].mpi_wait / mine : 0;
		wait += k[i].mpi_wait;
		own += mine;
		lo = i == 0 || share < lo ? share : lo;
		hi = i == 0 || share > hi ? share : hi;
		if (r->machine) {
			char rank[32];
			snprintf(rank, sizeof rank, "rank %d", k[i].rank);
			mpi_row(w, rank, k[i].mpi_wait, share);
		}
	}
	if (nk && r->machine) {
		mpi_row(w, NULL, wait, own > 0 ? 100 * wait / own : 0);
	} else if (nk) {
		printf("MPI: %zu ranks; their threads waited %s %s in MPI calls for other ranks, "
		       "%.1f%% of\ntheir own time (%.1f%% to %.1f%% a rank; report --by-rank: "
		       "which frames made them wait)\n\n", nk, amount(r->ch.unit, wait), r->ch.unit,
		       own > 0 ? 100 * wait / own : 0, lo, hi);
	}
	dbr_ranks_free(k, nk);
	return 0;
}

/* The processes that did not end by exit or exec: a crash is the first
 * thing to know about a profile of one. */
static int put_ends(const struct report *r, struct rows *w)
{
	struct dbr_process_end *p;
	size_t n;
	if (dbr_process_ends(r->db, &p, &n) < 0)
		return msg_error("%s", dbr_error(r->db));
	if (n && !r->machine)
		printf("\nprocesses that did not end by exit or exec:\n");
	for (size_t i = 0; i < n; i++) {
		if (r->machine) {
			cell_none(w);
			cell_none(w);
			cell_text(w, "process_end");
			cell_int(w, p[i].pid);
			cell_text(w, p[i].reason);
			cell_int(w, p[i].signal);
			rows_end_row(w);
			continue;
		}
		printf("  pid %lld", (long long)p[i].pid);
		if (p[i].mpi_rank >= 0)
			printf(" (rank %d)", p[i].mpi_rank);
		if (p[i].signal > 0) {
			const char *abbrev = sigabbrev_np(p[i].signal);
			printf(": killed by signal %d (%s%s), ", p[i].signal, abbrev ? "SIG" : "",
			       abbrev ? abbrev : strsignal(p[i].signal));
		} else {
			printf(": its end was not recorded (killed by SIGKILL, or still running), ");
		}
		put_safe(p[i].command ? p[i].command : "?", 60);
		putchar('\n');
	}
	dbr_process_ends_free(p, n);
	return 0;
}

int report_summary(const struct report *r)
{
	static const struct column columns[] = {
		{ "thread_id", CELL_INT, NULL }, { "thread", CELL_TEXT, NULL },
		{ "category", CELL_TEXT, NULL }, { "metric", CELL_TEXT, NULL },
		{ "part", CELL_TEXT, NULL }, { "value", CELL_REAL, NULL },
		{ "percent", CELL_REAL, "%.4f" },
	};
	struct rows w;
	if (r->machine)
		rows_begin(&w, r->format, columns, NCOLUMNS(columns));
	else {
		put_title(r, "summary");
		printf("%s: where the effort went; effort = work + idleness = %s %s\n\n", r->ch.event,
		       amount(r->ch.unit, r->ch.base), r->ch.unit);
		printf("%-12s %-40s %12s %7s\n", "category", "part", r->ch.unit, "%");
	}
	if (put_totals(r, &w) < 0 || put_mpi(r, &w) < 0 || put_threads(r, &w) < 0 ||
	    put_quality(r, &w) < 0 || put_ends(r, &w) < 0)
		return -1;
	if (r->machine)
		rows_end(&w);
	return 0;
}
