/*
 * url_strict.c - what a blob URL may not carry, because the request sent would not
 * be the one named and signed. A "." or ".." path segment is resolved away on the
 * way (by libcurl, proxies, the service), so "c/a/../b" would reach blob "b" while
 * xio names and signs "c/a/../b"; it is refused in every spelling: "%2e", behind an
 * encoded slash "%2F", and with '\' as a separator (Azure reads it as '/'). Azure's
 * naming rules keep blob names from ending in a dot anyway. A query may hold a
 * SAS's parameters and snapshot= only: anything else is a '?' typed unescaped in
 * a blob name, or a stray operation ("?comp=list") that would be sent as a part of
 * every request.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <stdio.h>
#include <string.h>

#include <xio/alloc.h>

#include "base_int.h"

/* Longest parameter name a message quotes; longer ones are not quoted. */
#define MAX_QUOTED_NAME 32

int xio_auth_sas_param(const char *name, size_t n) {
  static const char *const names[] = {
      "sv",    "ss",   "srt",    "sp",      "st",    "se",   "sip",  "spr",  "sr",   "si",
      "sig",   "ses",  "sdd",    "skoid",   "sktid", "skt",  "ske",  "sks",  "skv",  "saoid",
      "suoid", "scid", "sduoid", "skdutid", "rscc",  "rscd", "rsce", "rscl", "rsct", NULL};
  for (int i = 0; name && names[i]; i++)
    if (xio__auth_word_eq(name, n, names[i])) return 1;
  return 0;
}

/* 1 when the `n` bytes at `s` are "." or "..". */
static int dot_segment(const char *s, size_t n) {
  return (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.');
}

xio_err xio__auth_check_dot_segments(const char *path, xio_error *err) {
  char *plain = NULL;
  /* A malformed escape is not this check's to report: the names' decoding does. */
  xio_err rc = xio_auth_pct_decode(path, strlen(path), &plain, NULL);
  if (rc == XIO_ENOMEM) return xio_error_set(err, XIO_ENOMEM, "out of memory parsing a URL");
  if (rc != XIO_OK) return XIO_OK;
  int bad = 0;
  for (const char *s = plain; *s && !bad;) {
    size_t n = strcspn(s, "/\\");
    bad = dot_segment(s, n);
    s += n + (s[n] != '\0');
  }
  xio_free(plain);
  if (!bad) return XIO_OK;
  return xio_error_set(err, XIO_EPARSE,
                       "URL path has a '.' or '..' path segment (also written %%2E): it would be "
                       "resolved away on the way, and the request would reach another blob than "
                       "the one named; write the blob's own name");
}

/* 1 when `name` can be quoted in a message: short, and made of the characters
 * parameter names are made of (a long or odd one may be a secret pasted in the
 * wrong place). */
static int quotable(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > MAX_QUOTED_NAME) return 0;
  for (; *name; name++)
    if (!xio__auth_is_unreserved(*name)) return 0;
  return 1;
}

static xio_err stray_param(const char *name, xio_error *err) {
  char quoted[MAX_QUOTED_NAME + 32] = "a query parameter";
  if (quotable(name)) snprintf(quoted, sizeof quoted, "query parameter '%s'", name);
  return xio_error_set(err, XIO_EPARSE,
                       "URL has %s that is neither a SAS's (sv, sp, se, sig, ...) nor snapshot=: "
                       "a target's query holds only those; a '?' in a blob name must be written "
                       "%%3F",
                       quoted);
}

xio_err xio__auth_check_query(const char *query, xio_error *err) {
  xio__auth_params params;
  if (!query) return XIO_OK;
  xio_err rc = xio__auth_query_parse(query, 0, XIO_EPARSE, &params, err);
  for (size_t i = 0; rc == XIO_OK && i < params.n; i++) {
    const char *name = params.v[i].name;
    if (!xio_auth_sas_param(name, strlen(name)) &&
        !xio__auth_word_eq(name, strlen(name), "snapshot"))
      rc = stray_param(name, err);
  }
  xio__auth_params_free(&params);
  return rc;
}
