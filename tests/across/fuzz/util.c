/*
 * util.c - helpers the fuzz targets share: the input as a string, failing a
 * property, and looking for a secret value of the input in an output.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"

void xio__fuzz_fail(const char *file, int line, const char *what) {
  fprintf(stderr, "%s:%d: property broken: %s\n", file, line, what);
  abort();
}

char *xio__fuzz_text(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  if (size) memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

size_t xio__fuzz_count(const char *hay, const char *s, size_t n) {
  size_t count = 0;
  if (n == 0) return 0;
  for (const char *p = hay; *p; p++)
    if (strncmp(p, s, n) == 0) count++;
  return count;
}

int xio__fuzz_contains(const char *out, const char *s, size_t n) {
  if (!out || n == 0) return 0;
  for (const char *p = out; *p; p++)
    if (strncmp(p, s, n) == 0) return 1;
  return 0;
}

size_t xio__fuzz_value_len(const char *s) {
  size_t n = 0;
  while (s[n] && !strchr("&;#\"'<> \t\r\n\v\f", s[n]))
    n++;
  return n;
}

/* 1 when `p` (inside `text`) starts a parameter named by one of `names`; sets *vs to
 * the start of its value. */
static int secret_at(const char *text, const char *p, const char *const *names, const char *seps,
                     const char **vs) {
  if (p != text && !strchr(seps, p[-1])) return 0;
  for (const char *const *nm = names; *nm; nm++) {
    size_t n = strlen(*nm);
    if (strncasecmp(p, *nm, n) == 0 && p[n] == '=') {
      *vs = p + n + 1;
      return 1;
    }
  }
  return 0;
}

/* 1 when `s[0..n)` could be text the code writes itself: letters, spaces and
 * punctuation only, no digit nor any of "+/%" (which every real key or signature
 * holds), anything holding the redaction marker, or "://" (a scheme followed by
 * what comes after a dropped user:password@ can spell it). Such a value is not
 * looked for, since a message template, the marker or a URL may hold it. */
static int wordlike(const char *s, size_t n) {
  for (size_t i = 0; i + 8 <= n; i++)
    if (strncmp(s + i, "REDACTED", 8) == 0) return 1;
  for (size_t i = 0; i + 3 <= n; i++)
    if (strncmp(s + i, "://", 3) == 0) return 1;
  for (size_t i = 0; i < n; i++)
    if ((s[i] >= '0' && s[i] <= '9') || strchr("+/%", s[i])) return 0;
  return 1;
}

static int hex_digit(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* `text` with every %XX decoded, malloc'd: the parsers decode values before a
 * message quotes them. */
static char *pct_decoded(const char *text) {
  char *d = malloc(strlen(text) + 1), *q = d;
  if (!d) abort();
  for (const char *p = text; *p; p++) {
    int hi = p[1] ? hex_digit(p[1]) : -1, lo = hi >= 0 && p[2] ? hex_digit(p[2]) : -1;
    if (*p == '%' && hi >= 0 && lo >= 0 && (hi || lo)) {
      *q++ = (char)(hi * 16 + lo);
      p += 2;
    } else {
      *q++ = *p;
    }
  }
  *q = '\0';
  return d;
}

/* `out` with every "REDACTED" and every "://" blanked to newlines, malloc'd: no
 * value holds a newline, so no value can match text the marker spelled, nor run
 * across the place after a "://" where a dropped user:password@ glued two pieces
 * of the input together (a SAS signature or a key never holds a ':'). */
static char *unmarked(const char *out) {
  char *u = malloc(strlen(out) + 1);
  if (!u) abort();
  memcpy(u, out, strlen(out) + 1);
  for (char *p = u; (p = strstr(p, "REDACTED")); p += 8)
    memset(p, '\n', 8);
  for (char *p = u; (p = strstr(p, "://")); p += 3)
    memset(p, '\n', 3);
  return u;
}

/* 1 when `hay` (may be NULL) contains s[0..n) in any letter case. */
static int contains_nocase(const char *hay, const char *s, size_t n) {
  if (!hay || n == 0) return 0;
  for (const char *p = hay; *p; p++)
    if (strncasecmp(p, s, n) == 0) return 1;
  return 0;
}

/* 1 when s[0..n) shows in `other`, raw or percent-decoded, in any letter case: a
 * message may quote that text (a parser lowercases and decodes names). */
static int explained_by(const char *other, const char *s, size_t n) {
  if (!other) return 0;
  if (contains_nocase(other, s, n)) return 1;
  char *d = pct_decoded(other);
  int found = contains_nocase(d, s, n);
  free(d);
  return found;
}

int xio__fuzz_leaked(const char *out, const char *v, size_t n, const char *rest) {
  if (!out || n == 0) return 0;
  char *u = unmarked(out);
  int shown = xio__fuzz_contains(u, v, n);
  free(u);
  return shown && !explained_by(rest, v, n);
}

/* `text` with the value v[0..n) (inside it) blanked to newlines, malloc'd: the
 * parts of the input a message may quote without leaking that value. */
static char *without(const char *text, const char *v, size_t n) {
  char *r = malloc(strlen(text) + 1);
  if (!r) abort();
  memcpy(r, text, strlen(text) + 1);
  memset(r + (v - text), '\n', n);
  return r;
}

void xio__fuzz_no_secret(const char *text, const char *const *names, const char *seps,
                         const char *out_text, const char *except) {
  if (!out_text) return;
  char *out = unmarked(out_text);
  for (const char *p = text; *p; p++) {
    const char *v;
    if (!secret_at(text, p, names, seps, &v)) continue;
    size_t n = xio__fuzz_value_len(v);
    /* The cheap test first: most values are nowhere in the output. */
    if (n < 8 || !xio__fuzz_contains(out, v, n) || wordlike(v, n)) continue;
    char *rest = without(text, v, n);
    int leaked = !explained_by(rest, v, n) && !explained_by(except, v, n);
    free(rest);
    if (!leaked) continue;
    fprintf(stderr, "secret value \"%.*s\" shows in \"%s\"\n", (int)n, v, out_text);
    xio__fuzz_fail(__FILE__, __LINE__, "no secret value in the output");
  }
  free(out);
}
