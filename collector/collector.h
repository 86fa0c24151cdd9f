/* collector.h - internal interfaces of the collector (libculprit.so).
 *
 * The collector is preloaded into the profiled program.  It samples every
 * thread with a real-time signal, unwinds the interrupted stack, lets the
 * unwind plugins turn it into a logical path, and adds the sample to the
 * thread's calling-context tree.  When a thread, an exec'd image or the
 * process ends, the trees and the load map go to the measurement directory.
 *
 * Reading order: process.c (lifecycle), thread.c (per-thread state),
 * source.c (timers and counters), sample.c (the signal handler), unwind.c,
 * cct.c (the trees), loadmap.c, writer.c, then the interposers
 * (interpose_*.c, signals.c) and workers.c.
 *
 * Rules for everything here: nothing that runs in a signal handler may
 * allocate, lock or use stdio (such functions say async-signal-safe); the
 * collector never aborts the program; every symbol is hidden unless it is
 * an interposed libc function or the runtime API (exports.map; plugins add
 * theirs, see unwind-plugins/README.md).
 */
#ifndef CULPRIT_COLLECTOR_H
#define CULPRIT_COLLECTOR_H

#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

#include "event_spec.h"
#include "mfile_format.h"
#include "plugin.h"
#include "settings.h"

#define HIDDEN __attribute__((visibility("hidden")))
#define EXPORT __attribute__((visibility("default")))

/* ---- configuration (process.c) ---------------------------------------- */

/* The most frames the unwinder looks at: past the depth limit
 * (common/settings.h), so that a path cut to the limit keeps its outermost
 * frames. */
#define CULPRIT_UNWIND_MAX (SETTING_MAX_DEPTH_MAX + CULPRIT_PATH_OUTER + 64)
#define CULPRIT_PATH_OUTER 64u		/* outermost frames a cut path keeps */

struct culprit_config {
	int active;			/* 1 when CULPRIT_OUTPUT names a directory */
	char outdir[PATH_MAX];		/* measurement directory, absolute */
	char preload[PATH_MAX];		/* this library, to keep in LD_PRELOAD */
	char experiment[64];		/* id of the `culprit run` invocation */
	struct event_spec events[EVENT_MAX];
	int nevents;
	int signo;			/* our real-time sample signal */
	uint32_t max_depth;		/* frames kept per sample */
	uint32_t max_nodes;		/* tree nodes per thread */
	uint32_t sample_lead_ns;	/* a sampled thread stops this long before
					   the kernel time-stamps the sample */
	int waits;			/* track blocking waits (CULPRIT_WAITS) */
	int io_idle;			/* blocking I/O is idleness (CULPRIT_IO_IDLE) */
	uint32_t cpus;			/* CPUs the process may run on, at its start
					   (0: unknown) */
	uint64_t snapshot_ns;		/* files rewritten this often while the
					   program runs (CULPRIT_SNAPSHOT_MS); 0: never */
	size_t trace_bytes;		/* most bytes of trace per thread
					   (CULPRIT_TRACE_MB); 0: no trace */
};
HIDDEN extern struct culprit_config culprit_config;

/* ---- metric columns ----------------------------------------------------- */

/* Each event has these columns in every thread's tree, in this order. */
enum {
	COL_SAMPLES = 0,	/* samples recorded */
	COL_WORK = 1,		/* sum of the event's measured deltas */
	COL_IDLENESS = 2,	/* work * n_idle / n_working, blamed here */
	COL_IDLE_CAUSE = 3,	/* the same split by cause: CULPRIT_IDLE_CAUSES columns */
	/* Samples taken in culprit's own work (callbacks, captures): their
	 * value, kept out of the program's work. */
	COL_MEASUREMENT = 3 + CULPRIT_IDLE_CAUSES,
	COLS_PER_EVENT
};
HIDDEN extern const char *const culprit_column_names[COLS_PER_EVENT];
#define NCOLUMNS (culprit_config.nevents * COLS_PER_EVENT)

/* ---- the process image (process.c) ------------------------------------ */

