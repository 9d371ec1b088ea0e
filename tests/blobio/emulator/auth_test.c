/*
 * auth_test.c - credentials against Azurite: a wrong account key, generated SAS
 * tokens (service blob, service container, account) accepted for what they allow
 * and refused for what they do not, a tampered and an expired token refused by the
 * service, the client's own expiry check, and no secret in any error.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "test.h"
#include "util.h"
#include <xio/url_int.h>

/* Generates a service SAS for the fixture's container (blob NULL) or one blob. */
static char *service_sas(fixture *fx, const char *blob, const char *perms, time_t expiry) {
  xio_error e;
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = perms;
  o.expiry = expiry;
  o.start = time(NULL) - 3600;
  char *tok = NULL;
  const char *container = xio_blob_target_url(fx->container)->container;
  ASSERT_OK(xio_auth_sas_generate_service(XIO_AUTH_DEV_ACCOUNT, fx->cred.key, fx->cred.key_len,
                                          container, blob, &o, &tok, &e),
            &e);
  return tok;
}

static xio_blob_target *sas_target(fixture *fx, const char *blob, const char *tok) {
  char url[2048];
  xio_error e;
  xio_blob_target *t = NULL;
  snprintf(url, sizeof url, "%s/%s?%s", fx->container_url, blob, tok);
  ASSERT_OK(xio_blob_target_new(url, NULL, &t, &e), &e);
  ASSERT_EQ(xio_blob_target_cred_kind(t), XIO_AUTH_CRED_SAS);
  ASSERT_NOT_CONTAINS(xio_blob_target_safe_url(t), "sig=");
  return t;
}

/* The signature value of a token (after "sig="), for leak checks. */
static const char *sig_of(const char *tok) {
  const char *s = strstr(tok, "sig=");
  ASSERT(s != NULL);
  return s + 4;
}

static void assert_no_secret(const xio_error *e, const char *secret) {
  char line[2048];
  xio_error_format(e, line, sizeof line);
  ASSERT_NOT_CONTAINS(line, secret);
  ASSERT_NOT_CONTAINS(e->target, "sig=");
  ASSERT_NOT_CONTAINS(e->message, secret);
}

TEST(wrong_account_key_is_auth_error) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *good = fixture_page_blob(&fx, "k.mdf", 4096);
  /* The dev key with its first byte changed: a well-formed but wrong key. */
  unsigned char *wrong = malloc(fx.cred.key_len);
  memcpy(wrong, fx.cred.key, fx.cred.key_len);
  wrong[0] ^= 0x55;
  xio_auth_cred bad = {.kind = XIO_AUTH_CRED_SHARED_KEY,
                       .account = XIO_AUTH_DEV_ACCOUNT,
                       .key = wrong,
                       .key_len = fx.cred.key_len};
  char url[1024];
  snprintf(url, sizeof url, "%s/k.mdf", fx.container_url);
  xio_blob_target *t = NULL;
  ASSERT_OK(xio_blob_target_new(url, &bad, &t, &e), &e);
  xio_blob_props p;
  ASSERT_ERR(xio_blob_get_properties(fx.engine, t, NULL, &p, &e), XIO_EAUTH, &e);
  ASSERT_EQ(e.http_status, 403);
  char buf[512];
  ASSERT_ERR(xio_blob_read(fx.engine, t, 0, buf, 512, NULL, &e), XIO_EAUTH, &e);
  ASSERT(e.service_code[0] != '\0'); /* AuthorizationFailure on Azurite */
  assert_no_secret(&e, XIO_AUTH_DEV_KEY);
  free(wrong);
  xio_blob_target_free(t);
  xio_blob_target_free(good);
  fixture_teardown(&fx);
}

TEST(blob_sas_reads_and_writes) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target_free(fixture_page_blob(&fx, "sas.mdf", 65536));
  char *tok = service_sas(&fx, "sas.mdf", "rw", time(NULL) + 3600);
  xio_blob_target *t = sas_target(&fx, "sas.mdf", tok);
  char src[4096], dst[4096];
  test_fill_random(src, sizeof src, 5);
  ASSERT_OK(xio_blob_put_page(fx.engine, t, 4096, src, sizeof src, NULL, &e), &e);
  ASSERT_OK(xio_blob_read(fx.engine, t, 4096, dst, sizeof dst, NULL, &e), &e);
  ASSERT_MEM_EQ(src, dst, sizeof src);
  /* "rw" has no 'd': the client refuses before sending. */
  ASSERT_ERR(xio_blob_delete(fx.engine, t, 0, NULL, &e), XIO_EPERM, &e);
  ASSERT_CONTAINS(e.message, "d");
  ASSERT_EQ(e.http_status, 0);
  assert_no_secret(&e, sig_of(tok));
  free(tok);
  xio_blob_target_free(t);
  fixture_teardown(&fx);
}

