/*
 * zeroscan.c - the one scanner for zeros in a buffer, for every caller that sends
 * zeros as a clear instead of shipping them or skips them where storage already
 * reads zeros: the nbdkit plugin's zero rule, `xio put`'s sparse pages, a restore's
 * holes. Pure functions, callable from any thread.
 */
#include <string.h>

#include <xio/xio.h>

int xio_is_zero(const void *buf, size_t len) {
  const unsigned char *p = buf;
  /* Compare the buffer with itself shifted by 16 bytes once the first 16 are zero:
   * memcmp runs at memory speed. */
  size_t head = len < 16 ? len : 16;
  for (size_t i = 0; i < head; i++)
    if (p[i]) return 0;
  return len <= 16 || memcmp(p, p + 16, len - 16) == 0;
}

size_t xio_zero_run(const void *buf, size_t len, size_t unit, int zero) {
  const unsigned char *p = buf;
  size_t i = 0;
  if (unit == 0) unit = len;
  while (i < len) {
    size_t k = len - i < unit ? len - i : unit;
    if (xio_is_zero(p + i, k) != (zero != 0)) break;
    i += k;
  }
  return i;
}
