/*
 * inflight_test.c - many calls in flight at once through a mix of faults: every
 * call completes once, successfully, and the blob holds exactly what was written.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_fixture.h"
#include "test.h"
#include "util.h"

#define NCALLS 24
#define CHUNK  8192u

typedef struct batch {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int left;
  int completions[NCALLS];
} batch;

typedef struct slot_ud {
  batch *b;
  int i;
} slot_ud;

static void on_done(xio_blob_call *c, void *ud) {
  (void)c;
  slot_ud *s = ud;
  pthread_mutex_lock(&s->b->mu);
  s->b->completions[s->i]++;
  s->b->left--;
  pthread_cond_signal(&s->b->cv);
  pthread_mutex_unlock(&s->b->mu);
}

static void wait_all(batch *b) {
  pthread_mutex_lock(&b->mu);
  while (b->left > 0)
    pthread_cond_wait(&b->cv, &b->mu);
  pthread_mutex_unlock(&b->mu);
}

/* How many proxy records carry client request id `id`. */
static int records_with_id(pfx *p, const char *id) {
  int n = 0, total = faultproxy_count(p->proxy);
  for (int i = 0; i < total; i++)
    n += strcmp(pfx_record(p, i).client_request_id, id) == 0;
  return n;
}

static void script_mixed_faults(pfx *p) {
  pfx_fault(p, (faultproxy_fault){.kind = FAULTPROXY_RESET, .method = "PUT", .times = 3});
  pfx_fault(p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .method = "PUT", .times = 3});
  pfx_fault(p, (faultproxy_fault){.kind = FAULTPROXY_CORRUPT_BODY, .method = "PUT", .times = 3});
  pfx_fault(p, (faultproxy_fault){.kind = FAULTPROXY_STATUS,
                                  .method = "PUT",
                                  .status = 503,
                                  .retry_after_ms = 5,
                                  .times = 3});
}

TEST(many_calls_in_flight_survive_mixed_faults) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.max_in_flight = 8;
  o.retry.max_retries = 12; /* each try spends at most one of the 12 faults */
  o.retry.max_delay_ms = 100;
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "many.mdf", NCALLS * CHUNK, 0);
  xio_blob_target *b = pfx_proxied(&p, "many.mdf", NULL, NULL);
  pfx_forget(&p);
  script_mixed_faults(&p);
  unsigned char *data = malloc(NCALLS * CHUNK);
  ASSERT(data != NULL);
  test_fill_random(data, NCALLS * CHUNK, 51);
  batch bt = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NCALLS, {0}};
  slot_ud uds[NCALLS];
  xio_blob_call *calls[NCALLS];
  for (int i = 0; i < NCALLS; i++) {
    uds[i] = (slot_ud){&bt, i};
    ASSERT_OK(xio_blob_call_put_page(b, (uint64_t)i * CHUNK, data + (size_t)i * CHUNK, CHUNK,
                                     NCALLS * CHUNK, NULL, &calls[i], &e),
              &e);
  }
  for (int i = 0; i < NCALLS; i++)
    xio_blob_submit(p.fx.engine, calls[i], on_done, &uds[i]);
  wait_all(&bt);
  int retries = 0;
  for (int i = 0; i < NCALLS; i++) {
    ASSERT_EQ(bt.completions[i], 1);
    ASSERT_OK(xio_blob_call_result(calls[i], &e), &e);
    retries += xio_blob_call_retries(calls[i]);
    /* Every try of the call reached the proxy under the call's id (libcurl may add
     * its own re-sends on reused connections: at least, not exactly). */
    ASSERT(records_with_id(&p, xio_blob_call_client_request_id(calls[i])) >=
           xio_blob_call_retries(calls[i]) + 1);
    xio_blob_call_free(calls[i]);
  }
  ASSERT_EQ(faultproxy_pending(p.proxy), 0);
  ASSERT(retries >= 1);
  ASSERT_EQ(faultproxy_count(p.proxy), NCALLS + 12);
  pfx_expect_content(&p, direct, 0, data, NCALLS * CHUNK);
  pthread_cond_destroy(&bt.cv);
  pthread_mutex_destroy(&bt.mu);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}
