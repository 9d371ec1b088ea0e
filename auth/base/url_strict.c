/*
 * url_strict.c - what a blob URL may not carry, because the request sent would not
 * be the one named and signed. A "." or ".." path segment is resolved away on the
 * way (by libcurl, proxies, the service), so "c/a/../b" would reach blob "b" while
 * xio names and signs "c/a/../b"; it is refused in every spelling: "%2e", behind an
 * encoded slash "%2F", and with '\' as a separator (Azure reads it as '/'). Azure's
 * naming rules keep blob names from ending in a dot anyway.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <string.h>

#include <xio/alloc.h>

#include "base_int.h"

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
