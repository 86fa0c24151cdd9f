/* plugin.h - the interface between the collector core and unwind plugins.
 *
 * The core samples a thread and unwinds its native frames into a path.
 * Parallel runtimes scatter a program's calling context over threads: a
 * worker's stack starts in the runtime's scheduler, not in the code that
 * created the work it runs.  Logical context records put it back
 * together:
 *
 *   - When work is created (a thread, a parallel region, a task), the
 *     plugin captures a *record* of the creating context: the creator's
 *     frames from the creation call out to where the creator's own work
 *     began, and a reference to the record the creator itself runs under.
 *   - While a thread runs that work, the record is the thread's current
 *     context (culprit_ctx_set).
 *   - A sample keeps the native frames of the work itself, cut where the
 *     work was entered from the runtime (the record's boundary rule), and
 *     continues with the record's frames, its parent's, and so on: the
 *     full logical path from main, whatever thread the work ran on.
 *
 * Plugins also keep the worker counts that idleness is computed from.
 *
 * A plugin is a folder under unwind-plugins/ (unwind-plugins/README.md):
 * its code fills a struct culprit_plugin and registers it with
 * CULPRIT_PLUGIN(), which the core finds through a linker section; its
 * plugin.am adds its sources to the collector's build and its exports.map
 * the symbols it exports from libculprit.so (a runtime's tool entry point,
 * say) to the version script make assembles.  Adding a plugin changes no
 * core file.  The core starts a plugin through its init hook, as the
 * collector starts; NULL hooks mean "not supported".  The ABI is internal
 * to one build of culprit and versioned with the collector.
 */
#ifndef CULPRIT_PLUGIN_H
#define CULPRIT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "idle_causes.h"

#define CULPRIT_PLUGIN_ABI 8

/* One element of a path.  Native frames carry an address, which the core
 * maps to (module, offset) when it inserts the path; logical frames carry
 * a plugin-defined (module, key) pair that is stored as it is: the module
 * is the plugin's namespace (CULPRIT_LOGICAL_*), the key at most
 * CULPRIT_LOGICAL_KEY_BITS wide, its low bits a line (culprit_logical_name). */
struct culprit_frame {
	uint64_t addr;		/* FRAME: instruction address; LOGICAL: key */
	uint32_t module;	/* LOGICAL only: the plugin's namespace */
	uint8_t kind;		/* MFILE_NODE_FRAME or MFILE_NODE_LOGICAL */
	uint8_t flags;		/* MFILE_NODE_EXACT, CULPRIT_FRAME_OURS */
};

/* A frame in the collector's own code (a trampoline, a wrapper).  Kept
 * while boundaries are found, removed before the path is stored. */
#define CULPRIT_FRAME_OURS 0x80

/* Namespaces of logical frames (struct culprit_frame's module). */
#define CULPRIT_LOGICAL_PYTHON 1	/* CPython frames: unwind-plugins/python */
#define CULPRIT_LOGICAL_NAMESPACES 63	/* namespaces are below 64 */
/* Logical keys fit in 56 bits: records keep a frame in one word. */
#define CULPRIT_LOGICAL_KEY_BITS 56

/* Names logical frames: every key of namespace NS whose bits above its
 * LINE_BITS low ones are IDENT is a frame of the procedure NAME, defined
 * in FILE at FIRST_LINE, at the line the low bits say (0: none).  The
 * calling thread's file carries the names (its LNAM section); a plugin
 * names each procedure once per thread before its frames are stored, and
 * the same IDENT must mean the same procedure in every thread and process
 * of a run (a hash of the name, say).  Lengths in bytes, cut to 1024.
 * Returns 0, or -1 when the thread's names are full (the frames are then
 * shown as unnamed).  async-signal-safe. */
int culprit_logical_name(unsigned ns, unsigned line_bits, uint64_t ident, const char *name,
			 size_t name_len, const char *file, size_t file_len, uint32_t first_line);

/* Services for plugins.  culprit_log writes "culprit: MESSAGE" and a
 * newline to standard error, formatting as printf does for %s %c %d %u
 * %x %ld %lu %lx %lld %llu %llx %zu %p; culprit_map gives SIZE bytes of
 * zeroed memory of its own (NULL: none), culprit_unmap gives it back.
 * All three async-signal-safe. */
void culprit_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *culprit_map(size_t size);
void culprit_unmap(void *p, size_t size);

/* Runs FN(ARG) with memory faults caught: a read of unmapped memory in FN
 * ends it there, and the call returns -1 (else 0).  For reading a
 * runtime's data structures from a sample handler.  FN must leave nothing
 * half-done that matters when it is cut short.  async-signal-safe, not
 * reentrant (one guarded call at a time per thread). */
