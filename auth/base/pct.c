/*
 * pct.c - the one percent codec (RFC 3986) of every xio library, for URL paths,
 * query values and file:// targets. '+' is a literal plus in both directions: Azure
 * reads it so in paths, and the encoder never writes it unescaped in a query.
 * Decoded text may be secret (a sig), so it is wiped on failure.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "base_int.h"

int xio__auth_is_unreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

xio_err xio_auth_pct_encode(const char *s, const char *keep, char **out, xio_error *err) {
  static const char hex[] = "0123456789ABCDEF";
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  xio__auth_buf_puts(&b, ""); /* "" for an empty input, not NULL */
  for (const char *p = s ? s : ""; *p; p++) {
    if (xio__auth_is_unreserved(*p) || (keep && strchr(keep, *p))) {
      xio__auth_buf_putc(&b, *p);
      continue;
    }
    unsigned char c = (unsigned char)*p;
    char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
    xio__auth_buf_add(&b, esc, 3);
  }
  if (!(*out = xio__auth_buf_take(&b)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory percent-encoding");
  return XIO_OK;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The byte of the escape at s[i] ('%' and two hex digits within `n`), or -1. */
static int escape_at(const char *s, size_t n, size_t i) {
  int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
  int lo = hi >= 0 ? hexval(s[i + 2]) : -1;
  return lo < 0 ? -1 : hi * 16 + lo;
}

xio_err xio_auth_pct_decode(const char *s, size_t n, char **out, xio_error *err) {
  *out = NULL;
  if (!s && n) return xio_error_set(err, XIO_EINVAL, "percent-decoding: no text");
  char *d = malloc(n + 1);
  size_t j = 0;
  if (!d) return xio_error_set(err, XIO_ENOMEM, "out of memory percent-decoding");
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '%') {
      d[j++] = s[i];
      continue;
    }
    int c = escape_at(s, n, i);
    if (c <= 0) {
      OPENSSL_cleanse(d, j);
      free(d);
      return xio_error_set(err, XIO_EPARSE, "%s at offset %zu",
                           c ? "'%' not followed by two hex digits" : "%00 (a NUL) is not allowed",
                           i);
    }
    d[j++] = (char)c;
    i += 2;
  }
  d[j] = '\0';
  *out = d;
  return XIO_OK;
}
