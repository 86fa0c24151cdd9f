/* crc32c.h - CRC-32C (Castagnoli) checksums for measurement files.
 *
 * Both the collector (inside the profiled program, possibly in a signal
 * handler) and the readers checksum with this code, so it is table-driven,
 * allocation-free and async-signal-safe.  We do not use zlib's crc32 here:
 * a preloaded library that calls a symbol as common as "crc32" can bind to
 * the profiled program's own function of that name. */
#ifndef CULPRIT_CRC32C_H
#define CULPRIT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Extends CRC (0 to start) over N bytes at P and returns the new value.
 * async-signal-safe. */
uint32_t crc32c_update(uint32_t crc, const void *p, size_t n);

#endif
