/* mfile_read.c - the validating reader of measurement files.
 *
 * Two passes: the frame pass walks the header and section headers, checking
 * bounds and checksums; the decode pass turns each known section into the
 * structures of mfile_read.h through a bounds-checked cursor.  Any problem
 * is reported with CORRUPT(), which records the file offset and the line
 * here that caught it, and stops the load.
 */
#include "mfile_read.h"
#include "mfile_format.h"
#include "crc32c.h"
#include "event_spec.h"
#include "varint.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct mfile_block {
	struct mfile_block *next;
	/* payload follows, max-aligned */
	_Alignas(16) unsigned char data[];
};

/* A bounds-checked view of one section's payload. */
struct cursor {
	const unsigned char *p;	/* payload */
	uint64_t len;		/* payload length */
	uint64_t pos;		/* next byte to read */
	uint64_t base;		/* file offset of p[0] */
	const char *section;	/* tag name, for messages */
	struct mfile *mf;	/* allocations go here */
	struct mfile_error *err;
	int failed;
};

static void corrupt(struct mfile_error *err, int line, uint64_t offset,
		    const char *section, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void corrupt(struct mfile_error *err, int line, uint64_t offset,
		    const char *section, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	err->offset = offset;
	err->reader_line = line;
	if (section)
		snprintf(err->msg, sizeof err->msg, "offset %#llx, section %s: %s",
			 (unsigned long long)offset, section, what);
	else
		snprintf(err->msg, sizeof err->msg, "offset %#llx: %s",
			 (unsigned long long)offset, what);
}

/* Reports corruption at the cursor's position and marks it failed. */
#define CORRUPT(c, ...)                                                     \
	do {                                                                \
		if (!(c)->failed)                                           \
			corrupt((c)->err, __LINE__, (c)->base + (c)->pos,   \
				(c)->section, __VA_ARGS__);                 \
		(c)->failed = 1;                                            \
	} while (0)

static void *mf_alloc(struct mfile *mf, size_t size)
{
	struct mfile_block *b = calloc(1, sizeof *b + size + 1);
	if (!b) {
		fprintf(stderr, "culprit: out of memory\n");
		exit(1);
	}
	b->next = mf->blocks;
	mf->blocks = b;
	return b->data;
}

void mfile_free(struct mfile *mf)
{
	if (!mf)
		return;
	struct mfile_block *b = mf->blocks;
	while (b) {
		struct mfile_block *n = b->next;
		free(b);
		b = n;
	}
	free(mf);
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int need(struct cursor *c, uint64_t n, const char *field)
{
	if (c->failed)
		return 0;
	if (n > c->len - c->pos) {
		CORRUPT(c, "%s needs %llu bytes but only %llu are left", field,
			(unsigned long long)n, (unsigned long long)(c->len - c->pos));
		return 0;
	}
	return 1;
}

static uint64_t get(struct cursor *c, int n, const char *field)
{
	if (!need(c, (uint64_t)n, field))
		return 0;
	uint64_t v = le(c->p + c->pos, n);
	c->pos += (uint64_t)n;
	return v;
}

#define get_u8(c, f) ((uint8_t)get(c, 1, f))
#define get_u16(c, f) ((uint16_t)get(c, 2, f))
#define get_u32(c, f) ((uint32_t)get(c, 4, f))
#define get_u64(c, f) get(c, 8, f)

static int32_t get_i32(struct cursor *c, const char *field)
{
	uint32_t u = get_u32(c, field);
	int32_t v;
	memcpy(&v, &u, sizeof v);
	return v;
}

static double get_f64(struct cursor *c, const char *field)
{
	uint64_t u = get_u64(c, field);
	double v;
	memcpy(&v, &u, sizeof v);
	return v;
}

/* A string: u32 length, bytes.  Returns a NUL-terminated copy. */
static char *get_str(struct cursor *c, const char *field)
{
	uint32_t n = get_u32(c, field);
	if (!need(c, n, field))
		return NULL;
	if (memchr(c->p + c->pos, 0, n)) {
		CORRUPT(c, "%s contains a NUL byte", field);
		return NULL;
	}
	char *s = mf_alloc(c->mf, n);
	memcpy(s, c->p + c->pos, n);
	c->pos += n;
	return s;
}

/* A count of records that each take at least MIN_SIZE bytes: refuses counts
 * the remaining payload cannot hold, so a corrupt count cannot make us
 * allocate gigabytes. */
static uint32_t get_count(struct cursor *c, uint64_t min_size, const char *field)
{
	uint32_t n = get_u32(c, field);
	if (c->failed)
		return 0;
	if (min_size && (uint64_t)n > (c->len - c->pos) / min_size) {
		CORRUPT(c, "%s is %u, more than the %llu remaining bytes can hold",
			field, n, (unsigned long long)(c->len - c->pos));
		return 0;
	}
	return n;
}

static void *alloc_array(struct cursor *c, uint32_t n, size_t size)
{
	return mf_alloc(c->mf, (size_t)n * size);
}

static void check_end(struct cursor *c)
{
	if (!c->failed && c->pos != c->len)
		CORRUPT(c, "%llu unexpected bytes after the last field",
			(unsigned long long)(c->len - c->pos));
}

/* ---- section decoders ---------------------------------------------- */

static void decode_idnt(struct cursor *c, struct mfile *mf)
{
	struct mfile_process *p = &mf->u.process;
	p->nonce = get_u64(c, "nonce");
	p->pid = get_u32(c, "pid");
	p->ppid = get_u32(c, "ppid");
	p->generation = get_u32(c, "generation");
	p->mpi_rank = get_i32(c, "mpi_rank");
	p->start_realtime_ns = get_u64(c, "start_realtime_ns");
	p->start_monotonic_ns = get_u64(c, "start_monotonic_ns");
	p->end_realtime_ns = get_u64(c, "end_realtime_ns");
	p->end_monotonic_ns = get_u64(c, "end_monotonic_ns");
	uint64_t at = c->pos;
	p->end_reason = get_u32(c, "end_reason");
	if (!c->failed && p->end_reason > MFILE_END_MAX) {
		c->pos = at;
		CORRUPT(c, "end_reason %u is not a known reason", p->end_reason);
	}
	p->end_status = get_i32(c, "end_status");
	p->thread_count = get_u32(c, "thread_count");
	p->host = get_str(c, "host");
	p->exe = get_str(c, "exe");
	p->cwd = get_str(c, "cwd");
	p->rank_source = get_str(c, "rank_source");
	p->experiment = get_str(c, "experiment");
	if (!c->failed && p->pid == 0)
		CORRUPT(c, "pid is 0");
	check_end(c);
}

static void decode_argv(struct cursor *c, struct mfile *mf)
{
	struct mfile_process *p = &mf->u.process;
	p->argc = get_count(c, 4, "argc");
	p->argv = alloc_array(c, p->argc + 1, sizeof *p->argv);
	for (uint32_t i = 0; i < p->argc && !c->failed; i++)
		p->argv[i] = get_str(c, "argument");
	check_end(c);
}

static void decode_evnt(struct cursor *c, struct mfile *mf)
{
	struct mfile_process *p = &mf->u.process;
	p->nevents = get_count(c, 56, "event count");
	p->events = alloc_array(c, p->nevents, sizeof *p->events);
	for (uint32_t i = 0; i < p->nevents && !c->failed; i++) {
		struct mfile_event *e = &p->events[i];
		e->name = get_str(c, "event name");
		e->unit = get_str(c, "event unit");
		uint64_t at = c->pos;
		e->source = get_u32(c, "event source");
		e->flags = get_u32(c, "event flags");
		if (!c->failed && (e->source == 0 || e->source > MFILE_SRC_MAX)) {
			c->pos = at;
			CORRUPT(c, "event %u has unknown source %u", i, e->source);
		}
		if (!c->failed && (e->flags & ~MFILE_EVENT_FREQ)) {
			c->pos = at + 4;
			CORRUPT(c, "event %u has unknown flags %#x", i, e->flags);
		}
		e->period = get_u64(c, "event period");
		e->perf_type = get_u32(c, "perf_type");
		(void)get_u32(c, "reserved");
		e->perf_config = get_u64(c, "perf_config");
		e->perf_config1 = get_u64(c, "perf_config1");
		e->perf_config2 = get_u64(c, "perf_config2");
		if (!c->failed && (!e->name[0] || e->period == 0))
			CORRUPT(c, "event %u has an empty name or a zero period", i);
	}
	if (!c->failed && p->nevents == 0)
		CORRUPT(c, "no events");
	check_end(c);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void decode_mods(struct cursor *c, struct mfile *mf)
{
	struct mfile_process *p = &mf->u.process;
	p->nmodules = get_count(c, 44, "module count");
	p->modules = alloc_array(c, p->nmodules, sizeof *p->modules);
	for (uint32_t i = 0; i < p->nmodules && !c->failed; i++) {
		struct mfile_module *m = &p->modules[i];
		uint64_t at = c->pos;
		m->id = get_u32(c, "module id");
		m->flags = get_u32(c, "module flags");
		if (!c->failed && m->id == 0) {
			c->pos = at;
			CORRUPT(c, "module %u has id 0", i);
		}
		if (!c->failed && (m->flags & ~MFILE_MOD_FLAGS)) {
			c->pos = at + 4;
			CORRUPT(c, "module %u has unknown flags %#x", m->id, m->flags);
		}
		m->load_bias = get_u64(c, "load_bias");
		m->load_ns = get_u64(c, "load_ns");
		m->unload_ns = get_u64(c, "unload_ns");
		m->path = get_str(c, "module path");
		m->build_id_len = get_u32(c, "build_id length");
		if (!c->failed && m->build_id_len > 64)
			CORRUPT(c, "module %u build-id is %u bytes (at most 64)", m->id,
				m->build_id_len);
		if (need(c, m->build_id_len, "build_id")) {
			m->build_id = mf_alloc(c->mf, m->build_id_len);
			memcpy(m->build_id, c->p + c->pos, m->build_id_len);
			c->pos += m->build_id_len;
		}
		m->nsegments = get_count(c, 32, "segment count");
		m->segments = alloc_array(c, m->nsegments, sizeof *m->segments);
		for (uint32_t k = 0; k < m->nsegments && !c->failed; k++) {
			struct mfile_segment *s = &m->segments[k];
			s->vaddr = get_u64(c, "segment vaddr");
			s->memsz = get_u64(c, "segment memsz");
			s->file_offset = get_u64(c, "segment offset");
			s->p_flags = get_u32(c, "segment flags");
			(void)get_u32(c, "reserved");
			if (!c->failed && s->vaddr + s->memsz < s->vaddr)
				CORRUPT(c, "module %u segment %u wraps around the address space",
					m->id, k);
		}
		if (!c->failed && m->unload_ns && m->unload_ns < m->load_ns)
			CORRUPT(c, "module %u unloaded before it was loaded", m->id);
	}
	/* Unique ids: sorted, neighbours differ (a hostile file with many
	 * modules must not cost quadratic time). */
	if (!c->failed && p->nmodules > 1) {
		uint32_t *ids = alloc_array(c, p->nmodules, sizeof *ids);
		for (uint32_t i = 0; i < p->nmodules; i++)
			ids[i] = p->modules[i].id;
		qsort(ids, p->nmodules, sizeof *ids, cmp_u32);
		for (uint32_t i = 1; i < p->nmodules && !c->failed; i++)
			if (ids[i] == ids[i - 1])
				CORRUPT(c, "module id %u appears twice", ids[i]);
	}
	check_end(c);
}

static void decode_thrd(struct cursor *c, struct mfile *mf)
{
	struct mfile_thread *t = &mf->u.thread;
	t->process_nonce = get_u64(c, "process_nonce");
	t->pid = get_u32(c, "pid");
	t->generation = get_u32(c, "generation");
	t->seq = get_u32(c, "seq");
	t->tid = get_u32(c, "tid");
	t->start_realtime_ns = get_u64(c, "start_realtime_ns");
	t->end_realtime_ns = get_u64(c, "end_realtime_ns");
	uint64_t at = c->pos;
	t->end_reason = get_u32(c, "end_reason");
	if (!c->failed && t->end_reason > MFILE_END_MAX) {
		c->pos = at;
		CORRUPT(c, "end_reason %u is not a known reason", t->end_reason);
	}
	t->flags = get_u32(c, "flags");
	t->creator_seq = get_u32(c, "creator_seq");
	t->creator_node = get_u32(c, "creator_node");
	t->name = get_str(c, "thread name");
	if (!c->failed && (t->pid == 0 || t->tid == 0))
		CORRUPT(c, "pid or tid is 0");
	check_end(c);
}

static void decode_cols(struct cursor *c, struct mfile *mf)
{
	struct mfile_thread *t = &mf->u.thread;
	t->ncolumns = get_count(c, 8, "column count");
	t->columns = alloc_array(c, t->ncolumns, sizeof *t->columns);
	for (uint32_t i = 0; i < t->ncolumns && !c->failed; i++) {
		t->columns[i].event = get_u32(c, "column event");
		t->columns[i].metric = get_str(c, "column metric");
		if (!c->failed && !t->columns[i].metric[0])
			CORRUPT(c, "column %u has no metric name", i);
	}
	check_end(c);
}

static void decode_cntr(struct cursor *c, struct mfile *mf)
{
	struct mfile_thread *t = &mf->u.thread;
	t->ncounters = get_count(c, 12, "counter count");
	t->counters = alloc_array(c, t->ncounters, sizeof *t->counters);
	for (uint32_t i = 0; i < t->ncounters && !c->failed; i++) {
		t->counters[i].name = get_str(c, "counter name");
		t->counters[i].value = get_u64(c, "counter value");
	}
	check_end(c);
}

static void decode_node(struct cursor *c, struct mfile *mf)
{
	struct mfile_thread *t = &mf->u.thread;
	t->nnodes = get_count(c, MFILE_NODE_SIZE, "node count");
	if (!c->failed && t->nnodes == 0)
		CORRUPT(c, "the tree has no root node");
	t->nodes = alloc_array(c, t->nnodes, sizeof *t->nodes);
	for (uint32_t i = 0; i < t->nnodes && !c->failed; i++) {
		struct mfile_node *n = &t->nodes[i];
		uint64_t at = c->pos;
		n->parent = get_u32(c, "node parent");
		n->kind = get_u8(c, "node kind");
		n->flags = get_u8(c, "node flags");
		(void)get_u16(c, "reserved");
		n->module = get_u32(c, "node module");
		(void)get_u32(c, "reserved");
		n->key = get_u64(c, "node key");
		if (c->failed)
			break;
		c->pos = at;	/* report problems at the node's first byte */
		if (i == 0) {
			if (n->kind != MFILE_NODE_ROOT || n->parent != MFILE_NONE)
				CORRUPT(c, "node 0 is not the root (kind %u, parent %u)",
					n->kind, n->parent);
		} else if (n->parent >= i) {
			CORRUPT(c, "node %u has parent %u, which is not an earlier node",
				i, n->parent);
		} else if (n->kind == MFILE_NODE_ROOT || n->kind > MFILE_NODE_KIND_MAX) {
			CORRUPT(c, "node %u has kind %u, which is not allowed here", i,
				n->kind);
		} else if (n->flags & ~MFILE_NODE_FLAGS) {
			CORRUPT(c, "node %u has unknown flags %#x", i, n->flags);
		} else if (n->kind == MFILE_NODE_MARKER &&
			   (n->key == 0 || n->key > MFILE_MARKER_MAX)) {
			CORRUPT(c, "node %u is marker %llu, which is unknown", i,
				(unsigned long long)n->key);
		}
		c->pos = at + MFILE_NODE_SIZE;
	}
	check_end(c);
}

static void decode_mtrc(struct cursor *c, struct mfile *mf)
{
	struct mfile_thread *t = &mf->u.thread;
	t->nvalues = get_count(c, MFILE_VALUE_SIZE, "value count");
	t->values = alloc_array(c, t->nvalues, sizeof *t->values);
	for (uint32_t i = 0; i < t->nvalues && !c->failed; i++) {
		struct mfile_value *v = &t->values[i];
		uint64_t at = c->pos;
		v->node = get_u32(c, "value node");
		v->column = get_u32(c, "value column");
		v->value = get_f64(c, "value");
		if (c->failed)
			break;
		c->pos = at;
		if (v->node >= t->nnodes)
			CORRUPT(c, "value %u is for node %u, but the tree has %u nodes",
				i, v->node, t->nnodes);
		else if (v->column >= t->ncolumns)
			CORRUPT(c, "value %u is for column %u, but there are %u columns",
				i, v->column, t->ncolumns);
		else if (!isfinite(v->value))
			CORRUPT(c, "value %u is not a finite number", i);
		c->pos = at + MFILE_VALUE_SIZE;
	}
	check_end(c);
}

static void decode_wait(struct cursor *c, struct mfile *mf)
{
	struct mfile_thread *t = &mf->u.thread;
	t->nwaits = get_count(c, MFILE_WAIT_SIZE, "wait count");
	t->waits = alloc_array(c, t->nwaits, sizeof *t->waits);
	for (uint32_t i = 0; i < t->nwaits && !c->failed; i++) {
		struct mfile_wait *w = &t->waits[i];
		uint64_t at = c->pos;
		w->kind = get_u32(c, "wait kind");
		w->cause = get_u32(c, "wait cause");
		w->module = get_u32(c, "wait module");
		(void)get_u32(c, "reserved");
		w->site = get_u64(c, "wait site");
		w->object = get_u64(c, "wait object");
		w->count = get_u64(c, "wait count");
		w->total_ns = get_u64(c, "wait total");
		w->max_ns = get_u64(c, "wait maximum");
		if (c->failed)
			break;
		c->pos = at;
		if (w->cause >= t->ncolumns)
			CORRUPT(c, "wait site %u counts as column %u, but there are %u columns", i,
				w->cause, t->ncolumns);
		else if (w->count == 0 || w->max_ns > w->total_ns)
			CORRUPT(c, "wait site %u has %llu waits of %llu ns, the longest %llu ns", i,
				(unsigned long long)w->count, (unsigned long long)w->total_ns,
				(unsigned long long)w->max_ns);
		c->pos = at + MFILE_WAIT_SIZE;
	}
	check_end(c);
}

static void decode_task(struct cursor *c, struct mfile *mf)
{
	struct mfile_thread *t = &mf->u.thread;
	t->ntasks = get_count(c, MFILE_TASK_SIZE, "task type count");
	t->tasks = alloc_array(c, t->ntasks, sizeof *t->tasks);
	for (uint32_t i = 0; i < t->ntasks && !c->failed; i++) {
		struct mfile_task *k = &t->tasks[i];
		k->module = get_u32(c, "task module");
		(void)get_u32(c, "reserved");
		k->site = get_u64(c, "task site");
		k->count = get_u64(c, "task count");
		k->size_ns = get_u64(c, "task size");
		k->wait_ns = get_u64(c, "task wait");
		uint64_t sizes = 0, waits = 0;
		for (int b = 0; b < MFILE_TASK_BUCKETS; b++)
			sizes += k->size_hist[b] = get_u32(c, "task size bucket");
		for (int b = 0; b < MFILE_TASK_BUCKETS; b++)
			waits += k->wait_hist[b] = get_u32(c, "task wait bucket");
		if (c->failed)
			break;
		/* A histogram's counts may have wrapped (2^32 tasks of a type
		 * on one thread); they never exceed the count. */
		if (k->count == 0 || sizes > k->count || waits > k->count)
			CORRUPT(c, "task type %u counts %llu tasks, its histograms %llu and %llu", i,
				(unsigned long long)k->count, (unsigned long long)sizes,
				(unsigned long long)waits);
	}
	check_end(c);
}

static void decode_lnam(struct cursor *c, struct mfile *mf)
{
	struct mfile_thread *t = &mf->u.thread;
	t->nlnames = get_count(c, MFILE_LNAM_MIN, "logical name count");
	t->lnames = alloc_array(c, t->nlnames, sizeof *t->lnames);
	for (uint32_t i = 0; i < t->nlnames && !c->failed; i++) {
		struct mfile_lname *l = &t->lnames[i];
		l->ns = get_u32(c, "logical namespace");
		l->line_bits = get_u32(c, "logical line bits");
		l->ident = get_u64(c, "logical ident");
		l->first_line = get_u32(c, "logical first line");
		(void)get_u32(c, "reserved");
		l->name = get_str(c, "logical name");
		l->file = get_str(c, "logical file");
		if (!c->failed && l->line_bits > MFILE_LNAM_LINE_BITS_MAX)
			CORRUPT(c, "logical name %u keeps its line in %u bits, more than %d", i,
				l->line_bits, MFILE_LNAM_LINE_BITS_MAX);
	}
	check_end(c);
}

const struct mfile_lname *mfile_lname_find(const struct mfile_thread *t, uint32_t ns,
					   uint64_t key, uint32_t *line)
{
	for (uint32_t i = 0; i < t->nlnames; i++) {
		const struct mfile_lname *l = &t->lnames[i];
		uint64_t ident = l->line_bits < 64 ? key >> l->line_bits : 0;
		if (l->ns == ns && l->ident == ident) {
			*line = (uint32_t)(key & ((1ull << l->line_bits) - 1));
			return l;
		}
	}
	return NULL;
}

void mfile_trace_begin(const struct mfile_thread *t, struct mfile_trace_iter *it)
{
	memset(it, 0, sizeof *it);
	it->p = t->trace.bytes;
	it->end = t->trace.bytes + t->trace.nbytes;
	it->left = t->trace.records;
	it->last.time_ns = t->trace.base_ns;
}

int mfile_trace_next(struct mfile_trace_iter *it, struct mfile_trace_record *r)
{
	if (it->left == 0)
		return 0;
	if (it->p >= it->end)
		return -1;
	unsigned head = *it->p++;
	struct mfile_trace_record *l = &it->last;
	uint64_t gap, value, node, working, idle;
	if (head & ~(MFILE_TRACE_STATE_MASK | MFILE_TRACE_HAS_NODE | MFILE_TRACE_HAS_COUNTS |
		     MFILE_TRACE_HAS_EVENT) ||
	    (head & MFILE_TRACE_STATE_MASK) > MFILE_TRACE_STATE_MAX)
		return -1;
	l->state = head & MFILE_TRACE_STATE_MASK;
	l->event = 0;
	if (head & MFILE_TRACE_HAS_EVENT) {
		if (it->p >= it->end)
			return -1;
		l->event = *it->p++;
	}
	if (varint_get(&it->p, it->end, &gap) < 0 || varint_get(&it->p, it->end, &value) < 0)
		return -1;
	it->gap += (uint64_t)unzigzag(gap);
	l->time_ns += it->gap;
	it->value[l->event] += (uint64_t)unzigzag(value);
	l->value = it->value[l->event];
	if (head & MFILE_TRACE_HAS_NODE) {
		if (varint_get(&it->p, it->end, &node) < 0)
			return -1;
		l->node += (uint32_t)unzigzag(node);
	}
	if (head & MFILE_TRACE_HAS_COUNTS) {
		if (varint_get(&it->p, it->end, &working) < 0 ||
		    varint_get(&it->p, it->end, &idle) < 0 || working > UINT32_MAX ||
		    idle > UINT32_MAX)
			return -1;
		l->working = (uint32_t)working;
		l->idle = (uint32_t)idle;
	}
	it->left--;
	*r = *l;
	return 1;
}

/* TRAC comes after NODE, so every record's node is checked against the
 * tree: prof can index by it without looking. */
static void decode_trac(struct cursor *c, struct mfile *mf)
{
	struct mfile_thread *t = &mf->u.thread;
	struct mfile_trace *tr = &t->trace;
	tr->base_ns = get_u64(c, "trace base");
	tr->records = get_u64(c, "trace records");
	tr->dropped = get_u64(c, "trace dropped");
	tr->nbytes = get_u64(c, "trace length");
	if (c->failed || !need(c, tr->nbytes, "trace records"))
		return;
	if (tr->records > tr->nbytes) {
		CORRUPT(c, "%llu trace records in %llu bytes", (unsigned long long)tr->records,
			(unsigned long long)tr->nbytes);
		return;
	}
	unsigned char *copy = mf_alloc(mf, (size_t)tr->nbytes);
	memcpy(copy, c->p + c->pos, (size_t)tr->nbytes);
	tr->bytes = copy;
	struct mfile_trace_iter *it = malloc(sizeof *it);
	if (!it) {
		fprintf(stderr, "culprit: out of memory\n");
		exit(1);
	}
	mfile_trace_begin(t, it);
	struct mfile_trace_record r;
	int rc;
	uint64_t n = 0;
	while ((rc = mfile_trace_next(it, &r)) > 0) {
		int idle = mfile_trace_is_idle(r.state);
		if ((!idle && r.node >= t->nnodes) || r.event >= EVENT_MAX) {
			rc = -1;
			break;
		}
		n++;
	}
	if (rc == 0 && it->p != it->end)
		rc = -1;
	if (rc < 0) {
		c->pos += (uint64_t)(it->p - tr->bytes);
		CORRUPT(c, "trace record %llu is damaged (a bad head, length, node or event)",
			(unsigned long long)n);
	} else {
		c->pos += tr->nbytes;
		check_end(c);
	}
	free(it);
}

static void decode_note(struct cursor *c, struct mfile *mf)
{
	mf->nnotes = get_count(c, 4, "note count");
	mf->notes = alloc_array(c, mf->nnotes + 1, sizeof *mf->notes);
	for (uint32_t i = 0; i < mf->nnotes && !c->failed; i++)
		mf->notes[i] = get_str(c, "note");
	check_end(c);
}

static void decode_snap(struct cursor *c, struct mfile *mf)
{
	mf->snapshot_ns = get_u64(c, "snapshot time");
	if (!c->failed && mf->snapshot_ns == 0)
		CORRUPT(c, "a snapshot without its time");
	check_end(c);
}

/* ---- framing ----------------------------------------------------------- */

/* The sections, in the order they are decoded: a thread's MTRC is checked
 * against its NODE and COLS, which come first (the writer puts them first
 * too). */
struct section_kind {
	uint32_t tag;
	uint32_t file_kind;	/* the kind of file it belongs in; 0: either */
	int required;
	void (*decode)(struct cursor *c, struct mfile *mf);
};

static const struct section_kind known_sections[] = {
	{ MFILE_TAG_IDNT, MFILE_PROCESS, 1, decode_idnt },
	{ MFILE_TAG_ARGV, MFILE_PROCESS, 1, decode_argv },
	{ MFILE_TAG_EVNT, MFILE_PROCESS, 1, decode_evnt },
	{ MFILE_TAG_MODS, MFILE_PROCESS, 1, decode_mods },
	{ MFILE_TAG_THRD, MFILE_THREAD, 1, decode_thrd },
	{ MFILE_TAG_COLS, MFILE_THREAD, 1, decode_cols },
	{ MFILE_TAG_CNTR, MFILE_THREAD, 1, decode_cntr },
	{ MFILE_TAG_NODE, MFILE_THREAD, 1, decode_node },
	{ MFILE_TAG_MTRC, MFILE_THREAD, 1, decode_mtrc },
	{ MFILE_TAG_WAIT, MFILE_THREAD, 0, decode_wait },
	{ MFILE_TAG_TASK, MFILE_THREAD, 0, decode_task },
	{ MFILE_TAG_LNAM, MFILE_THREAD, 0, decode_lnam },
	{ MFILE_TAG_TRAC, MFILE_THREAD, 0, decode_trac },
	{ MFILE_TAG_NOTE, 0, 0, decode_note },
	{ MFILE_TAG_SNAP, 0, 0, decode_snap },
};
#define NKNOWN (sizeof known_sections / sizeof known_sections[0])

const char *mfile_tag_name(uint32_t tag, char buf[5])
{
	for (int i = 0; i < 4; i++) {
		unsigned char ch = (unsigned char)(tag >> (8 * i));
		buf[i] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	buf[4] = 0;
	return buf;
}

/* The header's pass: the magic, the checksum, a version and kind this
 * reader knows.  A new struct mfile, or NULL after setting ERR. */
static struct mfile *read_header(const unsigned char *b, size_t size, struct mfile_error *err)
{
	if (size < MFILE_HEADER_SIZE) {
		corrupt(err, __LINE__, 0, NULL,
			"file is %zu bytes, shorter than the %d-byte header (truncated?)",
			size, MFILE_HEADER_SIZE);
		return NULL;
	}
	if (memcmp(b, MFILE_MAGIC, MFILE_MAGIC_LEN) != 0) {
		corrupt(err, __LINE__, 0, NULL, "not a culprit measurement file (bad magic)");
		return NULL;
	}
	uint16_t major = (uint16_t)le(b + 8, 2), minor = (uint16_t)le(b + 10, 2);
	uint32_t kind = (uint32_t)le(b + 12, 4);
	if ((uint32_t)le(b + 28, 4) != crc32c_update(0, b, 28)) {
		corrupt(err, __LINE__, 28, NULL, "header checksum mismatch");
		return NULL;
	}
	if (major != MFILE_VERSION_MAJOR) {
		corrupt(err, __LINE__, 8, NULL,
			"format version %u.%u; this culprit reads version %d.x%s",
			major, minor, MFILE_VERSION_MAJOR,
			major > MFILE_VERSION_MAJOR ? " (upgrade culprit)" : "");
		return NULL;
	}
	if (kind != MFILE_PROCESS && kind != MFILE_THREAD) {
		corrupt(err, __LINE__, 12, NULL, "unknown file kind %u", kind);
		return NULL;
	}
	if (le(b + 16, 4) != MFILE_HEADER_SIZE) {
		corrupt(err, __LINE__, 16, NULL, "header size %u, expected %d",
			(unsigned)le(b + 16, 4), MFILE_HEADER_SIZE);
		return NULL;
	}
	struct mfile *mf = calloc(1, sizeof *mf);
	if (!mf) {
		fprintf(stderr, "culprit: out of memory\n");
		exit(1);
	}
	mf->kind = kind;
	mf->version_major = major;
	mf->version_minor = minor;
	return mf;
}

/* Appends section TAG at OFF of LEN bytes to MF's list. */
static void add_section(struct mfile *mf, uint64_t *cap, uint32_t tag, uint64_t off, uint64_t len)
{
	if (mf->nsections == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		struct mfile_section_info *s = mf_alloc(mf, *cap * sizeof *s);
		if (mf->nsections)
			memcpy(s, mf->sections, mf->nsections * sizeof *s);
		mf->sections = s;
	}
	mf->sections[mf->nsections] = (struct mfile_section_info){ tag, off, len };
}

/* The frame pass: every section header in bounds, every checksum right,
 * an END that counts the sections before it, nothing after END.  Lists
 * the sections in MF; -1 after setting ERR. */
static int frame_sections(struct mfile *mf, const unsigned char *b, size_t size,
			  struct mfile_error *err)
{
	char tn[5];
	uint64_t off = MFILE_HEADER_SIZE, cap = 0;
	for (;;) {
		if (off == size) {
			corrupt(err, __LINE__, off, NULL,
				"file ends without its END section (truncated: the "
				"writer was interrupted or the file was cut short)");
			return -1;
		}
		if (size - off < MFILE_SECTION_HEADER_SIZE) {
			corrupt(err, __LINE__, off, NULL,
				"truncated: %llu bytes where a %d-byte section header should be",
				(unsigned long long)(size - off), MFILE_SECTION_HEADER_SIZE);
			return -1;
		}
		uint32_t tag = (uint32_t)le(b + off, 4);
		uint32_t crc = (uint32_t)le(b + off + 4, 4);
		uint64_t len = le(b + off + 8, 8);
		uint64_t avail = size - off - MFILE_SECTION_HEADER_SIZE;
		uint64_t padded = len + ((8 - (len & 7)) & 7);
		if (len > avail || padded > avail) {
			corrupt(err, __LINE__, off + 8, mfile_tag_name(tag, tn),
				"length %llu runs past the end of the file (%llu bytes left; truncated?)",
				(unsigned long long)len, (unsigned long long)avail);
			return -1;
		}
		const unsigned char *payload = b + off + MFILE_SECTION_HEADER_SIZE;
		for (uint64_t k = len; k < padded; k++)
			if (payload[k] != 0) {
				corrupt(err, __LINE__, off + MFILE_SECTION_HEADER_SIZE + k,
					mfile_tag_name(tag, tn), "padding after the payload is not zero");
				return -1;
			}
		if (crc32c_update(0, payload, (size_t)len) != crc) {
			corrupt(err, __LINE__, off + 4, mfile_tag_name(tag, tn),
				"checksum mismatch: the %llu-byte payload is damaged",
				(unsigned long long)len);
			return -1;
		}
		add_section(mf, &cap, tag, off, len);
		off += MFILE_SECTION_HEADER_SIZE + padded;
		if (tag != MFILE_TAG_END) {
			mf->nsections++;
			continue;
		}
		if (len != 8 || le(payload, 4) != mf->nsections) {
			corrupt(err, __LINE__, off - MFILE_SECTION_HEADER_SIZE - padded, "END",
				"END counts %u sections but the file has %u",
				len >= 4 ? (unsigned)le(payload, 4) : 0, mf->nsections);
			return -1;
		}
		break;
	}
	if (off != size) {
		corrupt(err, __LINE__, off, NULL, "%llu bytes of garbage after the END section",
			(unsigned long long)(size - off));
		return -1;
	}
	return 0;
}

/* The decode pass, in the order of known_sections: each section once, in
 * the kind of file it belongs in, the required ones there.  -1 after
 * setting ERR. */
static int decode_sections(struct mfile *mf, const unsigned char *b, struct mfile_error *err)
{
	char tn[5];
	for (size_t k = 0; k < NKNOWN; k++) {
		const struct section_kind *sk = &known_sections[k];
		int found = 0;
		for (uint32_t i = 0; i < mf->nsections; i++) {
			const struct mfile_section_info *si = &mf->sections[i];
			if (si->tag != sk->tag)
				continue;
			if (sk->file_kind && sk->file_kind != mf->kind) {
				corrupt(err, __LINE__, si->offset, mfile_tag_name(si->tag, tn),
					"this section does not belong in a %s file",
					mf->kind == MFILE_PROCESS ? "process" : "thread");
				return -1;
			}
			if (found++) {
				corrupt(err, __LINE__, si->offset, mfile_tag_name(si->tag, tn),
					"the section appears twice");
				return -1;
			}
			struct cursor c = {
				.p = b + si->offset + MFILE_SECTION_HEADER_SIZE,
				.len = si->length,
				.base = si->offset + MFILE_SECTION_HEADER_SIZE,
				.section = mfile_tag_name(si->tag, tn),
				.mf = mf,
				.err = err,
			};
			sk->decode(&c, mf);
			if (c.failed)
				return -1;
		}
		if (!found && sk->required && sk->file_kind == mf->kind) {
			corrupt(err, __LINE__, 0, NULL, "required section %s is missing",
				mfile_tag_name(sk->tag, tn));
			return -1;
		}
	}
	return 0;
}

/* Unknown sections: fine from a newer minor version, damage otherwise. */
static int check_unknown(const struct mfile *mf, struct mfile_error *err)
{
	char tn[5];
	if (mf->version_minor > MFILE_VERSION_MINOR)
		return 0;
	for (uint32_t i = 0; i < mf->nsections; i++) {
		int known = 0;
		for (size_t k = 0; k < NKNOWN; k++)
			known |= mf->sections[i].tag == known_sections[k].tag;
		if (!known) {
			corrupt(err, __LINE__, mf->sections[i].offset,
				mfile_tag_name(mf->sections[i].tag, tn),
				"unknown section in a version %u.%u file", mf->version_major,
				mf->version_minor);
			return -1;
		}
	}
	return 0;
}

int mfile_parse(const void *data, size_t size, struct mfile **out,
		struct mfile_error *err)
{
	memset(err, 0, sizeof *err);
	*out = NULL;
	struct mfile *mf = read_header(data, size, err);
	if (!mf)
		return -1;
	if (frame_sections(mf, data, size, err) < 0 || decode_sections(mf, data, err) < 0 ||
	    check_unknown(mf, err) < 0) {
		mfile_free(mf);
		return -1;
	}
	if (!mf->notes)
		mf->notes = mf_alloc(mf, sizeof *mf->notes);
	*out = mf;
	return 0;
}

int mfile_load(const char *path, struct mfile **out, struct mfile_error *err)
{
	struct stat st;
	unsigned char *data;
	int fd, rc;

	memset(err, 0, sizeof *err);
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err->msg, sizeof err->msg, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err->msg, sizeof err->msg, "not a regular file");
		close(fd);
		return -1;
	}
	data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!data) {
		snprintf(err->msg, sizeof err->msg, "file too large to read (%lld bytes)",
			 (long long)st.st_size);
		close(fd);
		return -1;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, data + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	rc = mfile_parse(data, got, out, err);
	free(data);
	return rc;
}

const char *mfile_end_reason_name(uint32_t r)
{
	static const char *const names[] = {
		"unknown", "exit", "_exit", "exec", "signal", "thread-exit", "cancelled"
	};
	return r <= MFILE_END_MAX ? names[r] : "?";
}

const char *mfile_source_name(uint32_t s)
{
	static const char *const names[] = { "?", "perf_event", "cpu-timer", "real-timer" };
	return s <= MFILE_SRC_MAX ? names[s] : "?";
}

const char *mfile_node_kind_name(uint32_t k)
{
	static const char *const names[] = { "root", "frame", "marker", "ref", "logical" };
	return k <= MFILE_NODE_KIND_MAX ? names[k] : "?";
}

const char *mfile_trace_state_name(uint32_t state)
{
	if (state == MFILE_TRACE_WORK)
		return "work";
	if (state == MFILE_TRACE_MEASUREMENT)
		return "measurement";
	for (unsigned c = 0; c < CULPRIT_IDLE_CAUSES; c++)
		if (idle_cause(c)->trace_state == state)
			return idle_cause(c)->state;
	return "?";
}

const char *mfile_marker_name(uint64_t m)
{
	static const char *const names[] = { "?", "partial", "truncated" };
	return m <= MFILE_MARKER_MAX ? names[m] : "?";
}

uint64_t mfile_thread_counter(const struct mfile_thread *t, const char *name)
{
	for (uint32_t i = 0; i < t->ncounters; i++)
		if (strcmp(t->counters[i].name, name) == 0)
			return t->counters[i].value;
	return 0;
}