struct culprit_process {
	uint64_t nonce;			/* names this image in its thread files */
	pid_t pid, ppid;
	uint32_t generation;		/* exec count within this pid */
	int32_t mpi_rank;
	char rank_source[32];
	uint64_t start_realtime_ns, start_monotonic_ns;
	atomic_int finishing;		/* finish has begun for this generation */
	atomic_int finisher;		/* the thread doing it (tid) */
	atomic_int finished;		/* and it has written everything */
	/* Snapshots of the process file (writer.c): its name once claimed
	 * (suffix + 1), when the next is due, and who is writing one. */
	atomic_int file_suffix;
	int spare;			/* its spare file was made (writer.c) */
	_Atomic uint64_t next_snapshot_ns;
	atomic_int snapshotting;
	int exit_status;		/* from exit(); -1 unknown */
	uintptr_t text_start, text_end;	/* our own code, whose samples are dropped */
	uintptr_t entry;		/* the program's entry point (AT_ENTRY) */
	char argv[8192];		/* NUL-separated, from /proc/self/cmdline */
	size_t argv_len;
	char cwd[PATH_MAX];
	char exe[PATH_MAX];
	char host[256];
	atomic_uint thread_seq;		/* next thread's sequence number */
	atomic_uint threads_measured;
};
HIDDEN extern struct culprit_process culprit_process;

/* Ends this process image: stops sampling in every thread and writes every
 * thread's file and the process file.  Runs once per generation; later
 * calls return at once.  async-signal-safe (fatal signals call it). */
HIDDEN void culprit_process_finish(uint32_t reason, int status);
/* exec support: finish before the exec, start a new generation if it fails. */
HIDDEN void culprit_process_before_exec(void);
HIDDEN void culprit_process_after_failed_exec(void);
/* Nonzero in the process that initialised the collector (not a vfork child). */
HIDDEN int culprit_process_is_self(void);
/* Records the status passed to exit(). */
HIDDEN void culprit_process_note_exit(int status);

/* ---- the calling-context tree (cct.c) ---------------------------------- */

#define CCT_NONE 0xffffffffu

/* A record chain's place in a thread's tree: the node its frames lead to,
 * remembered per thread by the chain's content (path.c). */
#define RECORD_NODES 256
struct record_node {
	uint64_t chain;		/* the chain (ctx_chain); 0: none */
	uint32_t node;		/* its innermost frame's node */
	uint32_t depth;		/* frames from the root to it */
	uint32_t gen;		/* load map generation it was found with */
};

struct cct_node {
	uint32_t parent;	/* CCT_NONE for the root */
	uint8_t kind;		/* enum mfile_node_kind */
	uint8_t flags;		/* MFILE_NODE_* */
	uint16_t reserved;
	uint32_t module;
	uint32_t reserved2;
	uint64_t key;
	double metric[];	/* NCOLUMNS values, exclusive */
};

/* A thread's samples in time order (trace.c): the TRAC section's records
 * and what the next record is encoded against. */
struct trace {
	unsigned char *buf;	/* mmap; NULL until the first record */
	size_t len, cap;	/* bytes used, mapped */
	uint64_t records, dropped;
	uint64_t base_ns, last_ns;	/* CLOCK_MONOTONIC */
	int64_t last_gap;
	uint64_t last_value[EVENT_MAX];
	uint32_t last_node, last_working, last_idle;
};

struct cct {
	unsigned char *nodes;	/* node i at nodes + i * node_size (mmap) */
	size_t node_size;
	uint32_t count;		/* nodes in use; node 0 is the root */
	uint32_t capacity;	/* nodes mapped */
	uint32_t limit;		/* most nodes allowed */
	uint32_t *table;	/* open-addressing hash: node ids, 0 = empty */
	uint32_t table_mask;
	uint32_t ncolumns;
	int limit_hit;		/* a sample was dropped for want of nodes */
	/* The samples over time: its node numbers mean something only with
	 * this tree, so it is made and freed with it. */
	struct trace trace;
};

/* Maps an empty tree with NCOLUMNS metrics per node.  Returns 0 or -1.
 * Not for signal handlers (it may be; mmap is safe, but callers should
 * not need it there). */
HIDDEN int cct_init(struct cct *c, uint32_t ncolumns, uint32_t limit);
HIDDEN void cct_destroy(struct cct *c);
/* Finds or adds the child of PARENT with this identity.  Returns its id,
 * or CCT_NONE when the tree is at its limit or memory cannot be mapped.
 * async-signal-safe. */
HIDDEN uint32_t cct_child(struct cct *c, uint32_t parent, uint8_t kind,
			  uint8_t flags, uint32_t module, uint64_t key);
static inline struct cct_node *cct_node(const struct cct *c, uint32_t id)
{
	return (struct cct_node *)(c->nodes + (size_t)id * c->node_size);
}

/* ---- the trace (trace.c) ------------------------------------------------ */

/* The working threads and the idle ones a sample's blame counted
 * (idle_share.c). */
