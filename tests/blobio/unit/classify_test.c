/*
 * classify_test.c - how a finished try is judged (success, retry, or which final
 * error) and how long to wait before the next, from statuses, service codes,
 * libcurl results (and their reasons) and the service's retry hints; no service
 * needed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include <openssl/x509_vfy.h>

#include "engine_int.h"
#include "test.h"

static xio_blob_target *target(void) {
  xio_blob_target *t = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_target_new("http://127.0.0.1:1/devstoreaccount1/cont/b.mdf", NULL, &t, &e),
            &e);
  return t;
}

/* A put-page call whose try "finished" with `status`, an x-ms-error-code and body. */
static xio_blob_call *finished(xio_blob_target *t, int status, const char *code, const char *body,
                               const char *lease) {
  static char data[512];
  xio_blob_call *c = NULL;
  xio_error e;
  xio_blob_cond cond = {lease, NULL, NULL};
  ASSERT_OK(xio_blob_call_put_page(t, 0, data, 512, 0, &cond, &c, &e), &e);
  c->status = status;
  if (code) xio__blob_hdrs_add(&c->resp_headers, "x-ms-error-code", code);
  xio__blob_hdrs_add(&c->resp_headers, "x-ms-request-id", "req-1");
  if (body) {
    c->resp_body = strdup(body);
    c->resp_len = c->resp_cap = strlen(body);
  }
  return c;
}

static void expect(int status, const char *code, const char *lease, xio_err want, int retry) {
  xio_blob_target *t = target();
  xio_blob_call *c = finished(t, status, code, NULL, lease);
  xio__blob_verdict v = xio__blob_classify(c);
  if (v.code != want || v.retry != retry)
    FAIL("HTTP %d %s: got %s retry=%d, want %s retry=%d", status, code ? code : "",
         xio_err_name(v.code), v.retry, xio_err_name(want), retry);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

TEST(classify_statuses_and_codes) {
  expect(201, NULL, NULL, XIO_OK, 0);
  expect(404, "BlobNotFound", NULL, XIO_ENOTFOUND, 0);
  expect(409, "LeaseAlreadyPresent", NULL, XIO_EBUSY, 0);
  expect(412, "LeaseIdMissing", NULL, XIO_EBUSY, 0);
  expect(412, "LeaseIdMismatchWithBlobOperation", "id", XIO_ELEASELOST, 0);
  expect(412, "LeaseNotPresentWithBlobOperation", "id", XIO_ELEASELOST, 0);
  expect(412, "ConditionNotMet", NULL, XIO_ECONFLICT, 0);
  expect(403, "AuthenticationFailed", NULL, XIO_ENOCRED, 0); /* the target sends none */
  expect(403, "AuthorizationPermissionMismatch", NULL, XIO_EPERM, 0);
  expect(400, "Crc64Mismatch", NULL, XIO_ECHECKSUM, 1);
  expect(400, "Md5Mismatch", NULL, XIO_ECHECKSUM, 1);
  expect(400, "InvalidHeaderValue", NULL, XIO_EINVAL, 0);
  expect(413, "RequestBodyTooLarge", NULL, XIO_ELIMIT, 0);
  expect(416, "InvalidPageRange", NULL, XIO_ERANGE, 0);
  expect(503, "ServerBusy", NULL, XIO_ETHROTTLED, 1);
  expect(500, "OperationTimedOut", NULL, XIO_ETIMEDOUT, 1);
  expect(500, "InternalError", NULL, XIO_EHTTP, 1);
  expect(502, NULL, NULL, XIO_EHTTP, 1);
  expect(504, NULL, NULL, XIO_ETIMEDOUT, 1);
  expect(429, NULL, NULL, XIO_ETHROTTLED, 1);
  expect(408, NULL, NULL, XIO_ETIMEDOUT, 1);
}

TEST(classify_fills_detail_from_xml) {
  xio_blob_target *t = target();
  xio_blob_call *c = finished(
      t, 412, "LeaseIdMissing",
      "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>LeaseIdMissing</Code>"
      "<Message>There is currently a lease on the blob and no lease ID was specified in the "
      "request.\nRequestId:abc\nTime:2024</Message></Error>",
      NULL);
  xio__blob_verdict v = xio__blob_classify(c);
  ASSERT_EQ(v.code, XIO_EBUSY);
  ASSERT_EQ(c->err.http_status, 412);
  ASSERT_STR_EQ(c->err.service_code, "LeaseIdMissing");
  ASSERT_STR_EQ(c->err.request_id, "req-1");
  ASSERT_STR_EQ(c->err.operation, "PutPage");
  ASSERT_STR_EQ(c->err.target, "http://127.0.0.1:1/devstoreaccount1/cont/b.mdf");
  ASSERT_CONTAINS(c->err.message, "no lease ID was specified");
  ASSERT_NOT_CONTAINS(c->err.message, "RequestId");
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

TEST(classify_transport_and_torn_bodies) {
  xio_blob_target *t = target();
  xio_blob_call *c = finished(t, 0, NULL, NULL, NULL);
  c->curl_rc = CURLE_RECV_ERROR;
  xio__blob_verdict v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && v.retry);
  c->curl_rc = CURLE_OPERATION_TIMEDOUT;
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETIMEDOUT && v.retry);
  c->curl_rc = CURLE_PARTIAL_FILE; /* body cut short of its Content-Length */
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && v.retry);
  c->curl_rc = CURLE_PEER_FAILED_VERIFICATION;
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && !v.retry);
  xio_blob_call_free(c);
  /* A 206 read that delivered less than its Content-Length announced: torn. */
  char buf[1024];
  xio_error e;
  ASSERT_OK(xio_blob_call_read(t, 0, buf, sizeof buf, NULL, &c, &e), &e);
  c->status = 206;
  c->rbuf_got = 600;
  xio__blob_hdrs_add(&c->resp_headers, "Content-Length", "1024");
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && v.retry);
  ASSERT_CONTAINS(c->err.message, "torn");
  ASSERT_EQ(c->err.reason, XIO_REASON_CONNECTION_LOST);
  /* ... but one that announced fewer bytes than asked reached the end of the blob. */
  xio__blob_hdrs_reset(&c->resp_headers);
  xio__blob_hdrs_add(&c->resp_headers, "Content-Length", "600");
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ERANGE && !v.retry);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

