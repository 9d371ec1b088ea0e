/*
 * conformance_test.c - the response shapes the live service sends (shapes/NAME.http,
 * each with where its facts come from), served by a loopback server (replay.c)
 * through the client's engine, transport and parsers, each with the result the
 * client must give: the xio_err and service code, whether it was retried (the
 * requests the server saw, counted), the ranges parsed, the marker followed, the
 * properties read, the checksum checked. Byte-order marks, chunked bodies, error
 * bodies with their RequestId/Time lines and extra elements, HEAD errors without a
 * body: all as Azure sends them, which Azurite does not.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/auth.h>
#include <xio/blob.h>
#include <xio/url_int.h>

#include "blob_sync_test_util.h"
#include "replay.h"
#include "test.h"

#define RETRIES 3

typedef struct conf {
  replay *server;
  xio_blob_engine *engine;
  xio_blob_target *blob;
  xio_auth_cred cred;
} conf;

/* A server answering with `names`, an engine with RETRIES quick retries and the
 * `checksum` kind, and a target on the server with the dev account's Shared Key. */
static void setup(conf *c, xio_blob_checksum checksum, const char *const *names, int n) {
  xio_error e;
  memset(c, 0, sizeof *c);
  c->server = replay_start(names, n);
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.retry.max_retries = RETRIES;
  o.retry.base_delay_ms = 1;
  o.retry.max_delay_ms = 2;
  o.retry.throttle_ms = 0; /* throttling counted among the RETRIES, as other faults */
  o.pacing = XIO_BLOB_PACING_OFF;
  o.checksum = checksum;
  ASSERT_OK(xio_blob_engine_new(&o, &c->engine, &e), &e);
  c->cred.kind = XIO_AUTH_CRED_SHARED_KEY;
  c->cred.account = XIO_AUTH_DEV_ACCOUNT;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &c->cred.key, &c->cred.key_len, &e), &e);
  char url[256];
  snprintf(url, sizeof url, "%s/%s/cont/b.mdf", replay_endpoint(c->server), XIO_AUTH_DEV_ACCOUNT);
  ASSERT_OK(xio_blob_target_new(url, &c->cred, &c->blob, &e), &e);
}

static void teardown(conf *c) {
  xio_blob_target_free(c->blob);
  xio_blob_engine_free(c->engine);
  replay_free(c->server);
  xio_auth_secret_free(c->cred.key, c->cred.key_len);
}

/* The same shape `n` times. */
#define REPEAT4(s)                                                                                 \
  (const char *const[]) { s, s, s, s }

/* A Put Page of 512 bytes of 'a' at 0 with `cond` (may be NULL): its result. */
static xio_err put_a(conf *c, const xio_blob_cond *cond, xio_error *e) {
  static char page[512];
  memset(page, 'a', sizeof page);
  return xio_blob_put_page(c->engine, c->blob, 0, page, sizeof page, cond, e);
}

/* Every request the server saw came from one call: one client request id. */
static void expect_requests(conf *c, int n) {
  ASSERT_EQ(replay_count(c->server), n);
  replay_request first = replay_request_at(c->server, 0);
  ASSERT(first.has_auth);
  for (int i = 1; i < n; i++)
    ASSERT_STR_EQ(replay_request_at(c->server, i).client_id, first.client_id);
}

/* A failure as the shape states it: code, status, service code and message (without
 * the RequestId and Time lines), the service's request id, retried `retries` times. */
static void expect_failure(conf *c, const xio_error *e, xio_err code, int status,
                           const char *service_code, const char *message, int retries) {
  ASSERT_EQ(e->code, code);
  ASSERT_EQ(e->http_status, status);
  ASSERT_STR_EQ(e->service_code, service_code);
  if (message) ASSERT_STR_EQ(e->message, message);
  ASSERT_NOT_CONTAINS(e->message, "RequestId:");
  ASSERT_EQ(e->retries, retries);
  ASSERT_EQ(strncmp(e->request_id, "1dc5", 4), 0);
  expect_requests(c, retries + 1);
}

/* ------------------------------------------------------------ page lists ---- */

/* Percent-decodes the value of `name` in the query of `target` into `out`. */
static void query_value(const char *target, const char *name, char *out, size_t size) {
  char key[64];
  snprintf(key, sizeof key, "%s=", name);
  const char *v = strstr(target, key);
  size_t k = 0;
  out[0] = '\0';
  if (!v) return;
  for (v += strlen(key); *v && *v != '&' && k + 1 < size; v++) {
    unsigned x;
    if (*v == '%' && sscanf(v + 1, "%2x", &x) == 1) {
      out[k++] = (char)x;
      v += 2;
    } else {
      out[k++] = *v;
    }
  }
  out[k] = '\0';
}

