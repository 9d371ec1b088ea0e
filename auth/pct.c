/*
 * pct.c - percent-encoding (RFC 3986) for URL paths and query values, and decoding
 * of %XX escapes. '+' is a literal plus in both directions: Azure reads it so in
 * paths, and our own encoder never writes it unescaped in a query.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "auth_int.h"

int xio__auth_is_unreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

char *xio__auth_pct_encode(const char *s, const char *keep) {
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
  return xio__auth_buf_take(&b);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int xio__auth_pct_decode(const char *s, size_t n, char **out) {
  char *d = malloc(n + 1);
  size_t j = 0;
  if (!d) return -2;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '%') {
      d[j++] = s[i];
      continue;
    }
    int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
    int lo = hi >= 0 ? hexval(s[i + 2]) : -1;
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
      OPENSSL_cleanse(d, j);
      free(d);
      return -1;
    }
    d[j++] = (char)(hi * 16 + lo);
    i += 2;
  }
  d[j] = '\0';
  *out = d;
  return 0;
}
