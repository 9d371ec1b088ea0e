/*
 * oauth_test.c - the file API with Entra ID tokens alone (no key, no SAS anywhere)
 * against the emulator that checks them: tokens from a stand-in managed identity
 * endpoint, a stand-in `az`, and the token callback; the chain's order; a transfer
 * longer than a token's life with a bounded number of token fetches; an expired
 * token that cannot be renewed failing with the method and its reason.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "efix.h"
#include "standin.h"
#include "test.h"
#include <xio/error_int.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms) {
  nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static void use_managed_identity(standin_idserver *mi, int lifetime_s) {
  char url[128];
  standin_idserver_start(mi, 0, lifetime_s);
  standin_idserver_url(mi, url, sizeof url);
  setenv("IDENTITY_ENDPOINT", url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
}

static xio_file *open_new(efix *f, const char *name, uint64_t size, xio_kind kind) {
  char url[600];
  xio_file *file;
  xio_error e;
  efix_blob(f, name, url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE;
  o.size = size;
  o.kind = kind;
  ASSERT_OK(xio_file_open(f->ctx, url, &o, &file, &e), &e);
  return file;
}

/* Every file operation: create (with the container), write, read back, grow, zero,
 * ranges, snapshot, reopen read-only, delete. */
static void exercise_file_api(efix *f) {
  xio_error e;
  char buf[65536], back[65536], url[600], snap[64];
  xio_file *file = open_new(f, "db.ldf", 1 << 20, XIO_KIND_LOG);
  memset(buf, 0x5c, sizeof buf);
  ASSERT_OK(xio_file_write(file, 4096, buf, sizeof buf, &e), &e);
  size_t got = 0;
  ASSERT_OK(xio_file_read(file, 4096, back, sizeof back, &got, &e), &e);
  ASSERT_EQ(got, sizeof back);
  ASSERT_MEM_EQ(back, buf, sizeof buf);
  ASSERT_OK(xio_file_set_size(file, 2 << 20, XIO_INIT_DEFAULT, &e), &e);
  ASSERT_OK(xio_file_zero(file, 4096, 512, XIO_INIT_CLEAR, &e), &e);
  xio_ranges r;
  memset(&r, 0, sizeof r);
  ASSERT_OK(xio_file_ranges(file, &r, &e), &e);
  ASSERT(r.n >= 1);
  xio_ranges_clear(&r);
  ASSERT_OK(xio_file_snapshot(file, snap, sizeof snap, &e), &e);
  ASSERT_OK(xio_file_close(file, &e), &e);
  efix_blob(f, "db.ldf", url, sizeof url);
  xio_open_options ro = xio_open_options_default();
  ro.flags = XIO_OPEN_READONLY;
  ASSERT_OK(xio_file_open(f->ctx, url, &ro, &file, &e), &e);
  ASSERT_U64_EQ(xio_file_size(file), 2u << 20);
  ASSERT_OK(xio_file_read(file, 4096 + 512, back, 4096, &got, &e), &e);
  ASSERT_MEM_EQ(back, buf, 4096);
  ASSERT_OK(xio_file_close(file, &e), &e);
  ASSERT_OK(xio_file_delete(f->ctx, url, &e), &e);
  ASSERT(atomic_load(&f->requests) >= 10);
  ASSERT_EQ(atomic_load(&f->failures), 0);
}

TEST(file_api_with_managed_identity) {
  standin_env_reset(0, NULL);
  standin_idserver mi;
  use_managed_identity(&mi, 3600);
  setenv("AZURE_CLIENT_ID", "client-of-the-test", 1);
  efix f;
  efix_name(&f);
  efix_setup(&f, NULL);
  exercise_file_api(&f);
  efix_teardown(&f);
  /* One token served every request; it was asked for as the protocol says. */
  ASSERT_EQ(atomic_load(&mi.tokens), 1);
  ASSERT_EQ(atomic_load(&mi.bad), 0);
  char q[512];
  standin_idserver_last_query(&mi, q, sizeof q);
  ASSERT_CONTAINS(q, "client_id=client-of-the-test");
  standin_idserver_stop(&mi);
}

/* A managed identity endpoint over https with a certificate from the test CA: the
 * token request goes out on the context's engine, so the context's CA file is what
 * makes it trusted. Without it the endpoint is refused at the handshake (it never
 * gets the request, nor the identity header) and the report says why. */
