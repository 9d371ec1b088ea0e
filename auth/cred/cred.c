/*
 * cred.c - one credential (anonymous, account key, or SAS): deep copy and wiping
 * release.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdlib.h>
#include <string.h>

#include "cred_int.h"

xio_err xio_auth_cred_copy(xio_auth_cred *dst, const xio_auth_cred *src) {
  if (!dst || !src) return XIO_EINVAL;
  memset(dst, 0, sizeof *dst);
  dst->kind = src->kind;
  if (src->account && !(dst->account = xio__auth_strdup(src->account))) goto nomem;
  if (src->sas && !(dst->sas = xio__auth_strdup(src->sas))) goto nomem;
  if (src->key && src->key_len) {
    if (!(dst->key = malloc(src->key_len))) goto nomem;
    memcpy(dst->key, src->key, src->key_len);
    dst->key_len = src->key_len;
  }
  return XIO_OK;
nomem:
  xio_auth_cred_clear(dst);
  return XIO_ENOMEM;
}

void xio_auth_cred_clear(xio_auth_cred *c) {
  if (!c) return;
  free(c->account);
  xio_auth_secret_free(c->key, c->key_len);
  xio__auth_str_free(c->sas);
  memset(c, 0, sizeof *c);
}
