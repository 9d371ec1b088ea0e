/*
 * recovery_test.c - each fault the network really produces, injected once through
 * the proxy, is retried like a 503 and the call ends with the right bytes on the
 * service: a reset connection, a response lost after the write was applied, a torn
 * body, a stall past the per-try timeout, throttling with the service's delay hint,
 * and a body corrupted in flight that the service's checksum rejects.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_fixture.h"
#include "test.h"
#include "util.h"

#define BLOB_SIZE 65536u
#define PAGE_OFF  4096u
#define PAGE_LEN  8192u

/* The call took exactly two tries: the first hit fault `kind` and was retried, the
 * second went through unchanged; the proxy saw both with the same client id. */
static void expect_one_retry(pfx *p, faultproxy_kind kind) {
  ASSERT_EQ(p->ntries, 2);
  ASSERT_EQ(p->tries[0].attempt, 0);
  ASSERT(p->tries[0].will_retry);
  ASSERT_EQ(p->tries[1].attempt, 1);
  ASSERT(!p->tries[1].will_retry);
  ASSERT_EQ(faultproxy_count(p->proxy), 2);
  faultproxy_record a = pfx_record(p, 0), b = pfx_record(p, 1);
  ASSERT_STR_EQ(faultproxy_kind_name(a.fault), faultproxy_kind_name(kind));
  ASSERT_EQ(b.fault, FAULTPROXY_NONE);
  ASSERT_STR_EQ(a.method, b.method);
  ASSERT_STR_EQ(a.target, b.target);
  ASSERT(a.client_request_id[0] != '\0');
  ASSERT_STR_EQ(a.client_request_id, b.client_request_id);
  ASSERT(a.has_auth && b.has_auth);
  ASSERT_EQ(faultproxy_pending(p->proxy), 0);
}

/* Writes PAGE_LEN random bytes (seed) at PAGE_OFF of `blob` through the proxy with a
 * call whose retries are checked against the copies the proxy saw; returns the data
 * (free it). */
static unsigned char *put_through(pfx *p, const xio_blob_target *blob, uint64_t seed) {
  xio_error e;
  unsigned char *data = malloc(PAGE_LEN);
  ASSERT(data != NULL);
  test_fill_random(data, PAGE_LEN, seed);
  xio_blob_call *c = NULL;
  int seen = faultproxy_count(p->proxy);
  ASSERT_OK(xio_blob_call_put_page(blob, PAGE_OFF, data, PAGE_LEN, BLOB_SIZE, NULL, &c, &e), &e);
  ASSERT_OK(xio_blob_send(p->fx.engine, c, &e), &e);
  ASSERT_EQ(xio_blob_call_status(c), 201);
  /* Every copy the proxy saw but the first is a retry, whether the engine sent it
   * or libcurl re-sent it by itself on a new connection. */
  ASSERT_EQ(xio_blob_call_retries(c), faultproxy_count(p->proxy) - seen - 1);
  xio_blob_call_free(c);
  return data;
}

