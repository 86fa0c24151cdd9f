/* plugin.h - the interface between the collector core and unwind plugins.
 *
 * The core samples a thread, unwinds its native frames into a culprit_path
 * and then gives every active plugin the chance to rewrite that path into
 * the *logical* calling context: to elide runtime frames, to replace the
 * outer part of the path with the context that created a task or a thread
 * (a REF root), or to insert source-level frames of an interpreted language
 * (LOGICAL frames).  Plugins also keep the worker counts that idleness is
 * computed from (see culprit_workers_* below).
 *
 * A plugin is a folder under unwind-plugins/ whose code fills a
 * struct culprit_plugin and registers it with CULPRIT_PLUGIN(); the core
 * finds registered plugins through a linker section, so adding a plugin
 * changes no core file.  NULL hooks mean "not supported".  The ABI is
 * internal to one build of culprit and versioned with the collector.
 */
#ifndef CULPRIT_PLUGIN_H
#define CULPRIT_PLUGIN_H

#include <stdint.h>

#define CULPRIT_PLUGIN_ABI 1

/* One element of a path.  Native frames carry an address, which the core
 * maps to (module, offset) when it inserts the path; logical frames carry
 * a plugin-defined (module, key) pair that is stored as it is. */
struct culprit_frame {
	uint64_t addr;		/* FRAME: instruction address; LOGICAL: key */
	uint32_t module;	/* LOGICAL only: the plugin's namespace */
	uint8_t kind;		/* MFILE_NODE_FRAME or MFILE_NODE_LOGICAL */
	uint8_t flags;		/* MFILE_NODE_EXACT for an interrupted instruction */
};

/* A calling context, innermost frame first, below a root.  The root is the
 * thread's own root (MFILE_NODE_ROOT), a marker for paths that could not
 * be completed (MFILE_NODE_MARKER, root_key = enum mfile_marker), or a
 * logical root in another thread's tree (MFILE_NODE_REF, root_key = thread
 * seq << 32 | node). */
struct culprit_path {
	struct culprit_frame *frame;	/* frame[0] is the innermost */
	int n;				/* frames in use */
	int max;			/* capacity of frame[] */
	uint8_t root_kind;
	uint64_t root_key;
	const void *ucontext;		/* the interrupted context (ucontext_t) */
};

/* Worker states a thread can be in, as runtimes declare them. */
enum culprit_worker_state {
	CULPRIT_NOT_WORKER = 0,	/* not part of a worker pool: never idle */
	CULPRIT_WORKING = 1,	/* a worker running user code */
	CULPRIT_IDLE = 2,	/* a worker waiting for work */
};

struct culprit_plugin {
	const char *name;
	unsigned abi;		/* CULPRIT_PLUGIN_ABI */

	/* Process start, before any thread is sampled.  Returns nonzero to
	 * take part in this process (for example when its runtime is loaded). */
	int (*init)(void);
	/* Process end, before the measurement files are written. */
	void (*fini)(void);
	/* In a new thread, before it is sampled; and as it ends. */
	void (*thread_begin)(void);
	void (*thread_end)(void);
	/* In the child of fork(), which has only the forking thread. */
	void (*fork_child)(void);

	/* async-signal-safe: rewrite PATH in place into the logical context.
	 * Runs for every sample of a working thread. */
	void (*logical_unwind)(struct culprit_path *path);
};

#define CULPRIT_PLUGIN(ops)                                                  \
	static const struct culprit_plugin *const culprit_plugin_entry_##ops \
		__attribute__((used, section("culprit_plugins"))) = &(ops)

/* Worker accounting, for plugins and the runtime API.  The collector keeps
 * process-wide counts of workers and of working workers; a sample in a
 * working thread is charged idleness = value * n_idle / n_working.
 * All async-signal-safe and lock-free. */
void culprit_worker_set_state(enum culprit_worker_state state);
enum culprit_worker_state culprit_worker_state(void);

#endif
