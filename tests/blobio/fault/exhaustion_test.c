/*
 * exhaustion_test.c - faults that outlast the retry budget: the call fails with the
 * code that names the last failure (ETRANSPORT, ETHROTTLED, ETIMEDOUT, ECHECKSUM),
 * its detail says how many retries were made (max_retries) and which try answered,
 * every try went out with the same client request id, and nothing in the detail or
 * the try log holds a secret. Throttling answers have a budget in time of their own
 * (throttle_ms): retried past max_retries within it, and failing once it is spent,
 * without using up the count the other faults have.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_fixture.h"
#include "test.h"
#include "util.h"

#define BLOB_SIZE   65536u
#define MAX_RETRIES 2

/* The engine made MAX_RETRIES+1 tries, each seen by the proxy with fault `kind` and
 * the call's client request id; the last try was not retried. */
static void expect_budget_spent(pfx *p, const xio_error *e, faultproxy_kind kind) {
  ASSERT_EQ(e->retries, MAX_RETRIES);
  ASSERT_EQ(p->ntries, MAX_RETRIES + 1);
  for (int i = 0; i < MAX_RETRIES; i++)
    ASSERT(p->tries[i].will_retry);
  ASSERT(!p->tries[MAX_RETRIES].will_retry);
  ASSERT_EQ(faultproxy_count(p->proxy), MAX_RETRIES + 1);
  for (int i = 0; i <= MAX_RETRIES; i++) {
    faultproxy_record r = pfx_record(p, i);
    ASSERT_STR_EQ(faultproxy_kind_name(r.fault), faultproxy_kind_name(kind));
    ASSERT_STR_EQ(r.client_request_id, e->client_request_id);
    ASSERT(r.has_auth);
  }
  ASSERT(e->message[0] != '\0');
  ASSERT_CONTAINS(e->target, "/budget.mdf");
  pfx_assert_detail_clean(p, e);
}

/* Fixture with MAX_RETRIES, a blob made directly on Azurite, and its proxied twin. */
static void setup(pfx *p, xio_blob_engine_options *o, xio_blob_target **direct,
                  xio_blob_target **proxied) {
  o->retry.max_retries = MAX_RETRIES;
  pfx_setup(p, o);
  *direct = pfx_direct_blob(p, "budget.mdf", BLOB_SIZE, 0);
  *proxied = pfx_proxied(p, "budget.mdf", NULL, NULL);
  pfx_forget(p);
}

static void finish(pfx *p, xio_blob_target *direct, xio_blob_target *proxied) {
  xio_blob_target_free(proxied);
  xio_blob_target_free(direct);
  pfx_teardown(p);
}

/* Bytes of `direct` that hold data (pages written). */
static uint64_t written_bytes(pfx *p, const xio_blob_target *direct) {
  xio_error e;
  xio_ranges r = {0};
  ASSERT_OK(xio_blob_get_ranges(p->fx.engine, direct, 0, 0, 0, &r, &e), &e);
  uint64_t n = xio_ranges_bytes(&r);
  xio_ranges_clear(&r);
  return n;
}

TEST(resets_outlast_budget_give_etransport) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_RESET, .times = MAX_RETRIES + 1});
  unsigned char page[4096];
  test_fill_random(page, sizeof page, 21);
  xio_error e;
  ASSERT_ERR(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(e.http_status, 0);
  ASSERT_STR_EQ(e.operation, "PutPage");
  expect_budget_spent(&p, &e, FAULTPROXY_RESET);
  ASSERT_U64_EQ(written_bytes(&p, direct), 0); /* no try reached the service */
  finish(&p, direct, b);
}

/* Every response lost: the caller hears ETRANSPORT although the service applied the
 * write (three times). An at-least-once outcome the caller cannot tell from "not
 * written"; idempotent writes make a later retry by the caller safe. */
TEST(lost_responses_outlast_budget_give_etransport_but_data_landed) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .times = MAX_RETRIES + 1});
  unsigned char page[4096];
  test_fill_random(page, sizeof page, 22);
  xio_error e;
  ASSERT_ERR(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), XIO_ETRANSPORT, &e);
  expect_budget_spent(&p, &e, FAULTPROXY_LOST_RESPONSE);
  for (int i = 0; i <= MAX_RETRIES; i++)
    ASSERT_EQ(pfx_record(&p, i).upstream_status, 201);
  pfx_expect_content(&p, direct, 0, page, sizeof page);
  finish(&p, direct, b);
}

TEST(torn_reads_outlast_budget_give_etransport) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_TORN, .times = MAX_RETRIES + 1});
  unsigned char buf[8192];
  xio_error e;
  ASSERT_ERR(xio_blob_read(p.fx.engine, b, 0, buf, sizeof buf, NULL, &e), XIO_ETRANSPORT, &e);
  ASSERT_STR_EQ(e.operation, "GetBlob");
  expect_budget_spent(&p, &e, FAULTPROXY_TORN);
  finish(&p, direct, b);
}

