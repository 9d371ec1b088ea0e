/*
 * cred.c - one credential (anonymous, account key, SAS, bearer token, or an Entra ID
 * method): deep copy and wiping release, and the names of the Entra ID methods.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cred_int.h"

static const char *const entra_names[] = {"default", "callback", "managed_identity", "azure_cli",
                                          "imds"};

const char *xio_auth_entra_method_name(xio_auth_entra_method m) {
  return (unsigned)m < sizeof entra_names / sizeof *entra_names ? entra_names[m] : "?";
}

int xio_auth_entra_method_parse(const char *name, xio_auth_entra_method *out) {
  for (size_t i = 0; name && i < sizeof entra_names / sizeof *entra_names; i++)
    if (strcmp(name, entra_names[i]) == 0) {
      *out = (xio_auth_entra_method)i;
      return 0;
    }
  return -1;
}

static int dup_opt(char **dst, const char *src) {
  return !src || (*dst = xio__auth_strdup(src)) != NULL;
}

xio_err xio_auth_cred_copy(xio_auth_cred *dst, const xio_auth_cred *src) {
  if (!dst || !src) return XIO_EINVAL;
  memset(dst, 0, sizeof *dst);
  dst->kind = src->kind;
  dst->entra = src->entra;
  if (!dup_opt(&dst->account, src->account) || !dup_opt(&dst->sas, src->sas) ||
      !dup_opt(&dst->token, src->token) || !dup_opt(&dst->client_id, src->client_id))
    goto nomem;
  if (src->key && src->key_len) {
    if (!(dst->key = xio_malloc(src->key_len))) goto nomem;
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
  xio_free(c->account);
  xio_free(c->client_id);
  xio_auth_secret_free(c->key, c->key_len);
  xio__auth_str_free(c->sas);
  xio__auth_str_free(c->token);
  memset(c, 0, sizeof *c);
}
