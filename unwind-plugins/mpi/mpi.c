/* mpi.c - a rank's waits for other ranks: the blocking MPI calls.
 *
 * The plugin exports the MPI calls that wait for other processes (point
 * to point receives and sends, waits on requests, probes, barriers and
 * collectives).  The program's calls reach them, since the collector is
 * preloaded; each marks the calling thread idle for the cause `mpi` while
 * the call runs (culprit_block_begin), and calls the library's PMPI_
 * entry point, which every MPI library has for tools like this one.  So
 * a rank's samples taken while it waits (Open MPI polls: CPU time goes
 * on) are its waiting, not its work, and the wait is counted at its site.
 *
 * The wrappers need no MPI header and no library at build time: every
 * argument of these calls is a pointer or an integer, which the x86-64
 * calling convention passes in the same integer registers and 8-byte
 * stack slots whatever the MPI's types are (Open MPI's handles are
 * pointers, MPICH's ints), so forwarding them as words passes them on
 * unchanged.  The PMPI_ entry point is found on the first call, after
 * ours in the search order, or in the library that a program opened for
 * itself (mpi4py's libmpi, say).  A program without MPI never calls them.
 */
#define _GNU_SOURCE
#include "plugin.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uintptr_t W;	/* one argument, whatever its MPI type */

struct find {
	const char *name;
	void *fn;
};

static int find_in(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	(void)size;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0;
	void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	f->fn = dlsym(h, f->name);
	dlclose(h);
	return f->fn != NULL;
}

/* The library's NAME (a PMPI_ entry point).  Never NULL: a program that
 * calls MPI has its library loaded; if none answers, nothing can be done
 * for the call, and saying so beats jumping to nowhere. */
static void *resolve(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);
	if (!fn) {
		struct find f = { name, NULL };
		dl_iterate_phdr(find_in, &f);
		fn = f.fn;
	}
	if (!fn) {
		culprit_log("%s is in no library loaded: the MPI call cannot go on", name);
		abort();
	}
	return fn;
}

/* Marks the thread idle for MPI around CALL, made from this wrapper's
 * caller; returns what the library returned. */
#define WAITING(call)                                                          \
	({                                                                     \
		struct culprit_block w_;                                       \
		int b_ = culprit_block_begin(&w_, CULPRIT_BLOCK_MPI, CULPRIT_IDLE_MPI, NULL, \
					     __builtin_return_address(0));     \
		int r_ = (call);                                               \
		if (b_)                                                        \
			culprit_block_end(&w_);                                \
		r_;                                                            \
	})

