/*
 * sas_generate.c - service SAS (blob or container) and account SAS generation with
 * an account key, for sv >= 2020-12-06. The service string to sign is 16 lines joined
 * by '\n' with no trailing newline (sp, st, se, /blob/ACCOUNT/CONTAINER[/BLOB], si,
 * sip, spr, sv, sr, snapshot, ses, rscc, rscd, rsce, rscl, rsct); the account one is
 * ACCOUNT, sp, ss, srt, st, se, sip, spr, sv, ses, each followed by '\n'. Both are
 * signed over the un-encoded values; the query string is written in the order the
 * official SDKs write it, every value URL-encoded. The result holds a signature: it
 * is a secret.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include <xio/alloc.h>

#include "cred_int.h"

xio_auth_sas_options xio_auth_sas_options_default(void) {
  xio_auth_sas_options o;
  memset(&o, 0, sizeof o);
  return o;
}

/* The values that go into a token, as text; "" when omitted. */
typedef struct sas_values {
  xio__auth_sas_text c; /* every SAS's */
  const char *sr, *si;
  char ss[8], srt[8];
} sas_values;

/* The 16-line service string to sign (no trailing newline). */
static void service_string(xio__auth_buf *b, const sas_values *v, const char *account,
                           const char *container, const char *blob) {
  xio__auth_sas_line(b, v->c.sp);
  xio__auth_sas_line(b, v->c.st);
  xio__auth_sas_line(b, v->c.se);
  xio__auth_sas_resource(b, account, container, blob);
  xio__auth_sas_line(b, v->si);
  xio__auth_sas_line(b, v->c.sip);
  xio__auth_sas_line(b, v->c.spr);
  xio__auth_sas_line(b, v->c.sv);
  xio__auth_sas_line(b, v->sr);
  /* snapshot time, ses, rscc, rscd, rsce, rscl, rsct: all empty */
  xio__auth_buf_puts(b, "\n\n\n\n\n\n");
}

/* The account string to sign, with its trailing newline after ses. */
static void account_string(xio__auth_buf *b, const sas_values *v, const char *account) {
  xio__auth_sas_line(b, account);
  xio__auth_sas_line(b, v->c.sp);
  xio__auth_sas_line(b, v->ss);
  xio__auth_sas_line(b, v->srt);
  xio__auth_sas_line(b, v->c.st);
  xio__auth_sas_line(b, v->c.se);
  xio__auth_sas_line(b, v->c.sip);
  xio__auth_sas_line(b, v->c.spr);
  xio__auth_sas_line(b, v->c.sv);
  xio__auth_sas_line(b, ""); /* ses */
}