struct idle_moment {
	uint32_t working, idle;
};
/* Appends a sample of event EV taken at NOW (CLOCK_MONOTONIC): its VALUE,
 * its NODE (ignored for idle states), the thread's STATE (enum
 * mfile_trace_state) and, if M, the counts its blame used.
 * async-signal-safe. */
HIDDEN void trace_add(struct trace *tr, uint64_t now, int ev, uint64_t value, uint32_t node,
		      unsigned state, const struct idle_moment *m);
struct mfile_writer;
/* The TRAC section, if anything was traced.  async-signal-safe. */
HIDDEN void trace_write(struct mfile_writer *w, const struct trace *tr);
HIDDEN void trace_free(struct trace *tr);

/* ---- sample sources (source.c) ----------------------------------------- */

struct perf_event_mmap_page;

struct sample_source {
	int kind;			/* enum mfile_event_source; 0 = not open */
	int fd;				/* perf_event fd, -1 if none */
	uint64_t perf_id;		/* kernel id of the event, to recognise fd */
	struct perf_event_mmap_page *ring;	/* perf ring, or NULL (use read) */
	size_t ring_size;		/* bytes mapped, header page included */
	timer_t timer;			/* POSIX timer */
	int timer_armed;
	uint64_t timer_period;		/* ns */
	uint64_t last;			/* counter or clock value at the last sample */
	int timed;			/* perf records carry their CLOCK_MONOTONIC time */
};

/* Opens event EV for the calling thread (TID) and starts it.  Returns 0,
 * or -1 with errno set.  Not async-signal-safe. */
HIDDEN int source_open(struct sample_source *s, const struct event_spec *ev,
		       int index, pid_t tid);
/* Stops S; callable from any thread of the process.  async-signal-safe. */
HIDDEN void source_stop(struct sample_source *s);
/* Starts S again after source_stop.  async-signal-safe. */
HIDDEN void source_restart(struct sample_source *s);
/* Releases S after source_stop.  async-signal-safe. */
HIDDEN void source_close(struct sample_source *s);
/* In a fork child: drops S without touching the parent's event. */
HIDDEN void source_forget(struct sample_source *s);
/* Which of the thread's sources sent signal INFO: the source index, or -1
 * if it was not a sample of ours.  async-signal-safe. */
HIDDEN int source_identify(struct sample_source *src, int n, const siginfo_t *info);
/* The event's measured value since the last sample, into *DELTA, and the
 * CLOCK_MONOTONIC time at which the sample was taken into *WHEN (0 when
 * the source does not say: timers).  Returns 0, or -1 when there was
 * nothing new (a duplicate signal).  async-signal-safe. */
HIDDEN int source_delta(struct sample_source *s, uint64_t *delta, uint64_t *when);

/* ---- threads (thread.c) -------------------------------------------------- */

enum thread_state {
	THREAD_FREE = 0,	/* slot unused */
	THREAD_SETUP,		/* being set up by its thread */
	THREAD_LIVE,		/* sampled */
	THREAD_BUSY,		/* in the sample handler */
	THREAD_CLOSING,		/* being written out */
	THREAD_CLOSED,		/* written; the thread may still run, unsampled */
};

enum thread_counter {
	CNT_SIGNALS,		/* sample signals received */
	CNT_SAMPLES,		/* samples recorded in the tree */
	CNT_IDLE,		/* samples while the thread was an idle worker */
	CNT_MEASUREMENT,	/* landed in culprit's own work: the measurement metric */
	CNT_DROP_BUSY,		/* came while the thread unwound for a capture */
	CNT_DROP_MEMORY,	/* the tree was at its node limit */
	CNT_DROP_EMPTY,		/* duplicate signal: no new counter value */
	CNT_FOREIGN,		/* our signal number, but not from our sources */
	CNT_PARTIAL,		/* unwinds that stopped before the thread's root */
	CNT_TRUNCATED,		/* unwinds deeper than the depth cap */
	CNT_FAULTS,		/* memory faults caught while unwinding */
	CNT_UNKNOWN_FRAMES,	/* frames outside every known module */
	CNT_HANDLER_NS,		/* time spent in our sample handler */
	CNT_CAPTURES,		/* logical context records made on the thread */
	CNT_CAPTURES_UNWOUND,	/* ... of which by unwinding (the rest remembered) */
	CNT_CTX_FREED,		/* records whose last reference the thread dropped */
	CNT_WORKER_CHANGES,	/* worker states declared: idleness was tracked */
	CNT_WAITS_LOST,		/* waits not counted: the thread's table was full */
	CNT_TASKS_LOST,		/* tasks not counted: the thread's table of types was full */
	CNT_THROTTLED,		/* signals passed over: the handler's time was over budget */
	CNT_LOGICAL_FAULTS,	/* plugins' guarded reads that faulted (culprit_guarded) */
	CNT_NAMES_LOST,		/* logical frames left unnamed: the thread's names were full */
	CNT_DROP_OVERFLOW,	/* lost to a full signal queue: the kernel's SIGIO instead */
	CNT_MAX
};
HIDDEN extern const char *const culprit_counter_names[CNT_MAX];


