/*
 * crc64_int.h - the implementations of CRC-64/NVME behind xio_blob_crc64, which
 * checksum.c chooses between once per process: the portable slicing-by-8 one
 * (crc64_table.c) and the carry-less multiplication one for x86-64 CPUs with
 * PCLMULQDQ (crc64_clmul.c). Internal to libxio_blob.
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

#endif
