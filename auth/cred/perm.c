/*
 * perm.c - SAS permission letters as bit sets (XIO_AUTH_PERM) and back to text in
 * a canonical order.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <string.h>

#include "cred_int.h"

int xio__auth_perm_bits(const char *letters, const char *allowed, uint32_t *bits, char *bad) {
  uint32_t set = 0;
  for (const char *p = letters ? letters : ""; *p; p++) {
    if (*p < 'a' || *p > 'z' || !strchr(allowed, *p)) {
      *bad = *p;
      return -1;
    }
    set |= XIO_AUTH_PERM(*p);
  }
  *bits = set;
  return 0;
}

char *xio__auth_perm_string(uint32_t bits, const char *order, char *out, size_t size) {
  size_t n = 0;
  if (!size) return out;
  for (const char *p = order; *p && n + 1 < size; p++)
    if (bits & XIO_AUTH_PERM(*p)) out[n++] = *p;
  out[n] = '\0';
  return out;
}