#define REAL(name, ...)                                                        \
	static int (*real)(__VA_ARGS__);                                       \
	if (!real)                                                             \
		real = (int (*)(__VA_ARGS__))resolve("P" #name)

#define WRAP1(name)                                                            \
	EXPORT int name(W a);                                                   \
	EXPORT int name(W a)                                                   \
	{                                                                      \
		REAL(name, W);                                                 \
		return WAITING(real(a));                                       \
	}
#define WRAP2(name)                                                            \
	EXPORT int name(W a, W b);                                              \
	EXPORT int name(W a, W b)                                              \
	{                                                                      \
		REAL(name, W, W);                                              \
		return WAITING(real(a, b));                                    \
	}
#define WRAP3(name)                                                            \
	EXPORT int name(W a, W b, W c);                                         \
	EXPORT int name(W a, W b, W c)                                         \
	{                                                                      \
		REAL(name, W, W, W);                                           \
		return WAITING(real(a, b, c));                                 \
	}
#define WRAP4(name)                                                            \
	EXPORT int name(W a, W b, W c, W d);                                    \
	EXPORT int name(W a, W b, W c, W d)                                    \
	{                                                                      \
		REAL(name, W, W, W, W);                                        \
		return WAITING(real(a, b, c, d));                              \
	}
#define WRAP5(name)                                                            \
	EXPORT int name(W a, W b, W c, W d, W e);                               \
	EXPORT int name(W a, W b, W c, W d, W e)                               \
	{                                                                      \
		REAL(name, W, W, W, W, W);                                     \
		return WAITING(real(a, b, c, d, e));                           \
	}
#define WRAP6(name)                                                            \
	EXPORT int name(W a, W b, W c, W d, W e, W f);                          \
	EXPORT int name(W a, W b, W c, W d, W e, W f)                          \
	{                                                                      \
		REAL(name, W, W, W, W, W, W);                                  \
		return WAITING(real(a, b, c, d, e, f));                        \
	}
#define WRAP7(name)                                                            \
	EXPORT int name(W a, W b, W c, W d, W e, W f, W g);                     \
	EXPORT int name(W a, W b, W c, W d, W e, W f, W g)                     \
	{                                                                      \
		REAL(name, W, W, W, W, W, W, W);                               \
		return WAITING(real(a, b, c, d, e, f, g));                     \
	}
#define WRAP8(name)                                                            \
	EXPORT int name(W a, W b, W c, W d, W e, W f, W g, W h);                \
	EXPORT int name(W a, W b, W c, W d, W e, W f, W g, W h)                \
	{                                                                      \
		REAL(name, W, W, W, W, W, W, W, W);                            \
		return WAITING(real(a, b, c, d, e, f, g, h));                  \
	}
#define WRAP9(name)                                                            \
	EXPORT int name(W a, W b, W c, W d, W e, W f, W g, W h, W i);           \
	EXPORT int name(W a, W b, W c, W d, W e, W f, W g, W h, W i)           \
	{                                                                      \
		REAL(name, W, W, W, W, W, W, W, W, W);                         \
		return WAITING(real(a, b, c, d, e, f, g, h, i));               \
	}
#define WRAP12(name)                                                           \
	EXPORT int name(W a, W b, W c, W d, W e, W f, W g, W h, W i, W j, W k, W l); \
	EXPORT int name(W a, W b, W c, W d, W e, W f, W g, W h, W i, W j, W k, W l) \
	{                                                                      \
		REAL(name, W, W, W, W, W, W, W, W, W, W, W, W);                \
		return WAITING(real(a, b, c, d, e, f, g, h, i, j, k, l));      \
	}

/* Point to point: the blocking ones wait for their peer. */
WRAP6(MPI_Send)
WRAP6(MPI_Ssend)
WRAP7(MPI_Recv)
WRAP12(MPI_Sendrecv)
WRAP9(MPI_Sendrecv_replace)
WRAP4(MPI_Probe)
WRAP5(MPI_Mprobe)
WRAP5(MPI_Mrecv)
/* Requests. */
WRAP2(MPI_Wait)
WRAP3(MPI_Waitall)
WRAP4(MPI_Waitany)
WRAP5(MPI_Waitsome)
/* Collectives: each waits for the last rank to arrive. */
WRAP1(MPI_Barrier)
WRAP5(MPI_Bcast)
WRAP7(MPI_Reduce)
WRAP6(MPI_Allreduce)
WRAP8(MPI_Gather)
WRAP9(MPI_Gatherv)
WRAP8(MPI_Scatter)
WRAP9(MPI_Scatterv)
WRAP7(MPI_Allgather)
WRAP8(MPI_Allgatherv)
WRAP7(MPI_Alltoall)
WRAP9(MPI_Alltoallv)
WRAP6(MPI_Reduce_scatter)
WRAP6(MPI_Reduce_scatter_block)
WRAP6(MPI_Scan)
WRAP6(MPI_Exscan)

/* MPI_Finalize synchronises the ranks too: the first to get there waits
 * for the last. */
EXPORT int MPI_Finalize(void);
EXPORT int MPI_Finalize(void)
{
	static int (*real)(void);
	if (!real)
		real = (int (*)(void))resolve("PMPI_Finalize");
	return WAITING(real());
}

static const struct culprit_plugin mpi_plugin = {
	.name = "mpi",
	.abi = CULPRIT_PLUGIN_ABI,
};
CULPRIT_PLUGIN(mpi_plugin);