int culprit_guarded(void (*fn)(void *arg), void *arg);

/* Where the work a record roots was entered, in native frames sampled
 * inside it (innermost first): the index of the first frame that is not
 * part of the work, or N when all are.  PARTIAL says that FRAME holds only
 * the innermost N frames of a deeper stack (a capture looks no further
 * than it must); then -1 means "not among these".  async-signal-safe. */
typedef int (*culprit_boundary_fn)(const struct culprit_frame *frame, int n, int partial);

/* The default boundary: the innermost frame of the collector's own code,
 * such as the trampoline a thread or an API task starts in. */
int culprit_boundary_collector(const struct culprit_frame *frame, int n, int partial);

/* A logical context record; plugins use it through the functions below. */
struct culprit_ctx;

/* A task that waits in a queue until some worker starts it: the plugin
 * counts it as queued until then. */
#define CULPRIT_CTX_QUEUED 0x2

/* Captures the calling thread's logical context here: its native frames,
 * skipping culprit's own and then, at the innermost end, those RUNTIME
 * says belong to the runtime (NULL: none), out to the boundary of the
 * record the thread currently runs under, and that record as the parent.
 * BOUNDARY is the rule for work rooted at the new record.  Returns a
 * record holding one reference, or NULL (not a sampled thread, no memory).
 * Not for signal handlers. */
struct culprit_ctx *culprit_ctx_capture(int (*runtime)(uint64_t addr),
					culprit_boundary_fn boundary, unsigned flags);
/* culprit_ctx_capture for a runtime that knows where the creating code's
 * frames are on the stack: RA_SLOT is the stack address that holds the
 * return address into the innermost of them (the creating call's), and
 * WORK_ENTRY the address of the runtime's frame that entered the work the
 * thread runs (0: none).  Captures made at the same place are then
 * remembered and checked against the stack instead of unwound: a few loads
 * rather than a walk through the runtime's frames.  RA_SLOT 0: as
 * culprit_ctx_capture.  Not for signal handlers. */
struct culprit_ctx *culprit_ctx_capture_at(uintptr_t ra_slot, uintptr_t work_entry,
					   int (*runtime)(uint64_t addr),
					   culprit_boundary_fn boundary, unsigned flags);
/* Reference counting; a record lives while referenced.  Any thread.
 * async-signal-safe. */
void culprit_ctx_hold(struct culprit_ctx *ctx);
void culprit_ctx_release(struct culprit_ctx *ctx);
unsigned culprit_ctx_flags(const struct culprit_ctx *ctx);
/* Returns 1 the first time it is called for CTX, 0 after (and for NULL):
 * for telling a task's start from its resumptions.  Any thread.
 * async-signal-safe. */
int culprit_ctx_claim(struct culprit_ctx *ctx);
/* The return address of the call that made CTX (its innermost creation
 * frame), 0 for none: a task's type.  async-signal-safe. */
uint64_t culprit_ctx_site(const struct culprit_ctx *ctx);
/* A task of type SITE (culprit_ctx_site of its record) ended on this
 * thread after running SIZE_NS, the time it was set aside not counted,
 * and its thread had looked for work for WAIT_NS before it started: the
 * thread's histograms of task sizes and waits count it (the TASK section
 * of its file).  Not for signal handlers. */
void culprit_task_done(uint64_t site, uint64_t size_ns, uint64_t wait_ns);

/* The calling thread's current record (NULL: none), and setting it; the
 * caller keeps the reference counts right.  async-signal-safe. */
struct culprit_ctx *culprit_ctx_get(void);
struct culprit_ctx *culprit_ctx_set(struct culprit_ctx *ctx);

/* Culprit's own work on this thread, in progress when nonzero: plugins
 * raise it for the length of their callbacks' bookkeeping (never around
 * the program's code), so that samples taken meanwhile count as the
 * measurement's cost (the `measurement` metric), not the program's work.
 * The collector's own entry points raise it too.  Initial-exec TLS: one
 * add and one subtract per callback (CULPRIT_MEASURED). */
extern __thread unsigned culprit_measuring __attribute__((tls_model("initial-exec")));
static inline void culprit_measure_end(unsigned *scope)
{
	(void)scope;
	culprit_measuring--;
}
/* Culprit's own work from here to the end of the enclosing block, however
 * it is left. */
#define CULPRIT_MEASURED                                                     \
	unsigned culprit_measure_scope                                       \
		__attribute__((cleanup(culprit_measure_end), unused)) = culprit_measuring++

/* Whether the collector is measuring this process. */
int culprit_collecting(void);

