/* prof_mpi.c - culprit-prof-mpi, what `culprit prof --mpi` becomes under
 * mpirun: the ranks share the reading and the merge, rank 0 writes the
 * database.
 *
 *   1. rank 0 reads and checks every measurement file and names every
 *      sampled address, as `culprit prof` does: it writes who was
 *      measured, and decides which files are usable.  It splits the
 *      threads into shares, runs of whole processes about equal in nodes
 *      and values, and sends a plan: the overhead types (from every
 *      module's symbols), the threads' columns (so that every tree has
 *      every metric) and each thread file's rank and id;
 *   2. the other ranks read the process files and their share's thread
 *      files, name those threads' addresses, and number the threads as
 *      rank 0 did;
 *   3. each rank merges its share into a tree of its own (partial.c);
 *   4. the shares are merged by a binomial reduction: at step k, a rank
 *      with bit k set sends its tree to the rank 2^k below it, which
 *      merges it into its own.  Every merge joins two adjacent runs of
 *      threads, the lower first, so rank 0 ends with the serial merge's
 *      tree in log2(ranks) steps;
 *   5. rank 0 writes the database as `culprit prof` does, one SQLite
 *      writer.
 *
 * Rank 0's reading is serial prof's (it frees the others' trees before
 * merging its own share); another rank's memory is its share's. */
#define _GNU_SOURCE
#include "merge.h"
#include "partial.h"
#include "plan.h"
#include "prof.h"
#include "tools.h"

#include <getopt.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_LENGTH = 1, TAG_BYTES = 2 };
#define CHUNK ((size_t)1 << 30)		/* MPI counts are ints */

/* The bytes of N, from OFF, that go in one message. */
static int chunk_at(size_t off, size_t n)
{
	return (int)(n - off < CHUNK ? n - off : CHUNK);
}

struct ranks {
	int rank, size;
	size_t first, end;		/* this rank's threads */
	uint32_t threads;		/* the experiment's, every rank's */
	struct partial share;
	struct prof_options *o;
	int reduced;			/* rank 0 holds every share */
};

/* Waits for REQ without spinning.  MPI libraries poll while they wait
 * (Open MPI's shared memory transport does): ranks done with their share
 * would take the cores rank 0 writes with, or their hyperthread siblings
 * (16 ranks on 16 cores: rank 0 wrote in 20.4 s against serial prof's
 * 10.7 s).  Sleeping 20 us to 1 ms between tests costs a merge step at
 * most a millisecond. */
static void idle_wait(MPI_Request *req)
{
	long ns = 20000;
	for (;;) {
		int done = 0;
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		nanosleep(&(struct timespec){ 0, ns }, NULL);
		if (ns < 1000000)
			ns *= 2;
	}
}

static void send_share(const struct partial *pt, int to)
{
	size_t len;
	unsigned char *b = partial_pack(pt, &len);
	uint64_t n = len;
	MPI_Request req;
	MPI_Isend(&n, 1, MPI_UINT64_T, to, TAG_LENGTH, MPI_COMM_WORLD, &req);
	idle_wait(&req);
	for (size_t off = 0; off < len; off += CHUNK) {
		MPI_Isend(b + off, chunk_at(off, len), MPI_BYTE, to, TAG_BYTES, MPI_COMM_WORLD, &req);
		idle_wait(&req);
	}
	free(b);
}

