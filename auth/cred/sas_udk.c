/*
 * sas_udk.c - the user delegation SAS: a service SAS signed not with the account key
 * but with a user delegation key that the service hands to an Entra ID identity (Get
 * User Delegation Key). For sv >= 2020-12-06 the string to sign is 24 lines joined
 * by '\n' with no trailing newline: sp, st, se, /blob/ACCOUNT/CONTAINER[/BLOB],
 * skoid, sktid, skt, ske, sks, skv, saoid, suoid, scid, sip, spr, sv, sr, snapshot,
 * ses, rscc, rscd, rsce, rscl, rsct (the service's "Create a user delegation SAS").
 * The token carries the key's fields (skoid...skv) but never its value.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include <xio/alloc.h>
#include <xio/entra.h>

#include "cred_int.h"

void xio_auth_udk_clear(xio_auth_udk *k) {
  if (!k) return;
  xio_free(k->oid);
  xio_free(k->tid);
  xio_free(k->start);
  xio_free(k->expiry);
  xio_free(k->service);
  xio_free(k->version);
  xio__auth_str_free(k->value);
  memset(k, 0, sizeof *k);
}

/* The written values of one token. */
typedef struct udk_values {
  xio__auth_sas_text c; /* every SAS's */
  const char *sr;
} udk_values;

static xio_err check_key(const xio_auth_udk *k, xio_error *err) {
  if (!k || !k->oid || !k->tid || !k->start || !k->expiry || !k->service || !k->version ||
      !k->value || !*k->value)
    return xio_error_set(err, XIO_EINVAL, "the user delegation key is incomplete");
  return XIO_OK;
}

static xio_err fill_values(const char *blob, const char *perms, const xio_auth_sas_options *o,
                           udk_values *v, xio_error *err) {
  xio_err rc = xio__auth_sas_common(o, perms, XIO__AUTH_PERM_BLOB_ORDER,
                                    blob ? "a blob SAS" : "a container SAS", &v->c, err);
  if (rc != XIO_OK) return rc;
  if (o && o->identifier)
    return xio_error_set(err, XIO_EINVAL,
                         "a user delegation SAS cannot use a stored access policy");
  v->sr = blob ? "b" : "c";
  return XIO_OK;
}

static void string_to_sign(xio__auth_buf *b, const char *account, const xio_auth_udk *k,
                           const char *container, const char *blob, const udk_values *v) {
  xio__auth_sas_line(b, v->c.sp);
  xio__auth_sas_line(b, v->c.st);
  xio__auth_sas_line(b, v->c.se);
  xio__auth_sas_resource(b, account, container, blob);
  xio__auth_sas_line(b, k->oid);
  xio__auth_sas_line(b, k->tid);
  xio__auth_sas_line(b, k->start);
  xio__auth_sas_line(b, k->expiry);
  xio__auth_sas_line(b, k->service);
  xio__auth_sas_line(b, k->version);
  xio__auth_buf_puts(b, "\n\n\n"); /* saoid, suoid, scid */
  xio__auth_sas_line(b, v->c.sip);
  xio__auth_sas_line(b, v->c.spr);
  xio__auth_sas_line(b, v->c.sv);
  xio__auth_sas_line(b, v->sr);
  /* snapshot time, ses, rscc, rscd, rsce, rscl, rsct: all empty */
  xio__auth_buf_puts(b, "\n\n\n\n\n\n");
}

static xio_err build_sts(const char *account, const xio_auth_udk *key, const char *container,
                         const char *blob, const char *perms, const xio_auth_sas_options *opts,
                         udk_values *v, char **out, xio_error *err) {
  xio_err rc = xio__auth_sas_check_names(account, container, blob, err);
  if (rc == XIO_OK) rc = check_key(key, err);
  if (rc == XIO_OK) rc = fill_values(blob, perms, opts, v, err);
  if (rc != XIO_OK) return rc;
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  string_to_sign(&b, account, key, container, blob, v);
  if (!(*out = xio__auth_buf_take(&b))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

xio_err xio_auth_udk_string_to_sign(const char *account, const xio_auth_udk *key,
                                    const char *container, const char *blob, const char *perms,
                                    const xio_auth_sas_options *opts, char **out, xio_error *err) {
  udk_values v;
  memset(&v, 0, sizeof v);
  if (!out) return xio_error_set(err, XIO_EINVAL, "no output");
  *out = NULL;
  return build_sts(account, key, container, blob, perms, opts, &v, out, err);
}

/* HMAC-SHA256 of `text` with the decoded key value, base64, into `sig`. */
static xio_err sign_text(const xio_auth_udk *key, const char *text, char sig[45], xio_error *err) {
  unsigned char *raw = NULL;
  size_t n = 0;
  xio_err rc = xio_auth_base64_decode(key->value, &raw, &n, NULL);
  if (rc == XIO_ENOMEM) return xio_error_set(err, rc, "out of memory");
  if (rc != XIO_OK || n == 0)
    return xio_error_set(err, XIO_EINVAL, "the user delegation key's value is not base64");
  rc = xio_auth_hmac_sha256_base64(raw, n, text, strlen(text), sig);
  xio_auth_secret_free(raw, n);
  return rc == XIO_OK ? XIO_OK : xio_error_set(err, rc, "signing the SAS failed");
}

static xio_err write_token(const xio_auth_udk *k, const udk_values *v, const char *sig, char **out,
                           xio_error *err) {
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  xio__auth_sas_param(&b, "sv", v->c.sv);
  xio__auth_sas_param(&b, "sp", v->c.sp);
  xio__auth_sas_param(&b, "st", v->c.st);
  xio__auth_sas_param(&b, "se", v->c.se);
  xio__auth_sas_param(&b, "skoid", k->oid);
  xio__auth_sas_param(&b, "sktid", k->tid);
  xio__auth_sas_param(&b, "skt", k->start);
  xio__auth_sas_param(&b, "ske", k->expiry);
  xio__auth_sas_param(&b, "sks", k->service);
  xio__auth_sas_param(&b, "skv", k->version);
  xio__auth_sas_param(&b, "sip", v->c.sip);
  xio__auth_sas_param(&b, "spr", v->c.spr);
  xio__auth_sas_param(&b, "sr", v->sr);
  xio__auth_sas_param(&b, "sig", sig);
  if (!(*out = xio__auth_buf_take(&b))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

xio_err xio_auth_sas_generate_user_delegation(const char *account, const xio_auth_udk *key,
                                              const char *container, const char *blob,
                                              const xio_auth_sas_options *opts, char **out,
                                              xio_error *err) {
  udk_values v;
  char sig[45], *sts = NULL;
  memset(&v, 0, sizeof v);
  if (!out) return xio_error_set(err, XIO_EINVAL, "no output for the SAS");
  *out = NULL;
  xio_err rc = build_sts(account, key, container, blob, opts ? opts->permissions : NULL, opts, &v,
                         &sts, err);
  if (rc == XIO_OK) rc = sign_text(key, sts, sig, err);
  xio_free(sts);
  if (rc == XIO_OK) rc = write_token(key, &v, sig, out, err);
  OPENSSL_cleanse(sig, sizeof sig);
  if (rc != XIO_OK) xio__auth_operation(err, "GenerateUserDelegationSas");
  return rc;
}