struct culprit_thread {
	_Atomic int state;		/* enum thread_state */
	struct culprit_thread *next;	/* registry list; never unlinked */
	int finish_owned;		/* claimed by culprit_process_finish() */
	uint32_t seq;			/* 0 = main thread */
	pid_t tid;
	uint32_t end_reason;
	uint64_t start_realtime_ns, end_realtime_ns;
	uint32_t creator_seq, creator_node;	/* for plugins; MFILE_NONE */
	char name[16];			/* its name, taken as it ended; "" until then */
	uintptr_t root_ip;		/* outermost frame of a complete unwind */
	struct cct cct;
	struct sample_source src[EVENT_MAX];
	uint64_t counter[CNT_MAX];
	_Atomic(struct culprit_ctx *) ctx;	/* the record the thread's work runs under */
	struct ctx_pool *ctx_pool;	/* where its records come from; kept with the slot */
	struct capture_memo *capture_memo;	/* remembered captures (capture.c); kept */
	double idle_value[EVENT_MAX];	/* event value in idle samples */
	double idle_cause_value[EVENT_MAX][CULPRIT_IDLE_CAUSES];	/* ... by cause */
	int fallback_errno[EVENT_MAX];	/* nonzero: a timer replaced perf_event */
	struct worker_slot *worker_slot;	/* its worker state (workers.c); NULL: no worker */
	struct wait_table *waits;	/* where it blocked (waits.c); kept with the slot */
	struct task_table *tasks;	/* its tasks by type (tasks.c); kept with the slot */
	struct name_table *names;	/* its logical frames' names (names.c); kept */
	volatile sig_atomic_t in_unwind;	/* a fault now is ours to catch */
	/* Inside glibc's dl_iterate_phdr, called by us or by the program:
	 * the thread holds the loader's list lock (loadmap.c, unwind.c). */
	volatile sig_atomic_t in_loader_list;
	sigjmp_buf unwind_jmp;		/* where a fault in the unwinder lands */
	uint64_t wakeups;		/* samples taken; lets sleeps restart */
	uintptr_t sample_pc;		/* in its handler: where it interrupted */
	int64_t handler_credit_ns;	/* handler time it may still take (throttle) */
	uint64_t handler_seen_ns;	/* its CPU time at its handler's last start */
	void *altstack;			/* our sigaltstack, if we made one */
	/* Scratch for the sample path, mapped per thread slot and kept with
	 * it; it grows as deep stacks need (scratch_reserve). */
	void **raw;			/* native return addresses; kept all zero */
	struct culprit_frame *frame;	/* the path being built */
	uint32_t scratch_cap;		/* entries of raw and of frame */
	/* The last sample's path, root first, to skip the shared prefix. */
	uint64_t *prefix_key;		/* prefix_key_of (path.c) */
	uint32_t *prefix_node;
	uint32_t prefix_cap;		/* entries of both: max_depth + 1 */
	uint32_t prefix_len;
	uint32_t prefix_root;		/* tree node the prefix hangs from */
	uint32_t prefix_map_gen;	/* load map generation it was made with */
	struct record_node record_node[RECORD_NODES];	/* record chains' nodes (path.c) */
	/* Snapshots (writer.c): its file's name once claimed (the ~N suffix
	 * + 1; 0: not yet), and when the next snapshot is due (0: not
	 * planned yet). */
	int file_suffix;
	uint64_t next_snapshot_ns;
};

/* The calling thread's state, or NULL if it is not sampled: an
 * initial-exec TLS pointer (safe in signal handlers because this library
 * is preloaded).  async-signal-safe. */
HIDDEN extern __thread struct culprit_thread *culprit_self
	__attribute__((tls_model("initial-exec")));
static inline struct culprit_thread *culprit_thread_self(void)
{
	return culprit_self;
}
/* Starts sampling the calling thread; COOKIES are what the plugins left at
 * its creation (NULL: none), handed to them, or given back to them
 * (plugins_release) when the thread is not sampled.  Returns its state or
 * NULL. */