static void absorb_share(struct ranks *r, int from)
{
	struct partial *pt = &r->share;
	uint64_t n;
	MPI_Request req;
	MPI_Irecv(&n, 1, MPI_UINT64_T, from, TAG_LENGTH, MPI_COMM_WORLD, &req);
	idle_wait(&req);
	unsigned char *b = xmalloc(n + 1);
	for (size_t off = 0; off < n; off += CHUNK) {
		MPI_Recv(b + off, chunk_at(off, n), MPI_BYTE, from, TAG_BYTES, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	}
	progress_update("merging %.1f MB from rank %d", (double)n / 1e6, from);
	if (partial_absorb(pt, b, n, r->threads) < 0) {
		/* Our own bytes from our own program: a bug, or memory gone bad. */
		msg_silence(0);
		msg_error("rank %d: the merged share from rank %d is damaged; run culprit prof "
			  "without --mpi", r->rank, from);
		MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
	}
	free(b);
}

static int allowed_cpus(void);

/* Step 3: returns once this rank's tree is sent, or (rank 0) holds all. */
static void reduce(struct ranks *r)
{
	for (int step = 1; step < r->size; step <<= 1) {
		if (r->rank & step) {
			send_share(&r->share, r->rank - step);
			return;
		}
		if (r->rank + step < r->size) {
			progress_update("waiting for rank %d", r->rank + step);
			absorb_share(r, r->rank + step);
		}
	}
}

/* Rank 0's merge inside prof_write_database: its share, the others'. */
static struct thread_values *merge_shares(sqlite3 *db, struct prof *p, void *arg)
{
	struct ranks *r = arg;
	partial_merge(&r->share, &p->e, r->first, r->end);
	progress_start("merging shares");
	reduce(r);
	progress_end();
	r->reduced = 1;
	/* The other ranks are done: the writing may use every CPU this rank
	 * may run on (the analysis beside the tables). */
	if (!r->o->jobs_given)
		r->o->jobs = allowed_cpus();
	return partial_values(&r->share, db);
}

/* Ranks on this rank's node. */
static int ranks_on_node(void)
{
	MPI_Comm node;
	int n = 1;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
	    MPI_SUCCESS) {
		MPI_Comm_size(node, &n);
		MPI_Comm_free(&node);
	}
	return n > 0 ? n : 1;
}

/* The CPUs this rank may run on. */
static int allowed_cpus(void)
{
	cpu_set_t set;
	int online = cpu_count();
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 &&
	    CPU_COUNT(&set) < online)
		return CPU_COUNT(&set);
	return online;
}

/* -j's default: the CPUs the launcher bound this rank to, or unbound,
 * the node's shared among its ranks.  Every rank calls it: counting the
 * node's ranks is a collective. */
static int default_jobs(void)
{
	int on_node = ranks_on_node(), allowed = allowed_cpus();
	if (allowed < cpu_count())
		return allowed;
	int n = allowed / on_node;
	return n > 0 ? n : 1;
}

/* Rank 0's *STATUS, on every rank. */
static void share_status(int *status)
{
	MPI_Request req;
	MPI_Ibcast(status, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
	idle_wait(&req);
}

/* Whether every rank got STATUS EXIT_OK; rank 0 says which did not, and
 * that it could not WHAT, when it did itself (the others are silent). */
static int all_ok(const struct ranks *r, int status, const char *what)
{
	int mine = status == EXIT_OK ? r->size : r->rank, first_bad;
	MPI_Request req;
	MPI_Iallreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req);
	idle_wait(&req);
	if (first_bad == r->size)
		return 1;
	if (r->rank == 0 && status == EXIT_OK)
		msg_error("rank %d could not %s; run culprit prof without --mpi on its host to "
			  "see why", first_bad, what);
	return 0;
}

/* The bytes of rank 0's *LEN at B, on every rank (allocated there). */
static unsigned char *share_bytes(unsigned char *b, size_t *len)
{
	uint64_t n = *len;
	MPI_Request req;
	MPI_Ibcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &req);
	idle_wait(&req);
	if (!b)
		b = xmalloc(n + 1);
	for (size_t off = 0; off < n; off += CHUNK) {
		MPI_Ibcast(b + off, chunk_at(off, n), MPI_BYTE, 0, MPI_COMM_WORLD, &req);
		idle_wait(&req);
	}
	*len = n;
	return b;
}

/* Another rank's half of step 1, with rank 0's PLAN: its share of the
 * files, read and checked against the plan, and its tree.  Returns
 * EXIT_OK or EXIT_FAIL. */
static int load_as_planned(struct prof_options *o, struct prof *p, struct ranks *r,
			   struct plan *plan)
{
	if (plan_rules_fingerprint(&p->rules) != plan->rules)
		return EXIT_FAIL;	/* another host's rules: other classes */
	if (prof_load(o, p, plan_keeps, plan) != EXIT_OK)
		return EXIT_FAIL;
	if (p->e.nthread != plan->nthread)
		return EXIT_FAIL;	/* a file rank 0 read and this rank cannot */
	/* Rank 0's numbers for the threads, already in its order. */
	for (size_t i = 0; i < p->e.nthread; i++)
		p->e.thread[i]->id = plan_id(plan, p->e.thread[i]->path);
	for (size_t i = 0; i < plan->ntype; i++)
		prof_add_type(p, plan->type[i]);
	prof_new_tree(p, &plan->columns);
	/* Every thread's names of logical frames, as rank 0 chose them. */
	logical_names_replace(p->tree, plan->lname, plan->nlname);
	r->first = 0;
	r->end = p->e.nthread;
	r->threads = plan->threads;
	return EXIT_OK;
}

