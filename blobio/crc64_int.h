/*
 * crc64_int.h - the implementations of CRC-64/NVME behind xio_blob_crc64, which
 * checksum.c chooses between once per process: the portable slicing-by-8 one
 * (crc64_table.c) and the carry-less multiplication ones for x86-64 CPUs with
 * PCLMULQDQ, 128 or 256 bits at a time (crc64_clmul.c). Internal to libxio_blob.
 *
 * Every implementation keeps the public contract of xio_blob_crc64: `crc` is a
 * previous result (0 to start), the return value is the CRC of all bytes so far, any
 * length and any alignment of `data` (NULL only when `n` is 0). None can fail.
 */
#ifndef XIO_BLOB_CRC64_INT_H
#define XIO_BLOB_CRC64_INT_H

#include <stddef.h>
#include <stdint.h>

/* CRC-64/NVME: the polynomial P = x^64 + 0xAD93D23594C93659 (normal form), written
 * bit-reflected without its x^64 term: bit j holds the coefficient of x^(63-j). */
#define XIO__BLOB_CRC64_POLY 0x9A6C9329AC4BC9B5ull

/** Slicing-by-8 with lookup tables built on first use (pthread_once); any CPU. */
uint64_t xio__blob_crc64_table(uint64_t crc, const void *data, size_t n);

/** 1 when this CPU (and build) can run xio__blob_crc64_clmul: x86-64 with PCLMULQDQ
 *  and SSE4.1; 0 otherwise. */
int xio__blob_crc64_clmul_supported(void);

/** Carry-less multiplication folding (PCLMULQDQ), several times the speed of the
 *  table. Call only when xio__blob_crc64_clmul_supported(); where the build has no
 *  carry-less version it is the table implementation. */
uint64_t xio__blob_crc64_clmul(uint64_t crc, const void *data, size_t n);

/** 1 when this CPU (and build) can run xio__blob_crc64_vpclmul: what
 *  xio__blob_crc64_clmul needs, and VPCLMULQDQ and AVX2; 0 otherwise. */
int xio__blob_crc64_vpclmul_supported(void);

/** The same folding two blocks per instruction (VPCLMULQDQ on 256-bit registers),
 *  faster than xio__blob_crc64_clmul on long inputs; inputs under
 *  256 bytes go to that one. Call only when xio__blob_crc64_vpclmul_supported();
 *  where the build has no such version it is the table implementation. */
uint64_t xio__blob_crc64_vpclmul(uint64_t crc, const void *data, size_t n);

/* The constants of the carry-less implementation, rho(A) meaning A bit-reflected in
 * 64 bits (bit j the coefficient of x^(63-j)). crc64_clmul.c explains their use; the
 * unit test recomputes each from the polynomial. */
typedef struct xio__blob_crc64_clmul_consts {
  uint64_t fold[8][2]; /* fold[j-1], distance T = 128*j bits: rho(x^(T+63) mod P),
                          rho(x^(T-1) mod P) */
  uint64_t wide[2];    /* distance T = 2048 bits, the same way: the 256-bit stride */
  uint64_t mu;         /* rho(floor(x^127 / P)), the Barrett quotient constant */
  uint64_t poly;       /* rho(G) where P = x^64 + x*G + 1: reflected polynomial << 1 */
} xio__blob_crc64_clmul_consts;

extern const xio__blob_crc64_clmul_consts xio__blob_crc64_clmul_k;

/** The implementation xio_blob_crc64 uses in this process, "vpclmul", "clmul" or
 *  "table"
 *  (checksum.c; chosen on first use). */
const char *xio__blob_crc64_impl(void);

#endif