HIDDEN struct culprit_thread *culprit_thread_begin(int is_main, void *cookies[]);
/* Stops sampling the calling thread and writes its file. */
HIDDEN void culprit_thread_end(uint32_t reason);
/* Moves T to CLOSING if it is live, waiting out a sample in progress on
 * another thread.  Returns 1 if the caller now owns writing T.
 * async-signal-safe. */
HIDDEN int culprit_thread_claim(struct culprit_thread *t);
/* Stops T's sources, writes its file, marks it CLOSED.  T must be claimed.
 * async-signal-safe. */
HIDDEN void culprit_thread_close(struct culprit_thread *t, uint32_t reason);
/* Head of the registry of all thread slots. */
HIDDEN struct culprit_thread *culprit_thread_list(void);
/* After fork, in the child: forget the other threads and restart this one. */
HIDDEN void culprit_thread_fork_child(void);
/* After a failed exec: samples every thread again, in the new generation. */
HIDDEN void culprit_thread_reopen_all(void);
/* Once per process, before the first thread begins. */
HIDDEN void culprit_thread_process_init(void);
/* Sets the stack and mask state the sample signal needs on this thread. */
HIDDEN void culprit_thread_signal_setup(struct culprit_thread *t);

/* ---- the sample path (sample.c, unwind.c) -------------------------------- */

/* A calling context, innermost frame first, below a root.  The root is the
 * thread's own root (MFILE_NODE_ROOT), a marker for paths that could not
 * be completed (MFILE_NODE_MARKER, root_key = enum mfile_marker), or a
 * logical root in another thread's tree (MFILE_NODE_REF). */
/* A frame as a record keeps it, in one word: a native frame's address,
 * or a logical frame with bit 63 set, its namespace in bits 56-62 and
 * its key below (plugin.h: keys fit in CULPRIT_LOGICAL_KEY_BITS). */
#define FRAME_WORD_LOGICAL (1ull << 63)

static inline uint64_t frame_word(const struct culprit_frame *f)
{
	if (f->kind != MFILE_NODE_LOGICAL)
		return f->addr;
	return FRAME_WORD_LOGICAL | (uint64_t)(f->module & CULPRIT_LOGICAL_NAMESPACES) << 56 |
	       (f->addr & ((1ull << CULPRIT_LOGICAL_KEY_BITS) - 1));
}

static inline struct culprit_frame word_frame(uint64_t w)
{
	if (!(w & FRAME_WORD_LOGICAL))
		return (struct culprit_frame){ w, 0, MFILE_NODE_FRAME, 0 };
	return (struct culprit_frame){ w & ((1ull << CULPRIT_LOGICAL_KEY_BITS) - 1),
				       (uint32_t)(w >> 56) & CULPRIT_LOGICAL_NAMESPACES,
				       MFILE_NODE_LOGICAL, 0 };
}

struct culprit_path {
	struct culprit_frame *frame;	/* frame[0] is the innermost */
	int n;				/* frames in use */
	int max;			/* capacity of frame[] */
	uint8_t root_kind;
	uint64_t root_key;
	const void *ucontext;		/* the interrupted context (ucontext_t) */
	int cut;			/* frames were left out in the middle, where a
					   MFILE_NODE_MARKER frame stands */
};

/* Unwinds the sample interrupted at UC, places it in its logical context
 * and inserts it into T's tree: the leaf node, or CCT_NONE when the tree
 * is full.  OURS: the sample is culprit's own work (its path starts where
 * the program called culprit).  *MARKER: how the path was cut, if it was.
 * async-signal-safe. */
HIDDEN uint32_t path_sample_node(struct culprit_thread *t, const ucontext_t *uc, int ours,
				 enum mfile_marker *marker);
/* The handler of our sample signal.  async-signal-safe. */
HIDDEN void culprit_sample_handler(int sig, siginfo_t *info, void *uc);
/* What an unwind found out beyond its frames. */
enum unwind_status {
	UNWIND_COMPLETE,	/* reached the thread's root */
	UNWIND_PARTIAL,		/* stopped short of it (no information, a fault) */
	UNWIND_TRUNCATED,	/* deeper than the depth cap */
};
/* Unwinds the interrupted context UC into PATH (whose frames are T's
 * scratch): native frames, innermost first, culprit's own marked
 * CULPRIT_FRAME_OURS.  Under record CTX (NULL: none), only the innermost
 * frames are looked at when CTX's boundary is among them (UNWIND_PARTIAL
 * then; the boundary cuts the rest anyway).  async-signal-safe. */