TEST(server_busy_outlasts_budget_gives_ethrottled) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.throttle_ms = 0; /* throttling counted among max_retries, as other faults */
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STATUS,
                                   .status = 503,
                                   .error_code = "ServerBusy",
                                   .retry_after_ms = 10,
                                   .times = MAX_RETRIES + 1});
  unsigned char page[4096] = {0};
  xio_error e;
  ASSERT_ERR(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), XIO_ETHROTTLED, &e);
  ASSERT_EQ(e.http_status, 503);
  ASSERT_STR_EQ(e.service_code, "ServerBusy");
  /* The detail names the try that answered last. */
  char want_id[64];
  snprintf(want_id, sizeof want_id, "faultproxy-%d", pfx_record(&p, MAX_RETRIES).no);
  ASSERT_STR_EQ(e.request_id, want_id);
  expect_budget_spent(&p, &e, FAULTPROXY_STATUS);
  for (int i = 0; i < MAX_RETRIES; i++)
    ASSERT_EQ(p.tries[i].delay_ms, 10);
  ASSERT_U64_EQ(written_bytes(&p, direct), 0);
  finish(&p, direct, b);
}

/* 500 OperationTimedOut is the service's own timeout: retried, then ETIMEDOUT. */
TEST(service_timeouts_outlast_budget_give_etimedout) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.throttle_ms = 0; /* throttling counted among max_retries, as other faults */
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STATUS,
                                   .status = 500,
                                   .error_code = "OperationTimedOut",
                                   .times = MAX_RETRIES + 1});
  xio_blob_props props;
  xio_error e;
  ASSERT_ERR(xio_blob_get_properties(p.fx.engine, b, NULL, &props, &e), XIO_ETIMEDOUT, &e);
  ASSERT_EQ(e.http_status, 500);
  ASSERT_STR_EQ(e.service_code, "OperationTimedOut");
  expect_budget_spent(&p, &e, FAULTPROXY_STATUS);
  finish(&p, direct, b);
}

/* With the default budget for throttling (a minute), answers of 503 ServerBusy and
 * 500 OperationTimedOut past max_retries are retried, and the call succeeds. */
TEST(throttling_is_retried_past_max_retries_within_its_budget) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  xio_blob_target *direct, *b;
  ASSERT_EQ(xio_blob_engine_options_default().retry.throttle_ms, 60000);
  setup(&p, &o, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STATUS,
                                   .status = 503,
                                   .error_code = "ServerBusy",
                                   .times = 2 * MAX_RETRIES + 1});
  pfx_fault(&p, (faultproxy_fault){
                    .kind = FAULTPROXY_STATUS, .status = 500, .error_code = "OperationTimedOut"});
  unsigned char page[4096];
  test_fill_random(page, sizeof page, 23);
  xio_error e;
  ASSERT_OK(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), &e);
  ASSERT_EQ(e.retries, 2 * MAX_RETRIES + 2);
  ASSERT_EQ(faultproxy_count(p.proxy), 2 * MAX_RETRIES + 3);
  ASSERT_U64_EQ(written_bytes(&p, direct), sizeof page);
  finish(&p, direct, b);
}

/* Throttling past its budget in time fails with ETHROTTLED, after more tries than
 * max_retries allows other faults. */
TEST(server_busy_outlasting_the_throttling_budget_gives_ethrottled) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.throttle_ms = 400;
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STATUS,
                                   .status = 503,
                                   .error_code = "ServerBusy",
                                   .retry_after_ms = 20,
                                   .times = 1000});
  unsigned char page[4096] = {0};
  xio_error e;
  ASSERT_ERR(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), XIO_ETHROTTLED, &e);
  ASSERT_EQ(e.http_status, 503);
  ASSERT(e.retries > MAX_RETRIES);
  ASSERT_EQ(faultproxy_count(p.proxy), e.retries + 1);
  ASSERT(!p.tries[p.ntries - 1].will_retry);
  ASSERT_U64_EQ(written_bytes(&p, direct), 0);
  finish(&p, direct, b);
}

/* Retries after throttling answers do not use up the count of the other faults:
 * after three 503s, a 500 InternalError is still retried max_retries times. */
TEST(throttling_leaves_other_faults_their_count) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STATUS,
                                   .status = 503,
                                   .error_code = "ServerBusy",
                                   .retry_after_ms = 1,
                                   .times = 3});
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STATUS,
                                   .status = 500,
                                   .error_code = "InternalError",
                                   .retry_after_ms = 1,
                                   .times = MAX_RETRIES + 1});
  unsigned char page[4096] = {0};
  xio_error e;
  ASSERT_ERR(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), XIO_EHTTP, &e);
  ASSERT_EQ(e.http_status, 500);
  ASSERT_EQ(e.retries, 3 + MAX_RETRIES);
  ASSERT_EQ(faultproxy_pending(p.proxy), 0);
  finish(&p, direct, b);
}

