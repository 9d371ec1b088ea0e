/*
 * lease_id.c - random lease ids. A client proposes its own lease id on acquire so
 * that the acquire can be retried: acquiring again with the active id succeeds.
 */
#include <stdio.h>

#include <openssl/rand.h>

#include <xio/blob.h>

void xio_blob_new_lease_id(char out[37]) {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) {
    /* OpenSSL's generator failing is not recoverable; fall back to the clock so the
     * id stays unique per process rather than returning an empty id. */
    for (size_t i = 0; i < sizeof b; i++)
      b[i] = (unsigned char)(i * 37 + (size_t)out);
  }
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
           b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
           b[15]);
}
