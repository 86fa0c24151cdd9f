/* driver.h - the `culprit` command: subcommands and what they share. */
#ifndef CULPRIT_DRIVER_H
#define CULPRIT_DRIVER_H

#include <getopt.h>
#include <stddef.h>
#include <sys/types.h>

#include "commands.h"
#include "event_spec.h"
#include "tools.h"

/* ---- events (events.c) ---- */

/* Resolves what the user wrote after -e ("CPUTIME@f1000", "cycles@100003",
 * "REALTIME@5ms") into *OUT and checks that this machine can sample it.
 * Returns 0, or -1 after writing one line that says what is wrong and what
 * to do into ERR. */
int events_resolve(const char *spec, struct event_spec *out, char *err, size_t errlen);
/* Prints every event this machine knows, marking those it can sample. */
void events_list(void);

/* ---- programs (run.c) ---- */

/* culprit run's options about what is measured, which culprit scale
 * passes on to each run: a getopt_long table ended by a zero entry. */
extern const struct option run_measurement_options[];
/* A getopt_long table of OWN's entries, then EXTRA's (both ended by a
 * zero entry), ended by one; the caller frees it. */
struct option *options_join(const struct option *own, const struct option *extra);
/* The entry of TABLE whose getopt value is VAL, or NULL. */
const struct option *option_of(const struct option *table, int val);

enum program_kind {
	PROGRAM_OTHER,		/* not a 64-bit ELF file (a script, say) */
	PROGRAM_STATIC,		/* statically linked: cannot load the collector */
	PROGRAM_DYNAMIC,		/* dynamic but without an interpreter (static-pie) */
	PROGRAM_INTERPRETED,	/* started by the dynamic linker */
};
enum program_kind program_kind(const char *path);
/* NAME's last component, as a directory name may hold it (at most 40
 * bytes of letters, digits, '.', '_' and '-'; others become '_'). */
void directory_safe_name(const char *name, char *out, size_t size);

/* ---- the measurement's own health (run_health.c) ---- */

struct run_health {
	unsigned long long samples, dropped, partial, truncated, waits_lost;
	unsigned long long throttled;	/* signals merged into later samples */
	unsigned long long missing;	/* threads a process file counts, without a file */
	unsigned long long damaged;	/* files that do not read back */
	unsigned long long unfinished;	/* processes whose files are snapshots */
};

/* launch.c: culprit run as one rank of an MPI launch (mpirun, srun),
 * from the launcher's variables: its rank (-1: not one) and the launch's
 * job id ("" when none is known). */
struct launch {
	int rank;
	const char *rank_var;	/* the variable that said it */
	char job[96];
};
/* Fills L; returns whether this is a rank. */
int launch_detect(struct launch *l);
/* Makes the output directory DIR that the launch's ranks share, or finds
 * it made by another of them.  Returns 0, or -1 after saying why. */
int launch_make_output(const struct launch *l, const char *dir);
/* Whether file NAME of the directory is this rank's (every file, when
 * not a rank). */
int launch_owns(const struct launch *l, const char *name);

/* Removes the space the collector set aside for process files (hidden
 * *.process.spare files) that processes killed before their end left in
 * DIR; only OWNER's (NULL: all). */
void run_remove_spares(const char *dir, const struct launch *owner);
/* Reads what the measurement files in DIR (OWNER's, NULL: all) say went
 * wrong. */
void run_health_read(const char *dir, const struct launch *owner, struct run_health *h);
/* The problems, "3 of 540 samples dropped; 1 thread files missing", or
 * "" when there were none. */
void run_health_text(const struct run_health *h, char *out, size_t size);
/* Whether the losses matter for the figures: a file missing or damaged,
 * or at least 5% of the samples dropped, cut short or cut at the depth
 * limit (the level at which culprit prof warns of a quality item).  A
 * few samples dropped while culprit was unwinding are usual. */
int run_health_serious(const struct run_health *h);

/* ---- keeping the measurements on disk (run_sync.c) ---- */

/* Waits for PID, our child, and reaps it (its wait status into *STATUS),
 * syncing each measurement file renamed into DIR meanwhile, so that a
 * machine that loses power keeps the snapshots.  Returns 0, or -1 with
 * errno. */
int run_wait_syncing(pid_t pid, const char *dir, int *status);

/* ---- OpenMP runtimes (openmp.c) ---- */

/* --openmp: move GCC's libgomp programs onto LLVM's libomp when they need
 * libgomp, always, or never. */
enum openmp_mode { OPENMP_AUTO, OPENMP_LIBOMP, OPENMP_NATIVE };

/* Parses ARG ("auto", "libomp", "native"); -1 after a usage message. */
int openmp_parse_mode(const char *arg, enum openmp_mode *out);
/* The library to preload after the collector so that PROGRAM's OpenMP
 * runs on libomp, into OUT ("" for none), saying so unless QUIET.
 * Returns 0, or -1 after a message that stops the run. */
int openmp_preload(const char *program, enum openmp_mode mode, int quiet, char *out, size_t size);

/* ---- the machine's sample lead (sample_lead.c) ---- */

/* How long, in ns, a thread sampled by a perf_event counter stops before
 * the kernel time-stamps the sample, measured on the calling thread in a
 * few milliseconds; 0 when perf_event is refused or the measure fails. */
long sample_lead_measure(void);

#endif
