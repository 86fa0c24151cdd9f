/* fuzz_mfile.c - libFuzzer target for the measurement file reader.
 *
 * Parses the input with mfile_parse().  When the reader accepts it, walks
 * every structure it returned -- every string byte by byte, every array
 * element, every field -- so that AddressSanitizer sees any read outside
 * what the reader allocated, and checks the guarantees mfile_read.h makes
 * about a file that loads (tree shape, value indices, finite values,
 * NULL-terminated argv and notes).  A broken guarantee aborts, which
 * libFuzzer reports as a crash.  On failure, the error message must be a
 * NUL-terminated string inside its buffer.
 *
 * Every header and section carries a CRC-32C, so almost every mutation of
 * a payload would stop at the checksum and never reach the decoders.  Each
 * input is therefore parsed twice: as it is (which exercises the framing and
 * checksum checks), and again with the header and section checksums
 * recomputed wherever the framing allows (which lets mutations reach the
 * section decoders).
 *
 * Build: tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#include "crc32c.h"
#include "mfile_format.h"
#include "mfile_read.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

/* Fails loudly: an invariant of a successfully parsed file does not hold. */
#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "fuzz_mfile: invariant failed: %s (%s:%d)\n", \
				#cond, __FILE__, __LINE__);                  \
			abort();                                             \
		}                                                            \
	} while (0)

/* Touches every byte of S up to and including its NUL. */
static uint64_t walk_str(const char *s)
{
	CHECK(s != NULL);
	uint64_t h = strlen(s);
	for (const char *p = s; *p; p++)
		h = h * 31 + (unsigned char)*p;
	return h;
}

static uint64_t walk_bytes(const unsigned char *b, uint32_t n)
{
	uint64_t h = n;
	for (uint32_t i = 0; i < n; i++)
		h = h * 31 + b[i];
	return h;
}

static uint64_t walk_process(const struct mfile_process *p)
{
	uint64_t h = p->nonce + p->pid + p->ppid + p->generation +
		     (uint32_t)p->mpi_rank + p->start_realtime_ns +
		     p->start_monotonic_ns + p->end_realtime_ns +
		     p->end_monotonic_ns + p->end_reason +
		     (uint32_t)p->end_status + p->thread_count;

	CHECK(p->pid != 0);
	CHECK(p->end_reason <= MFILE_END_MAX);
	h += walk_str(mfile_end_reason_name(p->end_reason));
	h += walk_str(p->host);
	h += walk_str(p->exe);
	h += walk_str(p->cwd);
	h += walk_str(p->rank_source);
	h += walk_str(p->experiment);

	CHECK(p->argv != NULL);
	for (uint32_t i = 0; i < p->argc; i++)
		h += walk_str(p->argv[i]);
	CHECK(p->argv[p->argc] == NULL);

	CHECK(p->nevents > 0 && p->events != NULL);
	for (uint32_t i = 0; i < p->nevents; i++) {
		const struct mfile_event *e = &p->events[i];
		h += walk_str(e->name) + walk_str(e->unit);
		CHECK(e->name[0] != 0);
		CHECK(e->source >= 1 && e->source <= MFILE_SRC_MAX);
		CHECK((e->flags & ~MFILE_EVENT_FREQ) == 0);
		CHECK(e->period != 0);
		h += walk_str(mfile_source_name(e->source));
		h += e->flags + e->period + e->perf_type + e->perf_config +
		     e->perf_config1 + e->perf_config2;
	}

	CHECK(p->nmodules == 0 || p->modules != NULL);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		const struct mfile_module *m = &p->modules[i];
		CHECK(m->id != 0);
		CHECK((m->flags & ~MFILE_MOD_FLAGS) == 0);
		CHECK(m->unload_ns == 0 || m->unload_ns >= m->load_ns);
		for (uint32_t j = 0; j < i; j++)
			CHECK(p->modules[j].id != m->id);
		h += m->id + m->flags + m->load_bias + m->load_ns + m->unload_ns;
		h += walk_str(m->path);
		CHECK(m->build_id_len <= 64);
		CHECK(m->build_id_len == 0 || m->build_id != NULL);
		if (m->build_id)
			h += walk_bytes(m->build_id, m->build_id_len);
		CHECK(m->nsegments == 0 || m->segments != NULL);
		for (uint32_t k = 0; k < m->nsegments; k++) {
			const struct mfile_segment *s = &m->segments[k];
			CHECK(s->vaddr + s->memsz >= s->vaddr);
			h += s->vaddr + s->memsz + s->file_offset + s->p_flags;
		}
	}
	return h;
}