TEST(proxy_passes_requests_through) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *b = pfx_proxied(&p, "plain.mdf", NULL, NULL);
  ASSERT_OK(xio_blob_create(p.fx.engine, b, BLOB_SIZE, NULL, 0, NULL, &e), &e);
  unsigned char *data = put_through(&p, b, 1);
  unsigned char got[PAGE_LEN];
  ASSERT_OK(xio_blob_read(p.fx.engine, b, PAGE_OFF, got, PAGE_LEN, NULL, &e), &e);
  ASSERT_MEM_EQ(got, data, PAGE_LEN);
  xio_blob_props props;
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, b, NULL, &props, &e), &e);
  ASSERT_U64_EQ(props.size, BLOB_SIZE);
  xio_ranges r = {0};
  ASSERT_OK(xio_blob_get_ranges(p.fx.engine, b, 0, BLOB_SIZE, 0, &r, &e), &e);
  ASSERT_U64_EQ(xio_ranges_bytes(&r), PAGE_LEN);
  xio_ranges_clear(&r);
  ASSERT_OK(xio_blob_delete(p.fx.engine, b, 0, NULL, &e), &e);
  /* Create, put, read, HEAD, page list, delete: six requests, one try each. */
  static const char *const methods[] = {"PUT", "PUT", "GET", "HEAD", "GET", "DELETE"};
  static const int statuses[] = {201, 201, 206, 200, 200, 202};
  ASSERT_EQ(faultproxy_count(p.proxy), 6);
  ASSERT_EQ(p.ntries, 6);
  for (int i = 0; i < 6; i++) {
    faultproxy_record rec = pfx_record(&p, i);
    ASSERT_STR_EQ(rec.method, methods[i]);
    ASSERT_EQ(rec.upstream_status, statuses[i]);
    ASSERT_EQ(rec.fault, FAULTPROXY_NONE);
    ASSERT(rec.has_auth && rec.date[0] && rec.client_request_id[0]);
    ASSERT_CONTAINS(rec.target, "/plain.mdf");
  }
  ASSERT_CONTAINS(pfx_record(&p, 1).target, "comp=page");
  ASSERT_STR_EQ(pfx_record(&p, 1).range, "bytes=4096-12287");
  ASSERT_EQ(pfx_record(&p, 1).body_len, PAGE_LEN);
  /* Every request reused the client's first connection to the proxy. */
  ASSERT_EQ(pfx_record(&p, 5).conn, pfx_record(&p, 0).conn);
  free(data);
  xio_blob_target_free(b);
  pfx_teardown(&p);
}

TEST(reset_put_page_is_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_blob_target *direct = pfx_direct_blob(&p, "reset.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "reset.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p,
            (faultproxy_fault){.kind = FAULTPROXY_RESET, .method = "PUT", .match = "comp=page"});
  unsigned char *data = put_through(&p, b, 2);
  expect_one_retry(&p, FAULTPROXY_RESET);
  ASSERT_EQ(p.tries[0].http_status, 0);
  ASSERT(p.tries[0].transport_error[0] != '\0');
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 0); /* never reached the service */
  pfx_expect_content(&p, direct, PAGE_OFF, data, PAGE_LEN);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

TEST(reset_read_is_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "reset-read.mdf", BLOB_SIZE, 3);
  xio_blob_target *b = pfx_proxied(&p, "reset-read.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_RESET, .method = "GET"});
  unsigned char want[BLOB_SIZE], got[BLOB_SIZE];
  test_fill_random(want, sizeof want, 3);
  memset(got, 0xEE, sizeof got);
  ASSERT_OK(xio_blob_read(p.fx.engine, b, 0, got, sizeof got, NULL, &e), &e);
  ASSERT_MEM_EQ(got, want, sizeof want);
  expect_one_retry(&p, FAULTPROXY_RESET);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

TEST(lost_put_page_response_is_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_blob_target *direct = pfx_direct_blob(&p, "lost.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "lost.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){
                    .kind = FAULTPROXY_LOST_RESPONSE, .method = "PUT", .match = "comp=page"});
  unsigned char *data = put_through(&p, b, 4);
  expect_one_retry(&p, FAULTPROXY_LOST_RESPONSE);
  /* The service applied the first try; writing the same pages again is harmless. */
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 201);
  ASSERT_EQ(pfx_record(&p, 1).upstream_status, 201);
  ASSERT_EQ(p.tries[0].http_status, 0);
  pfx_expect_content(&p, direct, PAGE_OFF, data, PAGE_LEN);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* A lost response on a connection the client reuses: libcurl itself may send the
 * request again on a new connection (it does for a reused connection that dies
 * before any response byte), or the engine retries it. Either way the write lands
 * once more, with the same client request id, and the call succeeds. */
