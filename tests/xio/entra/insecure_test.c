/*
 * insecure_test.c - a bearer token never goes over plain http, whatever brought it
 * there: a credential for an http:// prefix that names an Entra ID method (through
 * the API or the credential file), a token set as the credential itself, `xio sas
 * --as-user` on an http:// URL; loopback included, and --allow-insecure-http changes
 * nothing. The request fails with XIO_EINSECURE (reason XIO_REASON_TOKEN_OVER_HTTP)
 * naming the URL and https, and the http host (a stand-in that counts what it is
 * sent) gets no request at all. The token fetch itself, from a managed identity
 * endpoint on loopback, is not a storage request and still happens.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xio/alloc.h>
#include <xio/credentials.h>
#include <xio/xio.h>

#include "clirun.h"
#include "standin.h"
#include "test.h"

static xio_err callback(const char *scope, xio_auth_token *out, void *ud, xio_error *err) {
  (void)scope, (void)ud, (void)err;
  char tok[2048];
  standin_jwt(tok, sizeof tok, 3600);
  out->value = xio_strdup(tok);
  out->expires_on = time(NULL) + 3600;
  return XIO_OK;
}

/* The stand-in plays an http storage host: "http://127.0.0.1:PORT/devstoreaccount1". */
static void http_account(const standin_idserver *host, char *out, size_t size) {
  snprintf(out, size, "http://127.0.0.1:%d/devstoreaccount1", host->port);
}

/* Opens `blob` read-only, which must fail with XIO_EINSECURE naming it and https. */
static void open_refused(xio_ctx *ctx, const char *blob) {
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(xio_file_open(ctx, blob, &oo, &f, &e), XIO_EINSECURE, &e);
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_TOKEN_OVER_HTTP");
  ASSERT_CONTAINS(e.message, "over plain http");
  ASSERT_CONTAINS(e.message, "https");
  ASSERT_CONTAINS(e.message, blob);
  ASSERT(!standin_has_token(e.message));
}

TEST(bearer_never_over_http_from_the_api) {
  standin_env_reset(0, NULL);
  standin_idserver host;
  standin_idserver_start(&host, 0, 3600);
  char account[128], blob[256];
  http_account(&host, account, sizeof account);
  snprintf(blob, sizeof blob, "%s/cont/b.mdf", account);
  xio_ctx_options o = xio_ctx_options_default();
  o.allow_insecure_remote = 1; /* allows plain http, never a token over it */
  xio_ctx *ctx;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  ASSERT_OK(xio_ctx_set_token_callback(ctx, callback, NULL, &e), &e);
  /* An Entra ID method named for the prefix, as a credential file entry does. */
  xio_auth_cred entra = {.kind = XIO_AUTH_CRED_ENTRA, .entra = XIO_AUTH_ENTRA_CALLBACK};
  ASSERT_OK(xio_ctx_set_credential(ctx, account, &entra, &e), &e);
  open_refused(ctx, blob);
  /* A token set as the credential itself. */
  char tok[2048];
  standin_jwt(tok, sizeof tok, 3600);
  xio_auth_cred bearer = {.kind = XIO_AUTH_CRED_BEARER, .token = tok};
  ASSERT_OK(xio_ctx_set_credential(ctx, account, &bearer, &e), &e);
  open_refused(ctx, blob);
  xio_ctx_free(ctx);
  ASSERT_EQ(atomic_load(&host.requests), 0);
  standin_idserver_stop(&host);
}

static void no_token_in(const clirun *r) {
  const char *texts[3] = {r->out, r->err, r->trace};
  for (int i = 0; i < 3; i++)
    if (standin_has_token(texts[i])) FAIL("a token appears in the output:\n%s", texts[i]);
}

TEST(bearer_never_over_http_from_the_cli) {
  standin_env_reset(0, NULL);
  standin_idserver mi, host;
  char mi_url[128], account[128], blob[256], path[512], text[512];
  standin_idserver_start(&mi, 0, 3600);
  standin_idserver_url(&mi, mi_url, sizeof mi_url);
  setenv("IDENTITY_ENDPOINT", mi_url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  standin_idserver_start(&host, 0, 3600);
  http_account(&host, account, sizeof account);
  snprintf(blob, sizeof blob, "%s/cont/b.mdf", account);
  clirun r = {0};
  /* A credential file entry naming a managed identity for the http prefix. */
  standin_path("entra-http.json", path, sizeof path);
  snprintf(text, sizeof text, "{\"%s\": {\"entra\": \"managed_identity\"}}", account);
  standin_write_file(path, text);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--credentials", path, "stat", blob);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "over plain http");
  ASSERT_CONTAINS(r.err, "hint:");
  ASSERT_NOT_CONTAINS(r.err, "--allow-insecure-http");
  no_token_in(&r);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--allow-insecure-http", "--credentials", path, "stat", blob);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "over plain http");
  no_token_in(&r);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--json", "--credentials", path, "stat", blob);
  EXPECT_EXIT(&r, 1);
  cJSON *j = clirun_json(&r);
  const cJSON *e = cJSON_GetObjectItem(j, "error");
  ASSERT_STR_EQ(clirun_str(e, "code"), "XIO_EINSECURE");
  ASSERT_STR_EQ(clirun_str(e, "reason"), "XIO_REASON_TOKEN_OVER_HTTP");
  ASSERT_CONTAINS(clirun_str(e, "hint"), "tokens go only over https");
  cJSON_Delete(j);
  no_token_in(&r);
  /* A user delegation SAS for an http URL: its key request would carry the token. */
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "sas", blob, "--as-user", "--permissions", "r", "--expiry",
          "1h");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "over plain http");
  ASSERT_STR_EQ(r.out, "");
  no_token_in(&r);
  clirun_free(&r);
  ASSERT_EQ(atomic_load(&host.requests), 0);
  ASSERT(atomic_load(&mi.tokens) > 0); /* the token fetch itself is no storage request */
  standin_idserver_stop(&mi);
  standin_idserver_stop(&host);
}
