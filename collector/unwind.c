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
#include <string.h>
#include <ucontext.h>

#define SKIP_MAX 16	/* handler frames above the interrupted one */

/* Nonzero while libunwind runs for us outside a sample handler (setting
 * up); inside one, the thread's in_unwind says the same.  See pipe2(). */
static atomic_int unwinder_setup;
#define ENTRY_SPAN 64	/* _start calls __libc_start_main within this */

void culprit_unwind_process_init(void)
{
	/* The global cache takes a lock with signals blocked on every step;
	 * per-thread caches need neither. */
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

void culprit_unwind_thread_init(struct culprit_thread *t, int is_main)
{
	void **buf = t->raw;
	int n;

	/* The first unw_backtrace() in a thread sets up its cache with
	 * pthread_once, pthread_setspecific and mmap: do that here rather
	 * than in the signal handler. */
	atomic_fetch_add(&unwinder_setup, 1);
	n = unw_backtrace(buf, CULPRIT_MAX_DEPTH_LIMIT);
	atomic_fetch_sub(&unwinder_setup, 1);
	t->root_ip = 0;
	if (!is_main && n > 0 && n < CULPRIT_MAX_DEPTH_LIMIT)
		t->root_ip = (uintptr_t)buf[n - 1];
	memset(buf, 0, sizeof t->raw);
}

/* async-signal-safe */
void culprit_unwind_fault(void)
{
	struct culprit_thread *t = culprit_thread_self();

	if (t && t->in_unwind) {
		t->in_unwind = 0;
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

/* async-signal-safe */
enum unwind_status culprit_unwind(struct culprit_thread *t, const void *ucv,
				  struct culprit_path *path)
{
	const ucontext_t *uc = ucv;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	void **raw = t->raw;
	int cap = (int)culprit_config.max_depth + SKIP_MAX;
	volatile int faulted = 0;
	int n = 0;

	t->in_unwind = 1;
	if (sigsetjmp(t->unwind_jmp, 0) == 0) {
		n = unw_backtrace(raw, cap);
		t->in_unwind = 0;
	} else {
		faulted = 1;
		t->counter[CNT_FAULTS]++;
		n = 0;
		while (n < cap && raw[n])
			n++;
	}

	int k = 0;
	while (k < n && k < SKIP_MAX && (uintptr_t)raw[k] != pc)
		k++;
	path->n = 0;
	if (k >= n || k >= SKIP_MAX) {
		/* The unwinder did not get past the signal frame. */
		path->frame[0] = (struct culprit_frame){ pc, 0, MFILE_NODE_FRAME, MFILE_NODE_EXACT };
		path->n = 1;
		memset(raw, 0, (size_t)n * sizeof *raw);
		return UNWIND_PARTIAL;
	}

	int max = path->max;
	int truncated = 0;
	for (int i = k; i < n; i++) {
		uintptr_t ip = (uintptr_t)raw[i];
		if (path->n == max) {
			truncated = 1;
			break;
		}
		uint8_t flags = i == k ? MFILE_NODE_EXACT : 0;
		/* Our own frames (the thread trampoline, say) stay for now:
		 * they mark where work handed to us began. */
		if (i > k && culprit_in_collector(ip))
			flags |= CULPRIT_FRAME_OURS;
		path->frame[path->n++] = (struct culprit_frame){ ip, 0, MFILE_NODE_FRAME, flags };
	}
	if (n == cap)
		truncated = 1;
	enum unwind_status status = truncated ? UNWIND_TRUNCATED
				    : faulted || !culprit_unwind_is_root(t, (uintptr_t)raw[n - 1])
				    ? UNWIND_PARTIAL : UNWIND_COMPLETE;
	memset(raw, 0, (size_t)n * sizeof *raw);
	return status;
}
