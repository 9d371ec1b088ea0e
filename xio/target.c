/*
 * target.c - what a target string names: a page blob (an http or https URL), a
 * local file (a path or a file:// URL), or something xio cannot open (a URL of any
 * other scheme). The file layer picks its backend by this, and programs can ask the
 * same question before they open anything.
 */
#include <string.h>
#include <strings.h>

#include "xio/xio.h"

static int is_alpha(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

static int is_scheme_char(char ch) {
  return is_alpha(ch) || (ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '.';
}

size_t xio_target_scheme_length(const char *target) {
  if (!target || !is_alpha(target[0])) return 0;
  size_t n = 1;
  while (is_scheme_char(target[n]))
    n++;
  return strncmp(target + n, "://", 3) == 0 ? n : 0;
}

xio_target_kind xio_target_classify(const char *target) {
  if (!target || !*target) return XIO_TARGET_UNSUPPORTED;
  size_t n = xio_target_scheme_length(target);
  if (n == 0) return XIO_TARGET_LOCAL;
  if ((n == 4 && strncasecmp(target, "http", 4) == 0) ||
      (n == 5 && strncasecmp(target, "https", 5) == 0))
    return XIO_TARGET_BLOB;
  if (n == 4 && strncasecmp(target, "file", 4) == 0) return XIO_TARGET_LOCAL;
  return XIO_TARGET_UNSUPPORTED;
}
