/*
 * checksum.c - the transactional checksums a Put Page body carries: CRC-64/NVME
 * for x-ms-content-crc64 and MD5 for Content-MD5, each as the base64 text the
 * header wants.
 *
 * The CRC runs over every 4 MiB write, so it has three implementations
 * (crc64_int.h): carry-less multiplication (crc64_clmul.c) 256 bits at a time on
 * x86-64 CPUs with VPCLMULQDQ and AVX2, 128 bits at a time on those with PCLMULQDQ
 * and SSE4.1, and slicing-by-8 tables (crc64_table.c) everywhere else. The choice is
 * made once per process, on first use (pthread_once), from CPUID and the
 * environment, and never changes afterwards; that choice is the only process-wide
 * state here.
 *
 * Environment:
 *   XIO_CRC64=table   use the portable table implementation even where a
 *                     carry-less one could run (to test or compare them on one
 *                     machine);
 *   XIO_CRC64=clmul   the 128-bit carry-less one even where the wide one could.
 *                     Unset, or any other value: the fastest available.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <xio/blob.h>

#include "crc64_int.h"

typedef struct crc64_impl {
  const char *name;
  uint64_t (*fn)(uint64_t crc, const void *data, size_t n);
} crc64_impl;

static const crc64_impl crc64_table_impl = {"table", xio__blob_crc64_table};
static const crc64_impl crc64_clmul_impl = {"clmul", xio__blob_crc64_clmul};
static const crc64_impl crc64_vpclmul_impl = {"vpclmul", xio__blob_crc64_vpclmul};

static const crc64_impl *crc64_chosen; /* set once by crc64_choose */
static pthread_once_t crc64_once = PTHREAD_ONCE_INIT;

static void crc64_choose(void) {
  const char *force = getenv("XIO_CRC64");
  int table = force && strcmp(force, "table") == 0;
  int narrow = force && strcmp(force, "clmul") == 0;
  if (!table && !narrow && xio__blob_crc64_vpclmul_supported())
    crc64_chosen = &crc64_vpclmul_impl;
  else if (!table && xio__blob_crc64_clmul_supported())
    crc64_chosen = &crc64_clmul_impl;
  else
    crc64_chosen = &crc64_table_impl;
}

static const crc64_impl *crc64_get(void) {
  pthread_once(&crc64_once, crc64_choose);
  return crc64_chosen;
}

const char *xio__blob_crc64_impl(void) { return crc64_get()->name; }

uint64_t xio_blob_crc64(uint64_t crc, const void *data, size_t n) {
  if (n == 0) return crc;
  return crc64_get()->fn(crc, data, n);
}

char *xio_blob_crc64_base64(const void *data, size_t n, char out[13]) {
  uint64_t crc = xio_blob_crc64(0, data, n);
  unsigned char le[8];
  for (int i = 0; i < 8; i++)
    le[i] = (unsigned char)(crc >> (8 * i));
  EVP_EncodeBlock((unsigned char *)out, le, (int)sizeof le); /* 12 chars + NUL */
  return out;
}

/* MD5 through EVP; on the (allocation) failure OpenSSL can report, `out` is "" so a
 * caller sends no header rather than a wrong one. */
char *xio_blob_md5_base64(const void *data, size_t n, char out[25]) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdlen = 0;
  static const unsigned char none[1];
  if (EVP_Digest(n ? data : none, n, md, &mdlen, EVP_md5(), NULL) != 1 || mdlen != 16) {
    out[0] = '\0';
    return out;
  }
  EVP_EncodeBlock((unsigned char *)out, md, (int)mdlen); /* 24 chars + NUL */
  return out;
}
