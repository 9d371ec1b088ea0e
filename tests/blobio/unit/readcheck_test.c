/*
 * readcheck_test.c - what a read asks for and how its answer is judged
 * (readcheck.c), on calls whose try is filled in by hand: which reads ask for a
 * checksum and with which header, a body that matches, one that does not (retried,
 * then XIO_ECHECKSUM naming the range), an answer without the checksum, and the
 * switch to MD5 when the service refuses the CRC-64. No service needed.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "buildfix.h"
#include "readcheck_int.h"
#include "test.h"
#include "util.h"

#define URL "http://127.0.0.1:1/devstoreaccount1/cont/b.mdf"

static unsigned char body[8192];

/* A read of `len` bytes at 512 that asked for `kind` and got its whole body. */
static xio_blob_call *answered_read(xio_blob_target *t, size_t len, xio_blob_checksum kind) {
  xio_blob_call *c = NULL;
  xio_error e;
  test_fill_random(body, sizeof body, 51);
  ASSERT_OK(xio_blob_call_read(t, 512, body, len, NULL, &c, &e), &e);
  ASSERT_EQ(xio__blob_read_check_ask(c, kind, 0), XIO_OK);
  c->status = 206;
  c->rbuf_got = len;
  xio__blob_hdrs_add(&c->resp_headers, "x-ms-request-id", "req-7");
  return c;
}

TEST(readcheck_asks_by_the_engine_setting) {
  xio_blob_target *t = buildfix_target(URL);
  xio_blob_call *c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_CRC64);
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-range-get-content-crc64"), "true");
  ASSERT(buildfix_hdr(c, "x-ms-range-get-content-md5") == NULL);
  ASSERT_EQ(xio__blob_read_check_ask(c, XIO_BLOB_CHECKSUM_MD5, 0), XIO_OK); /* sent again */
  ASSERT(buildfix_hdr(c, "x-ms-range-get-content-md5") == NULL);            /* never both */
  xio_blob_call_free(c);
  c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_MD5);
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-range-get-content-md5"), "true");
  ASSERT(buildfix_hdr(c, "x-ms-range-get-content-crc64") == NULL);
  xio_blob_call_free(c);
  c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_NONE);
  ASSERT(buildfix_hdr(c, "x-ms-range-get-content-crc64") == NULL);
  ASSERT(buildfix_hdr(c, "x-ms-range-get-content-md5") == NULL);
  ASSERT_EQ(c->read_check, XIO__READ_CHECK_NONE);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

/* The service checksums at most 4 MiB: a larger read asks for nothing (Azure would
 * answer 400), and nor do calls that are not reads. */
TEST(readcheck_leaves_large_reads_and_other_calls_alone) {
  xio_blob_target *t = buildfix_target(URL);
  static unsigned char big[XIO_BLOB_MAX_CHECKED_READ + 512];
  xio_blob_call *c = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_call_read(t, 0, big, XIO_BLOB_MAX_CHECKED_READ, NULL, &c, &e), &e);
  ASSERT_EQ(xio__blob_read_check_ask(c, XIO_BLOB_CHECKSUM_CRC64, 0), XIO_OK);
  ASSERT_EQ(c->read_check, XIO__READ_CHECK_CRC64); /* exactly 4 MiB: asked */
  xio_blob_call_free(c);
  ASSERT_OK(xio_blob_call_read(t, 0, big, sizeof big, NULL, &c, &e), &e);
  ASSERT_EQ(xio__blob_read_check_ask(c, XIO_BLOB_CHECKSUM_CRC64, 0), XIO_OK);
  ASSERT_EQ(c->read_check, XIO__READ_CHECK_NONE);
  ASSERT(buildfix_hdr(c, "x-ms-range-get-content-crc64") == NULL);
  xio_blob_call_free(c);
  ASSERT_OK(xio_blob_call_page_ranges(t, 0, 0, NULL, &c, &e), &e);
  ASSERT_EQ(xio__blob_read_check_ask(c, XIO_BLOB_CHECKSUM_CRC64, 0), XIO_OK);
  ASSERT_EQ(c->read_check, XIO__READ_CHECK_NONE);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

TEST(readcheck_accepts_a_matching_body) {
  xio_blob_target *t = buildfix_target(URL);
  char v[25];
  xio_blob_call *c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_CRC64);
  xio__blob_hdrs_add(&c->resp_headers, "x-ms-content-crc64", xio_blob_crc64_base64(body, 4096, v));
  ASSERT_EQ(xio__blob_classify(c).code, XIO_OK);
  xio_blob_call_free(c);
  c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_MD5);
  xio__blob_hdrs_add(&c->resp_headers, "Content-MD5", xio_blob_md5_base64(body, 4096, v));
  ASSERT_EQ(xio__blob_classify(c).code, XIO_OK);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