/* Whether ADDR is in culprit's own code.  async-signal-safe. */
int culprit_in_collector(uint64_t addr);

/* Worker states, as runtimes declare them. */
enum culprit_worker_state {
	CULPRIT_NOT_WORKER = 0,	/* not part of a worker pool: never idle */
	CULPRIT_WORKING = 1,	/* a worker running user code */
	CULPRIT_IDLE = 2,	/* a worker waiting; see the cause */
	/* A worker in a wait that runs the runtime's task scheduler (a
	 * barrier, a taskwait): working, on the runtime's overhead, while
	 * the runtime has tasks queued (tasks_pending), else idle for its
	 * cause. */
	CULPRIT_WAITING = 3,
};

/* Why an idle worker waits: enum culprit_idle_cause, CULPRIT_IDLE_SERIAL,
 * _BARRIER, _LOCK, _TASKWAIT, _JOIN, _SLEEP, _IO (only with --io-idle),
 * _GIL (CPython's global interpreter lock) and _MPI (a blocking MPI call,
 * blamed on no thread of the process), defined with what each means in
 * common/idle_causes.h. */

/* A plugin's hooks.  Those of the plugins taking part run in the order of
 * the plugins' folder names (C locale), the ending ones (thread_end, fini)
 * in reverse.  The core calls the thread hooks as culprit's own work
 * (CULPRIT_MEASURED); a runtime's callbacks into a plugin say so
 * themselves. */
struct culprit_plugin {
	const char *name;
	unsigned abi;		/* CULPRIT_PLUGIN_ABI */

	/* The plugin's start: in a measured process, as the collector starts
	 * (its constructor), before the program runs and before any thread
	 * is sampled; the main thread's thread_begin comes after.  A symbol
	 * the plugin exports for its runtime to call (a tool entry point)
	 * must do nothing until init ran.  Returns nonzero to take part in
	 * this process (NULL: always takes part). */
	int (*init)(void);
	/* Process end, before the measurement files are written (not when a
	 * fatal signal ends it). */
	void (*fini)(void);
	/* In a thread about to create another (pthread_create): *COOKIE is
	 * handed to thread_begin in the new thread, or else to release. */
	void (*thread_create)(void **cookie);
	/* COOKIE, from thread_create, reaches no thread_begin: the creating
	 * call failed (in the creating thread, after pthread_create returned
	 * an error), or the new thread is not sampled (in that thread: the
	 * process is ending, or memory ran out).  Give back what COOKIE holds,
	 * such as a captured record's reference (culprit_ctx_release). */
	void (*release)(void *cookie);
	/* In a new thread, before it is sampled (COOKIE NULL for the main
	 * thread); and as it ends. */
	void (*thread_begin)(void *cookie);
	void (*thread_end)(void);
	/* In the child of fork(), which has only the forking thread. */
	void (*fork_child)(void);

	/* async-signal-safe: whether the runtime has tasks created and not
	 * yet started, which its waiting workers would run.  Asked at samples
	 * while some worker is CULPRIT_WAITING. */
	int (*tasks_pending)(void);

	/* async-signal-safe: the calling thread's native frames FRAME[0..N),
	 * innermost first, rewritten in place into the frames of the source
	 * they run (an interpreter's evaluation loop into the functions it
	 * evaluates), using at most CAP entries; returns the new count.  The
	 * frames are the thread's own, on its stack now: in its sample
	 * handler, or as it creates work (a capture).  They are those of the
	 * thread's current work; BEYOND[0..NBEYOND) are the frames on its
	 * stack past them (a runtime's, out to where the thread began), not
	 * to be rewritten but there to be counted.  WHOLE: the two reach the
	 * thread's first frame (else the stack goes on past them). */
	int (*logical_frames)(struct culprit_frame *frame, int n, int cap,
			      const struct culprit_frame *beyond, int nbeyond, int whole);

	/* The calling thread is about to block in a wait of KIND on OBJECT
	 * that its wrapper calls CAUSE: the plugin's better word for it from
	 * what the thread runs (a Python lock that Thread.join waits on is a
	 * join), or CAUSE.  Not in a sample handler. */
	enum culprit_idle_cause (*wait_cause)(enum culprit_idle_cause cause, unsigned kind,
					      const void *object);
};

#define CULPRIT_PLUGIN(ops)                                                  \
	static const struct culprit_plugin *const culprit_plugin_entry_##ops \
		__attribute__((used, section("culprit_plugins"))) = &(ops)

/* Worker accounting.  The collector keeps process-wide counts of working
 * workers and of idle workers by cause; a sample in a working worker adds
 * idleness = value * n_idle / n_working, split by cause.  A thread that
 * declares nothing is not a worker.  Lock-free and async-signal-safe. */
