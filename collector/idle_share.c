/* idle_share.c - how many waiting threads are idle at one moment, and for
 * which causes: the one rule behind every idleness figure.
 *
 * Idleness is CPU capacity the program lost.  At each moment it is the
 * CPUs the program could use - those it may run on (culprit_config.cpus)
 * - less its working threads, but never more than its threads waiting.  A
 * thread that waits while the others keep every CPU busy loses nothing: a
 * pipeline's reader waiting beside busy workers, a main thread joining
 * them.  Threads that wait for other processes (MPI ranks) claim nothing
 * here: report --by-rank weighs them.
 *
 * Each free CPU is counted once, though several threads may wait for it.
 * It goes first to the threads waiting for any cause but a join, shared in
 * proportion to their numbers by cause; what is left goes to the threads
 * joining others.  A joining thread waits for threads to end: while one of
 * those waits too, the CPU is lost to that wait (were it gone, the thread
 * would run there), and the joining thread would wait either way.
 *
 * Bounded by the threads the program runs too: no more threads wait than
 * exist.  async-signal-safe: the sample handler and the trace use it. */
#include "collector.h"

uint32_t idle_share(const struct worker_counts *n, int pending, uint32_t *working,
		    double share[CULPRIT_IDLE_CAUSES])
{
	/* While tasks are queued, a thread waiting in its runtime is about
	 * to run one: it works. */
	uint32_t busy = n->working + (pending > 0 ? n->nwaiting : 0);
	uint32_t cpus = culprit_config.cpus;
	uint32_t free_cpus = !cpus ? UINT32_MAX : busy < cpus ? cpus - busy : 0, idle = 0;
	*working = busy;
	for (int c = 0; c < CULPRIT_IDLE_CAUSES; c++)
		share[c] = 0;
	if (!busy)
		return 0;	/* nobody to blame */
	for (int claim = IDLE_CLAIM_FIRST; claim <= IDLE_CLAIM_LAST; claim++) {
		uint32_t waiting = 0, wait[CULPRIT_IDLE_CAUSES];
		for (int c = 0; c < CULPRIT_IDLE_CAUSES; c++) {
			wait[c] = (int)idle_cause(c)->claim != claim ? 0
				  : n->idle[c] + (pending > 0 ? 0 : n->waiting[c]);
			waiting += wait[c];
		}
		uint32_t take = waiting < free_cpus ? waiting : free_cpus;
		for (int c = 0; c < CULPRIT_IDLE_CAUSES && take; c++)
			share[c] = (double)take * wait[c] / waiting;
		free_cpus -= take;
		idle += take;
	}
	return idle;
}