/* Signs the string in `sts` (consumed) and writes the token into *out. */
static xio_err sign_token(const unsigned char *key, size_t key_len, xio__auth_buf *sts,
                          const sas_values *v, char **out, xio_error *err) {
  char sig[45];
  char *text = xio__auth_buf_take(sts);
  if (!text) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = xio_auth_hmac_sha256_base64(key, key_len, text, strlen(text), sig);
  xio_free(text);
  if (rc != XIO_OK) return xio_error_set(err, rc, "signing the SAS failed");
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  xio__auth_sas_param(&b, "sv", v->c.sv);
  xio__auth_sas_param(&b, "ss", v->ss);
  xio__auth_sas_param(&b, "srt", v->srt);
  xio__auth_sas_param(&b, "sp", v->c.sp);
  xio__auth_sas_param(&b, "st", v->c.st);
  xio__auth_sas_param(&b, "se", v->c.se);
  xio__auth_sas_param(&b, "sip", v->c.sip);
  xio__auth_sas_param(&b, "spr", v->c.spr);
  xio__auth_sas_param(&b, "sr", v->sr);
  xio__auth_sas_param(&b, "si", v->si);
  xio__auth_sas_param(&b, "sig", sig);
  OPENSSL_cleanse(sig, sizeof sig);
  if (!(*out = xio__auth_buf_take(&b))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

static xio_err check_signer(const char *account, const unsigned char *key, size_t key_len,
                            char **out, xio_error *err) {
  if (!out) return xio_error_set(err, XIO_EINVAL, "no output for the SAS");
  *out = NULL;
  if (!account || !*account) return xio_error_set(err, XIO_EINVAL, "account name is required");
  if (!key || key_len == 0) return xio_error_set(err, XIO_EINVAL, "account key is empty");
  return XIO_OK;
}

static xio_err service_sas(const char *account, const unsigned char *key, size_t key_len,
                           const char *container, const char *blob,
                           const xio_auth_sas_options *opts, char **out, xio_error *err) {
  sas_values v;
  memset(&v, 0, sizeof v);
  xio_err rc = check_signer(account, key, key_len, out, err);
  if (rc == XIO_OK) rc = xio__auth_sas_check_names(account, container, blob, err);
  if (rc == XIO_OK)
    rc = xio__auth_sas_common(opts, opts ? opts->permissions : NULL, XIO__AUTH_PERM_BLOB_ORDER,
                              blob ? "a blob SAS" : "a container SAS", &v.c, err);
  if (rc != XIO_OK) return rc;
  v.sr = blob ? "b" : "c";
  v.si = opts && opts->identifier ? opts->identifier : "";
  xio__auth_buf sts;
  xio__auth_buf_init(&sts);
  service_string(&sts, &v, account, container, blob);
  return sign_token(key, key_len, &sts, &v, out, err);
}

xio_err xio_auth_sas_generate_service(const char *account, const unsigned char *key, size_t key_len,
                                      const char *container, const char *blob,
                                      const xio_auth_sas_options *opts, char **out,
                                      xio_error *err) {
  xio_err rc = service_sas(account, key, key_len, container, blob, opts, out, err);
  if (rc != XIO_OK) xio__auth_operation(err, "GenerateSas");
  return rc;
}

/* Letters of `given` (a subset of `order`) rewritten in `order`'s order. */
static xio_err canonical_set(const char *given, const char *order, const char *field, char *dst,
                             size_t size, xio_error *err) {
  uint32_t bits = 0;
  char bad = 0;
  if (!given || !*given) return xio_error_set(err, XIO_EINVAL, "SAS %s is required", field);
  if (xio__auth_perm_bits(given, order, &bits, &bad) != 0)
    return xio_error_set(err, XIO_EINVAL, "SAS %s may hold only \"%s\" (got '%c')", field, order,
                         bad);
  xio__auth_perm_string(bits, order, dst, size);
  return XIO_OK;
}

static xio_err account_sas(const char *account, const unsigned char *key, size_t key_len,
                           const char *services, const char *types,
                           const xio_auth_sas_options *opts, char **out, xio_error *err) {
  sas_values v;
  memset(&v, 0, sizeof v);
  xio_err rc = check_signer(account, key, key_len, out, err);
  if (rc == XIO_OK) rc = canonical_set(services, "bfqt", "ss", v.ss, sizeof v.ss, err);
  if (rc == XIO_OK) rc = canonical_set(types, "sco", "srt", v.srt, sizeof v.srt, err);
  if (rc == XIO_OK)
    rc = xio__auth_sas_common(opts, opts ? opts->permissions : NULL, XIO__AUTH_PERM_ACCOUNT_ORDER,
                              "an account SAS", &v.c, err);
  if (rc == XIO_OK && opts && opts->identifier)
    rc = xio_error_set(err, XIO_EINVAL, "an account SAS cannot use a stored access policy");
  if (rc != XIO_OK) return rc;
  v.sr = v.si = "";
  xio__auth_buf sts;
  xio__auth_buf_init(&sts);
  account_string(&sts, &v, account);
  return sign_token(key, key_len, &sts, &v, out, err);
}

xio_err xio_auth_sas_generate_account(const char *account, const unsigned char *key, size_t key_len,
                                      const char *services, const char *resource_types,
                                      const xio_auth_sas_options *opts, char **out,
                                      xio_error *err) {
  xio_err rc = account_sas(account, key, key_len, services, resource_types, opts, out, err);
  if (rc != XIO_OK) xio__auth_operation(err, "GenerateSas");
  return rc;
}