TEST(lost_response_on_reused_connection_is_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "reused.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "reused.mdf", NULL, NULL);
  xio_blob_props props;
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, b, NULL, &props, &e), &e);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .method = "PUT"});
  unsigned char *data = put_through(&p, b, 5);
  ASSERT_EQ(faultproxy_count(p.proxy), 2);
  faultproxy_record a = pfx_record(&p, 0), r = pfx_record(&p, 1);
  ASSERT_EQ(a.fault, FAULTPROXY_LOST_RESPONSE);
  ASSERT_EQ(r.upstream_status, 201);
  ASSERT_STR_EQ(a.client_request_id, r.client_request_id);
  ASSERT_NE(a.conn, r.conn);
  pfx_expect_content(&p, direct, PAGE_OFF, data, PAGE_LEN);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

TEST(torn_read_is_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "torn.mdf", BLOB_SIZE, 6);
  xio_blob_target *b = pfx_proxied(&p, "torn.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_TORN, .method = "GET"});
  unsigned char want[BLOB_SIZE], got[BLOB_SIZE];
  test_fill_random(want, sizeof want, 6);
  memset(got, 0xEE, sizeof got);
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_read(b, 512, got, BLOB_SIZE - 1024, NULL, &c, &e), &e);
  ASSERT_OK(xio_blob_send(p.fx.engine, c, &e), &e);
  ASSERT_EQ(xio_blob_call_retries(c), 1);
  xio_blob_call_free(c);
  ASSERT_MEM_EQ(got, want + 512, BLOB_SIZE - 1024);
  ASSERT_EQ(got[BLOB_SIZE - 1024], 0xEE); /* nothing written past the buffer asked for */
  expect_one_retry(&p, FAULTPROXY_TORN);
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 206);
  ASSERT_STR_EQ(pfx_record(&p, 0).range, "bytes=512-65023");
  ASSERT(p.tries[0].transport_error[0] != '\0');
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* A torn XML response (Get Page Ranges) is retried too, not parsed half. */
TEST(torn_page_list_is_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "torn-list.mdf", BLOB_SIZE, 0);
  unsigned char page[512];
  test_fill_random(page, sizeof page, 7);
  for (uint64_t off = 0; off < BLOB_SIZE; off += 4096) /* 16 separate ranges */
    ASSERT_OK(xio_blob_put_page(p.fx.engine, direct, off, page, sizeof page, NULL, &e), &e);
  xio_blob_target *b = pfx_proxied(&p, "torn-list.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_TORN, .match = "comp=pagelist"});
  xio_ranges r = {0};
  ASSERT_OK(xio_blob_get_ranges(p.fx.engine, b, 0, BLOB_SIZE, 0, &r, &e), &e);
  ASSERT_EQ(r.n, 16);
  ASSERT_U64_EQ(xio_ranges_bytes(&r), 16 * 512);
  xio_ranges_clear(&r);
  expect_one_retry(&p, FAULTPROXY_TORN);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* The retry must finish inside the per-try timeout to be the last try: 3 s, far
 * longer than a Put Page takes on a loaded machine; the stall outlasts it. */
TEST(stalled_put_page_times_out_and_is_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.try_timeout_ms = 3000;
  pfx_setup(&p, &o);
  xio_blob_target *direct = pfx_direct_blob(&p, "stall.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "stall.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STALL, .method = "PUT", .stall_ms = 30000});
  unsigned char *data = put_through(&p, b, 8);
  expect_one_retry(&p, FAULTPROXY_STALL);
  ASSERT_EQ(p.tries[0].http_status, 0);
  ASSERT(p.tries[0].transport_error[0] != '\0');
  /* The client hung up before the stall ended, so the stalled copy never reached
   * the service; the retry did. */
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 0);
  ASSERT_EQ(pfx_record(&p, 1).upstream_status, 201);
  pfx_expect_content(&p, direct, PAGE_OFF, data, PAGE_LEN);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* A stall shorter than the per-try timeout is only slow: no retry. */
