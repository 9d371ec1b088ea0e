/*
 * sas_key.c - a service SAS for a blob (sr=b) or, when the URL names no blob, its
 * container (sr=c), signed with the account's own key, found where a program run by
 * a person finds it: the credential file (an entry with account and key, or a
 * connection string), AZURE_STORAGE_CONNECTION_STRING (also the dev shorthand
 * UseDevelopmentStorage=true), or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY,
 * whichever serves the URL first: the entry's prefix, the connection string's blob
 * endpoint, the account's own endpoint (never a host that merely begins with its
 * name). Nothing is sent; the token is a secret, returned to the caller only.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>
#include <xio/auth.h>
#include <xio/credentials.h>

#include "xio_int.h"

static xio_err copy_key(xio_auth_cred *out, const char *account, const unsigned char *key,
                        size_t len, xio_error *err) {
  xio_auth_cred src = {.kind = XIO_AUTH_CRED_SHARED_KEY,
                       .account = (char *)account,
                       .key = (unsigned char *)key,
                       .key_len = len};
  if (xio_auth_cred_copy(out, &src) != XIO_OK)
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

/* The credential file's shared key for `url`; XIO_ENOCRED when it has none. The file
 * is read as a context reads it (xio_cred_file_load, with `flags`). */
static xio_err key_from_file(const char *path, unsigned flags, const char *url, xio_auth_cred *out,
                             xio_error *err) {
  xio_auth_credstore *s = NULL;
  xio_err rc = xio_cred_file_load(path, flags, &s, err);
  if (rc == XIO_OK) rc = xio_auth_credstore_lookup(s, url, out, NULL);
  if (rc == XIO_OK && out->kind != XIO_AUTH_CRED_SHARED_KEY) {
    xio_auth_cred_clear(out);
    rc = XIO_ENOCRED;
  }
  xio_auth_credstore_free(s);
  return rc;
}

/* The key in AZURE_STORAGE_CONNECTION_STRING when `url` lies under its endpoint. */
static xio_err key_from_connstr(const char *url, xio_auth_cred *out, xio_error *err) {
  const char *cs = getenv("AZURE_STORAGE_CONNECTION_STRING");
  xio_auth_account a;
  if (!cs || !*cs) return XIO_ENOCRED;
  xio_err rc = xio_auth_connstr_parse(cs, &a, err);
  if (rc != XIO_OK) return rc;
  if (a.key && a.name && xio_auth_account_serves(&a, url))
    rc = copy_key(out, a.name, a.key, a.key_len, err);
  else
    rc = XIO_ENOCRED;
  xio_auth_account_clear(&a);
  return rc;
}

/* The key in AZURE_STORAGE_ACCOUNT / AZURE_STORAGE_KEY when `u` is that account's
 * own URL (matched by endpoint: a host that only begins with the name is not). */
static xio_err key_from_env(const xio_auth_url *u, xio_auth_cred *out, xio_error *err) {
  const char *name = getenv("AZURE_STORAGE_ACCOUNT"), *key = getenv("AZURE_STORAGE_KEY");
  if (!name || !key || !*key || !xio_auth_url_of_account(u, name)) return XIO_ENOCRED;
  unsigned char *raw;
  size_t len;
  if (xio_auth_base64_decode(key, &raw, &len, NULL) != XIO_OK)
    return xio_error_set(err, XIO_EPARSE, "AZURE_STORAGE_KEY is not valid base64");
  xio_err rc = copy_key(out, name, raw, len, err);
  xio_auth_secret_free(raw, len);
  return rc;
}

static xio_err find_key(const char *file, unsigned flags, const char *url, const xio_auth_url *u,
                        xio_auth_cred *out, xio_error *err) {
  xio_err rc = file && *file ? key_from_file(file, flags, url, out, err) : XIO_ENOCRED;
  if (rc == XIO_ENOCRED) rc = key_from_connstr(url, out, err);
  if (rc == XIO_ENOCRED) rc = key_from_env(u, out, err);
  if (rc == XIO_ENOCRED)
    xio_error_set(err, XIO_ENOCRED,
                  "a SAS is signed with the account key of %s, and none was "
                  "found for %s",
                  u->account, u->endpoint);
  if (rc != XIO_OK) xio_error_set_operation(err, "GenerateSas");
  return rc;
}

xio_err xio_service_sas(const char *url, const char *cred_file, unsigned file_flags,
                        const xio_auth_sas_options *o, char **token, xio_error *err) {
  if (!token || !url || !o) return xio_error_set(err, XIO_EINVAL, "xio_service_sas: no URL");
  *token = NULL;
  xio_auth_url u;
  xio_err rc = xio_auth_url_parse(url, &u, err);
  if (rc != XIO_OK) return rc;
  xio_auth_cred key = {.kind = XIO_AUTH_CRED_NONE};
  if (!u.container) rc = xio_error_set(err, XIO_EINVAL, "the URL names no container");
  if (rc == XIO_OK) rc = find_key(cred_file, file_flags, url, &u, &key, err);
  if (rc == XIO_OK)
    rc = xio_auth_sas_generate_service(u.account, key.key, key.key_len, u.container, u.blob, o,
                                       token, err);
  xio_auth_cred_clear(&key);
  xio_auth_url_clear(&u);
  return rc;
}
