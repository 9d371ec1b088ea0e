/*
 * creds.c - which credential signs a request to a given URL. In order: a SAS in
 * the URL itself; the credential file's longest matching prefix (SQL Server's
 * CREATE CREDENTIAL named by container URL); the connection string; the
 * AZURE_STORAGE_ACCOUNT/AZURE_STORAGE_KEY pair; AZURE_STORAGE_SAS_TOKEN; else none
 * (anonymous). Account-wide credentials apply only to URLs of their own account,
 * so a key or token is never sent to another account's host.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <xio/auth.h>

#include "ctx_int.h"

static char *read_file(const char *path, xio_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    xio_error_set(err, XIO_EIO, "cannot open the credential file %s", path);
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    len += fread(buf + len, 1, cap - len - 1, f);
    if (len < cap - 1) break;
    char *bigger = cap < (16u << 20) ? realloc(buf, cap * 2) : NULL;
    if (!bigger) free(buf);
    buf = bigger;
    cap *= 2;
  }
  int failed = ferror(f);
  fclose(f);
  if (!buf || failed) {
    free(buf);
    xio_error_set(err, buf ? XIO_EIO : XIO_ENOMEM, "cannot read the credential file %s", path);
    return NULL;
  }
  buf[len] = '\0';
  return buf;
}

static xio_err load_store(xio__creds *c, const char *path, xio_error *err) {
  char *text = read_file(path, err);
  if (!text) return err ? err->code : XIO_EIO;
  c->store = xio_auth_credstore_new();
  xio_err rc = c->store ? xio_auth_credstore_load_json(c->store, text, err)
                        : xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_auth_secret_free(text, strlen(text));
  return rc;
}

static xio_err load_env(xio__creds *c, xio_error *err) {
  const char *acct = getenv("AZURE_STORAGE_ACCOUNT"), *key = getenv("AZURE_STORAGE_KEY");
  const char *sas = getenv("AZURE_STORAGE_SAS_TOKEN");
  if (acct && *acct && !(c->env_account = strdup(acct)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (acct && *acct && key && *key) {
    xio_err rc = xio_auth_base64_decode(key, &c->env_key, &c->env_key_len, err);
    if (rc != XIO_OK)
      return xio_error_set(err, XIO_EPARSE, "AZURE_STORAGE_KEY is not valid base64");
  }
  if (sas && *sas && !(c->env_sas = strdup(sas[0] == '?' ? sas + 1 : sas)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

xio_err xio__creds_load(xio__creds *c, const xio_ctx_options *o, xio_error *err) {
  const char *file = o->credential_file, *conn = o->connection_string;
  if (o->use_environment) {
    if (!file) file = getenv("XIO_CREDENTIALS");
    if (!conn) conn = getenv("AZURE_STORAGE_CONNECTION_STRING");
  }
  xio_err rc = XIO_OK;
  if (file && *file) rc = load_store(c, file, err);
  if (rc == XIO_OK && conn && *conn) rc = xio_auth_connstr_parse(conn, &c->conn, err);
  if (rc == XIO_OK && o->use_environment) rc = load_env(c, err);
  return rc;
}

void xio__creds_free(xio__creds *c) {
  xio_auth_credstore_free(c->store);
  xio_auth_account_clear(&c->conn);
  free(c->env_account);
  xio_auth_secret_free(c->env_key, c->env_key_len);
  if (c->env_sas) xio_auth_secret_free(c->env_sas, strlen(c->env_sas));
  memset(c, 0, sizeof *c);
}

/* The connection string's account serves `url` when the URL lies under its blob
 * endpoint (explicit, or derived from the account name and suffix). */
static int conn_matches(const xio_auth_account *a, const char *url) {
  if (!a->blob_endpoint) return 0;
  size_t n = strlen(a->blob_endpoint);
  return strncmp(url, a->blob_endpoint, n) == 0 &&
         (url[n] == '/' || url[n] == '\0' || url[n] == '?');
}

static xio_err pick(const xio__creds *c, const char *url, const xio_auth_url *u, xio_auth_cred *out,
                    xio_error *err) {
  if (c->store) {
    xio_err rc = xio_auth_credstore_lookup(c->store, url, out, NULL);
    if (rc != XIO_ENOCRED)
      return rc == XIO_OK ? XIO_OK : xio_error_set(err, rc, "credential lookup failed");
  }
  xio_auth_cred tmp = {XIO_AUTH_CRED_NONE, NULL, NULL, 0, NULL};
  if (conn_matches(&c->conn, url)) {
    if (c->conn.key)
      tmp = (xio_auth_cred){XIO_AUTH_CRED_SHARED_KEY, c->conn.name, c->conn.key, c->conn.key_len,
                            NULL};
    else if (c->conn.sas)
      tmp = (xio_auth_cred){XIO_AUTH_CRED_SAS, NULL, NULL, 0, c->conn.sas};
  }
  int env_acct = c->env_account && u->account && strcmp(c->env_account, u->account) == 0;
  if (tmp.kind == XIO_AUTH_CRED_NONE && env_acct && c->env_key)
    tmp =
        (xio_auth_cred){XIO_AUTH_CRED_SHARED_KEY, c->env_account, c->env_key, c->env_key_len, NULL};
  if (tmp.kind == XIO_AUTH_CRED_NONE && c->env_sas && (env_acct || !c->env_account))
    tmp = (xio_auth_cred){XIO_AUTH_CRED_SAS, NULL, NULL, 0, c->env_sas};
  if (xio_auth_cred_copy(out, &tmp) != XIO_OK)
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

xio_err xio__ctx_blob_target(xio_ctx *ctx, const char *url, xio_blob_target **out, xio_error *err) {
  xio_auth_url u;
  *out = NULL;
  xio_err rc = xio_auth_url_parse(url, &u, err);
  if (rc != XIO_OK) return rc;
  xio_auth_cred cred = {XIO_AUTH_CRED_NONE, NULL, NULL, 0, NULL};
  /* A SAS in the URL wins: the target takes it from there. */
  int url_sas = u.query && (strstr(u.query, "sig=") != NULL);
  if (!url_sas) rc = pick(&ctx->creds, url, &u, &cred, err);
  if (rc == XIO_OK) rc = xio_blob_target_new(url, url_sas ? NULL : &cred, out, err);
  xio_auth_cred_clear(&cred);
  xio_auth_url_clear(&u);
  return rc;
}