static uint64_t walk_thread(const struct mfile_thread *t)
{
	uint64_t h = t->process_nonce + t->pid + t->generation + t->seq +
		     t->tid + t->start_realtime_ns + t->end_realtime_ns +
		     t->end_reason + t->flags + t->creator_seq +
		     t->creator_node;

	CHECK(t->pid != 0 && t->tid != 0);
	CHECK(t->end_reason <= MFILE_END_MAX);
	h += walk_str(t->name);

	CHECK(t->ncolumns == 0 || t->columns != NULL);
	for (uint32_t i = 0; i < t->ncolumns; i++) {
		h += t->columns[i].event + walk_str(t->columns[i].metric);
		CHECK(t->columns[i].metric[0] != 0);
	}

	CHECK(t->ncounters == 0 || t->counters != NULL);
	for (uint32_t i = 0; i < t->ncounters; i++)
		h += walk_str(t->counters[i].name) + t->counters[i].value;
	h += mfile_thread_counter(t, "samples");

	CHECK(t->nnodes > 0 && t->nodes != NULL);
	CHECK(t->nodes[0].kind == MFILE_NODE_ROOT &&
	      t->nodes[0].parent == MFILE_NONE);
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct mfile_node *n = &t->nodes[i];
		h += n->parent + n->kind + n->flags + n->module + n->key;
		h += walk_str(mfile_node_kind_name(n->kind));
		if (i == 0)
			continue;
		CHECK(n->parent < i);
		CHECK(n->kind != MFILE_NODE_ROOT && n->kind <= MFILE_NODE_KIND_MAX);
		CHECK((n->flags & ~MFILE_NODE_FLAGS) == 0);
		if (n->kind == MFILE_NODE_MARKER) {
			CHECK(n->key >= 1 && n->key <= MFILE_MARKER_MAX);
			h += walk_str(mfile_marker_name(n->key));
		}
		/* Walk up to the root, as a consumer building paths would;
		 * bounded because parents strictly decrease. */
		uint32_t depth = 0;
		for (uint32_t a = i; a != 0 && depth < 64; a = t->nodes[a].parent)
			depth++;
		h += depth;
	}

	CHECK(t->nvalues == 0 || t->values != NULL);
	for (uint32_t i = 0; i < t->nvalues; i++) {
		const struct mfile_value *v = &t->values[i];
		CHECK(v->node < t->nnodes);
		CHECK(v->column < t->ncolumns);
		CHECK(isfinite(v->value));
		/* Index through both arrays, as the postmortem does. */
		h += t->nodes[v->node].key + t->columns[v->column].event;
		uint64_t bits;
		memcpy(&bits, &v->value, sizeof bits);
		h += bits;
	}
	return h;
}

static uint64_t walk(const struct mfile *mf)
{
	char tn[5];
	uint64_t h = mf->kind + mf->version_major + mf->version_minor;

	CHECK(mf->version_major == MFILE_VERSION_MAJOR);
	CHECK(mf->nsections == 0 || mf->sections != NULL);
	for (uint32_t i = 0; i < mf->nsections; i++) {
		const struct mfile_section_info *s = &mf->sections[i];
		h += s->tag + s->offset + s->length;
		h += walk_str(mfile_tag_name(s->tag, tn));
	}

	CHECK(mf->notes != NULL);
	for (uint32_t i = 0; i < mf->nnotes; i++)
		h += walk_str(mf->notes[i]);
	CHECK(mf->notes[mf->nnotes] == NULL);

	switch (mf->kind) {
	case MFILE_PROCESS:
		h += walk_process(&mf->u.process);
		break;
	case MFILE_THREAD:
		h += walk_thread(&mf->u.thread);
		break;
	default:
		CHECK(!"unknown kind accepted");
	}
	return h;
}

static uint64_t rd_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void wr_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Recomputes the header checksum and that of every section whose header
 * and payload lie inside the buffer.  Returns nonzero if anything changed. */
static int fix_checksums(uint8_t *b, size_t size)
{
	int changed = 0;
	uint32_t crc;

	if (size < MFILE_HEADER_SIZE)
		return 0;
	crc = crc32c_update(0, b, 28);
	if ((uint32_t)rd_le(b + 28, 4) != crc) {
		wr_le32(b + 28, crc);
		changed = 1;
	}
	uint64_t off = MFILE_HEADER_SIZE;
	while (size - off >= MFILE_SECTION_HEADER_SIZE) {
		uint32_t tag = (uint32_t)rd_le(b + off, 4);
		uint64_t len = rd_le(b + off + 8, 8);
		uint64_t avail = size - off - MFILE_SECTION_HEADER_SIZE;
		if (len > avail)
			break;
		crc = crc32c_update(0, b + off + MFILE_SECTION_HEADER_SIZE, (size_t)len);
		if ((uint32_t)rd_le(b + off + 4, 4) != crc) {
			wr_le32(b + off + 4, crc);
			changed = 1;
		}
		uint64_t padded = len + ((8 - (len & 7)) & 7);
		if (tag == MFILE_TAG_END || padded > avail)
			break;
		off += MFILE_SECTION_HEADER_SIZE + padded;
	}
	return changed;
}

static void parse_and_walk(const uint8_t *data, size_t size)
{
	struct mfile *mf = NULL;
	struct mfile_error err;

	if (mfile_parse(data, size, &mf, &err) == 0) {
		CHECK(mf != NULL);
		sink += walk(mf);
		mfile_free(mf);
	} else {
		CHECK(mf == NULL);
		CHECK(memchr(err.msg, 0, sizeof err.msg) != NULL);
		CHECK(err.msg[0] != 0);
		sink += walk_str(err.msg) + err.offset + (uint64_t)err.reader_line;
		/* Failures report an offset inside (or just past) the input. */
		CHECK(err.offset <= size);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_and_walk(data, size);

	/* Again with the checksums made right.  An exact-size copy, so that
	 * ASan still catches reads past the end of the input. */
	if (size >= MFILE_HEADER_SIZE &&
	    memcmp(data, MFILE_MAGIC, MFILE_MAGIC_LEN) == 0) {
		uint8_t *copy = malloc(size);
		CHECK(copy != NULL);
		memcpy(copy, data, size);
		if (fix_checksums(copy, size))
			parse_and_walk(copy, size);
		free(copy);
	}
	return 0;
}