void culprit_worker_set(enum culprit_worker_state state, enum culprit_idle_cause cause);

/* The calling thread is a worker, working, by default: a state that any
 * declaration replaces, and that counts only until a runtime declares
 * its pool through the runtime API (whose threads it did not declare are
 * then no workers, as that API promises).  async-signal-safe. */
void culprit_worker_default(void);

/* The calling thread's state, and (if CAUSE) why it waits.
 * async-signal-safe. */
enum culprit_worker_state culprit_worker_get(enum culprit_idle_cause *cause);

/* The calling thread as a worker, for culprit_worker_recause (NULL: not a
 * sampled thread).  Valid until the thread ends. */
struct culprit_worker;
struct culprit_worker *culprit_worker_self(void);
/* Another thread's doing: if worker W is in state FROM_STATE for cause
 * FROM_CAUSE, it is now in TO_STATE for TO_CAUSE.  Returns whether it was.
 * For a runtime that knows better than a sleeping worker why it waits.
 * Lock-free. */
int culprit_worker_recause(struct culprit_worker *w, enum culprit_worker_state from_state,
			   enum culprit_idle_cause from_cause, enum culprit_worker_state to_state,
			   enum culprit_idle_cause to_cause);

/* Blocking waits.  A plugin that wraps a call that may block (a lock, a
 * condition variable, a join, a sleep) brackets the part that blocks with
 * culprit_block_begin and culprit_block_end.  A thread that was working
 * is idle for CAUSE in between, and the wait is counted at its site (the
 * return address into the caller of the wrapped call), object and kind:
 * how often, how long in all, the longest (the measurement's WAIT
 * section).  A thread in any other state (not a worker; idle or waiting
 * as its runtime said, such as an OpenMP worker in libomp's own sleep)
 * is left as it is and the wait is not counted: it is the runtime's.
 * Nothing is written that another thread writes.  async-signal-safe. */
enum culprit_block_kind {
	CULPRIT_BLOCK_MUTEX = 1,		/* pthread_mutex_*lock */
	CULPRIT_BLOCK_RWLOCK = 2,	/* pthread_rwlock_*lock */
	CULPRIT_BLOCK_SEMAPHORE = 3,	/* sem_*wait */
	CULPRIT_BLOCK_CONDITION = 4,	/* pthread_cond_*wait */
	CULPRIT_BLOCK_BARRIER = 5,	/* pthread_barrier_wait */
	CULPRIT_BLOCK_JOIN = 6,		/* pthread_*join* */
	CULPRIT_BLOCK_SLEEP = 7,		/* nanosleep and its relatives */
	CULPRIT_BLOCK_IO = 8,		/* read, poll, accept, ... (--io-idle) */
	/* MPI_Wait, MPI_Barrier, MPI_Recv, collectives: counted whatever
	 * runtime declares the thread (an OpenMP program's master thread) */
	CULPRIT_BLOCK_MPI = 9,
	CULPRIT_BLOCK_KINDS = 10
};

struct culprit_block {
	uint64_t start_ns;		/* CLOCK_MONOTONIC; 0: not counted */
	uintptr_t site;
	const void *object;
	unsigned kind;
};

/* Whether blocking waits are tracked in this process (culprit run
 * --no-waits turns it off), and whether blocking I/O counts as idleness
 * (--io-idle).  Both fixed before the program runs. */
int culprit_waits_tracked(void);
int culprit_io_idle(void);

/* Waits on any object in [OBJECT, OBJECT + SIZE) are for CAUSE, whatever
 * the wrapper that caught them says: a runtime's own lock, such as
 * CPython's GIL, known by where it lives.  For plugins' init hooks (a few
 * ranges in all).  Returns -1 when there is no room. */
int culprit_wait_cause(const void *object, size_t size, enum culprit_idle_cause cause);

/* The calling thread blocks in W, of KIND on OBJECT, called from SITE:
 * idle for CAUSE if it was working.  Returns whether it was. */
int culprit_block_begin(struct culprit_block *w, enum culprit_block_kind kind,
		       enum culprit_idle_cause cause, const void *object, const void *site);
/* The wait W ended: the thread works again, and the wait is counted. */
void culprit_block_end(struct culprit_block *w);
/* The calling thread, a worker by default (a plain pthread), waits off
 * the CPU for something that is no idleness (poll without --io-idle):
 * until culprit_away_end it is neither working nor idle, and holds no CPU
 * in the count of free ones.  Returns whether it was working (only then
 * call culprit_away_end).  async-signal-safe. */
int culprit_away_begin(void);
void culprit_away_end(void);

#endif