TEST(conformance_paged_page_list_follows_its_marker) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64,
        (const char *const[]){"pagelist_first_page", "pagelist_last_page"}, 2);
  xio_ranges r = {0};
  xio_error e;
  ASSERT_OK(xio_blob_get_ranges(c.engine, c.blob, 0, 4096, 0, &r, &e), &e);
  ASSERT_EQ(r.n, 4);
  static const uint64_t want[4][2] = {{0, 511}, {1024, 1535}, {2048, 2559}, {3072, 3583}};
  for (int i = 0; i < 4; i++) {
    ASSERT_U64_EQ(r.v[i].start, want[i][0]);
    ASSERT_U64_EQ(r.v[i].end, want[i][1]);
  }
  xio_ranges_clear(&r);
  ASSERT_EQ(replay_count(c.server), 2);
  replay_request a = replay_request_at(c.server, 0), b = replay_request_at(c.server, 1);
  char marker[64];
  ASSERT_CONTAINS(a.target, "comp=pagelist");
  ASSERT_NOT_CONTAINS(a.target, "marker=");
  ASSERT_STR_EQ(a.range, "bytes=0-4095");
  query_value(b.target, "marker", marker, sizeof marker);
  ASSERT_STR_EQ(marker, "2!16!MDAwMDA0ITIwNDgh");
  ASSERT_STR_EQ(b.range, "bytes=0-4095");
  teardown(&c);
}

/* A diff's ClearRange is not a written range: the list keeps the PageRange only. */
TEST(conformance_page_list_diff_keeps_its_page_ranges) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"pagelist_diff"}, 1);
  xio_blob_call *call = NULL;
  xio_ranges r = {0};
  char *next = (char *)"unset";
  xio_error e;
  ASSERT_OK(xio_blob_call_page_ranges(c.blob, 0, 1024, NULL, &call, &e), &e);
  ASSERT_OK(xio_blob_send(c.engine, call, &e), &e);
  ASSERT_OK(xio_blob_call_ranges(call, &r, &next, &e), &e);
  ASSERT(next == NULL); /* no NextMarker at all: the last page */
  ASSERT_EQ(r.n, 1);
  ASSERT_U64_EQ(r.v[0].start, 0);
  ASSERT_U64_EQ(r.v[0].end, 511);
  xio_ranges_clear(&r);
  xio_blob_call_free(call);
  expect_requests(&c, 1);
  teardown(&c);
}

/* ------------------------------------------------------------ writes ---- */

/* The service's CRC-64 of 512 'a' is the client's: the Put Page is accepted. */
TEST(conformance_put_page_carries_the_services_crc64) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"put_page_created"}, 1);
  char page[512], v[13];
  memset(page, 'a', sizeof page);
  ASSERT_STR_EQ(xio_blob_crc64_base64(page, sizeof page, v), "u661BimQ84c=");
  xio_error e;
  ASSERT_OK(put_a(&c, NULL, &e), &e);
  expect_requests(&c, 1);
  teardown(&c);
}

TEST(conformance_crc64_mismatch_is_sent_again) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"crc64_mismatch", "put_page_created"},
        2);
  xio_error e;
  ASSERT_OK(put_a(&c, NULL, &e), &e);
  ASSERT_EQ(e.retries, 1);
  expect_requests(&c, 2);
  teardown(&c);
}

TEST(conformance_crc64_mismatch_outlasting_the_budget_is_echecksum) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, REPEAT4("crc64_mismatch"), 4);
  xio_error e;
  ASSERT_ERR(put_a(&c, NULL, &e), XIO_ECHECKSUM, &e);
  expect_failure(&c, &e, XIO_ECHECKSUM, 400, "Crc64Mismatch",
                 "The CRC64 value specified in the request did not match with the CRC64 value "
                 "calculated by the server.",
                 RETRIES);
  teardown(&c);
}

TEST(conformance_md5_mismatch_is_sent_again) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_MD5, (const char *const[]){"md5_mismatch", "put_page_created"}, 2);
  xio_error e;
  ASSERT_OK(put_a(&c, NULL, &e), &e);
  ASSERT_EQ(e.retries, 1);
  expect_requests(&c, 2);
  teardown(&c);
}

TEST(conformance_lease_id_missing_is_ebusy_at_once) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"lease_id_missing"}, 1);
  xio_error e;
  ASSERT_ERR(put_a(&c, NULL, &e), XIO_EBUSY, &e);
  expect_failure(&c, &e, XIO_EBUSY, 412, "LeaseIdMissing",
                 "There is currently a lease on the blob and no lease ID was specified in the "
                 "request.",
                 0);
  teardown(&c);
}

