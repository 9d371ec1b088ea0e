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

#include "cred_int.h"

#define MIN_VERSION "2020-12-06"

xio_auth_sas_options xio_auth_sas_options_default(void) {
  xio_auth_sas_options o;
  memset(&o, 0, sizeof o);
  return o;
}

/* The values that go into a token, as text; "" when omitted. */
typedef struct sas_values {
  const char *sv, *sr, *si, *sip, *spr;
  char sp[32], st[21], se[21], ss[8], srt[8];
} sas_values;

static int valid_version(const char *v) {
  if (strlen(v) != 10) return 0;
  for (int i = 0; i < 10; i++)
    if (i == 4 || i == 7 ? v[i] != '-' : (v[i] < '0' || v[i] > '9')) return 0;
  return 1;
}

/* Checks the options shared by both kinds and fills times, version, ip and protocol.
 * `order` lists the permission letters valid for the resource, canonically ordered. */
static xio_err common_values(const xio_auth_sas_options *o, const char *order, const char *what,
                             sas_values *v, xio_error *err) {
  uint32_t bits = 0;
  char bad = 0;
  if (!o) return xio_error_set(err, XIO_EINVAL, "no SAS options");
  if (!o->expiry) return xio_error_set(err, XIO_EINVAL, "SAS expiry is required");
  if (!o->permissions || !*o->permissions)
    return xio_error_set(err, XIO_EINVAL, "SAS permissions are required");
  if (xio__auth_perm_bits(o->permissions, order, &bits, &bad) != 0)
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

static void put_line(xio__auth_buf *b, const char *s) {
  xio__auth_buf_puts(b, s);
  xio__auth_buf_putc(b, '\n');
}

/* The 16-line service string to sign (no trailing newline). */
static void service_string(xio__auth_buf *b, const sas_values *v, const char *account,
                           const char *container, const char *blob) {
  put_line(b, v->sp);
  put_line(b, v->st);
  put_line(b, v->se);
  xio__auth_buf_puts(b, "/blob/");
  xio__auth_buf_puts(b, account);
  xio__auth_buf_putc(b, '/');
  xio__auth_buf_puts(b, container);
  if (blob) {
    xio__auth_buf_putc(b, '/');
    xio__auth_buf_puts(b, blob);
  }
  xio__auth_buf_putc(b, '\n');
  put_line(b, v->si);
  put_line(b, v->sip);
  put_line(b, v->spr);
  put_line(b, v->sv);
  put_line(b, v->sr);
  /* snapshot time, ses, rscc, rscd, rsce, rscl, rsct: all empty */
  xio__auth_buf_puts(b, "\n\n\n\n\n\n");
}

/* The account string to sign, with its trailing newline after ses. */
static void account_string(xio__auth_buf *b, const sas_values *v, const char *account) {
  put_line(b, account);
  put_line(b, v->sp);
  put_line(b, v->ss);
  put_line(b, v->srt);
  put_line(b, v->st);
  put_line(b, v->se);
  put_line(b, v->sip);
  put_line(b, v->spr);
  put_line(b, v->sv);
  put_line(b, ""); /* ses */
}

/* "&name=encoded(value)" when value is non-empty (no '&' for the first). */
static void put_param(xio__auth_buf *b, const char *name, const char *value) {
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

/* Signs the string in `sts` (consumed) and writes the token into *out. */
static xio_err sign_token(const unsigned char *key, size_t key_len, xio__auth_buf *sts,
                          const sas_values *v, char **out, xio_error *err) {
  char sig[45];
  char *text = xio__auth_buf_take(sts);
  if (!text) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = xio_auth_hmac_sha256_base64(key, key_len, text, strlen(text), sig);
  free(text);
  if (rc != XIO_OK) return xio_error_set(err, rc, "signing the SAS failed");
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  put_param(&b, "sv", v->sv);
  put_param(&b, "ss", v->ss);
  put_param(&b, "srt", v->srt);
  put_param(&b, "sp", v->sp);
  put_param(&b, "st", v->st);
  put_param(&b, "se", v->se);
  put_param(&b, "sip", v->sip);
  put_param(&b, "spr", v->spr);
  put_param(&b, "sr", v->sr);
  put_param(&b, "si", v->si);
  put_param(&b, "sig", sig);
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

/* A bad container name is a bad argument here (XIO_EINVAL), not bad input text. */
static xio_err check_container(const char *container, xio_error *err) {
  xio_error e;
  xio_error_clear(&e);
  if (xio_auth_check_container_name(container, &e) == XIO_OK) return XIO_OK;
  return xio_error_set(err, XIO_EINVAL, "%s", e.message);
}

static xio_err service_sas(const char *account, const unsigned char *key, size_t key_len,
                           const char *container, const char *blob,
                           const xio_auth_sas_options *opts, char **out, xio_error *err) {
  sas_values v;
  memset(&v, 0, sizeof v);
  xio_err rc = check_signer(account, key, key_len, out, err);
  if (rc == XIO_OK) rc = check_container(container, err);
  if (rc == XIO_OK && blob && !*blob) rc = xio_error_set(err, XIO_EINVAL, "blob name is empty");
  if (rc == XIO_OK)
    rc = common_values(opts, XIO__AUTH_PERM_BLOB_ORDER, blob ? "a blob SAS" : "a container SAS", &v,
                       err);
  if (rc != XIO_OK) return rc;
  v.sr = blob ? "b" : "c";
  v.si = opts->identifier ? opts->identifier : "";
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
    rc = common_values(opts, XIO__AUTH_PERM_ACCOUNT_ORDER, "an account SAS", &v, err);
  if (rc == XIO_OK && opts->identifier)
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