TEST(container_sas_and_account_sas) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  char *tok = service_sas(&fx, NULL, "racwdl", time(NULL) + 3600);
  xio_blob_target *t = sas_target(&fx, "made-with-sas.ldf", tok);
  ASSERT_OK(xio_blob_create(fx.engine, t, 8192, NULL, 0, NULL, &e), &e);
  ASSERT_OK(xio_blob_clear(fx.engine, t, 0, 8192, NULL, &e), &e);
  ASSERT_OK(xio_blob_delete(fx.engine, t, 0, NULL, &e), &e);
  xio_blob_target_free(t);
  free(tok);
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = "rwdlac";
  o.expiry = time(NULL) + 3600;
  ASSERT_OK(xio_auth_sas_generate_account(XIO_AUTH_DEV_ACCOUNT, fx.cred.key, fx.cred.key_len, "b",
                                          "sco", &o, &tok, &e),
            &e);
  t = sas_target(&fx, "acct.mdf", tok);
  ASSERT_OK(xio_blob_create(fx.engine, t, 4096, NULL, 0, NULL, &e), &e);
  xio_blob_props p;
  ASSERT_OK(xio_blob_get_properties(fx.engine, t, NULL, &p, &e), &e);
  ASSERT_U64_EQ(p.size, 4096);
  xio_blob_target_free(t);
  free(tok);
  fixture_teardown(&fx);
}

TEST(tampered_sas_is_refused_by_the_service) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target_free(fixture_page_blob(&fx, "t.mdf", 4096));
  char *tok = service_sas(&fx, "t.mdf", "r", time(NULL) + 3600);
  /* Widen the permissions without re-signing. */
  char *sp = strstr(tok, "sp=r");
  ASSERT(sp != NULL);
  char *tampered = malloc(strlen(tok) + 4);
  snprintf(tampered, strlen(tok) + 4, "%.*ssp=rw%s", (int)(sp - tok), tok, sp + 4);
  xio_blob_target *t = sas_target(&fx, "t.mdf", tampered);
  char page[512] = {0};
  ASSERT_ERR(xio_blob_put_page(fx.engine, t, 0, page, 512, NULL, &e), XIO_EAUTH, &e);
  ASSERT_EQ(e.http_status, 403);
  assert_no_secret(&e, sig_of(tok));
  free(tampered);
  free(tok);
  xio_blob_target_free(t);
  fixture_teardown(&fx);
}

static time_t year_2000(void *ud) {
  (void)ud;
  return 946684800; /* the client believes it is 2000-01-01 */
}

TEST(expired_sas_is_refused_by_client_and_service) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target_free(fixture_page_blob(&fx, "x.mdf", 4096));
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = "r";
  o.start = 946080000;  /* 1999-12-25 */
  o.expiry = 946771200; /* 2000-01-02: long past */
  char *tok = NULL;
  const char *container = xio_blob_target_url(fx.container)->container;
  ASSERT_OK(xio_auth_sas_generate_service(XIO_AUTH_DEV_ACCOUNT, fx.cred.key, fx.cred.key_len,
                                          container, "x.mdf", &o, &tok, &e),
            &e);
  xio_blob_target *t = sas_target(&fx, "x.mdf", tok);
  char buf[512];
  /* Our clock is right: refused before sending, and the message says when it expired. */
  ASSERT_ERR(xio_blob_read(fx.engine, t, 0, buf, 512, NULL, &e), XIO_EEXPIRED, &e);
  ASSERT_EQ(e.http_status, 0);
  ASSERT_CONTAINS(e.message, "2000-01-02");
  /* With a client clock stuck in 2000 the token goes out, and the service refuses it. */
  xio_blob_engine_options eo = xio_blob_engine_options_default();
  eo.clock.now = year_2000;
  xio_blob_engine *old_clock = NULL;
  ASSERT_OK(xio_blob_engine_new(&eo, &old_clock, &e), &e);
  ASSERT_ERR(xio_blob_read(old_clock, t, 0, buf, 512, NULL, &e), XIO_EAUTH, &e);
  ASSERT_EQ(e.http_status, 403);
  assert_no_secret(&e, sig_of(tok));
  xio_blob_engine_free(old_clock);
  free(tok);
  xio_blob_target_free(t);
  fixture_teardown(&fx);
}