/* A lease error on a write that carried our lease id: we lost the lease. */
TEST(conformance_lease_id_mismatch_with_our_lease_is_leaselost) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"lease_id_mismatch"}, 1);
  xio_blob_cond cond = {"8a8a8a8a-0000-4000-8000-000000000001", NULL, NULL};
  xio_error e;
  ASSERT_ERR(put_a(&c, &cond, &e), XIO_ELEASELOST, &e);
  expect_failure(&c, &e, XIO_ELEASELOST, 412, "LeaseIdMismatchWithBlobOperation",
                 "The lease ID specified did not match the lease ID for the blob.", 0);
  ASSERT_STR_EQ(replay_request_at(c.server, 0).lease_id, cond.lease_id);
  teardown(&c);
}

TEST(conformance_condition_not_met_is_econflict_at_once) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"condition_not_met"}, 1);
  xio_blob_cond cond = {NULL, "\"0x8DB00B5A8F4535D\"", NULL};
  xio_error e;
  ASSERT_ERR(put_a(&c, &cond, &e), XIO_ECONFLICT, &e);
  expect_failure(&c, &e, XIO_ECONFLICT, 412, "ConditionNotMet",
                 "The condition specified using HTTP conditional header(s) is not met.", 0);
  teardown(&c);
}

TEST(conformance_invalid_page_range_is_erange_at_once) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"invalid_page_range"}, 1);
  xio_error e;
  ASSERT_ERR(put_a(&c, NULL, &e), XIO_ERANGE, &e);
  expect_failure(&c, &e, XIO_ERANGE, 416, "InvalidPageRange",
                 "The page range specified is invalid.", 0);
  teardown(&c);
}

TEST(conformance_request_body_too_large_is_elimit_at_once) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"request_body_too_large"}, 1);
  xio_error e;
  ASSERT_ERR(put_a(&c, NULL, &e), XIO_ELIMIT, &e);
  expect_failure(&c, &e, XIO_ELIMIT, 413, "RequestBodyTooLarge",
                 "The request body is too large and exceeds the maximum permissible limit.", 0);
  teardown(&c);
}

/* The detail the service adds quotes a signature: none of it reaches the error. */
TEST(conformance_authentication_failed_is_eauth_and_quotes_no_signature) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"auth_failed"}, 1);
  xio_error e;
  ASSERT_ERR(put_a(&c, NULL, &e), XIO_EAUTH, &e);
  expect_failure(&c, &e, XIO_EAUTH, 403, "AuthenticationFailed", NULL, 0);
  ASSERT_CONTAINS(e.message, "Server failed to authenticate the request.");
  ASSERT_NOT_CONTAINS(e.message, "c2VjcmV0");
  ASSERT_NOT_CONTAINS(e.message, "string to sign");
  ASSERT_NOT_CONTAINS(e.target, "sig=");
  teardown(&c);
}

/* ------------------------------------------------------------ throttling ---- */

TEST(conformance_server_busy_is_sent_again) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"server_busy", "put_page_created"}, 2);
  xio_error e;
  ASSERT_OK(put_a(&c, NULL, &e), &e);
  ASSERT_EQ(e.retries, 1);
  expect_requests(&c, 2);
  teardown(&c);
}

TEST(conformance_account_server_busy_is_sent_again) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64,
        (const char *const[]){"server_busy_account", "put_page_created"}, 2);
  xio_error e;
  ASSERT_OK(put_a(&c, NULL, &e), &e);
  ASSERT_EQ(e.retries, 1);
  expect_requests(&c, 2);
  teardown(&c);
}

TEST(conformance_server_busy_outlasting_the_budget_is_ethrottled) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, REPEAT4("server_busy"), 4);
  xio_error e;
  ASSERT_ERR(put_a(&c, NULL, &e), XIO_ETHROTTLED, &e);
  expect_failure(&c, &e, XIO_ETHROTTLED, 503, "ServerBusy", "The server is busy.", RETRIES);
  teardown(&c);
}

TEST(conformance_operation_timed_out_outlasting_the_budget_is_etimedout) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, REPEAT4("operation_timed_out"), 4);
  xio_error e;
  ASSERT_ERR(put_a(&c, NULL, &e), XIO_ETIMEDOUT, &e);
  expect_failure(&c, &e, XIO_ETIMEDOUT, 500, "OperationTimedOut",
                 "The operation could not be completed within the permitted time.", RETRIES);
  teardown(&c);
}