/* A transport failure: its reason from libcurl's code and, for a refused
 * certificate, from OpenSSL's verify result. */
static void expect_reason(CURLcode rc, long verify_result, xio_reason want) {
  xio_blob_target *t = target();
  xio_blob_call *c = finished(t, 0, NULL, NULL, NULL);
  c->curl_rc = rc;
  c->verify_result = verify_result;
  xio__blob_classify(c);
  if (c->err.reason != want)
    FAIL("CURLcode %d, verify result %ld: reason %s, wanted %s", (int)rc, verify_result,
         xio_reason_name(c->err.reason), xio_reason_name(want));
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

TEST(classify_transport_reasons) {
  expect_reason(CURLE_COULDNT_RESOLVE_HOST, 0, XIO_REASON_RESOLVE);
  expect_reason(CURLE_COULDNT_CONNECT, 0, XIO_REASON_CONNECT);
  expect_reason(CURLE_RECV_ERROR, 0, XIO_REASON_CONNECTION_LOST);
  expect_reason(CURLE_SEND_ERROR, 0, XIO_REASON_CONNECTION_LOST);
  expect_reason(CURLE_GOT_NOTHING, 0, XIO_REASON_CONNECTION_LOST);
  expect_reason(CURLE_PARTIAL_FILE, 0, XIO_REASON_CONNECTION_LOST);
  expect_reason(CURLE_SSL_CONNECT_ERROR, 0, XIO_REASON_TLS_HANDSHAKE);
  expect_reason(CURLE_SSL_CACERT_BADFILE, 0, XIO_REASON_CA_FILE);
  expect_reason(CURLE_PEER_FAILED_VERIFICATION, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
                XIO_REASON_TLS_UNTRUSTED);
  expect_reason(CURLE_PEER_FAILED_VERIFICATION, X509_V_ERR_CERT_SIGNATURE_FAILURE,
                XIO_REASON_TLS_UNTRUSTED);
  expect_reason(CURLE_PEER_FAILED_VERIFICATION, X509_V_ERR_HOSTNAME_MISMATCH,
                XIO_REASON_TLS_HOSTNAME);
  expect_reason(CURLE_PEER_FAILED_VERIFICATION, X509_V_ERR_IP_ADDRESS_MISMATCH,
                XIO_REASON_TLS_HOSTNAME);
  expect_reason(CURLE_PEER_FAILED_VERIFICATION, X509_V_ERR_CERT_HAS_EXPIRED,
                XIO_REASON_TLS_EXPIRED);
  expect_reason(CURLE_PEER_FAILED_VERIFICATION, X509_V_ERR_CERT_NOT_YET_VALID,
                XIO_REASON_TLS_EXPIRED);
  expect_reason(CURLE_OPERATION_TIMEDOUT, 0, XIO_REASON_NONE); /* XIO_ETIMEDOUT says it */
}

TEST(delete_404_on_retry_is_success) {
  xio_blob_target *t = target();
  xio_blob_call *c = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_call_delete(t, 0, NULL, &c, &e), &e);
  c->status = 404;
  ASSERT_EQ(xio__blob_classify(c).code, XIO_ENOTFOUND);
  c->attempt = 1; /* the first try's response was lost after the blob was deleted */
  ASSERT_EQ(xio__blob_classify(c).code, XIO_OK);
  c->attempt = 0;
  c->sends = 2; /* libcurl re-sent it within the first try: a retry all the same */
  ASSERT_EQ(xio__blob_classify(c).code, XIO_OK);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

TEST(release_without_lease_on_retry_is_success) {
  static const char *const codes[] = {"LeaseNotPresentWithLeaseOperation",
                                      "LeaseIdMismatchWithLeaseOperation"};
  xio_blob_target *t = target();
  xio_error e;
  for (int i = 0; i < 2; i++) {
    xio_blob_call *c = NULL;
    xio_blob_lease_args a = {XIO_BLOB_LEASE_RELEASE, "id", NULL, -1, 0};
    ASSERT_OK(xio_blob_call_lease(t, &a, &c, &e), &e);
    c->status = 409;
    xio__blob_hdrs_add(&c->resp_headers, "x-ms-error-code", codes[i]);
    ASSERT_EQ(xio__blob_classify(c).code, XIO_ELEASELOST); /* first try: a real answer */
    c->attempt = 1;                                        /* the lost first try released it */
    ASSERT_EQ(xio__blob_classify(c).code, XIO_OK);
    xio_blob_call_free(c);
  }
  /* Other lease actions meeting no lease still fail on a retry. */
  xio_blob_call *c = NULL;
  xio_blob_lease_args a = {XIO_BLOB_LEASE_RENEW, "id", NULL, -1, 0};
  ASSERT_OK(xio_blob_call_lease(t, &a, &c, &e), &e);
  c->status = 409;
  c->attempt = 1;
  xio__blob_hdrs_add(&c->resp_headers, "x-ms-error-code", codes[1]);
  ASSERT_EQ(xio__blob_classify(c).code, XIO_ELEASELOST);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

TEST(retry_delays) {
  xio_blob_retry_policy p = {3, 800, 60000, 0, 0, 0};
  uint64_t rng = 1;
  for (int i = 0; i < 100; i++) {
    int d1 = xio__blob_retry_delay_ms(&p, 1, NULL, &rng);
    int d3 = xio__blob_retry_delay_ms(&p, 3, NULL, &rng);
    ASSERT(d1 >= 640 && d1 <= 1040);  /* 800 x 0.8..1.3 */
    ASSERT(d3 >= 2560 && d3 <= 4160); /* 3200 x 0.8..1.3 */
  }
  ASSERT(xio__blob_retry_delay_ms(&p, 20, NULL, &rng) <= 60000);
  xio__blob_hdrs h = {0};
  xio__blob_hdrs_add(&h, "Retry-After", "2");
  ASSERT_EQ(xio__blob_retry_delay_ms(&p, 1, &h, &rng), 2000);
  xio__blob_hdrs_add(&h, "x-ms-retry-after-ms", "150");
  ASSERT_EQ(xio__blob_retry_delay_ms(&p, 1, &h, &rng), 150);
  xio__blob_hdrs_add(&h, "retry-after-ms", "75");
  ASSERT_EQ(xio__blob_retry_delay_ms(&p, 1, &h, &rng), 75);
  xio__blob_hdrs_free(&h);
  xio__blob_hdrs_add(&h, "Retry-After", "100000"); /* capped */
  ASSERT_EQ(xio__blob_retry_delay_ms(&p, 1, &h, &rng), 60000);
  xio__blob_hdrs_free(&h);
}

/* A refusal of a credential that was sent is an authentication failure; of a
 * request that went without one, "no credential", with the reason saying so. */
TEST(classify_refusal_with_and_without_a_credential) {
  xio_auth_cred sas = {.kind = XIO_AUTH_CRED_SAS, .sas = "sv=2022-11-02&sr=b&sp=r&sig=AAAA"};
  xio_blob_target *t = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_target_new("http://127.0.0.1:1/devstoreaccount1/cont/b.mdf", &sas, &t, &e),
            &e);
  xio_blob_call *c = finished(t, 403, "AuthenticationFailed", NULL, NULL);
  ASSERT_EQ(xio__blob_classify(c).code, XIO_EAUTH);
  ASSERT_EQ(c->err.reason, XIO_REASON_NONE);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
  t = target();
  c = finished(t, 404, "ResourceNotFound", NULL, NULL);
  ASSERT_EQ(xio__blob_classify(c).code, XIO_ENOTFOUND);
  ASSERT_EQ(c->err.reason, XIO_REASON_NO_CREDENTIAL_SENT);
  xio_blob_call_free(c);
  c = finished(t, 401, "NoAuthenticationInformation", NULL, NULL);
  ASSERT_EQ(xio__blob_classify(c).code, XIO_ENOCRED);
  ASSERT_CONTAINS(c->err.message, "went without one");
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

/* A try of a put-page call to `url` that ended with libcurl's `rc`. */
static xio_blob_call *failed_try(xio_blob_target **t, const char *url, CURLcode rc) {
  static char data[512];
  xio_blob_call *c = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_target_new(url, NULL, t, &e), &e);
  ASSERT_OK(xio_blob_call_put_page(*t, 0, data, 512, 0, NULL, &c, &e), &e);
  c->curl_rc = rc;
  return c;
}

/* The failures no retry mends are final at once, each with its reason and words:
 * TLS answered in plain http, plain http to a port that speaks TLS, a host name that
 * does not resolve on an origin that never answered. The same libcurl codes without
 * that evidence are retried as before. */
TEST(classify_wrong_protocol_and_unknown_host_are_final) {
  xio_blob_target *t = NULL;
  xio_blob_call *c =
      failed_try(&t, "https://127.0.0.1:1/devstoreaccount1/cont/b.mdf", CURLE_SSL_CONNECT_ERROR);
  xio__blob_verdict v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && v.retry); /* a handshake that failed otherwise */
  ASSERT_EQ(c->err.reason, XIO_REASON_TLS_HANDSHAKE);
  c->tls_got_http = 1;
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && !v.retry);
  ASSERT_EQ(c->err.reason, XIO_REASON_SPEAKS_HTTP);
  ASSERT_CONTAINS(c->err.message, "this endpoint speaks http, not https");
  xio_blob_call_free(c);
  xio_blob_target_free(t);

  c = failed_try(&t, "http://127.0.0.1:1/devstoreaccount1/cont/b.mdf", CURLE_GOT_NOTHING);
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && v.retry);
  c->speaks_tls = 1;
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && !v.retry);
  ASSERT_EQ(c->err.reason, XIO_REASON_SPEAKS_HTTPS);
  ASSERT_CONTAINS(c->err.message, "this endpoint speaks https, not http");
  xio_blob_call_free(c);
  xio_blob_target_free(t);

  c = failed_try(&t, "https://nosuch.blob.core.windows.net/cont/b.mdf", CURLE_COULDNT_RESOLVE_HOST);
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && !v.retry);
  ASSERT_EQ(c->err.reason, XIO_REASON_RESOLVE);
  ASSERT_CONTAINS(c->err.message, "the host name nosuch.blob.core.windows.net does not resolve");
  c->origin_heard = 1; /* it answered before: the resolver's bad moment, retried */
  v = xio__blob_classify(c);
  ASSERT(v.code == XIO_ETRANSPORT && v.retry);
  ASSERT_EQ(c->err.reason, XIO_REASON_RESOLVE);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

