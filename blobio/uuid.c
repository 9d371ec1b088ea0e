/*
 * uuid.c - random UUIDs (version 4) for the ids a client makes up itself: the lease
 * id it proposes on acquire (so a retried acquire with the active id succeeds) and
 * the x-ms-client-request-id of every request. The bytes come from OpenSSL's
 * generator, or from the kernel (getrandom(2)) when that fails; with neither there
 * is no id rather than a predictable one.
 */
#define _GNU_SOURCE /* getrandom */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/rand.h>

#include <xio/blob.h>
#include <xio/error_int.h>

/* Fills `n` bytes from the kernel's generator. Returns 0, or -1 with errno set. */
static int kernel_random(unsigned char *b, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(b + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

xio_err xio_blob_new_uuid(char out[37], xio_error *err) {
  unsigned char b[16];
  out[0] = '\0';
  if (RAND_bytes(b, sizeof b) != 1 && kernel_random(b, sizeof b) != 0)
    return xio_error_set(err, XIO_EIO, "no random source for a UUID: %s", strerror(errno));
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
           b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
           b[15]);
  return XIO_OK;
}