TEST(conformance_internal_error_is_sent_again) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"internal_error", "put_page_created"},
        2);
  xio_error e;
  ASSERT_OK(put_a(&c, NULL, &e), &e);
  ASSERT_EQ(e.retries, 1);
  expect_requests(&c, 2);
  teardown(&c);
}

/* ------------------------------------------------------------ reads ---- */

TEST(conformance_properties_are_read_from_the_headers) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"head_properties"}, 1);
  xio_blob_props p;
  xio_error e;
  ASSERT_OK(xio_blob_get_properties(c.engine, c.blob, NULL, &p, &e), &e);
  ASSERT_U64_EQ(p.size, 4096);
  ASSERT_STR_EQ(p.blob_type, "PageBlob");
  ASSERT_STR_EQ(p.etag, "\"0x8DB00B5A8F4535D\"");
  ASSERT_STR_EQ(p.lease_state, "leased");
  ASSERT_STR_EQ(p.lease_status, "locked");
  ASSERT_STR_EQ(p.lease_duration, "infinite");
  ASSERT_EQ(p.sequence_number, 0);
  ASSERT_STR_EQ(xio_blob_props_meta(&p, "owner"), "xio");
  ASSERT_STR_EQ(replay_request_at(c.server, 0).method, "HEAD");
  expect_requests(&c, 1);
  teardown(&c);
}

/* A HEAD error has no body: the code comes from x-ms-error-code alone. */
TEST(conformance_head_not_found_is_enotfound_from_the_header) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"head_not_found"}, 1);
  xio_blob_props p;
  xio_error e;
  ASSERT_ERR(xio_blob_get_properties(c.engine, c.blob, NULL, &p, &e), XIO_ENOTFOUND, &e);
  expect_failure(&c, &e, XIO_ENOTFOUND, 404, "BlobNotFound", NULL, 0);
  teardown(&c);
}

TEST(conformance_invalid_range_is_erange_at_once) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"invalid_range"}, 1);
  char buf[512];
  xio_error e;
  ASSERT_ERR(xio_blob_read(c.engine, c.blob, 8192, buf, sizeof buf, NULL, &e), XIO_ERANGE, &e);
  expect_failure(&c, &e, XIO_ERANGE, 416, "InvalidRange",
                 "The range specified is invalid for the current size of the resource.", 0);
  teardown(&c);
}

/* A read asks for the range's CRC-64 and checks the body against the service's. */
TEST(conformance_read_is_checked_against_the_services_crc64) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, (const char *const[]){"get_blob_crc64"}, 1);
  char buf[512], want[512];
  memset(want, 'a', sizeof want);
  xio_error e;
  ASSERT_OK(xio_blob_read(c.engine, c.blob, 0, buf, sizeof buf, NULL, &e), &e);
  ASSERT_MEM_EQ(buf, want, sizeof want);
  replay_request q = replay_request_at(c.server, 0);
  ASSERT(q.asked_crc64 && !q.asked_md5);
  ASSERT_STR_EQ(q.range, "bytes=0-511");
  expect_requests(&c, 1);
  teardown(&c);
}

TEST(conformance_corrupted_read_is_read_again) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64,
        (const char *const[]){"get_blob_crc64_corrupted", "get_blob_crc64"}, 2);
  char buf[512], want[512];
  memset(want, 'a', sizeof want);
  xio_error e;
  ASSERT_OK(xio_blob_read(c.engine, c.blob, 0, buf, sizeof buf, NULL, &e), &e);
  ASSERT_MEM_EQ(buf, want, sizeof want);
  ASSERT_EQ(e.retries, 1);
  expect_requests(&c, 2);
  teardown(&c);
}

TEST(conformance_corrupted_reads_outlasting_the_budget_are_echecksum) {
  conf c;
  setup(&c, XIO_BLOB_CHECKSUM_CRC64, REPEAT4("get_blob_crc64_corrupted"), 4);
  char buf[512];
  xio_error e;
  ASSERT_ERR(xio_blob_read(c.engine, c.blob, 0, buf, sizeof buf, NULL, &e), XIO_ECHECKSUM, &e);
  ASSERT_EQ(e.http_status, 206);
  ASSERT_EQ(e.retries, RETRIES);
  ASSERT_CONTAINS(e.message, "bytes=0-511");
  ASSERT_CONTAINS(e.message, "u661BimQ84c=");
  ASSERT_STR_EQ(e.request_id, "1dc5bb2f-001e-0004-7b9e-3247b6000000");
  expect_requests(&c, RETRIES + 1);
  teardown(&c);
}
