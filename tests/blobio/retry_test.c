/*
 * retry_test.c - what is retried and how: transport failures with backoff until
 * the retry budget or the deadline runs out, non-idempotent calls sent once, and a
 * body the service rejects for its checksum sent again.
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "call_int.h"
#include "fixture.h"
#include "test.h"
#include "util.h"

typedef struct tries {
  int n;
  int attempts[16];
  int will_retry[16];
} tries;

static void record_try(const xio_blob_try_info *info, void *ud) {
  tries *t = ud;
  if (t->n < 16) {
    t->attempts[t->n] = info->attempt;
    t->will_retry[t->n] = info->will_retry;
  }
  t->n++;
}

/* A loopback port with nothing listening on it. */
static int dead_port(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
  socklen_t len = sizeof a;
  ASSERT(getsockname(s, (struct sockaddr *)&a, &len) == 0);
  close(s);
  return ntohs(a.sin_port);
}

static xio_blob_target *dead_target(void) {
  char url[256];
  xio_error e;
  xio_blob_target *t = NULL;
  snprintf(url, sizeof url, "http://127.0.0.1:%d/devstoreaccount1/cont/b.mdf", dead_port());
  ASSERT_OK(xio_blob_target_new(url, NULL, &t, &e), &e);
  return t;
}

/* An engine that records each try in `t`, with the given retry policy. */
static xio_blob_engine *counting_engine(tries *t, int max_retries, int base_delay_ms,
                                        int deadline_ms) {
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.retry.max_retries = max_retries;
  o.retry.base_delay_ms = base_delay_ms;
  o.retry.deadline_ms = deadline_ms;
  o.on_try = record_try;
  o.on_try_ud = t;
  xio_blob_engine *eng = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_engine_new(&o, &eng, &e), &e);
  return eng;
}

TEST(transport_errors_are_retried_then_reported) {
  tries t = {0};
  xio_blob_engine *eng = counting_engine(&t, 2, 10, 0);
  xio_error e;
  xio_blob_target *b = dead_target();
  xio_blob_props p;
  ASSERT_ERR(xio_blob_get_properties(eng, b, NULL, &p, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(e.retries, 2);
  ASSERT_EQ(e.http_status, 0);
  ASSERT(e.message[0] != '\0');
  ASSERT(e.client_request_id[0] != '\0');
  ASSERT_EQ(t.n, 3);
  for (int i = 0; i < 3; i++)
    ASSERT_EQ(t.attempts[i], i);
  ASSERT(t.will_retry[0] && t.will_retry[1] && !t.will_retry[2]);
  xio_blob_target_free(b);
  xio_blob_engine_free(eng);
}

TEST(deadline_stops_retries) {
  tries t = {0};
  xio_blob_engine *eng = counting_engine(&t, 10, 400, 300);
  xio_error e;
  xio_blob_target *b = dead_target();
  xio_blob_props p;
  ASSERT_ERR(xio_blob_get_properties(eng, b, NULL, &p, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(t.n, 1); /* the first backoff (>= 320 ms) would pass the deadline */
  xio_blob_target_free(b);
  xio_blob_engine_free(eng);
}

TEST(lease_acquire_without_proposed_id_is_sent_once) {
  tries t = {0};
  xio_blob_engine *eng = counting_engine(&t, 3, 5, 0);
  xio_error e;
  xio_blob_target *b = dead_target();
  xio_blob_lease_args a = {XIO_BLOB_LEASE_ACQUIRE, NULL, NULL, -1, 0};
  char id[64];
  ASSERT_ERR(xio_blob_lease(eng, b, &a, id, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(t.n, 1);
  t.n = 0;
  char proposed[37];
  ASSERT_OK(xio_blob_new_uuid(proposed, &e), &e);
  a.proposed_id = proposed; /* now an acquire can be repeated safely */
  ASSERT_ERR(xio_blob_lease(eng, b, &a, id, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(t.n, 4);
  xio_blob_target_free(b);
  xio_blob_engine_free(eng);
}

TEST(checksum_rejected_by_service_is_retried) {
  fixture fx;
  tries t = {0};
  xio_error e;
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.retry.max_retries = 1;
  o.retry.base_delay_ms = 5;
  o.on_try = record_try;
  o.on_try_ud = &t;
  fixture_setup(&fx, &o);
  xio_blob_target *b = fixture_page_blob(&fx, "crc.mdf", 65536);
  char page[4096];
  test_fill_random(page, sizeof page, 11);
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_put_page(b, 0, page, sizeof page, 0, NULL, &c, &e), &e);
  xio_err rc = XIO_OK;
  /* The CRC of an empty body: wrong for this one, as if the bytes changed in flight. */
  xio__blob_call_header(c, "x-ms-content-crc64", "AAAAAAAAAAA=", &rc);
  ASSERT_OK(rc, &e);
  t.n = 0;
  ASSERT_ERR(xio_blob_send(fx.engine, c, &e), XIO_ECHECKSUM, &e);
  ASSERT_EQ(e.http_status, 400);
  ASSERT_STR_EQ(e.service_code, "Crc64Mismatch");
  ASSERT_EQ(t.n, 2);
  ASSERT_EQ(xio_blob_call_retries(c), 1);
  xio_blob_call_free(c);
  /* Nothing was written. */
  xio_ranges r = {0};
  ASSERT_OK(xio_blob_get_ranges(fx.engine, b, 0, 0, 0, &r, &e), &e);
  ASSERT_EQ(r.n, 0);
  xio_ranges_clear(&r);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(insecure_remote_http_is_refused) {
  xio_blob_engine *eng;
  xio_error e;
  ASSERT_OK(xio_blob_engine_new(NULL, &eng, &e), &e);
  xio_blob_target *b = NULL;
  ASSERT_OK(xio_blob_target_new("http://example.blob.core.windows.net/cont/b.mdf", NULL, &b, &e),
            &e);
  xio_blob_props p;
  ASSERT_ERR(xio_blob_get_properties(eng, b, NULL, &p, &e), XIO_EINSECURE, &e);
  ASSERT_EQ(e.http_status, 0);
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_HTTP_REMOTE");
  xio_blob_target_free(b);
  xio_blob_engine_free(eng);
}
