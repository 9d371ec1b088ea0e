/*
 * strutil.c - small ASCII string helpers for libxio_auth: duplication, wiping,
 * case-insensitive comparison without locales.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "base_int.h"

char *xio__auth_strndup(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *xio__auth_strdup(const char *s) { return s ? xio__auth_strndup(s, strlen(s)) : NULL; }

void xio__auth_str_free(char *s) {
  if (!s) return;
  OPENSSL_cleanse(s, strlen(s));
  free(s);
}

char xio__auth_lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }

char xio__auth_upper(char c) { return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c; }

int xio__auth_ncasecmp(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char x = (unsigned char)xio__auth_lower(a[i]);
    unsigned char y = (unsigned char)xio__auth_lower(b[i]);
    if (x != y) return x < y ? -1 : 1;
    if (!x) break;
  }
  return 0;
}

int xio__auth_casecmp(const char *a, const char *b) { return xio__auth_ncasecmp(a, b, (size_t)-1); }

int xio__auth_word_eq(const char *s, size_t n, const char *word) {
  return strlen(word) == n && xio__auth_ncasecmp(s, word, n) == 0;
}

char *xio__auth_lower_str(char *s) {
  for (char *p = s; p && *p; p++)
    *p = xio__auth_lower(*p);
  return s;
}

int xio__auth_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

void xio__auth_operation(xio_error *e, const char *operation) {
  if (e && !e->operation[0]) xio_error_set_operation(e, operation);
}
