/*
 * unit_test.c - Entra ID without the emulator: token answers of managed identity
 * endpoints and the Azure CLI, the chain's order and its report, the rule that the
 * instance metadata service is asked only on an Azure VM or on request (with the
 * DMI file and the service's address pointed at test stand-ins on loopback), the
 * managed identity requests sent by a page-blob engine (a 500 retried, plain http
 * to a remote host refused before anything is sent, the metadata service's probe
 * asking again after an answer worth another try), the token cache's refresh
 * margin and its timer (a token in use renewed ahead with no request asking),
 * credential file entries naming a method, and the user delegation SAS against
 * vectors computed by Azurite's own implementation.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xio/alloc.h>
#include <xio/blob.h>
#include <xio/entra_sources.h>
#include <xio/error_int.h>

#include "standin.h"
#include "test.h"

/* ------------------------------------------------------ token answers ---- */

TEST(token_json_managed_identity) {
  xio_auth_token t;
  xio_error e;
  ASSERT_OK(xio_auth_token_parse_json("{\"access_token\":\"abc\",\"expires_on\":\"1796000000\"}", 0,
                                      &t, &e),
            &e);
  ASSERT_STR_EQ(t.value, "abc");
  ASSERT_EQ((long)t.expires_on, 1796000000L);
  xio_auth_token_clear(&t);
  ASSERT(t.value == NULL);
  ASSERT_OK(
      xio_auth_token_parse_json("{\"access_token\":\"abc\",\"expires_in\":3599}", 1000, &t, &e),
      &e);
  ASSERT_EQ((long)t.expires_on, 4599L);
  xio_auth_token_clear(&t);
}

TEST(token_json_azure_cli) {
  xio_auth_token t;
  xio_error e;
  /* Newer CLIs: expires_on in POSIX seconds wins over the local-time expiresOn. */
  ASSERT_OK(xio_auth_token_parse_json("{\"accessToken\":\"xyz\",\"expiresOn\":\"2030-01-01 "
                                      "00:00:00.000000\",\"expires_on\":1796000001}",
                                      0, &t, &e),
            &e);
  ASSERT_EQ((long)t.expires_on, 1796000001L);
  xio_auth_token_clear(&t);
  /* Older CLIs: only expiresOn, in local time. */
  setenv("TZ", "UTC", 1);
  tzset();
  ASSERT_OK(
      xio_auth_token_parse_json(
          "{\"accessToken\":\"xyz\",\"expiresOn\":\"2026-12-01 10:00:00.123456\"}", 0, &t, &e),
      &e);
  ASSERT_EQ((long)t.expires_on, 1796119200L);
  xio_auth_token_clear(&t);
}