/* What port a plain-http failure is worth a look at: a first try, closed or broken
 * with not one byte back, on an origin that never answered. */
TEST(probe_wanted_only_for_a_silent_first_try) {
  xio_blob_target *t = NULL;
  xio_blob_call *c =
      failed_try(&t, "http://127.0.0.1:1/devstoreaccount1/cont/b.mdf", CURLE_GOT_NOTHING);
  snprintf(c->peer_ip, sizeof c->peer_ip, "127.0.0.1");
  c->peer_port = 1;
  ASSERT(xio__blob_probe_wanted(c));
  c->curl_rc = CURLE_RECV_ERROR;
  ASSERT(xio__blob_probe_wanted(c));
  c->curl_rc = CURLE_SEND_ERROR;
  ASSERT(xio__blob_probe_wanted(c));
  c->curl_rc = CURLE_COULDNT_CONNECT; /* nothing listens: nothing to ask */
  ASSERT(!xio__blob_probe_wanted(c));
  c->curl_rc = CURLE_GOT_NOTHING;
  c->attempt = 1;
  ASSERT(!xio__blob_probe_wanted(c));
  c->attempt = 0;
  c->origin_heard = 1;
  ASSERT(!xio__blob_probe_wanted(c));
  c->origin_heard = 0;
  c->peer_ip[0] = '\0'; /* bytes came back, or not plain http: transport.c kept no address */
  ASSERT(!xio__blob_probe_wanted(c));
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

/* The origins an engine heard from: found again, and the oldest given up for a new
 * one when every slot is taken. */
TEST(origins_remember_the_last_few) {
  xio__blob_origins o;
  char name[64];
  memset(&o, 0, sizeof o);
  ASSERT(!xio__blob_origins_has(&o, "http://127.0.0.1:1"));
  xio__blob_origins_add(&o, "http://127.0.0.1:1");
  xio__blob_origins_add(&o, "http://127.0.0.1:1");
  ASSERT(xio__blob_origins_has(&o, "http://127.0.0.1:1"));
  ASSERT(!xio__blob_origins_has(&o, "https://127.0.0.1:1"));
  for (int i = 0; i < XIO__BLOB_ORIGINS_MAX - 1; i++) {
    snprintf(name, sizeof name, "https://a%d.blob.core.windows.net", i);
    xio__blob_origins_add(&o, name);
  }
  ASSERT(xio__blob_origins_has(&o, "http://127.0.0.1:1"));
  xio__blob_origins_add(&o, "https://one-more.blob.core.windows.net");
  ASSERT(!xio__blob_origins_has(&o, "http://127.0.0.1:1"));
  ASSERT(xio__blob_origins_has(&o, "https://one-more.blob.core.windows.net"));
  ASSERT(xio__blob_origins_has(&o, "https://a0.blob.core.windows.net"));
}
