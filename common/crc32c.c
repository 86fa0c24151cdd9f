/* crc32c.c - CRC-32C (Castagnoli polynomial, reflected 0x82F63B78).
 *
 * The table is a compile-time constant so that no initialisation step can
 * race with a signal handler that checksums a file while the program dies. */
#include "crc32c.h"

#define P 0x82F63B78u
#define B1(c) (((c) >> 1) ^ (((c) & 1u) ? P : 0u))
#define B8(c) B1(B1(B1(B1(B1(B1(B1(B1(c))))))))
#define R1(i) B8((uint32_t)(i))
#define R4(i) R1(i), R1((i) + 1), R1((i) + 2), R1((i) + 3)
#define R16(i) R4(i), R4((i) + 4), R4((i) + 8), R4((i) + 12)
#define R64(i) R16(i), R16((i) + 16), R16((i) + 32), R16((i) + 48)

static const uint32_t crc32c_table[256] = {
	R64(0), R64(64), R64(128), R64(192)
};

/* async-signal-safe */
uint32_t crc32c_update(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;

	crc = ~crc;
	while (n--)
		crc = crc32c_table[(crc ^ *b++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}