TEST(token_json_refused_without_secret_in_message) {
  xio_auth_token t;
  xio_error e;
  ASSERT_ERR(xio_auth_token_parse_json("{\"access_token\":\"s3cr3t\"}", 0, &t, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, "expires");
  ASSERT_NOT_CONTAINS(e.message, "s3cr3t");
  ASSERT_ERR(xio_auth_token_parse_json("{\"expires_on\":5}", 0, &t, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, "access_token");
  ASSERT_ERR(xio_auth_token_parse_json("not json s3cr3t", 0, &t, &e), XIO_EPARSE, &e);
  ASSERT_NOT_CONTAINS(e.message, "s3cr3t");
}

/* ------------------------------------------------------------ the chain ---- */

/* Asked on the token cache's fetch threads while the test changes `fail`. */
typedef struct cb_state {
  atomic_int calls;
  atomic_int fail;
  int lifetime_s;
} cb_state;

static xio_err callback(const char *scope, xio_auth_token *out, void *ud, xio_error *err) {
  cb_state *s = ud;
  char tok[2048];
  atomic_fetch_add(&s->calls, 1);
  if (strcmp(scope, XIO_AUTH_STORAGE_SCOPE) != 0)
    return xio_error_set(err, XIO_EINVAL, "asked for scope %s", scope);
  if (atomic_load(&s->fail)) return xio_error_set(err, XIO_EAUTH, "identity library offline");
  standin_jwt(tok, sizeof tok, s->lifetime_s);
  out->value = xio_strdup(tok);
  out->expires_on = time(NULL) + s->lifetime_s;
  return XIO_OK;
}

static xio_blob_engine *the_engine;

static void free_engine(void) { xio_blob_engine_free(the_engine); }

/* The engine the managed identity requests go out on: default options (3 retries,
 * 800 ms apart and more), one per test process. */
static xio_blob_engine *engine(void) {
  xio_error e;
  if (the_engine) return the_engine;
  ASSERT_OK(xio_blob_engine_new(NULL, &the_engine, &e), &e);
  atexit(free_engine);
  return the_engine;
}

static xio_err fetch(xio_entra_options *o, xio_auth_entra_method m, xio_auth_entra_method *used,
                     xio_error *e) {
  xio_auth_token t;
  xio_err rc = xio_entra_fetch(engine(), o, m, NULL, XIO_AUTH_STORAGE_SCOPE, &t, used, e);
  if (rc == XIO_OK) {
    ASSERT(standin_has_token(t.value));
    ASSERT(t.expires_on > time(NULL));
  }
  xio_auth_token_clear(&t);
  return rc;
}

TEST(chain_order_callback_first) {
  char log[512], url[128];
  standin_path("az.log", log, sizeof log);
  standin_env_reset(1, log);
  standin_idserver mi;
  standin_idserver_start(&mi, 0, 3600);
  standin_idserver_url(&mi, url, sizeof url);
  setenv("IDENTITY_ENDPOINT", url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  cb_state cb = {0, 0, 3600};
  xio_entra_options o = xio_entra_options_default();
  o.callback = callback;
  o.callback_ud = &cb;
  xio_auth_entra_method used;
  xio_error e;
  ASSERT_OK(fetch(&o, XIO_AUTH_ENTRA_DEFAULT, &used, &e), &e);
  ASSERT_EQ(used, XIO_AUTH_ENTRA_CALLBACK);
  ASSERT_EQ(cb.calls, 1);
  ASSERT_EQ(atomic_load(&mi.requests), 0);
  /* Without the callback: the managed identity endpoint, before the CLI. */
  o.callback = NULL;
  ASSERT_OK(fetch(&o, XIO_AUTH_ENTRA_DEFAULT, &used, &e), &e);
  ASSERT_EQ(used, XIO_AUTH_ENTRA_MANAGED_IDENTITY);
  ASSERT_EQ(atomic_load(&mi.tokens), 1);
  ASSERT_EQ(atomic_load(&mi.bad), 0);
  ASSERT_EQ(standin_az_runs(log), 0);
  /* Without the endpoint: the CLI. */
  unsetenv("IDENTITY_ENDPOINT");
  ASSERT_OK(fetch(&o, XIO_AUTH_ENTRA_DEFAULT, &used, &e), &e);
  ASSERT_EQ(used, XIO_AUTH_ENTRA_AZURE_CLI);
  ASSERT_EQ(standin_az_runs(log), 1);
  standin_idserver_stop(&mi);
}

TEST(managed_identity_user_assigned) {
  char url[128], q[512];
  standin_env_reset(0, NULL);
  standin_idserver mi;
  standin_idserver_start(&mi, 0, 3600);
  standin_idserver_url(&mi, url, sizeof url);
  setenv("IDENTITY_ENDPOINT", url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  setenv("AZURE_CLIENT_ID", "0bd5b1a8-user-assigned", 1);
  xio_entra_options o = xio_entra_options_default();
  xio_error e;
  ASSERT_OK(fetch(&o, XIO_AUTH_ENTRA_MANAGED_IDENTITY, NULL, &e), &e);
  standin_idserver_last_query(&mi, q, sizeof q);
  ASSERT_CONTAINS(q, "client_id=0bd5b1a8-user-assigned");
  ASSERT_CONTAINS(q, "api-version=2019-08-01");
  /* A wrong header secret is refused by the endpoint, and the failure says so. */
  setenv("IDENTITY_HEADER", "wrong", 1);
  ASSERT_ERR(fetch(&o, XIO_AUTH_ENTRA_MANAGED_IDENTITY, NULL, &e), XIO_EAUTH, &e);
  ASSERT_CONTAINS(e.message, "HTTP 400");
  ASSERT_NOT_CONTAINS(e.message, "wrong");
  standin_idserver_stop(&mi);
}

/* The managed identity request is a call on the engine: a 500 from the endpoint
 * is retried as any request's, and the token comes with the second answer. */
TEST(managed_identity_retries_a_500) {
  char url[128];
  standin_env_reset(0, NULL);
  standin_idserver mi;
  standin_idserver_start(&mi, 0, 3600);
  standin_idserver_url(&mi, url, sizeof url);
  setenv("IDENTITY_ENDPOINT", url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  atomic_store(&mi.fail, 1);
  xio_entra_options o = xio_entra_options_default();
  xio_error e;
  ASSERT_OK(fetch(&o, XIO_AUTH_ENTRA_MANAGED_IDENTITY, NULL, &e), &e);
  ASSERT_EQ(atomic_load(&mi.requests), 2);
  ASSERT_EQ(atomic_load(&mi.tokens), 1);
  ASSERT_EQ(atomic_load(&mi.bad), 0);
  standin_idserver_stop(&mi);
}

/* An endpoint that keeps answering 500 fails once the retries are spent (the
 * engine's 3), naming the status. */
TEST(managed_identity_gives_up_after_the_retries) {
  char url[128];
  standin_env_reset(0, NULL);
  standin_idserver mi;
  standin_idserver_start(&mi, 0, 3600);
  standin_idserver_url(&mi, url, sizeof url);
  setenv("IDENTITY_ENDPOINT", url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  atomic_store(&mi.fail, 1000);
  xio_entra_options o = xio_entra_options_default();
  o.timeout_ms = 60000; /* the retries, not the deadline, end it */
  xio_error e;
  ASSERT_ERR(fetch(&o, XIO_AUTH_ENTRA_MANAGED_IDENTITY, NULL, &e), XIO_EAUTH, &e);
  ASSERT_CONTAINS(e.message,
                  "managed identity (IDENTITY_ENDPOINT): the endpoint answered HTTP 500");
  ASSERT_EQ(atomic_load(&mi.requests), 4);
  ASSERT_EQ(atomic_load(&mi.tokens), 0);
  standin_idserver_stop(&mi);
}

/* The identity header is a secret: plain http may carry it to loopback only. An
 * endpoint at a remote address (TEST-NET-1, never routed) is refused before any
 * connection is tried, as every request's would be. */
TEST(managed_identity_plain_http_to_a_remote_host_refused) {
  standin_env_reset(0, NULL);
  setenv("IDENTITY_ENDPOINT", "http://192.0.2.1:9/msi/token", 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  xio_entra_options o = xio_entra_options_default();
  xio_error e;
  ASSERT_ERR(fetch(&o, XIO_AUTH_ENTRA_MANAGED_IDENTITY, NULL, &e), XIO_EAUTH, &e);
  ASSERT_CONTAINS(e.message, "managed identity (IDENTITY_ENDPOINT): plain http to 192.0.2.1");
  ASSERT_NOT_CONTAINS(e.message, STANDIN_HEADER_SECRET);
}

/* An endpoint URL that cannot be sent is named as such, not tried. */
TEST(managed_identity_bad_endpoint_named) {
  standin_env_reset(0, NULL);
  setenv("IDENTITY_ENDPOINT", "ftp://127.0.0.1/msi/token", 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  xio_entra_options o = xio_entra_options_default();
  xio_error e;
  ASSERT_ERR(fetch(&o, XIO_AUTH_ENTRA_MANAGED_IDENTITY, NULL, &e), XIO_EAUTH, &e);
  ASSERT_CONTAINS(e.message, "the token endpoint URL must start with http:// or https://");
  setenv("IDENTITY_ENDPOINT", "http://127.0.0.1/msi token", 1);
  ASSERT_ERR(fetch(&o, XIO_AUTH_ENTRA_MANAGED_IDENTITY, NULL, &e), XIO_EAUTH, &e);
  ASSERT_CONTAINS(e.message, "path has a space");
}

TEST(chain_report_lists_every_source) {
  char log[512];
  standin_path("az.log", log, sizeof log);
  standin_env_reset(1, log);
  setenv("XIO_TEST_AZ_FAIL", "1", 1);
  xio_entra_options o = xio_entra_options_default();
  xio_error e;
  ASSERT_ERR(fetch(&o, XIO_AUTH_ENTRA_DEFAULT, NULL, &e), XIO_EAUTH, &e);
  ASSERT_STR_EQ(e.operation, "GetToken");
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_TOKEN_SOURCES_FAILED");
  ASSERT_CONTAINS(e.message, "token callback: none is set");
  ASSERT_CONTAINS(e.message, "IDENTITY_ENDPOINT is not set");
  ASSERT_CONTAINS(e.message, "Azure CLI: az failed (exit 1): ERROR: Please run 'az login'");
  ASSERT_CONTAINS(e.message, "not an Azure VM");
  ASSERT_EQ(standin_az_runs(log), 1);
  /* Nothing configured at all: the chain does not apply (XIO_ENOCRED). */
  standin_env_reset(0, NULL);
  ASSERT_ERR(fetch(&o, XIO_AUTH_ENTRA_DEFAULT, NULL, &e), XIO_ENOCRED, &e);
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_NO_TOKEN_SOURCE");
  ASSERT_CONTAINS(e.message, "not installed");
}

/* The metadata service stand-in, with the DMI file saying `azure` or not. */
static void imds_setup(standin_idserver *imds, int azure) {
  char url[128], tag[512];
  standin_env_reset(0, NULL);
  standin_idserver_start(imds, 1, 3600);
  standin_idserver_url(imds, url, sizeof url);
  setenv("XIO_IMDS_ENDPOINT", url, 1);
  standin_path("asset_tag", tag, sizeof tag);
  standin_write_file(tag, azure ? XIO_ENTRA_AZURE_ASSET_TAG "\n" : "Default string\n");
}

TEST(imds_only_on_azure_vm) {
  standin_idserver imds;
  imds_setup(&imds, 0);
  xio_entra_options o = xio_entra_options_default();
  xio_auth_entra_method used;
  xio_error e;
  ASSERT(!xio_entra_is_azure_vm(getenv("XIO_DMI_ASSET_TAG_FILE")));
  ASSERT_ERR(fetch(&o, XIO_AUTH_ENTRA_DEFAULT, &used, &e), XIO_ENOCRED, &e);
  ASSERT_EQ(atomic_load(&imds.requests), 0);
  standin_idserver_stop(&imds);
  imds_setup(&imds, 1);
  ASSERT(xio_entra_is_azure_vm(getenv("XIO_DMI_ASSET_TAG_FILE")));
  ASSERT_OK(fetch(&o, XIO_AUTH_ENTRA_DEFAULT, &used, &e), &e);
  ASSERT_EQ(used, XIO_AUTH_ENTRA_IMDS);
  ASSERT_EQ(atomic_load(&imds.tokens), 1);
  ASSERT_EQ(atomic_load(&imds.bad), 0);
  standin_idserver_stop(&imds);
}

TEST(imds_when_asked_for) {
  standin_idserver imds;
  imds_setup(&imds, 0);
  xio_entra_options o = xio_entra_options_default();
  xio_auth_entra_method used;
  xio_error e;
  ASSERT_OK(fetch(&o, XIO_AUTH_ENTRA_MANAGED_IDENTITY, &used, &e), &e);
  ASSERT_EQ(used, XIO_AUTH_ENTRA_IMDS);
  ASSERT_OK(fetch(&o, XIO_AUTH_ENTRA_IMDS, &used, &e), &e);
  ASSERT_EQ(atomic_load(&imds.tokens), 2);
  ASSERT_EQ(atomic_load(&imds.requests), 2); /* the probe's answer was the token */
  /* A probe answered with a 500: asked again, with retries. */
  atomic_store(&imds.fail, 2);
  ASSERT_OK(fetch(&o, XIO_AUTH_ENTRA_IMDS, &used, &e), &e);
  ASSERT_EQ(atomic_load(&imds.requests), 5);
  ASSERT_EQ(atomic_load(&imds.tokens), 3);
  /* A metadata service that is not there fails fast and says so. */
  setenv("XIO_IMDS_ENDPOINT", "http://127.0.0.1:9/metadata/identity/oauth2/token", 1);
  ASSERT_ERR(fetch(&o, XIO_AUTH_ENTRA_IMDS, NULL, &e), XIO_EAUTH, &e);
  ASSERT_CONTAINS(e.message, "instance metadata service: no answer");
  standin_idserver_stop(&imds);
}

/* ---------------------------------------------------------- token cache ---- */

/* Read by the cache's timer on the engine's I/O thread and by its fetch threads. */
static _Atomic(time_t) fake_now;
static time_t fake_clock(void *ud) {
  (void)ud;
  return atomic_load(&fake_now);
}

static void fake_advance(time_t s) { atomic_fetch_add(&fake_now, s); }

static xio_err cache_peek(xio_entra_tokens *t, xio_auth_token *tok, xio_error *e) {
  xio_auth_token_clear(tok);
  return xio_entra_tokens_peek(t, XIO_AUTH_STORAGE_SCOPE, NULL, tok, e);
}

/* Waits (bounded) until the cache has made `n` fetches. */
static void wait_fetches(xio_entra_tokens *t, unsigned n) {
  for (int i = 0; i < 500 && xio_entra_tokens_fetches(t) < n; i++)
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  ASSERT_EQ(xio_entra_tokens_fetches(t), n);
}

TEST(token_cache_refreshes_at_half_life_and_retries) {
  standin_env_reset(0, NULL);
  cb_state cb = {0, 0, 8};
  atomic_store(&fake_now, time(NULL));
  xio_entra_options o = xio_entra_options_default();
  o.callback = callback;
  o.callback_ud = &cb;
  o.clock = (xio_auth_clock){fake_clock, NULL};
  xio_entra_tokens *t;
  xio_auth_token tok = {NULL, 0};
  xio_error e;
  ASSERT_OK(xio_entra_tokens_new(engine(), &o, XIO_AUTH_ENTRA_CALLBACK, NULL, &t, &e), &e);
  ASSERT_OK(xio_entra_tokens_get(t, XIO_AUTH_STORAGE_SCOPE, &tok, &e), &e);
  ASSERT_EQ(atomic_load(&cb.calls), 1);
  char first[2048];
  snprintf(first, sizeof first, "%s", tok.value);
  /* Before half its life: no refresh. */
  fake_advance(3);
  ASSERT_OK(cache_peek(t, &tok, &e), &e);
  ASSERT_STR_EQ(tok.value, first);
  ASSERT_EQ(xio_entra_tokens_fetches(t), 1u);
  /* Past half its life: the old token still, a refresh in the background (asked by
   * the cache's timer or by this request, whichever sees it due first). Each change
   * of the source comes before the clock moves, as the timer may fetch at once. */
  atomic_store(&cb.fail, 1);
  fake_advance(2);
  ASSERT_OK(cache_peek(t, &tok, &e), &e);
  ASSERT_STR_EQ(tok.value, first);
  wait_fetches(t, 2);
  /* The refresh failed: the old token goes on, and the refresh is tried again after
   * a pause, not at every request. */
  ASSERT_OK(cache_peek(t, &tok, &e), &e);
  ASSERT_STR_EQ(tok.value, first);
  ASSERT_EQ(xio_entra_tokens_fetches(t), 2u);
  atomic_store(&cb.fail, 0);
  fake_advance(1);
  ASSERT_OK(cache_peek(t, &tok, &e), &e);
  wait_fetches(t, 3);
  ASSERT_OK(cache_peek(t, &tok, &e), &e);
  ASSERT(strcmp(tok.value, first) != 0);
  /* Expired and unrefreshable: the error of the method. */
  atomic_store(&cb.fail, 1);
  fake_advance(60);
  ASSERT_OK(cache_peek(t, &tok, &e), &e);
  ASSERT(tok.value == NULL); /* being fetched */
  wait_fetches(t, 4);
  ASSERT_ERR(cache_peek(t, &tok, &e), XIO_EAUTH, &e);
  ASSERT_CONTAINS(e.message, "token callback: identity library offline");
  xio_auth_token_clear(&tok);
  xio_entra_tokens_free(t);
}

/* A token a request took is renewed by the cache's timer when it falls due, with no
 * request asking; one no request took is not: the cache of an idle user goes quiet.
 * Counts only: each wait is bounded and asserts a number of fetches. */
TEST(token_cache_renews_ahead_on_its_timer) {
  standin_env_reset(0, NULL);
  cb_state cb = {0, 0, 4}; /* due after 2 s, on the system clock */
  xio_entra_options o = xio_entra_options_default();
  o.callback = callback;
  o.callback_ud = &cb;
  xio_entra_tokens *t;
  xio_auth_token tok = {NULL, 0};
  xio_error e;
  ASSERT_OK(xio_entra_tokens_new(engine(), &o, XIO_AUTH_ENTRA_CALLBACK, NULL, &t, &e), &e);
  ASSERT_OK(xio_entra_tokens_get(t, XIO_AUTH_STORAGE_SCOPE, &tok, &e), &e);
  char first[2048];
  snprintf(first, sizeof first, "%s", tok.value);
  /* No request from here: the timer renews the token taken. */
  wait_fetches(t, 2);
  ASSERT_EQ(atomic_load(&cb.calls), 2);
  ASSERT_OK(cache_peek(t, &tok, &e), &e);
  ASSERT(tok.value != NULL);
  ASSERT(strcmp(tok.value, first) != 0);
  /* That one was taken too: renewed in its turn. Its successor nobody takes. */
  wait_fetches(t, 3);
  nanosleep(&(struct timespec){3, 0}, NULL); /* past the successor's refresh moment */
  ASSERT_EQ(xio_entra_tokens_fetches(t), 3u);
  ASSERT_EQ(atomic_load(&cb.calls), 3);
  xio_auth_token_clear(&tok);
  xio_entra_tokens_free(t);
}

/* ------------------------------------------------- credential file ---- */

TEST(credential_file_entra_entries) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_auth_cred c;
  xio_error e;
  ASSERT_OK(xio_auth_credstore_load_json(
                s,
                "{\"https://a.blob.core.windows.net/db\":{\"entra\":\"managed_identity\","
                "\"client_id\":\"id-1\"},\"https://b.blob.core.windows.net\":{\"entra\":"
                "\"azure_cli\"}}",
                &e),
            &e);
  ASSERT_OK(xio_auth_credstore_lookup(s, "https://a.blob.core.windows.net/db/x.mdf", &c, &e), &e);
  ASSERT_EQ(c.kind, XIO_AUTH_CRED_ENTRA);
  ASSERT_EQ(c.entra, XIO_AUTH_ENTRA_MANAGED_IDENTITY);
  ASSERT_STR_EQ(c.client_id, "id-1");
  xio_auth_cred_clear(&c);
  ASSERT_OK(xio_auth_credstore_lookup(s, "https://b.blob.core.windows.net/c/x", &c, &e), &e);
  ASSERT_EQ(c.entra, XIO_AUTH_ENTRA_AZURE_CLI);
  xio_auth_cred_clear(&c);
  ASSERT_ERR(xio_auth_credstore_load_json(
                 s, "{\"https://c.blob.core.windows.net\":{\"entra\":\"x\"}}", &e),
             XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, "managed_identity");
  ASSERT_ERR(
      xio_auth_credstore_load_json(
          s, "{\"https://c.blob.core.windows.net\":{\"entra\":\"azure_cli\",\"client_id\":\"i\"}}",
          &e),
      XIO_EPARSE, &e);
  xio_auth_credstore_free(s);
}

/* ------------------------------------------------- user delegation SAS ---- */

/* Vectors from Azurite 3.37.0's own user delegation SAS code
 * (generateBlobSASSignatureWithUDK, sv 2020-12-06), with the key its
 * getUserDelegationKeyValue derives for these fields. */
#define VEC_KEY      "yZbHquSqdnOjDPP4RRp+2BTJrPqw6+RSRZMOrxiGXag="
#define VEC_BLOB_SIG "vYcGE5t/9Sj4nYm75Es89c7B6OFZcDaf7fFxUOepJeI="
#define VEC_CONT_SIG "2/H0EMzUM88USXtiF09YSMahpJDV/XsPMoCWQTGQqdk="

static xio_auth_udk vector_key(void) {
  xio_auth_udk k = {xio_strdup(STANDIN_OID),
                    xio_strdup(STANDIN_TID),
                    xio_strdup("2026-01-01T00:00:00Z"),
                    xio_strdup("2026-01-08T00:00:00Z"),
                    xio_strdup("b"),
                    xio_strdup("2026-06-06"),
                    xio_strdup(VEC_KEY)};
  return k;
}

TEST(udk_string_to_sign) {
  xio_auth_udk k = vector_key();
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.start = 1767225600;  /* 2026-01-01T00:00:00Z */
  o.expiry = 1767312000; /* 2026-01-02T00:00:00Z */
  o.protocol = "https";
  char *sts;
  xio_error e;
  ASSERT_OK(xio_auth_udk_string_to_sign("devstoreaccount1", &k, "vectors", "disk.mdf", "wr", &o,
                                        &sts, &e),
            &e);
  ASSERT_STR_EQ(sts, "rw\n2026-01-01T00:00:00Z\n2026-01-02T00:00:00Z\n"
                     "/blob/devstoreaccount1/vectors/disk.mdf\n" STANDIN_OID "\n" STANDIN_TID "\n"
                     "2026-01-01T00:00:00Z\n2026-01-08T00:00:00Z\nb\n2026-06-06\n\n\n\n\nhttps\n"
                     "2020-12-06\nb\n\n\n\n\n\n\n");
  xio_free(sts);
  xio_auth_udk_clear(&k);
}

/* The value of `name` in the query `q` (copied into out). */
static void param(const char *q, const char *name, char *out, size_t size) {
  char key[32];
  snprintf(key, sizeof key, "%s=", name);
  for (const char *p = q; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL)
    if (strncmp(p, key, strlen(key)) == 0) {
      snprintf(out, size, "%.*s", (int)strcspn(p + strlen(key), "&"), p + strlen(key));
      return;
    }
  out[0] = '\0';
}

TEST(udk_sas_vectors) {
  xio_auth_udk k = vector_key();
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = "rw";
  o.start = 1767225600;
  o.expiry = 1767312000;
  o.protocol = "https";
  char *tok, v[128];
  xio_error e;
  ASSERT_OK(xio_auth_sas_generate_user_delegation("devstoreaccount1", &k, "vectors", "disk.mdf", &o,
                                                  &tok, &e),
            &e);
  param(tok, "sig", v, sizeof v);
  ASSERT_STR_EQ(v, "vYcGE5t%2F9Sj4nYm75Es89c7B6OFZcDaf7fFxUOepJeI%3D");
  param(tok, "skoid", v, sizeof v);
  ASSERT_STR_EQ(v, STANDIN_OID);
  param(tok, "skv", v, sizeof v);
  ASSERT_STR_EQ(v, "2026-06-06");
  param(tok, "sr", v, sizeof v);
  ASSERT_STR_EQ(v, "b");
  ASSERT_NOT_CONTAINS(tok, "yZbHquSq"); /* the key's value never goes into the token */
  xio_free(tok);
  /* A container SAS without start or protocol. */
  o.permissions = "lr";
  o.start = 0;
  o.protocol = NULL;
  ASSERT_OK(
      xio_auth_sas_generate_user_delegation("devstoreaccount1", &k, "vectors", NULL, &o, &tok, &e),
      &e);
  param(tok, "sig", v, sizeof v);
  ASSERT_STR_EQ(v, "2%2FH0EMzUM88USXtiF09YSMahpJDV%2FXsPMoCWQTGQqdk%3D");
  param(tok, "sp", v, sizeof v);
  ASSERT_STR_EQ(v, "rl");
  xio_free(tok);
  /* Refused: a stored policy, an old version, an incomplete key. */
  o.identifier = "policy";
  ASSERT_ERR(
      xio_auth_sas_generate_user_delegation("devstoreaccount1", &k, "vectors", NULL, &o, &tok, &e),
      XIO_EINVAL, &e);
  o.identifier = NULL;
  o.version = "2019-12-12";
  ASSERT_ERR(
      xio_auth_sas_generate_user_delegation("devstoreaccount1", &k, "vectors", NULL, &o, &tok, &e),
      XIO_EINVAL, &e);
  o.version = NULL;
  xio_free(k.tid);
  k.tid = NULL;
  ASSERT_ERR(
      xio_auth_sas_generate_user_delegation("devstoreaccount1", &k, "vectors", NULL, &o, &tok, &e),
      XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "incomplete");
  xio_auth_udk_clear(&k);
}
