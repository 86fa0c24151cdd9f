/* mfile_write.c - the measurement file writer (async-signal-safe).
 *
 * A section header needs the payload's length and checksum, which are known
 * only at the end, so mfile_section_begin() reserves the header's bytes and
 * mfile_section_end() fills them in with pwrite() once the payload is out.
 * Only open, write, pwrite and close are called: all async-signal-safe. */
#include "mfile_write.h"

/* Where written files' descriptors go (see mfile_writer_open). */
#define MFILE_HIGH_FD 100
#include "mfile_format.h"
#include "crc32c.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void fail(struct mfile_writer *w, int err)
{
	if (!w->error)
		w->error = err ? err : EIO;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Writes all N bytes at P: at OFF with pwrite(), or at the file position
 * when OFF is negative. */
static int write_fully(int fd, const unsigned char *p, size_t n, int64_t off)
{
	while (n > 0) {
		ssize_t r = off < 0 ? write(fd, p, n) : pwrite(fd, p, n, (off_t)off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += r;
		n -= (size_t)r;
		if (off >= 0)
			off += r;
	}
	return 0;
}

static void flush(struct mfile_writer *w)
{
	if (w->used == 0 || w->error)
		return;
	int rc = write_fully(w->fd, w->buf, w->used, -1);
	if (rc < 0)
		fail(w, -rc);
	w->pos += w->used;
	w->used = 0;
}

/* Raw bytes, outside the checksummed payload. */
static void emit(struct mfile_writer *w, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n > 0 && !w->error) {
		if (w->used == w->cap)
			flush(w);
		size_t k = w->cap - w->used;
		if (k > n)
			k = n;
		memcpy(w->buf + w->used, b, k);
		w->used += k;
		b += k;
		n -= k;
	}
}

/* Opens PATH with FLAGS (and O_WRONLY, never following a symlink) and
 * writes the header of a file of KIND. */
static int open_with(struct mfile_writer *w, const char *path, int flags, uint32_t kind,
		     void *buf, size_t cap)
{
	unsigned char h[MFILE_HEADER_SIZE];

	memset(w, 0, sizeof *w);
	w->fd = -1;
	if (cap < 64)
		return -EINVAL;
	w->buf = buf;
	w->cap = cap;
	w->fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | flags, 0600);
	if (w->fd < 0)
		return -errno;
	/* Snapshots are written while the program runs: move off the low
	 * descriptors at once, so that a program that closed one and opens
	 * again (daemons reopen 0, 1 and 2) gets the number it expects. */
	if (w->fd < MFILE_HIGH_FD) {
		int high = fcntl(w->fd, F_DUPFD_CLOEXEC, MFILE_HIGH_FD);
		if (high >= 0) {
			close(w->fd);
			w->fd = high;
		}
	}

	memset(h, 0, sizeof h);
	memcpy(h, MFILE_MAGIC, MFILE_MAGIC_LEN);
	put_le(h + 8, MFILE_VERSION_MAJOR, 2);
	put_le(h + 10, MFILE_VERSION_MINOR, 2);
	put_le(h + 12, kind, 4);
	put_le(h + 16, MFILE_HEADER_SIZE, 4);
	put_le(h + 28, crc32c_update(0, h, 28), 4);
	emit(w, h, sizeof h);
	return 0;
}

int mfile_writer_open(struct mfile_writer *w, const char *path, uint32_t kind,
		      void *buf, size_t cap)
{
	return open_with(w, path, O_CREAT | O_EXCL, kind, buf, cap);
}

int mfile_writer_open_existing(struct mfile_writer *w, const char *path, uint32_t kind,
			       void *buf, size_t cap)
{
	int rc = open_with(w, path, 0, kind, buf, cap);
	w->truncate = 1;
	return rc;
}

void mfile_section_begin(struct mfile_writer *w, uint32_t tag)
{
	static const unsigned char zero[MFILE_SECTION_HEADER_SIZE];

	if (w->section_tag)
		mfile_section_end(w);
	w->section_at = w->pos + w->used;
	w->section_tag = tag;
	w->section_len = 0;
	w->section_crc = 0;
	emit(w, zero, sizeof zero);
}

void mfile_section_end(struct mfile_writer *w)
{
	static const unsigned char pad[8];
	unsigned char h[MFILE_SECTION_HEADER_SIZE];

	if (!w->section_tag)
		return;
	emit(w, pad, (8 - (w->section_len & 7)) & 7);
	put_le(h, w->section_tag, 4);
	put_le(h + 4, w->section_crc, 4);
	put_le(h + 8, w->section_len, 8);
	if (w->section_at >= w->pos) {
		/* Header still in the buffer: patch it there. */
		memcpy(w->buf + (w->section_at - w->pos), h, sizeof h);
	} else {
		flush(w);
		if (!w->error) {
			int rc = write_fully(w->fd, h, sizeof h, (int64_t)w->section_at);
			if (rc < 0)
				fail(w, -rc);
		}
	}
	w->section_tag = 0;
	w->sections++;
}

void mfile_put(struct mfile_writer *w, const void *p, size_t n)
{
	w->section_crc = crc32c_update(w->section_crc, p, n);
	w->section_len += n;
	emit(w, p, n);
}

void mfile_put_u8(struct mfile_writer *w, uint8_t v)
{
	mfile_put(w, &v, 1);
}

void mfile_put_u16(struct mfile_writer *w, uint16_t v)
{
	unsigned char b[2];
	put_le(b, v, 2);
	mfile_put(w, b, 2);
}

void mfile_put_u32(struct mfile_writer *w, uint32_t v)
{
	unsigned char b[4];
	put_le(b, v, 4);
	mfile_put(w, b, 4);
}

void mfile_put_u64(struct mfile_writer *w, uint64_t v)
{
	unsigned char b[8];
	put_le(b, v, 8);
	mfile_put(w, b, 8);
}

void mfile_put_f64(struct mfile_writer *w, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	mfile_put_u64(w, u);
}

void mfile_put_bytes(struct mfile_writer *w, const void *p, uint32_t n)
{
	mfile_put_u32(w, n);
	mfile_put(w, p, n);
}

void mfile_put_node(struct mfile_writer *w, uint32_t parent, uint8_t kind, uint8_t flags,
		    uint32_t module, uint64_t key)
{
	mfile_put_u32(w, parent);
	mfile_put_u8(w, kind);
	mfile_put_u8(w, flags);
	mfile_put_u16(w, 0);
	mfile_put_u32(w, module);
	mfile_put_u32(w, 0);
	mfile_put_u64(w, key);
}

void mfile_put_value(struct mfile_writer *w, uint32_t node, uint32_t column, double value)
{
	mfile_put_u32(w, node);
	mfile_put_u32(w, column);
	mfile_put_f64(w, value);
}

void mfile_put_str(struct mfile_writer *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	mfile_put_bytes(w, s ? s : "", (uint32_t)n);
}

int mfile_writer_close(struct mfile_writer *w)
{
	int err;

	if (w->fd < 0)
		return -EBADF;
	if (w->section_tag)
		mfile_section_end(w);
	uint32_t count = w->sections;
	mfile_section_begin(w, MFILE_TAG_END);
	mfile_put_u32(w, count);
	mfile_put_u32(w, 0);
	mfile_section_end(w);
	flush(w);
	if (w->truncate && !w->error && ftruncate(w->fd, (off_t)w->pos) < 0)
		fail(w, errno);
	if (close(w->fd) < 0 && !w->error && errno != EINTR)
		fail(w, errno);
	w->fd = -1;
	err = w->error;
	return err ? -err : 0;
}
