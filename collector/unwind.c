/* unwind.c - native unwinding of an interrupted thread with libunwind.
 *
 * libunwind's fast path, unw_backtrace(), caches a frame description per
 * instruction address and walks a 30-frame stack in well under a
 * microsecond; stepping a cursor with unw_step() costs some 20 us on the
 * same stack.  libunwind 1.6 cannot start the fast path from a signal
 * context, so we call it from inside the handler and skip the handler's
 * own frames: the first frame whose address equals the interrupted
 * instruction pointer is where the program's path begins.  Frames without
 * unwind information are followed through the frame-pointer chain by
 * libunwind itself.
 *
 * The fast path reads stack memory without validating it.  Any fault while
 * unwinding is caught by our SIGSEGV/SIGBUS handler, which calls
 * culprit_unwind_fault() to jump back here; the frames gathered so far are
 * kept as a partial path (raw[] is kept zeroed between samples so that we
 * can tell how far the unwinder got).
 *
 * Frames in culprit's own code below the interrupted one (the thread
 * trampoline, culprit_task_run) are kept, flagged CULPRIT_FRAME_OURS: they
 * mark where work handed over by a runtime began (sample.c cuts the path
 * there, continues it with the logical context, then drops them).
 *
 * A path is complete when its outermost frame is the thread's root: for
 * threads we start, the outermost frame seen when the thread began; for
 * the main thread, the program's entry code (_start).
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "collector.h"

#include <libunwind.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ucontext.h>

#define SKIP_MAX 16	/* handler frames above the interrupted one */

/* Nonzero while libunwind runs for us outside a sample handler (setting
 * up); inside one, the thread's in_unwind says the same.  See pipe2(). */
static atomic_int unwinder_setup;
#define ENTRY_SPAN 64	/* _start calls __libc_start_main within this */

void culprit_unwind_process_init(void)
{
	/* Per-thread caches take no lock, where libunwind is built with them;
	 * Debian's is not, and makes this the global cache, whose lock is
	 * held across dl_iterate_phdr (see culprit_unwind).  Without a cache
	 * (UNW_CACHE_NONE) no lock is taken, but unw_backtrace's fast path
	 * gives up: a sample of a recursion cost 30 times more. */
	atomic_fetch_add(&unwinder_setup, 1);
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	atomic_fetch_sub(&unwinder_setup, 1);
}

/* async-signal-safe */
int culprit_unwinder_running(void)
{
	struct culprit_thread *t = culprit_thread_self();
	return atomic_load(&unwinder_setup) || (t && t->in_unwind);
}

#define SCRATCH_FIRST 4096u	/* raw and frame entries a thread starts with */

static size_t raw_bytes(uint32_t cap)
{
	return (size_t)cap * sizeof(void *);
}

static size_t frame_bytes(uint32_t cap)
{
	return (size_t)cap * sizeof(struct culprit_frame);
}

/* async-signal-safe */
int scratch_reserve(struct culprit_thread *t, uint32_t need)
{
	if (need <= t->scratch_cap)
		return 0;
	if (need > CULPRIT_UNWIND_MAX)
		return -1;
	uint32_t cap = t->scratch_cap ? t->scratch_cap : SCRATCH_FIRST;
	while (cap < need)
		cap = cap > CULPRIT_UNWIND_MAX / 2 ? CULPRIT_UNWIND_MAX : 2 * cap;
	/* Fresh mappings are zero, as raw must be between unwinds. */
	void **raw = culprit_map(raw_bytes(cap));
	struct culprit_frame *frame = culprit_map(frame_bytes(cap));
	if (!raw || !frame) {
		culprit_unmap(raw, raw_bytes(cap));
		culprit_unmap(frame, frame_bytes(cap));
		return -1;
	}
	/* A path being built keeps its frames (sample.c grows it mid-way). */
	if (t->frame)
		memcpy(frame, t->frame, frame_bytes(t->scratch_cap));
	culprit_unmap(t->raw, raw_bytes(t->scratch_cap));
	culprit_unmap(t->frame, frame_bytes(t->scratch_cap));
	t->raw = raw;
	t->frame = frame;
	t->scratch_cap = cap;
	return 0;
}

int scratch_init(struct culprit_thread *t)
{
	uint32_t prefix = culprit_config.max_depth + 1;
	if (t->prefix_cap < prefix) {
		culprit_unmap(t->prefix_key, (size_t)t->prefix_cap * sizeof *t->prefix_key);
		culprit_unmap(t->prefix_node, (size_t)t->prefix_cap * sizeof *t->prefix_node);
		t->prefix_key = culprit_map((size_t)prefix * sizeof *t->prefix_key);
		t->prefix_node = culprit_map((size_t)prefix * sizeof *t->prefix_node);
		t->prefix_cap = t->prefix_key && t->prefix_node ? prefix : 0;
		if (!t->prefix_cap)
			return -1;
	}
	return scratch_reserve(t, SCRATCH_FIRST);
}

void culprit_unwind_thread_init(struct culprit_thread *t, int is_main)
{
	void **buf = t->raw;
	int n;

	/* The first unw_backtrace() in a thread sets up its cache with
	 * pthread_once, pthread_setspecific and mmap: do that here rather
	 * than in the signal handler. */
	atomic_fetch_add(&unwinder_setup, 1);
	n = unw_backtrace(buf, (int)t->scratch_cap);
	atomic_fetch_sub(&unwinder_setup, 1);
	t->root_ip = 0;
	if (!is_main && n > 0 && n < (int)t->scratch_cap)
		t->root_ip = (uintptr_t)buf[n - 1];
	memset(buf, 0, raw_bytes(t->scratch_cap));
}