TEST(managed_identity_over_https_trusts_the_context_ca_file) {
  char cert[512], key[512], url[128], blob[600];
  standin_env_reset(0, NULL);
  efix_fixture_file("server.pem", cert, sizeof cert);
  efix_fixture_file("server.key", key, sizeof key);
  standin_idserver mi;
  standin_idserver_start_tls(&mi, 0, 3600, cert, key);
  standin_idserver_url(&mi, url, sizeof url);
  ASSERT_CONTAINS(url, "https://127.0.0.1:");
  setenv("IDENTITY_ENDPOINT", url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  efix f;
  efix_name(&f);
  efix_setup(&f, NULL); /* the context's ca_file is the test CA */
  xio_file *file = open_new(&f, "mi-tls.mdf", 4096, XIO_KIND_DATA);
  ASSERT_OK(xio_file_close(file, NULL), NULL);
  efix_teardown(&f);
  ASSERT_EQ(atomic_load(&mi.tokens), 1);
  ASSERT_EQ(atomic_load(&mi.bad), 0);

  /* A context without the CA file: the system store does not know the test CA. */
  unsetenv("XIO_CA_BUNDLE");
  xio_ctx *ctx = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(NULL, &ctx, &e), &e);
  efix_blob(&f, "mi-tls.mdf", blob, sizeof blob);
  xio_open_options ro = xio_open_options_default();
  ro.flags = XIO_OPEN_READONLY;
  file = NULL;
  ASSERT_ERR(xio_file_open(ctx, blob, &ro, &file, &e), XIO_EAUTH, &e);
  ASSERT_CONTAINS(e.message, "managed identity (IDENTITY_ENDPOINT): no answer (SSL certificate");
  ASSERT(!standin_has_token(e.message));
  ASSERT_NOT_CONTAINS(e.message, STANDIN_HEADER_SECRET);
  xio_ctx_free(ctx);
  ASSERT_EQ(atomic_load(&mi.requests), 1); /* the first context's only */
  standin_idserver_stop(&mi);
}

TEST(file_api_with_azure_cli) {
  char log[512];
  standin_path("az.log", log, sizeof log);
  standin_env_reset(1, log);
  setenv("XIO_TEST_AZ_FORMAT", "old", 1); /* expiresOn in local time only */
  efix f;
  efix_name(&f);
  efix_setup(&f, NULL);
  exercise_file_api(&f);
  efix_teardown(&f);
  ASSERT_EQ(standin_az_runs(log), 1);
}

typedef struct cb_state {
  atomic_int calls;
  atomic_int fail;
  int lifetime_s;
  atomic_long expires; /* of the last token handed out */
} cb_state;

static xio_err callback(const char *scope, xio_auth_token *out, void *ud, xio_error *err) {
  cb_state *s = ud;
  char tok[2048];
  atomic_fetch_add(&s->calls, 1);
  if (atomic_load(&s->fail)) return xio_error_set(err, XIO_EAUTH, "identity library offline");
  ASSERT_STR_EQ(scope, XIO_AUTH_STORAGE_SCOPE);
  standin_jwt(tok, sizeof tok, s->lifetime_s);
  out->value = xio_strdup(tok);
  out->expires_on = time(NULL) + s->lifetime_s;
  atomic_store(&s->expires, (long)out->expires_on);
  return XIO_OK;
}

TEST(file_api_with_token_callback_first) {
  standin_env_reset(0, NULL);
  standin_idserver mi;
  use_managed_identity(&mi, 3600);
  cb_state cb = {0, 0, 3600, 0};
  efix f;
  xio_error e;
  efix_name(&f);
  efix_setup(&f, NULL);
  ASSERT_OK(xio_ctx_set_token_callback(f.ctx, callback, &cb, &e), &e);
  exercise_file_api(&f);
  efix_teardown(&f);
  ASSERT_EQ(atomic_load(&cb.calls), 1);
  ASSERT_EQ(atomic_load(&mi.requests), 0); /* the callback comes first in the chain */
  standin_idserver_stop(&mi);
}