/* A lease renewal counts throttling among max_retries (its renewer tries again on a
 * schedule of its own): refused on every try, it fails after max_retries retries. */
TEST(a_throttled_renewal_is_not_held_for_the_throttling_budget) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  char id[37], got[64];
  xio_error e;
  ASSERT_OK(xio_blob_new_uuid(id, &e), &e);
  xio_blob_lease_args acquire = {XIO_BLOB_LEASE_ACQUIRE, NULL, id, 30, 0};
  ASSERT_OK(xio_blob_lease(p.fx.engine, direct, &acquire, got, &e), &e);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STATUS,
                                   .status = 503,
                                   .error_code = "ServerBusy",
                                   .times = MAX_RETRIES + 2});
  xio_blob_lease_args renew = {XIO_BLOB_LEASE_RENEW, id, NULL, 0, 0};
  ASSERT_ERR(xio_blob_lease(p.fx.engine, b, &renew, NULL, &e), XIO_ETHROTTLED, &e);
  ASSERT_EQ(e.retries, MAX_RETRIES);
  ASSERT_EQ(faultproxy_count(p.proxy), MAX_RETRIES + 1);
  xio_blob_lease_args release = {XIO_BLOB_LEASE_RELEASE, id, NULL, -1, 0};
  ASSERT_OK(xio_blob_lease(p.fx.engine, direct, &release, NULL, &e), &e);
  finish(&p, direct, b);
}

TEST(stalls_outlast_budget_give_etimedout) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.try_timeout_ms = 200;
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  pfx_fault(
      &p, (faultproxy_fault){.kind = FAULTPROXY_STALL, .stall_ms = 5000, .times = MAX_RETRIES + 1});
  unsigned char buf[4096];
  xio_error e;
  ASSERT_ERR(xio_blob_read(p.fx.engine, b, 0, buf, sizeof buf, NULL, &e), XIO_ETIMEDOUT, &e);
  ASSERT_EQ(e.http_status, 0);
  expect_budget_spent(&p, &e, FAULTPROXY_STALL);
  finish(&p, direct, b);
}

TEST(corrupted_bodies_outlast_budget_give_echecksum) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  xio_blob_target *direct, *b;
  setup(&p, &o, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_CORRUPT_BODY, .times = MAX_RETRIES + 1});
  unsigned char page[4096];
  test_fill_random(page, sizeof page, 23);
  xio_error e;
  ASSERT_ERR(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), XIO_ECHECKSUM, &e);
  ASSERT_EQ(e.http_status, 400);
  ASSERT_STR_EQ(e.service_code, "Crc64Mismatch");
  ASSERT(e.request_id[0] != '\0'); /* Azurite's id for the last try */
  expect_budget_spent(&p, &e, FAULTPROXY_CORRUPT_BODY);
  ASSERT_U64_EQ(written_bytes(&p, direct), 0);
  finish(&p, direct, b);
}

/* With no retries allowed, one fault is final. */
TEST(no_retry_budget_means_one_try) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.max_retries = 0;
  pfx_setup(&p, &o);
  xio_blob_target *direct = pfx_direct_blob(&p, "once.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "once.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_RESET});
  unsigned char page[512] = {1};
  xio_error e;
  ASSERT_ERR(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(e.retries, 0);
  ASSERT_EQ(p.ntries, 1);
  ASSERT(!p.tries[0].will_retry);
  ASSERT_EQ(faultproxy_count(p.proxy), 1);
  pfx_assert_detail_clean(&p, &e);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* With no per-try timeout, the call's deadline bounds a stalled try, and no retry
 * starts once the deadline has passed. */
TEST(deadline_bounds_a_stall_without_try_timeout) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.try_timeout_ms = 0;
  o.retry.deadline_ms = 400;
  pfx_setup(&p, &o);
  xio_blob_target *direct = pfx_direct_blob(&p, "deadline.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "deadline.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STALL, .stall_ms = 5000, .times = 5});
  unsigned char buf[4096];
  xio_error e;
  ASSERT_ERR(xio_blob_read(p.fx.engine, b, 0, buf, sizeof buf, NULL, &e), XIO_ETIMEDOUT, &e);
  ASSERT_EQ(e.retries, 0);
  ASSERT_EQ(p.ntries, 1);
  ASSERT(!p.tries[0].will_retry);
  ASSERT_EQ(faultproxy_count(p.proxy), 1);
  pfx_assert_detail_clean(&p, &e);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}