/* async-signal-safe */
void culprit_unwind_fault(const void *ucv)
{
	struct culprit_thread *t = culprit_thread_self();

	if (t && t->in_unwind) {
		t->in_unwind = 0;
		/* The fault handler runs with nearly every signal blocked,
		 * and the jump leaves it without the kernel restoring the
		 * mask: put back the one the fault interrupted.  (A guarded
		 * read may run outside any handler, as a capture does.) */
		const ucontext_t *uc = ucv;
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &uc->uc_sigmask, NULL, (size_t)_NSIG / 8);
		siglongjmp(t->unwind_jmp, 1);
	}
}

/* async-signal-safe */
int culprit_unwind_is_root(const struct culprit_thread *t, uintptr_t ip)
{
	if (t->root_ip)
		return ip == t->root_ip;
	return ip - culprit_process.entry < ENTRY_SPAN;
}

/* Unwinds into T->raw at most LIMIT frames, catching memory faults (the
 * frames gathered before one are kept).  Returns how many; *FAULTED says
 * whether a fault ended it.  async-signal-safe. */
static int backtrace_guarded(struct culprit_thread *t, int limit, int *faulted)
{
	void **raw = t->raw;
	volatile int n = 0;

	*faulted = 0;
	t->in_unwind = 1;
	if (sigsetjmp(t->unwind_jmp, 0) == 0) {
		n = unw_backtrace(raw, limit);
		t->in_unwind = 0;
	} else {
		*faulted = 1;
		t->counter[CNT_FAULTS]++;
		n = 0;
		while (n < limit && raw[n])
			n++;
	}
	return n;
}

/* PATH's frames: raw[K..N), the first of which is the interrupted one. */
static void frames_from_raw(struct culprit_thread *t, int k, int n, struct culprit_path *path)
{
	path->frame = t->frame;
	path->max = (int)t->scratch_cap;
	path->n = 0;
	for (int i = k; i < n; i++) {
		uintptr_t ip = (uintptr_t)t->raw[i];
		uint8_t flags = i == k ? MFILE_NODE_EXACT : 0;
		/* Our own frames (the thread trampoline, say) stay for now:
		 * they mark where work handed to us began. */
		if (i > k && culprit_in_collector(ip))
			flags |= CULPRIT_FRAME_OURS;
		path->frame[path->n++] = (struct culprit_frame){ ip, 0, MFILE_NODE_FRAME, flags };
	}
}

/* Frames a sample under a record looks at first: the work's own frames
 * usually end among them, however deep the tasks nest below. */
#define FIRST_LOOK 64

/* async-signal-safe */
enum unwind_status culprit_unwind(struct culprit_thread *t, const void *ucv,
				  struct culprit_path *path, const struct culprit_ctx *ctx)
{
	const ucontext_t *uc = ucv;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	int limit = ctx && FIRST_LOOK + SKIP_MAX < (int)t->scratch_cap ? FIRST_LOOK + SKIP_MAX
									: (int)t->scratch_cap;
	/* Inside dl_iterate_phdr the thread holds the loader's list lock.
	 * libunwind's register-state cache (global in Debian's build, which
	 * makes UNW_CACHE_PER_THREAD global) holds its lock while it calls
	 * dl_iterate_phdr: a thread doing so would wait for this one, and
	 * this handler for its cache lock, forever (an MPI rank dlclosing a
	 * component in MPI_Init while a new thread unwound).  The sample
	 * keeps the frame it interrupted. */
	if (t->in_loader_list) {
		path->frame = t->frame;
		path->max = (int)t->scratch_cap;
		path->frame[0] = (struct culprit_frame){ pc, 0, MFILE_NODE_FRAME, MFILE_NODE_EXACT };
		path->n = 1;
		return UNWIND_PARTIAL;
	}
	for (;;) {
		int faulted;
		int n = backtrace_guarded(t, limit, &faulted);
		int k = 0;
		while (k < n && k < SKIP_MAX && (uintptr_t)t->raw[k] != pc)
			k++;
		if (k >= n || k >= SKIP_MAX) {
			/* The unwinder did not get past the signal frame. */
			memset(t->raw, 0, raw_bytes((uint32_t)n));
			path->frame = t->frame;
			path->max = (int)t->scratch_cap;
			path->frame[0] = (struct culprit_frame){ pc, 0, MFILE_NODE_FRAME, MFILE_NODE_EXACT };
			path->n = 1;
			return UNWIND_PARTIAL;
		}
		frames_from_raw(t, k, n, path);
		uintptr_t outermost = (uintptr_t)t->raw[n - 1];
		memset(t->raw, 0, raw_bytes((uint32_t)n));
		if (n < limit || faulted)
			return faulted || !culprit_unwind_is_root(t, outermost) ? UNWIND_PARTIAL
										: UNWIND_COMPLETE;
		/* The stack goes on.  Under a record, its boundary may be here. */
		if (ctx && limit < (int)t->scratch_cap) {
			if (ctx_boundary(ctx, path->frame, path->n, 1) >= 0)
				return UNWIND_PARTIAL;
			limit = (int)t->scratch_cap;
			continue;
		}
		if (scratch_reserve(t, t->scratch_cap + 1) < 0)
			return UNWIND_TRUNCATED;	/* deeper than we look at all */
		limit = (int)t->scratch_cap;
	}
}

/* async-signal-safe */
int culprit_guarded(void (*fn)(void *arg), void *arg)
{
	struct culprit_thread *t = culprit_thread_self();
	if (!t || t->in_unwind)
		return -1;
	t->in_unwind = 1;
	if (sigsetjmp(t->unwind_jmp, 0) == 0) {
		fn(arg);
		t->in_unwind = 0;
		return 0;
	}
	/* culprit_unwind_fault() cleared in_unwind on its way here. */
	t->counter[CNT_LOGICAL_FAULTS]++;
	return -1;
}
