/*
 * creds_test.c - allocation failure while parsing credentials: connection strings,
 * SAS tokens (parsed and generated), blob URLs, redaction and the JSON credential
 * file with its lookups; then a context loading every source at once (credential
 * file, connection string, AZURE_STORAGE_* variables). Every allocation point is
 * failed in turn.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xio/alloc.h>
#include <xio/auth.h>
#include <xio/xio.h>
#include <xio/url_int.h>

#include "failalloc.h"
#include "scratch.h"
#include "test.h"

#define SAS                                                                                        \
  "sv=2020-12-06&ss=b&srt=sco&sp=rwdlc&se=2030-01-01T00%3A00%3A00Z&spr=https%2Chttp&sig=c2ln"
#define CONNSTR                                                                                    \
  "DefaultEndpointsProtocol=http;AccountName=" XIO_AUTH_DEV_ACCOUNT                                \
  ";AccountKey=" XIO_AUTH_DEV_KEY ";BlobEndpoint=http://127.0.0.1:10000/" XIO_AUTH_DEV_ACCOUNT ";"

/* Each step returns its result; the first failure ends the chain. */
static xio_err parse_connstr(xio_error *err) {
  xio_auth_account a;
  xio_err rc = xio_auth_connstr_parse(CONNSTR, &a, err);
  if (rc != XIO_OK) return rc;
  int good = a.name && strcmp(a.name, XIO_AUTH_DEV_ACCOUNT) == 0 && a.key_len == 64;
  xio_auth_account_clear(&a);
  return good ? XIO_OK : xio_error_set(err, XIO_EIO, "connection string parsed wrong");
}

static xio_err parse_sas(xio_error *err) {
  xio_auth_sas s;
  xio_err rc = xio_auth_sas_parse(SAS, &s, err);
  if (rc != XIO_OK) return rc;
  return xio_auth_sas_check(&s, 0, 1700000000, err);
}

static xio_err generate_sas(xio_error *err) {
  xio_auth_account a;
  xio_err rc = xio_auth_connstr_parse(CONNSTR, &a, err);
  if (rc != XIO_OK) return rc;
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = "rcw";
  o.expiry = 1900000000;
  char *tok = NULL;
  rc = xio_auth_sas_generate_service(a.name, a.key, a.key_len, "dbs", "x.mdf", &o, &tok, err);
  if (rc == XIO_OK) {
    xio_free(tok);
    tok = NULL;
    rc = xio_auth_sas_generate_account(a.name, a.key, a.key_len, "b", "sco", &o, &tok, err);
  }
  xio_free(tok);
  xio_auth_account_clear(&a);
  return rc;
}

static xio_err parse_url_and_redact(xio_error *err) {
  xio_auth_url u;
  xio_err rc =
      xio_auth_url_parse("http://127.0.0.1:10000/devstoreaccount1/dbs/a%20b.mdf?" SAS, &u, err);
  if (rc != XIO_OK) return rc;
  xio_auth_url_clear(&u);
  char *r = xio_auth_redact("https://a.blob.core.windows.net/c/b?" SAS);
  if (!r) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  int good = strstr(r, "c2ln") == NULL;
  xio_free(r);
  return good ? XIO_OK : xio_error_set(err, XIO_EIO, "redaction kept the signature");
}

static xio_err credential_file(xio_error *err) {
  static const char json[] =
      "{\"https://a.blob.core.windows.net/db\": \"?" SAS "\","
      " \"https://k.blob.core.windows.net\": {\"account\": \"k\", \"key\": \"" XIO_AUTH_DEV_KEY
      "\"},"
      " \"http://127.0.0.1:10000/devstoreaccount1\": {\"connection_string\": \"" CONNSTR "\"},"
      " \"https://s.blob.core.windows.net/c\": {\"sas\": \"" SAS "\"}}";
  xio_auth_credstore *s = xio_auth_credstore_new();
  if (!s) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = xio_auth_credstore_load_json(s, json, err);
  const char *urls[] = {
      "https://a.blob.core.windows.net/db/x.mdf", "https://k.blob.core.windows.net/c/b",
      "http://127.0.0.1:10000/devstoreaccount1/db/x", "https://s.blob.core.windows.net/c/x?sp=r"};
  for (size_t i = 0; rc == XIO_OK && i < sizeof urls / sizeof *urls; i++) {
    xio_auth_cred c;
    rc = xio_auth_credstore_lookup(s, urls[i], &c, err);
    if (rc == XIO_OK) xio_auth_cred_clear(&c);
  }
  xio_auth_credstore_free(s);
  return rc;
}

static xio_err parse_all(void *ud, xio_error *err) {
  (void)ud;
  xio_err rc = parse_connstr(err);
  if (rc == XIO_OK) rc = parse_sas(err);
  if (rc == XIO_OK) rc = generate_sas(err);
  if (rc == XIO_OK) rc = parse_url_and_redact(err);
  if (rc == XIO_OK) rc = credential_file(err);
  return rc;
}

TEST(credentials) {
  af_scenario s = {.name = "credentials", .op = parse_all, .budget = 100000, .min_points = 50};
  af_report r = af_run(&s);
  ASSERT_EQ(r.stride, 1);
}

/* ------------------------------------------ a context's own credentials ---- */

static char cred_path[512];

/* A context loading every credential source at once: the credential file, a
 * connection string and the AZURE_STORAGE_* variables. */
static xio_err ctx_op(void *ud, xio_error *err) {
  (void)ud;
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 1;
  o.credential_file = cred_path;
  o.connection_string = CONNSTR;
  xio_ctx *ctx = NULL;
  xio_err rc = xio_ctx_new(&o, &ctx, err);
  xio_ctx_free(ctx);
  return rc;
}

TEST(context_credentials) {
  test_scratch_file(cred_path, sizeof cred_path, "xio-allocfail-cred");
  FILE *fp = fopen(cred_path, "w");
  ASSERT(fp != NULL);
  ASSERT(fchmod(fileno(fp), 0600) == 0); /* it holds a SAS and a key: its owner's alone */
  fprintf(fp,
          "{\"https://a.blob.core.windows.net/db\": \"?%s\", \"http://127.0.0.1:1/"
          "devstoreaccount1\": {\"connection_string\": \"%s\"}}",
          SAS, CONNSTR);
  ASSERT(fclose(fp) == 0);
  setenv("AZURE_STORAGE_ACCOUNT", XIO_AUTH_DEV_ACCOUNT, 1);
  setenv("AZURE_STORAGE_KEY", XIO_AUTH_DEV_KEY, 1);
  setenv("AZURE_STORAGE_SAS_TOKEN", "?" SAS, 1);
  unsetenv("XIO_TRACE");
  unsetenv("XIO_CA_BUNDLE");
  af_scenario s = {.name = "context_credentials", .op = ctx_op, .budget = 100000, .min_points = 50};
  af_report r = af_run(&s);
  test_remove_tree(cred_path);
  ASSERT_EQ(r.stride, 1);
}
