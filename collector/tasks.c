/* tasks.c - task sizes and waiting times, by task type, per thread.
 *
 * A runtime plugin reports each task it saw end (culprit_task_done): the
 * address of the call that created it (its type: the same source line
 * makes tasks of one type), how long it ran, not counting the time it
 * was set aside while others ran on its thread (a taskwait's children),
 * and how long its thread had looked for work before starting it.  Each
 * thread keeps its own table of types with log2 histograms of both, so
 * no task writes memory another thread writes; the table goes into the
 * thread's file (TASK).  About 290 bytes per type, mapped on the thread's
 * first task. */
#include "collector.h"
#include "mfile_write.h"

#define TASK_TYPES 256	/* distinct creation sites per thread */

struct task_type {
	uintptr_t site;		/* 0: free */
	uint64_t count, size_ns, wait_ns;
	uint32_t size_hist[MFILE_TASK_BUCKETS], wait_hist[MFILE_TASK_BUCKETS];
};

struct task_table {
	struct task_type type[TASK_TYPES];
};

/* The log2 bucket of NS: 0 for 0 and 1 ns, b for [2^b, 2^(b+1)). */
static unsigned bucket(uint64_t ns)
{
	unsigned b = ns > 1 ? 63u - (unsigned)__builtin_clzll(ns) : 0;
	return b < MFILE_TASK_BUCKETS ? b : MFILE_TASK_BUCKETS - 1;
}

static struct task_type *type_of(struct culprit_thread *t, uintptr_t site)
{
	if (!t->tasks) {
		t->tasks = culprit_map(sizeof *t->tasks);
		if (!t->tasks)
			return NULL;
	}
	uint64_t h = (uint64_t)site * 0x9e3779b97f4a7c15ull;
	h ^= h >> 32;
	for (unsigned i = 0; i < TASK_TYPES; i++) {
		struct task_type *y = &t->tasks->type[(h + i) % TASK_TYPES];
		if (y->site == site)
			return y;
		if (!y->site) {
			y->site = site;
			return y;
		}
	}
	return NULL;
}

void culprit_task_done(uint64_t site, uint64_t size_ns, uint64_t wait_ns)
{
	struct culprit_thread *t = culprit_thread_self();
	if (!t || !site || atomic_load_explicit(&t->state, memory_order_relaxed) != THREAD_LIVE)
		return;
	struct task_type *y = type_of(t, (uintptr_t)site);
	if (!y) {
		t->counter[CNT_TASKS_LOST]++;
		return;
	}
	y->count++;
	y->size_ns += size_ns;
	y->wait_ns += wait_ns;
	y->size_hist[bucket(size_ns)]++;
	y->wait_hist[bucket(wait_ns)]++;
}

void tasks_write(struct mfile_writer *mw, const struct culprit_thread *t)
{
	uint32_t n = 0;
	if (!t->tasks)
		return;
	for (unsigned i = 0; i < TASK_TYPES; i++)
		n += t->tasks->type[i].count != 0;
	if (!n)
		return;
	mfile_section_begin(mw, MFILE_TAG_TASK);
	mfile_put_u32(mw, n);
	for (unsigned i = 0; i < TASK_TYPES; i++) {
		const struct task_type *y = &t->tasks->type[i];
		if (!y->count)
			continue;
		uint64_t offset = 0;
		uint32_t module = loadmap_lookup(y->site, &offset);
		mfile_put_u32(mw, module);
		mfile_put_u32(mw, 0);
		mfile_put_u64(mw, module ? offset : y->site);
		mfile_put_u64(mw, y->count);
		mfile_put_u64(mw, y->size_ns);
		mfile_put_u64(mw, y->wait_ns);
		for (unsigned b = 0; b < MFILE_TASK_BUCKETS; b++)
			mfile_put_u32(mw, y->size_hist[b]);
		for (unsigned b = 0; b < MFILE_TASK_BUCKETS; b++)
			mfile_put_u32(mw, y->wait_hist[b]);
	}
	mfile_section_end(mw);
}

void tasks_forget(struct culprit_thread *t)
{
	if (t->tasks)
		for (unsigned i = 0; i < TASK_TYPES; i++)
			t->tasks->type[i] = (struct task_type){ 0 };
}