TEST(chain_failure_names_every_source) {
  char log[512], url[600];
  standin_path("az.log", log, sizeof log);
  standin_env_reset(1, log);
  setenv("XIO_TEST_AZ_FAIL", "1", 1);
  efix f;
  xio_file *file = NULL;
  xio_error e;
  efix_name(&f);
  efix_setup(&f, NULL);
  efix_blob(&f, "x.mdf", url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE;
  o.size = 512;
  ASSERT_ERR(xio_file_open(f.ctx, url, &o, &file, &e), XIO_EAUTH, &e);
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_TOKEN_SOURCES_FAILED");
  ASSERT_CONTAINS(e.message, "token callback: none is set");
  ASSERT_CONTAINS(e.message, "IDENTITY_ENDPOINT is not set");
  ASSERT_CONTAINS(e.message, "az login");
  ASSERT_EQ(atomic_load(&f.requests), 0); /* nothing was sent without a token */
  efix_teardown(&f);
}

TEST(tokens_refreshed_during_long_transfer) {
  const int life = 4;
  standin_env_reset(0, NULL);
  standin_idserver mi;
  use_managed_identity(&mi, life);
  efix f;
  xio_error e;
  efix_name(&f);
  efix_setup(&f, NULL);
  xio_file *file = open_new(&f, "long.mdf", 8u << 20, XIO_KIND_DATA);
  char *buf = xio_malloc(1u << 20);
  memset(buf, 0x3a, 1u << 20);
  double start = now_s();
  int writes = 0;
  /* Longer than two and a half token lives, writing all along. */
  while (now_s() - start < 2.5 * life) {
    ASSERT_OK(xio_file_write(file, (uint64_t)(writes % 8) << 20, buf, 1u << 20, &e), &e);
    writes++;
    sleep_ms(100);
  }
  double elapsed = now_s() - start;
  ASSERT_OK(xio_file_close(file, &e), &e);
  efix_teardown(&f);
  xio_free(buf);
  int tokens = atomic_load(&mi.tokens);
  /* The first token expired mid-transfer, so new ones were fetched; each lives `life`
   * seconds and is renewed at half its life: no more than one per half life, and
   * never one per request. */
  ASSERT(tokens >= 3);
  ASSERT(tokens <= (int)(elapsed / (life / 2.0)) + 2);
  ASSERT(tokens < writes);
  ASSERT_EQ(atomic_load(&f.failures), 0);
  ASSERT_EQ(atomic_load(&mi.bad), 0);
  standin_idserver_stop(&mi);
}

TEST(expired_token_fails_with_method_and_reason) {
  standin_env_reset(0, NULL);
  cb_state cb = {0, 0, 8, 0};
  efix f;
  xio_error e;
  efix_name(&f);
  efix_setup(&f, NULL);
  ASSERT_OK(xio_ctx_set_token_callback(f.ctx, callback, &cb, &e), &e);
  xio_file *file = open_new(&f, "exp.mdf", 4096, XIO_KIND_DATA);
  char buf[512];
  memset(buf, 1, sizeof buf);
  atomic_store(&cb.fail, 1);
  /* While the token is valid, writes go on although every refresh fails: past the
   * point where it is due (half its life), up to 3 s before it expires. */
  time_t expires = (time_t)atomic_load(&cb.expires);
  while (time(NULL) < expires - 3) {
    ASSERT_OK(xio_file_write(file, 0, buf, sizeof buf, &e), &e);
    sleep_ms(100);
  }
  ASSERT(atomic_load(&cb.calls) >= 2); /* a refresh was asked for, and failed */
  while (time(NULL) <= expires)
    sleep_ms(100); /* now the token has expired */
  ASSERT_ERR(xio_file_write(file, 0, buf, sizeof buf, &e), XIO_EAUTH, &e);
  ASSERT_CONTAINS(e.message, "token callback: identity library offline");
  ASSERT(!standin_has_token(e.message));
  xio_file_close(file, NULL);
  efix_teardown(&f);
}

/* Hands out a token the service refuses first (wrong audience), then good ones. */
static xio_err refused_first(const char *scope, xio_auth_token *out, void *ud, xio_error *err) {
  (void)scope, (void)err;
  int *calls = ud;
  char tok[2048];
  if ((*calls)++ == 0)
    standin_jwt_for(tok, sizeof tok, 3600, "https://elsewhere.example");
  else
    standin_jwt(tok, sizeof tok, 3600);
  out->value = xio_strdup(tok);
  out->expires_on = time(NULL) + 3600;
  return XIO_OK;
}

TEST(refused_token_replaced_and_sent_again) {
  standin_env_reset(0, NULL);
  int calls = 0;
  efix f;
  xio_error e;
  efix_name(&f);
  efix_setup(&f, NULL);
  ASSERT_OK(xio_ctx_set_token_callback(f.ctx, refused_first, &calls, &e), &e);
  xio_file *file = open_new(&f, "again.mdf", 4096, XIO_KIND_DATA);
  ASSERT_OK(xio_file_close(file, &e), &e);
  ASSERT_EQ(calls, 2); /* the refused token was dropped and a new one fetched */
  ASSERT_EQ(atomic_load(&f.failures), 0);
  efix_teardown(&f);
}

TEST(credential_file_names_the_method) {
  char log[512], path[512], text[1024];
  standin_path("az.log", log, sizeof log);
  standin_env_reset(1, log);
  standin_idserver mi;
  use_managed_identity(&mi, 3600);
  efix f;
  efix_name(&f);
  /* The environment offers a managed identity, the file says: the Azure CLI. */
  standin_path("creds.json", path, sizeof path);
  snprintf(text, sizeof text, "{\"%s\": {\"entra\": \"azure_cli\"}}", f.container_url);
  standin_write_file(path, text);
  xio_ctx_options o = xio_ctx_options_default();
  o.credential_file = path;
  efix_setup(&f, &o);
  exercise_file_api(&f);
  efix_teardown(&f);
  ASSERT_EQ(standin_az_runs(log), 1);
  ASSERT_EQ(atomic_load(&mi.requests), 0);
  standin_idserver_stop(&mi);
}