TEST(stall_within_try_timeout_is_not_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.try_timeout_ms = 5000;
  pfx_setup(&p, &o);
  xio_blob_target *direct = pfx_direct_blob(&p, "slow.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "slow.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STALL, .method = "PUT", .stall_ms = 100});
  unsigned char *data = put_through(&p, b, 9);
  ASSERT_EQ(p.ntries, 1);
  ASSERT_EQ(faultproxy_count(p.proxy), 1);
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 201);
  pfx_expect_content(&p, direct, PAGE_OFF, data, PAGE_LEN);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* 503 ServerBusy with x-ms-retry-after-ms: the engine waits what the service asked
 * (50 ms; its own backoff with a 20 ms base would be shorter). */
TEST(server_busy_retry_hint_is_honoured) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_blob_target *direct = pfx_direct_blob(&p, "busy.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "busy.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STATUS,
                                   .method = "PUT",
                                   .status = 503,
                                   .error_code = "ServerBusy",
                                   .retry_after_ms = 50});
  unsigned char *data = put_through(&p, b, 10);
  expect_one_retry(&p, FAULTPROXY_STATUS);
  ASSERT_EQ(p.tries[0].http_status, 503);
  ASSERT_EQ(p.tries[0].delay_ms, 50);
  faultproxy_record busy = pfx_record(&p, 0), next = pfx_record(&p, 1);
  ASSERT(busy.answered_us > 0);
  int64_t gap_us = next.received_us - busy.answered_us;
  if (gap_us < 50000)
    FAIL("retried %lld us after the 503; the hint asked for 50 ms", (long long)gap_us);
  pfx_expect_content(&p, direct, PAGE_OFF, data, PAGE_LEN);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* Retry-After in seconds, on a HEAD (whose error has no body: the code comes from
 * x-ms-error-code). The retry goes out at least a second later on the system clock,
 * so its x-ms-date, and with it the signature, must differ from the first try's. */
TEST(retry_after_seconds_is_honoured) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "busy-head.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "busy-head.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p,
            (faultproxy_fault){
                .kind = FAULTPROXY_STATUS, .method = "HEAD", .status = 503, .retry_after_s = 1});
  xio_blob_props props;
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, b, NULL, &props, &e), &e);
  ASSERT_U64_EQ(props.size, BLOB_SIZE);
  expect_one_retry(&p, FAULTPROXY_STATUS);
  ASSERT_EQ(p.tries[0].delay_ms, 1000);
  int64_t gap_us = pfx_record(&p, 1).received_us - pfx_record(&p, 0).answered_us;
  if (gap_us < 1000000)
    FAIL("retried %lld us after the 503; Retry-After asked for 1 s", (long long)gap_us);
  ASSERT(strcmp(pfx_record(&p, 0).date, pfx_record(&p, 1).date) != 0);
  ASSERT(pfx_record(&p, 0).auth_fingerprint != pfx_record(&p, 1).auth_fingerprint);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* A body corrupted in flight fails the service's check of the transactional
 * checksum; the retry sends the original bytes, with the same checksum. */
static void corrupted_body_case(xio_blob_checksum kind, const char *code) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.checksum = kind;
  pfx_setup(&p, &o);
  xio_blob_target *direct = pfx_direct_blob(&p, "corrupt.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "corrupt.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_CORRUPT_BODY, .method = "PUT"});
  unsigned char *data = put_through(&p, b, 11);
  expect_one_retry(&p, FAULTPROXY_CORRUPT_BODY);
  ASSERT_EQ(p.tries[0].http_status, 400);
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 400);
  ASSERT_STR_EQ(pfx_record(&p, 0).upstream_error, code);
  ASSERT_EQ(pfx_record(&p, 1).upstream_status, 201);
  pfx_expect_content(&p, direct, PAGE_OFF, data, PAGE_LEN);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

TEST(corrupted_body_crc64_is_rejected_and_resent) {
  corrupted_body_case(XIO_BLOB_CHECKSUM_CRC64, "Crc64Mismatch");
}

TEST(corrupted_body_md5_is_rejected_and_resent) {
  corrupted_body_case(XIO_BLOB_CHECKSUM_MD5, "Md5Mismatch");
}
