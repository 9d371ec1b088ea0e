/*
 * names.c - container name rules and the encoding of blob names into URL paths.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <string.h>

#include "base_int.h"

static int lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/* Why `name` (not NULL) breaks the rules of container names, in `err`: XIO_EPARSE; or
 * XIO_OK. */
static xio_err check_name(const char *name, xio_error *err) {
  if (strcmp(name, "$root") == 0) return XIO_OK; /* the account's root container */
  size_t n = strlen(name);
  if (n < 3 || n > 63)
    return xio_error_set(err, XIO_EPARSE, "container name must be 3-63 characters long (got %zu)",
                         n);
  for (size_t i = 0; i < n; i++) {
    if (lower_or_digit(name[i])) continue;
    if (name[i] != '-')
      return xio_error_set(err, XIO_EPARSE,
                           "container name may hold only lowercase letters, digits and "
                           "dashes (character %zu is not one)",
                           i + 1);
    if (i == 0 || i == n - 1)
      return xio_error_set(err, XIO_EPARSE,
                           "container name must start and end with a letter or digit");
    if (name[i - 1] == '-')
      return xio_error_set(err, XIO_EPARSE, "container name has consecutive dashes");
  }
  return XIO_OK;
}

xio_err xio_auth_check_container_name(const char *name, xio_error *err) {
  if (!name) return xio_error_set(err, XIO_EPARSE, "container name is missing");
  xio_err rc = check_name(name, err);
  if (rc != XIO_OK) xio_error_set_reason(err, XIO_REASON_CONTAINER_NAME);
  return rc;
}

char *xio_auth_encode_path(const char *name) {
  char *out;
  return xio_auth_pct_encode(name, "/", &out, NULL) == XIO_OK ? out : NULL;
}