/* Step 1: rank 0 reads every file, names every address and plans the
 * shares; the others read the process files and their share's thread
 * files.  Every rank ends with its tree, empty.  Returns EXIT_OK or
 * EXIT_FAIL (rank 0: after a message; all ranks know of rank 0's). */
static int load_share(struct prof_options *o, struct prof *p, struct ranks *r)
{
	struct plan plan;
	unsigned char *b = NULL;
	size_t len = 0;
	int status = EXIT_OK;

	if (r->rank == 0) {
		status = prof_load(o, p, NULL, NULL);
		if (status == EXIT_OK) {
			prof_new_tree(p, NULL);
			int *owner = xcalloc(p->e.nthread + 1, sizeof *owner);
			partial_owners(&p->e, r->size, owner);
			r->first = r->end = 0;
			while (r->end < p->e.nthread && owner[r->end] == 0)
				r->end++;
			r->threads = (uint32_t)p->e.nthread;
			b = plan_pack(&p->e, p->tree, &p->rules, owner, &len);
			free(owner);
		}
	}
	share_status(&status);
	if (status != EXIT_OK) {
		free(b);
		return status;
	}
	b = share_bytes(b, &len);
	if (r->rank > 0) {
		if (plan_unpack(&plan, b, len, r->rank) < 0) {
			status = EXIT_FAIL;
		} else {
			status = load_as_planned(o, p, r, &plan);
			plan_free(&plan);
		}
	}
	free(b);
	return status;
}

static int prof_mpi(int argc, char **argv, struct ranks *r)
{
	struct prof_options o;
	struct prof p;
	char how[64];

	if (r->rank > 0) {
		msg_silence(1);
		opterr = 0;			/* getopt's own messages */
		unsetenv("CULPRIT_PROGRESS");	/* rank 0's phases are the run's */
	}
	int status = prof_parse_options(argc, argv, &o);
	if (status != EXIT_OK || o.help) {
		if (o.help && r->rank == 0)
			fputs(prof_usage, stdout);
		return status;
	}
	if (!o.jobs_given)
		o.jobs = default_jobs();
	r->o = &o;
	memset(&p, 0, sizeof p);
	ovh_rules_init(&p.rules);
	int done;
	double started = now_seconds();
	/* Rank 0 alone decides about the output, which may be on its disk;
	 * every rank loads its rules. */
	if (r->rank > 0)
		o.force = 1;
	status = prof_check(&o, &p, &done);
	if (!all_ok(r, status, "load its overhead rules")) {
		status = status == EXIT_OK ? EXIT_FAIL : status;
		goto out;
	}
	if (done) {
		if (r->rank == 0)
			ovh_rules_print(&p.rules, stdout);
		goto out;
	}
	status = load_share(&o, &p, r);
	if (!all_ok(r, status, "read its share of the files as rank 0 planned it, or its "
		    "overhead rules are not rank 0's")) {
		status = EXIT_FAIL;
		goto out;
	}
	partial_init(&r->share, p.tree, &p.trace);
	if (r->rank > 0) {
		partial_merge(&r->share, &p.e, r->first, r->end);
		reduce(r);
	} else if (prof_write_database(&o, &p, merge_shares, r) < 0) {
		/* Before the reduction the others may wait to send: end them
		 * too.  After it, they wait for the status below. */
		if (!r->reduced)
			MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
		status = EXIT_FAIL;
	} else {
		snprintf(how, sizeof how, ", %d rank%s", r->size, r->size == 1 ? "" : "s");
		prof_summary(&o, &p, started, how);
	}
	/* The others sleep until rank 0 has written, and exit as it does. */
	share_status(&status);
out:
	partial_free(&r->share);
	prof_free(&p);
	return status;
}

int main(int argc, char **argv)
{
	struct ranks r;

	memset(&r, 0, sizeof r);
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		msg_error("MPI did not start; run culprit prof --mpi under mpirun");
		return EXIT_FAIL;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &r.size);
	int status = prof_mpi(argc, argv, &r);
	MPI_Finalize();
	return status;
}
