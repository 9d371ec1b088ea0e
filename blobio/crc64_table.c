/*
 * crc64_table.c - CRC-64/NVME computed slicing-by-8, the portable implementation:
 * any architecture, any CPU. checksum.c uses it where the carry-less one cannot
 * run (or when XIO_CRC64=table), and crc64_clmul.c for inputs shorter than one
 * 16-byte block and for the last few bytes.
 *
 * Eight lookup tables let the loop fold eight input bytes per step. They are built
 * once per process (pthread_once) and never change afterwards.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>

#include "crc64_int.h"

static uint64_t crc64_table[8][256];
static pthread_once_t crc64_table_once = PTHREAD_ONCE_INIT;

/* Fills table 0 with the byte-at-a-time table, and table k with the effect of a
 * byte followed by k zero bytes, as slicing-by-8 needs. */
static void crc64_build_tables(void) {
  for (unsigned i = 0; i < 256; i++) {
    uint64_t c = i;
    for (int bit = 0; bit < 8; bit++)
      c = (c & 1) ? (c >> 1) ^ XIO__BLOB_CRC64_POLY : c >> 1;
    crc64_table[0][i] = c;
  }
  for (unsigned i = 0; i < 256; i++) {
    uint64_t c = crc64_table[0][i];
    for (int k = 1; k < 8; k++) {
      c = (c >> 8) ^ crc64_table[0][c & 0xff];
      crc64_table[k][i] = c;
    }
  }
}

/* Eight bytes as a little-endian integer, whatever the host order and alignment
 * (compilers turn this into one load on little-endian hosts). */
static uint64_t load_le64(const unsigned char *p) {
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
         (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* Advances the raw (uninverted) register over n bytes. */
static uint64_t crc64_update(uint64_t c, const unsigned char *p, size_t n) {
  const uint64_t(*t)[256] = (const uint64_t(*)[256])crc64_table;
  for (; n >= 8; n -= 8, p += 8) {
    c ^= load_le64(p);
    c = t[7][c & 0xff] ^ t[6][(c >> 8) & 0xff] ^ t[5][(c >> 16) & 0xff] ^ t[4][(c >> 24) & 0xff] ^
        t[3][(c >> 32) & 0xff] ^ t[2][(c >> 40) & 0xff] ^ t[1][(c >> 48) & 0xff] ^ t[0][c >> 56];
  }
  for (; n > 0; n--, p++)
    c = (c >> 8) ^ t[0][(c ^ *p) & 0xff];
  return c;
}

uint64_t xio__blob_crc64_table(uint64_t crc, const void *data, size_t n) {
  if (n == 0) return crc;
  pthread_once(&crc64_table_once, crc64_build_tables);
  /* Init and xorout are all ones, so inverting the previous result resumes it, and
   * a previous result of 0 starts from the all-ones init. */
  return ~crc64_update(~crc, data, n);
}
