/* names.c - names of logical frames, per thread (culprit_logical_name).
 *
 * A plugin that puts logical frames in paths (an interpreter's functions)
 * names each procedure once per thread, from its sample handler: the names
 * are copied into the thread's own table, which goes into its file (LNAM)
 * and is never written by another thread.  The table is a mapping that
 * grows by doubling, up to NAMES_MAX; entries are appended and never
 * removed (the same procedure named twice is harmless: prof keeps one).
 * async-signal-safe: mmap is. */
#include "collector.h"
#include "mfile_write.h"

#include <string.h>

#define NAMES_FIRST (64u * 1024)
#define NAMES_MAX (16u * 1024 * 1024)
#define NAME_CUT 1024		/* bytes kept of a name or a file */

struct name_table {
	size_t cap, used;	/* bytes of the mapping, and of it in use */
	uint32_t count;
	unsigned char entry[];	/* struct name_entry, then name and file, 8-aligned */
};

struct name_entry {
	uint32_t ns, line_bits;
	uint64_t ident;
	uint32_t first_line;
	uint16_t name_len, file_len;
};

static size_t entry_bytes(size_t name_len, size_t file_len)
{
	return (sizeof(struct name_entry) + name_len + file_len + 7) & ~(size_t)7;
}

/* Room for NEED more bytes in T's table, which may move. */
static struct name_table *room(struct culprit_thread *t, size_t need)
{
	struct name_table *old = t->names;
	size_t used = old ? old->used : 0;
	size_t cap = old ? old->cap : 0;
	if (old && sizeof *old + used + need <= cap)
		return old;
	size_t want = cap ? cap : NAMES_FIRST;
	while (sizeof *old + used + need > want)
		want *= 2;
	if (want > NAMES_MAX)
		return NULL;
	struct name_table *n = culprit_map(want);
	if (!n)
		return NULL;
	if (old) {
		memcpy(n, old, sizeof *old + old->used);
		culprit_unmap(old, old->cap);
	}
	n->cap = want;
	t->names = n;
	return n;
}

int culprit_logical_name(unsigned ns, unsigned line_bits, uint64_t ident, const char *name,
			 size_t name_len, const char *file, size_t file_len, uint32_t first_line)
{
	struct culprit_thread *t = culprit_thread_self();
	if (!t)
		return -1;
	name_len = name_len < NAME_CUT ? name_len : NAME_CUT;
	file_len = file_len < NAME_CUT ? file_len : NAME_CUT;
	size_t bytes = entry_bytes(name_len, file_len);
	struct name_table *nt = room(t, bytes);
	if (!nt) {
		t->counter[CNT_NAMES_LOST]++;
		return -1;
	}
	unsigned char *at = nt->entry + nt->used;
	struct name_entry e = {
		ns, line_bits, ident, first_line, (uint16_t)name_len, (uint16_t)file_len
	};
	memcpy(at, &e, sizeof e);
	memcpy(at + sizeof e, name, name_len);
	memcpy(at + sizeof e + name_len, file, file_len);
	nt->used += bytes;
	nt->count++;
	return 0;
}

/* Strings are written by length: a copy of at most NAME_CUT bytes. */
static void put_bytes(struct mfile_writer *w, const unsigned char *p, size_t len)
{
	char s[NAME_CUT + 1];
	memcpy(s, p, len);
	s[len] = 0;
	mfile_put_str(w, s);
}

void names_write(struct mfile_writer *w, const struct culprit_thread *t)
{
	const struct name_table *nt = t->names;
	if (!nt || !nt->count)
		return;
	mfile_section_begin(w, MFILE_TAG_LNAM);
	mfile_put_u32(w, nt->count);
	for (size_t off = 0; off < nt->used;) {
		struct name_entry e;
		memcpy(&e, nt->entry + off, sizeof e);
		mfile_put_u32(w, e.ns);
		mfile_put_u32(w, e.line_bits);
		mfile_put_u64(w, e.ident);
		mfile_put_u32(w, e.first_line);
		mfile_put_u32(w, 0);
		put_bytes(w, nt->entry + off + sizeof e, e.name_len);
		put_bytes(w, nt->entry + off + sizeof e + e.name_len, e.file_len);
		off += entry_bytes(e.name_len, e.file_len);
	}
	mfile_section_end(w);
}

void names_forget(struct culprit_thread *t)
{
	if (t->names) {
		t->names->used = 0;
		t->names->count = 0;
	}
}
