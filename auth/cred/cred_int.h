/*
 * cred_int.h - helpers shared by the credential files of libxio_auth but not
 * public (SAS permission-letter sets, merging credential stores). Includes the base
 * helpers. Never installed.
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

/* ------------------------------------------------------- credentials ---- */

/* Moves every entry of `src` into `dst` (replacing equal prefixes), leaving `src`
 * empty; all or nothing. Errors: XIO_ENOMEM. */
xio_err xio__auth_credstore_merge(xio_auth_credstore *dst, xio_auth_credstore *src, xio_error *err);

#endif /* XIO_CRED_INT_H */
