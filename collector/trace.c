/* trace.c - each thread's samples in time order, for the timeline.
 *
 * The tree sums samples; the trace keeps when each one was taken, where
 * (its tree node), in what state the thread was and how many workers were
 * working and idle, so that prof can lay the run out over time and count
 * how many threads worked at once.  One record a sample, delta-encoded
 * against the one before (mfile_format.h, TRAC): a busy thread's record
 * takes 5 to 8 bytes.
 *
 * The bytes live in an anonymous mapping that the sample handler grows
 * with mremap, up to CULPRIT_TRACE_MB per thread; past it, samples are
 * still measured but no longer traced (counted as dropped), so the trace
 * is the run's beginning.  Only the thread itself appends, in its
 * handler; the writer reads it while the thread is BUSY or CLOSING.
 * async-signal-safe throughout.
 */
#define _GNU_SOURCE
#include "collector.h"
#include "mfile_write.h"
#include "varint.h"

#include <sys/mman.h>

#define TRACE_INITIAL (64 * 1024)

void trace_free(struct trace *tr)
{
	if (tr->buf)
		culprit_unmap(tr->buf, tr->cap);
	*tr = (struct trace){ 0 };
}

/* Room for one more record: grows the mapping, doubling, up to the
 * limit.  Returns 0, or -1 when the trace is full. */
static int reserve(struct trace *tr)
{
	size_t limit = culprit_config.trace_bytes;
	if (tr->len + MFILE_TRACE_RECORD_MAX <= tr->cap)
		return 0;
	if (tr->len + MFILE_TRACE_RECORD_MAX > limit)
		return -1;
	size_t want = tr->cap ? 2 * tr->cap : TRACE_INITIAL;
	if (want > limit)
		want = limit;
	void *p = tr->buf ? mremap(tr->buf, tr->cap, want, MREMAP_MAYMOVE) : culprit_map(want);
	if (!p || p == MAP_FAILED)
		return -1;
	tr->buf = p;
	tr->cap = want;
	return 0;
}

void trace_add(struct trace *tr, uint64_t now, int ev, uint64_t value, uint32_t node,
	       unsigned state, const struct idle_moment *m)
{
	if (!culprit_config.trace_bytes)
		return;
	if (reserve(tr) < 0) {
		tr->dropped++;
		return;
	}
	if (!tr->records)
		tr->base_ns = tr->last_ns = now;

	unsigned char *p = tr->buf + tr->len, *head = p++;
	unsigned h = state & MFILE_TRACE_STATE_MASK;
	if (ev) {
		h |= MFILE_TRACE_HAS_EVENT;
		*p++ = (unsigned char)ev;
	}
	/* Handlers of one thread run one after the other, but two clocks
	 * read a few ns apart may not be in order: the gap is signed. */
	int64_t gap = (int64_t)(now - tr->last_ns);
	p += varint_put(p, zigzag(gap - tr->last_gap));
	p += varint_put(p, zigzag((int64_t)(value - tr->last_value[ev])));
	int is_idle = mfile_trace_is_idle(state);
	if (!is_idle && node != tr->last_node) {
		h |= MFILE_TRACE_HAS_NODE;
		p += varint_put(p, zigzag((int64_t)node - (int64_t)tr->last_node));
		tr->last_node = node;
	}
	if (m && (m->working != tr->last_working || m->idle != tr->last_idle)) {
		h |= MFILE_TRACE_HAS_COUNTS;
		p += varint_put(p, m->working);
		p += varint_put(p, m->idle);
		tr->last_working = m->working;
		tr->last_idle = m->idle;
	}
	*head = (unsigned char)h;
	tr->len = (size_t)(p - tr->buf);
	tr->last_ns = now;
	tr->last_gap = gap;
	tr->last_value[ev] = value;
	tr->records++;
}

void trace_write(struct mfile_writer *w, const struct trace *tr)
{
	if (!tr->records && !tr->dropped)
		return;
	mfile_section_begin(w, MFILE_TAG_TRAC);
	mfile_put_u64(w, tr->base_ns);
	mfile_put_u64(w, tr->records);
	mfile_put_u64(w, tr->dropped);
	mfile_put_u64(w, tr->len);
	if (tr->len)
		mfile_put(w, tr->buf, tr->len);
	mfile_section_end(w);
}