HIDDEN enum unwind_status culprit_unwind(struct culprit_thread *t, const void *uc,
					 struct culprit_path *path, const struct culprit_ctx *ctx);
/* Prepares libunwind for this thread outside signal context and records
 * the thread's root frame.  Not async-signal-safe. */
HIDDEN void culprit_unwind_thread_init(struct culprit_thread *t, int is_main);
/* Maps T's scratch for the sample path (raw, frame, prefix), or keeps
 * what its slot has.  Returns 0 or -1.  Not in signal handlers. */
HIDDEN int scratch_init(struct culprit_thread *t);
/* Grows T's raw and frame scratch to at least NEED entries (up to
 * CULPRIT_UNWIND_MAX).  Returns 0 or -1.  async-signal-safe. */
HIDDEN int scratch_reserve(struct culprit_thread *t, uint32_t need);
/* Called from the SIGSEGV/SIGBUS handler: if the fault happened while this
 * thread was unwinding, abandons the unwind (does not return).
 * async-signal-safe. */
HIDDEN void culprit_unwind_fault(const void *uc);
HIDDEN void culprit_unwind_process_init(void);
/* Whether IP is the outermost frame of a complete unwind of T.
 * async-signal-safe. */
HIDDEN int culprit_unwind_is_root(const struct culprit_thread *t, uintptr_t ip);

/* ---- logical context records (context.c) --------------------------------- */

/* The boundary of CTX's work in FRAME[0..N) (see culprit_boundary_fn).
 * async-signal-safe. */
HIDDEN int ctx_boundary(const struct culprit_ctx *ctx, const struct culprit_frame *frame, int n,
			int partial);
/* Appends CTX's frames and its ancestors' to PATH.  When they do not all
 * fit in PATH->max, the middle ones are left out for a truncation marker,
 * the outermost CULPRIT_PATH_OUTER kept, and PATH->cut set.
 * async-signal-safe. */
HIDDEN void ctx_append(const struct culprit_ctx *ctx, struct culprit_path *path);
/* The frames of CTX and its ancestors.  async-signal-safe. */
HIDDEN size_t ctx_chain_frames(const struct culprit_ctx *ctx);
HIDDEN int ctx_complete(const struct culprit_ctx *ctx);
/* culprit_ctx_capture, also skipping SKIP frames after the runtime's. */
HIDDEN struct culprit_ctx *ctx_capture(int (*runtime)(uint64_t addr), int skip,
				       culprit_boundary_fn boundary, unsigned flags);
/* A new record of thread T holding one reference: the N return addresses
 * FRAME (innermost first) under T's current record; COMPLETE says whether
 * they reach T's root when T has no record.  NULL without memory. */
HIDDEN struct culprit_ctx *ctx_new(struct culprit_thread *t, const uint64_t *frame, int n,
				   int complete, culprit_boundary_fn boundary, unsigned flags);
/* A record's parent, the hash of its chain's frames and completeness (the
 * same for chains that place work alike), and its frames (innermost
 * first).  async-signal-safe. */
HIDDEN const struct culprit_ctx *ctx_parent(const struct culprit_ctx *ctx);
HIDDEN uint64_t ctx_chain(const struct culprit_ctx *ctx);
HIDDEN uint32_t ctx_nframes(const struct culprit_ctx *ctx);
HIDDEN const uint64_t *ctx_frames(const struct culprit_ctx *ctx, uint32_t *n);
/* The boundary rule of CTX's work; NULL for no record. */
HIDDEN culprit_boundary_fn ctx_rule(const struct culprit_ctx *ctx);
/* Forgets the captures a thread remembered (its slot serves a new thread). */
HIDDEN void capture_forget(struct capture_memo *memo);
/* Nonzero while libunwind works for the collector on this thread.
 * async-signal-safe. */
HIDDEN int culprit_unwinder_running(void);

/* ---- the load map (loadmap.c) ------------------------------------------- */

/* Records the modules mapped now.  Returns 0 or -1.  Not async-signal-safe. */
HIDDEN int loadmap_init(void);
/* Brings the map up to date with the dynamic linker's list.  FROM_SIGNAL
 * makes it give up rather than wait when another thread is updating.
 * async-signal-safe. */
HIDDEN void loadmap_refresh(int from_signal);
/* Maps ADDR to a module id and the address in that module's ELF terms.
 * Returns 0 when ADDR is in no known module.  async-signal-safe. */
