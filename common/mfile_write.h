/* mfile_write.h - writes measurement files (see mfile_format.h).
 *
 * Used by the collector, which may write from a dying program's signal
 * handler: everything here is async-signal-safe.  No allocation: the caller
 * lends a buffer.  Errors are sticky; check once with mfile_writer_close().
 */
#ifndef CULPRIT_MFILE_WRITE_H
#define CULPRIT_MFILE_WRITE_H

#include <stddef.h>
#include <stdint.h>

struct mfile_writer {
	int fd;			/* the file being written; -1 when closed */
	int error;		/* first errno seen, 0 if none (sticky) */
	uint64_t pos;		/* file offset of buf[0] */
	unsigned char *buf;	/* caller's buffer; not owned */
	size_t cap;		/* its size (at least 64 bytes) */
	size_t used;		/* bytes of buf not yet written */
	uint64_t section_at;	/* file offset of the open section's header */
	uint64_t section_len;	/* payload bytes so far */
	uint32_t section_tag;	/* 0 when no section is open */
	uint32_t section_crc;	/* CRC-32C of the payload so far */
	uint32_t sections;	/* sections completed */
	int truncate;		/* cut the file where the writing ends */
};

/* Creates PATH (O_EXCL, never following a symlink) and writes the header of
 * a file of KIND.  BUF/CAP is scratch space that must outlive the writer.
 * Returns 0, or -errno (EEXIST when the name is taken).  async-signal-safe. */
int mfile_writer_open(struct mfile_writer *w, const char *path, uint32_t kind,
		      void *buf, size_t cap);
/* The same into the existing file PATH, from its start, without freeing
 * its blocks first: into space set aside (fallocate) while the disk had
 * some.  Closing cuts it where the writing ended.  async-signal-safe. */
int mfile_writer_open_existing(struct mfile_writer *w, const char *path, uint32_t kind,
			       void *buf, size_t cap);

/* Section framing; sections do not nest.  async-signal-safe. */
void mfile_section_begin(struct mfile_writer *w, uint32_t tag);
void mfile_section_end(struct mfile_writer *w);

/* Payload encoders, little-endian.  async-signal-safe. */
void mfile_put(struct mfile_writer *w, const void *p, size_t n);
void mfile_put_u8(struct mfile_writer *w, uint8_t v);
void mfile_put_u16(struct mfile_writer *w, uint16_t v);
void mfile_put_u32(struct mfile_writer *w, uint32_t v);
void mfile_put_u64(struct mfile_writer *w, uint64_t v);
void mfile_put_f64(struct mfile_writer *w, double v);
/* S may be NULL (written as the empty string). */
void mfile_put_str(struct mfile_writer *w, const char *s);
void mfile_put_bytes(struct mfile_writer *w, const void *p, uint32_t n);

/* One NODE record and one MTRC value, laid out as mfile_format.h says (the
 * section's count comes first, from the caller).  async-signal-safe. */
void mfile_put_node(struct mfile_writer *w, uint32_t parent, uint8_t kind, uint8_t flags,
		    uint32_t module, uint64_t key);
void mfile_put_value(struct mfile_writer *w, uint32_t node, uint32_t column, double value);

/* Writes the END section and closes the file.  Returns 0 or -errno of the
 * first failure; on failure the partial file is left for the reader to
 * diagnose (it lacks END).  async-signal-safe. */
int mfile_writer_close(struct mfile_writer *w);

#endif
