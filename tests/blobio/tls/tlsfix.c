/*
 * tlsfix.c - the TLS tests' fixture (see tlsfix.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "tlsfix.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <xio/auth.h>
#include <xio/url_int.h>

#include "blob_sync_test_util.h"
#include "tls_int.h"
#include "test.h"
#include "util.h"

static pthread_mutex_t tries_mu = PTHREAD_MUTEX_INITIALIZER;

const char *tls_ca_file(void) {
  const char *ca = getenv("XIO_TEST_CA_FILE");
  if (!ca || !*ca) FAIL("XIO_TEST_CA_FILE is not set: run through ctest (azurite_tls fixture)");
  return ca;
}

void tls_fixture_file(const char *name, char *out, size_t size) {
  const char *ca = tls_ca_file();
  const char *slash = strrchr(ca, '/');
  int dir_len = slash ? (int)(slash - ca) : 1;
  snprintf(out, size, "%.*s/%s", dir_len, slash ? ca : ".", name);
  if (access(out, R_OK) != 0) FAIL("the fixture made no %s", out);
}

static void on_try(const xio_blob_try_info *info, void *ud) {
  tls_tries *r = ud;
  pthread_mutex_lock(&tries_mu);
  if (r->n < TLS_MAX_TRIES) {
    r->will_retry[r->n] = info->will_retry;
    r->attempt[r->n] = info->attempt;
    r->http_status[r->n] = info->http_status;
    snprintf(r->transport_error[r->n], sizeof r->transport_error[r->n], "%s",
             info->transport_error ? info->transport_error : "");
  }
  r->n++;
  pthread_mutex_unlock(&tries_mu);
}

void tls_engine_setup(tls_engine *t, const char *ca_file) {
  tls_engine_setup_tries(t, ca_file, 10000, 3);
}

void tls_engine_setup_tries(tls_engine *t, const char *ca_file, int try_timeout_ms,
                            int max_retries) {
  tls_engine_setup_with(t, ca_file, try_timeout_ms, max_retries, 0);
}

void tls_engine_setup_with(tls_engine *t, const char *ca_file, int try_timeout_ms, int max_retries,
                           int plain_tls) {
  /* The TLS emulator is Azurite alone, which answers a read's MD5 but refuses its
   * CRC-64 (the first read would be sent twice, once to learn that). */
  tls_engine_setup_checksum(t, ca_file, try_timeout_ms, max_retries, plain_tls,
                            XIO_BLOB_CHECKSUM_MD5);
}

void tls_engine_setup_checksum(tls_engine *t, const char *ca_file, int try_timeout_ms,
                               int max_retries, int plain_tls, xio_blob_checksum checksum) {
  xio_error e;
  memset(t, 0, sizeof *t);
  t->tries = calloc(1, sizeof *t->tries);
  ASSERT(t->tries != NULL);
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.ca_file = ca_file;
  o.retry.max_retries = max_retries;
  o.retry.base_delay_ms = 10;
  o.retry.max_delay_ms = 50;
  o.connect_timeout_ms = 5000;
  o.retry.try_timeout_ms = try_timeout_ms;
  o.on_try = on_try;
  o.on_try_ud = t->tries;
  o.plain_tls = plain_tls;
  o.checksum = checksum;
  ASSERT_OK(xio_blob_engine_new(&o, &t->engine, &e), &e);
  t->cred.kind = XIO_AUTH_CRED_SHARED_KEY;
  t->cred.account = XIO_AUTH_DEV_ACCOUNT;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &t->cred.key, &t->cred.key_len, &e), &e);
}

int tls_tries_made(tls_engine *t) {
  pthread_mutex_lock(&tries_mu);
  int n = t->tries->n;
  pthread_mutex_unlock(&tries_mu);
  return n;
}

void tls_engine_teardown(tls_engine *t) {
  xio_blob_engine_free(t->engine);
  xio_auth_secret_free(t->cred.key, t->cred.key_len);
  free(t->tries);
  memset(t, 0, sizeof *t);
}