HIDDEN uint32_t loadmap_lookup(uintptr_t addr, uint64_t *offset);
/* Whether PC is in libc or the dynamic loader, whose code may be taking
 * or releasing the loader's list lock: a handler that interrupted it must
 * not call glibc's dl_iterate_phdr.  async-signal-safe. */
HIDDEN int loadmap_may_hold_loader_lock(uintptr_t pc);
/* Changes whenever a module goes away, so cached translations go stale. */
HIDDEN uint32_t loadmap_generation(void);
/* Writes the MODS section.  async-signal-safe. */
struct mfile_writer;
HIDDEN void loadmap_write(struct mfile_writer *w);
/* Saves the vdso image into the measurement directory. */
HIDDEN void loadmap_save_vdso(void);
/* After fork: the child keeps the parent's map. */
HIDDEN void loadmap_fork_child(void);

/* ---- writing (writer.c) ---------------------------------------------------- */

/* As the "reason" of the writers: a snapshot written while the program
 * runs (end reason UNKNOWN, and a SNAP section with the time). */
#define WRITER_SNAPSHOT 0xffffffffu
/* A thread's file, as it ended for REASON (its end fields as the thread
 * left them), or a snapshot (WRITER_SNAPSHOT). */
HIDDEN int writer_thread_file(struct culprit_thread *t, uint32_t reason);
HIDDEN int writer_process_file(uint32_t reason, int status);
/* Sets space aside, in the measurement directory, for the process file
 * written at the end, for when the disk is full by then.  As an image
 * starts.  Not async-signal-safe (it runs in constructors and fork). */
HIDDEN void writer_reserve(void);
/* From thread T's sample handler (T busy) at monotonic time NOW: rewrites
 * T's file, and the process's, when a snapshot is due, so that a process
 * that is killed keeps its measurements up to about a second before. */
HIDDEN void writer_snapshot(struct culprit_thread *t, uint64_t now);

/* ---- plugins and workers (plugin.c, workers.c) ----------------------------- */

/* The most plugins taking part in a process; cookie arrays have this size. */
#define MAX_PLUGINS 16
/* Calls every linked plugin's init, at collector start, and keeps those that
 * take part; then their fini, at process end. */
HIDDEN void plugins_init(void);
HIDDEN void plugins_fini(void);
/* In a thread about to create another: fills COOKIES[MAX_PLUGINS], which
 * go either to plugins_thread_begin in the new thread or, when that thread
 * will not be sampled or was not made, to plugins_release. */
HIDDEN void plugins_thread_create(void *cookies[]);
HIDDEN void plugins_release(void *cookies[]);
/* In a new sampled thread (COOKIES NULL: none, the main thread). */
HIDDEN void plugins_thread_begin(void *cookies[]);
HIDDEN void plugins_thread_end(void);
HIDDEN void plugins_fork_child(void);
/* Whether some plugin's runtime has tasks queued.  async-signal-safe. */
HIDDEN int plugins_tasks_pending(void);
/* A blocking wait's cause as the plugins see it (their wait_cause hooks). */
HIDDEN enum culprit_idle_cause plugins_wait_cause(enum culprit_idle_cause cause, unsigned kind,
					       const void *object);
/* Whether a plugin taking part rewrites native frames into logical ones,
 * and the rewrite (plugin.h, logical_frames) of the thread's current
 * work's frames PATH[0..B): the frames after B move along.  WHOLE: the
 * path reaches the thread's first frame.  Returns the new B.
 * async-signal-safe. */
HIDDEN int plugins_rewrite(void);
HIDDEN int plugins_logical_frames(struct culprit_path *path, int b, int whole);

/* Snapshot of the worker counts. */
struct worker_counts {
	uint32_t working;
	uint32_t idle[CULPRIT_IDLE_CAUSES];
	uint32_t waiting[CULPRIT_IDLE_CAUSES];	/* in a runtime wait, by cause */
	uint32_t nwaiting;
};
/* The idle threads at a moment of counts N (PENDING: tasks are queued):
 * at most the CPUs the working threads leave free; *WORKING gets the
 * working threads, SHARE each cause's part of the idle ones (fractions
 * that add up to the result).  idle_share.c.  async-signal-safe */
HIDDEN uint32_t idle_share(const struct worker_counts *n, int pending, uint32_t *working,
			   double share[CULPRIT_IDLE_CAUSES]);
/* The counts as they were at stamp AT (see culprit_stamp_at; 0: as they
 * are now), but for SELF (the sampled thread, or NULL), counted in its
 * state now.  async-signal-safe */
