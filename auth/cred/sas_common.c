/*
 * sas_common.c - what every SAS this library writes shares, whoever signs it (the
 * account key in sas_generate.c, a user delegation key in sas_udk.c): checking the
 * options and writing their values as text (permissions in canonical order, start and
 * expiry as ISO 8601, version, IP range, protocol), checking the account, container
 * and blob named, the "/blob/ACCOUNT/CONTAINER[/BLOB]" line of a string to sign, and
 * the query parameters of the token.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <string.h>

#include "cred_int.h"

#define MIN_VERSION "2020-12-06"

static int valid_version(const char *v) {
  if (strlen(v) != 10) return 0;
  for (int i = 0; i < 10; i++)
    if (i == 4 || i == 7 ? v[i] != '-' : (v[i] < '0' || v[i] > '9')) return 0;
  return 1;
}

xio_err xio__auth_sas_common(const xio_auth_sas_options *o, const char *perms, const char *order,
                             const char *what, xio__auth_sas_text *v, xio_error *err) {
  uint32_t bits = 0;
  char bad = 0;
  if (!o) return xio_error_set(err, XIO_EINVAL, "no SAS options");
  if (!o->expiry) return xio_error_set(err, XIO_EINVAL, "SAS expiry is required");
  if (!perms || !*perms) return xio_error_set(err, XIO_EINVAL, "SAS permissions are required");
  if (xio__auth_perm_bits(perms, order, &bits, &bad) != 0)
    return xio_error_set(err, XIO_EINVAL, "permission '%c' is not valid for %s", bad, what);
  xio__auth_perm_string(bits, order, v->sp, sizeof v->sp);
  v->sv = o->version ? o->version : MIN_VERSION;
  if (!valid_version(v->sv) || strcmp(v->sv, MIN_VERSION) < 0)
    return xio_error_set(err, XIO_EINVAL, "SAS version must be YYYY-MM-DD, at least %s",
                         MIN_VERSION);
  if (o->protocol && strcmp(o->protocol, "https") != 0 && strcmp(o->protocol, "https,http") != 0)
    return xio_error_set(err, XIO_EINVAL, "SAS protocol must be \"https\" or \"https,http\"");
  if (o->start && o->start >= o->expiry)
    return xio_error_set(err, XIO_EINVAL, "SAS start is not before its expiry");
  v->spr = o->protocol ? o->protocol : "";
  v->sip = o->ip ? o->ip : "";
  if (o->start) xio_auth_format_iso8601(o->start, v->st);
  xio_auth_format_iso8601(o->expiry, v->se);
  return XIO_OK;
}

xio_err xio__auth_sas_check_names(const char *account, const char *container, const char *blob,
                                  xio_error *err) {
  xio_error e;
  xio_error_clear(&e);
  if (!account || !*account) return xio_error_set(err, XIO_EINVAL, "account name is required");
  /* A bad container name is a bad argument here (XIO_EINVAL), not bad input text. */
  if (xio_auth_check_container_name(container, &e) != XIO_OK)
    return xio_error_set(err, XIO_EINVAL, "%s", e.message);
  if (blob && !*blob) return xio_error_set(err, XIO_EINVAL, "blob name is empty");
  return XIO_OK;
}

void xio__auth_sas_line(xio__auth_buf *b, const char *s) {
  xio__auth_buf_puts(b, s);
  xio__auth_buf_putc(b, '\n');
}

void xio__auth_sas_resource(xio__auth_buf *b, const char *account, const char *container,
                            const char *blob) {
  xio__auth_buf_puts(b, "/blob/");
  xio__auth_buf_puts(b, account);
  xio__auth_buf_putc(b, '/');
  xio__auth_buf_puts(b, container);
  if (blob) {
    xio__auth_buf_putc(b, '/');
    xio__auth_buf_puts(b, blob);
  }
  xio__auth_buf_putc(b, '\n');
}

void xio__auth_sas_param(xio__auth_buf *b, const char *name, const char *value) {
  if (!value || !*value) return;
  char *enc;
  if (xio_auth_pct_encode(value, NULL, &enc, NULL) != XIO_OK) {
    b->oom = 1;
    return;
  }
  if (b->len) xio__auth_buf_putc(b, '&');
  xio__auth_buf_puts(b, name);
  xio__auth_buf_putc(b, '=');
  xio__auth_buf_puts(b, enc);
  xio__auth_str_free(enc); /* may be the signature */
}
