/*
 * cred_int.h - helpers shared by the credential files of libxio_auth but not
 * public (SAS permission-letter sets and the parts every SAS shares, merging
 * credential stores). Includes the base helpers. Never installed.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#ifndef XIO_CRED_INT_H
#define XIO_CRED_INT_H

#include <stdint.h>

#include <xio/auth.h>

#include "base_int.h"

/* ------------------------------------------------- permission letters ---- */

/* Every SAS permission letter the service defines, for parsing. */
#define XIO__AUTH_PERM_KNOWN "racwdxyltimeopuf"
/* Canonical orders for writing permissions. */
#define XIO__AUTH_PERM_BLOB_ORDER    "racwdxylti"
#define XIO__AUTH_PERM_ACCOUNT_ORDER "rwdxylacupitf"

/* The bit set of `letters`. Returns 0 and sets *bits, or -1 and sets *bad to the
 * first character not in `allowed`. */
int xio__auth_perm_bits(const char *letters, const char *allowed, uint32_t *bits, char *bad);
/* Writes the letters of `bits` that appear in `order`, in that order, into `out`
 * (`size` >= 27 is always enough). Returns `out`. */
char *xio__auth_perm_string(uint32_t bits, const char *order, char *out, size_t size);

/* ---------------------------------------------------------------- SAS ---- */

/* The values every SAS token carries, as text; "" when omitted. */
typedef struct xio__auth_sas_text {
  const char *sv, *sip, *spr;
  char sp[32], st[21], se[21];
} xio__auth_sas_text;

/* Checks `o` (NULL: an error) and the permissions `perms` against `order` (the letters
 * valid for the resource, in canonical order), and writes their values into `v`.
 * `what` names the resource in the error ("a blob SAS"). Errors: XIO_EINVAL. */
xio_err xio__auth_sas_common(const xio_auth_sas_options *o, const char *perms, const char *order,
                             const char *what, xio__auth_sas_text *v, xio_error *err);
/* Checks the names a service SAS is for: an account, a valid container name, and a blob
 * name that is NULL (a container SAS) or not empty. Errors: XIO_EINVAL. */
xio_err xio__auth_sas_check_names(const char *account, const char *container, const char *blob,
                                  xio_error *err);
/* Appends `s` and a newline: one line of a string to sign. */
void xio__auth_sas_line(xio__auth_buf *b, const char *s);
/* Appends the line "/blob/ACCOUNT/CONTAINER[/BLOB]\n" of a service string to sign. */
void xio__auth_sas_resource(xio__auth_buf *b, const char *account, const char *container,
                            const char *blob);
/* Appends "&name=encoded(value)" to a SAS query being written, when value is
 * non-empty (no '&' before the first). Out-of-memory is left sticky in `b`. */
void xio__auth_sas_param(xio__auth_buf *b, const char *name, const char *value);

/* ------------------------------------------------------- credentials ---- */

/* Moves every entry of `src` into `dst` (replacing equal prefixes), leaving `src`
 * empty; all or nothing. Errors: XIO_ENOMEM. */
xio_err xio__auth_credstore_merge(xio_auth_credstore *dst, xio_auth_credstore *src, xio_error *err);

#endif /* XIO_CRED_INT_H */