/* A body one bit off its checksum: retryable XIO_ECHECKSUM, the detail naming the
 * range, the header, both values and the request id. */
TEST(readcheck_refuses_a_corrupted_body) {
  xio_blob_target *t = buildfix_target(URL);
  char v[25], sent[25];
  xio_blob_call *c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_CRC64);
  xio_blob_crc64_base64(body, 4096, sent);
  xio__blob_hdrs_add(&c->resp_headers, "x-ms-content-crc64", sent);
  body[100] ^= 1;
  xio__blob_verdict verdict = xio__blob_classify(c);
  ASSERT_EQ(verdict.code, XIO_ECHECKSUM);
  ASSERT(verdict.retry);
  ASSERT_EQ(c->err.http_status, 206);
  ASSERT_STR_EQ(c->err.operation, "GetBlob");
  ASSERT_CONTAINS(c->err.message, "bytes=512-4607");
  ASSERT_CONTAINS(c->err.message, "x-ms-content-crc64");
  ASSERT_CONTAINS(c->err.message, sent);
  ASSERT_CONTAINS(c->err.message, xio_blob_crc64_base64(body, 4096, v));
  ASSERT_CONTAINS(c->err.message, "req-7");
  xio_blob_call_free(c);
  c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_MD5);
  xio__blob_hdrs_add(&c->resp_headers, "Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg==");
  verdict = xio__blob_classify(c);
  ASSERT(verdict.code == XIO_ECHECKSUM && verdict.retry);
  ASSERT_CONTAINS(c->err.message, "Content-MD5");
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

/* An answer without the checksum asked for is not taken: the bytes are not vouched
 * for. A read that asked for the CRC-64 asks for MD5 next (as after Azurite's
 * refusal); one that asked for MD5 is read again like a corrupted one. */
TEST(readcheck_refuses_an_answer_without_checksum) {
  xio_blob_target *t = buildfix_target(URL);
  xio_blob_call *c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_CRC64);
  xio__blob_verdict verdict = xio__blob_classify(c);
  ASSERT_EQ(verdict.code, XIO_ECHECKSUM);
  ASSERT(verdict.retry);
  ASSERT_CONTAINS(c->err.message, "carries no x-ms-content-crc64");
  ASSERT_CONTAINS(c->err.message, "not vouched for");
  ASSERT_EQ(xio__blob_read_check_fallback(c), 1);
  ASSERT(xio__blob_hdrs_get(&c->headers, "x-ms-range-get-content-md5") != NULL);
  ASSERT(xio__blob_hdrs_get(&c->headers, "x-ms-range-get-content-crc64") == NULL);
  xio_blob_call_free(c);
  c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_MD5);
  verdict = xio__blob_classify(c);
  ASSERT(verdict.code == XIO_ECHECKSUM && verdict.retry);
  ASSERT_CONTAINS(c->err.message, "carries no Content-MD5");
  ASSERT_EQ(xio__blob_read_check_fallback(c), 0);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

/* Azurite's refusal of the CRC-64 header switches the read to MD5, once; any other
 * failure, or one of a read asking for MD5 already, does not. */
TEST(readcheck_falls_back_to_md5_on_feature_not_supported) {
  xio_blob_target *t = buildfix_target(URL);
  xio_blob_call *c = answered_read(t, 4096, XIO_BLOB_CHECKSUM_CRC64);
  c->status = 500;
  xio__blob_hdrs_add(&c->resp_headers, "x-ms-error-code", "InternalError");
  ASSERT_EQ(xio__blob_read_check_fallback(c), 0);
  xio__blob_hdrs_reset(&c->resp_headers);
  xio__blob_hdrs_add(&c->resp_headers, "x-ms-error-code", "FeatureNotSupported");
  ASSERT_EQ(xio__blob_read_check_fallback(c), 1);
  ASSERT_EQ(c->read_check, XIO__READ_CHECK_MD5);
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-range-get-content-md5"), "true");
  ASSERT(buildfix_hdr(c, "x-ms-range-get-content-crc64") == NULL);
  ASSERT_EQ(xio__blob_read_check_fallback(c), 0); /* MD5 refused: nothing left to try */
  xio_blob_call_free(c);
  /* An engine that learned it asks for MD5 from the start. */
  xio_error e;
  ASSERT_OK(xio_blob_call_read(t, 0, body, 512, NULL, &c, &e), &e);
  ASSERT_EQ(xio__blob_read_check_ask(c, XIO_BLOB_CHECKSUM_CRC64, 1), XIO_OK);
  ASSERT_EQ(c->read_check, XIO__READ_CHECK_MD5);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}
