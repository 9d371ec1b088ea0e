/*
 * checksum.c - the transactional checksums a Put Page body carries: CRC-64/NVME
 * for x-ms-content-crc64 and MD5 for Content-MD5, each as the base64 text the
 * header wants. The CRC itself is computed in crc64_table.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>

#include <openssl/evp.h>

#include <xio/blob.h>

#include "crc64_int.h"

uint64_t xio_blob_crc64(uint64_t crc, const void *data, size_t n) {
  return xio__blob_crc64_table(crc, data, n);
}

char *xio_blob_crc64_base64(const void *data, size_t n, char out[13]) {
  uint64_t crc = xio_blob_crc64(0, data, n);
  unsigned char le[8];
  for (int i = 0; i < 8; i++) le[i] = (unsigned char)(crc >> (8 * i));
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