HIDDEN void workers_counts(struct worker_counts *out, uint64_t at,
			   const struct culprit_thread *self);
/* Thread T's worker state and (if CAUSE) its cause.  async-signal-safe. */
HIDDEN enum culprit_worker_state workers_state(const struct culprit_thread *t,
					       enum culprit_idle_cause *cause);
HIDDEN void workers_thread_end(struct culprit_thread *t);
/* A runtime declared its worker pool through the runtime API: from now
 * on, threads whose state is only the pthreads default are no workers. */
HIDDEN void workers_pool_declared(void);
/* Whether T's state is the pthreads default, not a runtime's word.
 * async-signal-safe. */
HIDDEN int workers_by_default(const struct culprit_thread *t);
/* T (the calling thread) is in STATE for CAUSE, a default if its state
 * was one (a blocking wait's).  async-signal-safe. */
HIDDEN void workers_set_keeping(struct culprit_thread *t, enum culprit_worker_state state,
				enum culprit_idle_cause cause);

/* ---- blocking waits (waits.c) ---------------------------------------------- */

struct mfile_writer;
/* Writes T's WAIT section, if it waited.  async-signal-safe. */
HIDDEN void waits_write(struct mfile_writer *w, const struct culprit_thread *t);
/* Empties T's table of wait sites, for the next thread in its slot. */
HIDDEN void waits_forget(struct culprit_thread *t);

/* ---- task sizes and waits (tasks.c) ---------------------------------------- */

/* Writes T's TASK section, if it ran tasks a plugin reported. */
HIDDEN void tasks_write(struct mfile_writer *w, const struct culprit_thread *t);
/* Empties T's table of task types, for the next thread in its slot. */
HIDDEN void tasks_forget(struct culprit_thread *t);
/* names.c: the thread's names of logical frames, into its file (LNAM);
 * emptied for a new thread in the slot. */
HIDDEN void names_write(struct mfile_writer *w, const struct culprit_thread *t);
HIDDEN void names_forget(struct culprit_thread *t);
HIDDEN void workers_fork_child(void);

/* ---- signals (signals.c) ------------------------------------------------- */

/* Installs our handlers: the sample signal, and flushing handlers for the
 * signals whose default action ends the process. */
HIDDEN int signals_init(void);
/* Calls the program's own handler for SIG, if it installed one for our
 * sample signal number.  async-signal-safe. */
HIDDEN void signals_forward_foreign(int sig, siginfo_t *info, void *uc);
HIDDEN void signals_fork_child(void);

/* ---- the real libc functions (real.c, real.h) ------------------------------ */

/* Looks up the next definition of NAME after ours; NULL if none. */
HIDDEN void *culprit_real(const char *name);

/* ---- interposers (interpose_*.c) ------------------------------------------ */

/* Copies our CULPRIT_* settings from the environment, for exec. */
HIDDEN void culprit_env_save(void);

/* ---- utilities (util.c) ------------------------------------------------------ */

/* Signal-safe formatting: %s %c %d %u %x %ld %lu %lx %lld %llu %llx %zu %p
 * and %%.  Always NUL-terminates; returns the length written. */
HIDDEN size_t culprit_format(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Writes "culprit: <message>\n" to standard error.  async-signal-safe. */
HIDDEN void culprit_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
HIDDEN uint64_t culprit_now_realtime(void);
HIDDEN uint64_t culprit_now_monotonic(void);
/* Time stamps: the CPU's time stamp counter, a few cycles to read and, on
 * the constant-rate, synchronised counters of x86-64 machines, comparable
 * across threads.  They order worker state changes against samples.
 * async-signal-safe. */
static inline uint64_t culprit_stamp(void)
{
	return __builtin_ia32_rdtsc();
}
/* The stamp of WHEN_NS, a CLOCK_MONOTONIC time of the recent past, given
 * that it is NOW_NS now; 0 when that cannot be told yet (the counter's rate
 * is measured against the clock over the process's life).
 * async-signal-safe. */
HIDDEN uint64_t culprit_stamp_at(uint64_t when_ns, uint64_t now_ns);
/* The reference point for culprit_stamp_at, at process start. */
HIDDEN void culprit_stamp_init(void);
HIDDEN pid_t culprit_gettid(void);
HIDDEN pid_t culprit_getpid(void);
/* Anonymous memory straight from the kernel.  async-signal-safe. */
HIDDEN void *culprit_map(size_t size);
HIDDEN void culprit_unmap(void *p, size_t size);

#endif