xio_blob_target *tls_target(tls_engine *t, const char *url) {
  xio_error e;
  xio_blob_target *target = NULL;
  ASSERT_OK(xio_blob_target_new(url, &t->cred, &target, &e), &e);
  return target;
}

void tls_container_url(char *out, size_t size) {
  char name[64];
  test_unique_name(name, sizeof name, "tls");
  snprintf(out, size, "%s/%s", test_account_url(), name);
}

void tls_expect_refused(tls_engine *t, const char *url, xio_reason reason, const char *also) {
  xio_error e;
  xio_blob_target *target = tls_target(t, url);
  xio_blob_call *c = NULL;
  pthread_mutex_lock(&tries_mu);
  memset(t->tries, 0, sizeof *t->tries);
  pthread_mutex_unlock(&tries_mu);
  ASSERT_OK(xio_blob_call_create_container(target, &c, &e), &e);
  ASSERT_ERR(xio_blob_send(t->engine, c, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(e.http_status, 0);
  ASSERT_STR_EQ(xio_reason_name(e.reason), xio_reason_name(reason));
  ASSERT_CONTAINS(e.message, "certificate");
  if (also) ASSERT_CONTAINS(e.message, also);
  ASSERT_STR_EQ(e.operation, "CreateContainer");
  /* A certificate that fails verification fails the same way on every try: final. */
  ASSERT_EQ(xio_blob_call_retries(c), 0);
  ASSERT_EQ(e.retries, 0);
  pthread_mutex_lock(&tries_mu);
  tls_tries r = *t->tries;
  pthread_mutex_unlock(&tries_mu);
  if (r.n != 1)
    FAIL("%d tries for a certificate failure, wanted 1 (first: %s)", r.n, r.transport_error[0]);
  ASSERT_EQ(r.will_retry[0], 0);
  ASSERT_EQ(r.attempt[0], 0);
  ASSERT_EQ(r.http_status[0], 0);
  ASSERT_CONTAINS(r.transport_error[0], "certificate");
  xio_blob_call_free(c);
  xio_blob_target_free(target);
}

void tls_batch_done(xio_blob_call *c, void *ud) {
  tls_batch *b = ud;
  (void)c;
  pthread_mutex_lock(&b->mu);
  b->done++;
  pthread_cond_signal(&b->cv);
  pthread_mutex_unlock(&b->mu);
}

void tls_batch_wait(tls_batch *b, int n) {
  pthread_mutex_lock(&b->mu);
  while (b->done < n)
    pthread_cond_wait(&b->cv, &b->mu);
  pthread_mutex_unlock(&b->mu);
}

xio_blob_target *tls_new_blob(tls_engine *t, const char *name, uint64_t size) {
  xio_error e;
  char url[512], blob_url[700];
  tls_container_url(url, sizeof url);
  xio_blob_target *cont = tls_target(t, url);
  ASSERT_OK(xio_blob_create_container(t->engine, cont, 0, &e), &e);
  xio_blob_target_free(cont);
  snprintf(blob_url, sizeof blob_url, "%s/%s", url, name);
  xio_blob_target *blob = tls_target(t, blob_url);
  ASSERT_OK(xio_blob_create(t->engine, blob, size, NULL, 0, NULL, &e), &e);
  return blob;
}

int tls_rewired(void) { return xio__blob_tls_rewire_supported(curl_version_info(CURLVERSION_NOW)); }

void tls_require_rewired(void) {
  if (tls_rewired()) return;
  const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
  static char why[256];
  snprintf(why, sizeof why,
           "libcurl %s with %s gets plain TLS connections (the read-ahead and record "
           "gathering are for libcurl 7.88 with OpenSSL 3), and this test counts what they do",
           v->version, v->ssl_version ? v->ssl_version : "no TLS");
  SKIP(why);
}
