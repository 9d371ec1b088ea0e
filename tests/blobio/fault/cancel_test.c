/*
 * cancel_test.c - xio_blob_engine_cancel against a service that went silent (the
 * fault proxy holds a request for ten minutes, longer than anything here waits):
 * the try on the wire is cut when the grace ends, or at once on a second cancel
 * with no grace; calls that wait (queued behind it, or for a retry) and calls
 * submitted later complete canceled without a try; a try that ends within the
 * grace keeps its result. Every call completes once. The bounds on the waits (30 s)
 * only catch a hang: the old behaviour waited out tries of minutes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy_fixture.h"
#include "test.h"
#include "util.h"

#define CHUNK    8192u
#define SILENT   600000 /* ms: a stall no wait here outlasts */
#define MAX_WAIT 30     /* s: only a hang takes this long */

typedef struct done {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int count;
} done;

static void on_done(xio_blob_call *c, void *ud) {
  (void)c;
  done *d = ud;
  pthread_mutex_lock(&d->mu);
  d->count++;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
}

static void done_init(done *d) {
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->cv, NULL);
  d->count = 0;
}

static int done_count(done *d) {
  pthread_mutex_lock(&d->mu);
  int n = d->count;
  pthread_mutex_unlock(&d->mu);
  return n;
}

/* Waits until `d` has counted `n` completions; fails the test after MAX_WAIT s. */
static void wait_done(done *d, int n) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += MAX_WAIT;
  pthread_mutex_lock(&d->mu);
  int rc = 0;
  while (d->count < n && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&d->cv, &d->mu, &until);
  int got = d->count;
  pthread_mutex_unlock(&d->mu);
  if (got < n) FAIL("%d of %d calls completed in %d s", got, n, MAX_WAIT);
}

/* Waits until the proxy holds a stalled request (MAX_WAIT s at most). */
static void wait_stalled(pfx *p) {
  struct timespec tick = {0, 2 * 1000 * 1000};
  for (int i = 0; i < MAX_WAIT * 500; i++) {
    int n = faultproxy_count(p->proxy);
    for (int k = 0; k < n; k++)
      if (pfx_record(p, k).fault == FAULTPROXY_STALL) return;
    nanosleep(&tick, NULL);
  }
  FAIL("the proxy never held the request");
}

static xio_blob_call *put_page(xio_blob_target *b, uint64_t off, const void *data) {
  xio_error e;
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_put_page(b, off, data, CHUNK, 4 * CHUNK, NULL, &c, &e), &e);
  return c;
}

static void expect_canceled(const xio_blob_call *c) {
  xio_error e;
  ASSERT_EQ(xio_blob_call_result(c, &e), XIO_ECANCELED);
  ASSERT_CONTAINS(e.message, "canceled");
}

/* The engine canceled, beside the fixture's (which sets up and checks the blobs):
 * `max_in_flight` tries at once, with no timeout of their own, and retries that
 * wait as long as the service asks. */
static xio_blob_engine *silent_engine(int max_in_flight) {
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.max_in_flight = max_in_flight;
  o.retry.try_timeout_ms = 0;
  o.retry.max_delay_ms = SILENT;
  o.retry.throttle_ms = 2 * SILENT; /* a 503 hinting SILENT is retried, after that wait */
  xio_blob_engine *e = NULL;
  xio_error err;
  ASSERT_OK(xio_blob_engine_new(&o, &e, &err), &err);
  return e;
}

TEST(cancel_cuts_a_silent_try_after_its_grace_and_cancels_what_waits) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_blob_engine *eng = silent_engine(1);
  xio_blob_target *direct = pfx_direct_blob(&p, "silent.mdf", 4 * CHUNK, 0);
  xio_blob_target *b = pfx_proxied(&p, "silent.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STALL, .method = "PUT", .stall_ms = SILENT});
  unsigned char *data = malloc(2 * CHUNK), zeros[CHUNK];
  ASSERT(data != NULL);
  test_fill_random(data, 2 * CHUNK, 61);
  memset(zeros, 0, sizeof zeros);
  done d;
  done_init(&d);
  xio_blob_call *stalled = put_page(b, 0, data);
  xio_blob_call *queued = put_page(b, CHUNK, data + CHUNK);
  xio_blob_submit(eng, stalled, on_done, &d);
  wait_stalled(&p);
  xio_blob_submit(eng, queued, on_done, &d); /* behind it: max_in_flight 1 */
  xio_blob_engine_cancel(eng, 200);
  wait_done(&d, 2);
  expect_canceled(stalled);
  expect_canceled(queued);
  /* A call made after the cancel is not sent either. */
  xio_blob_call *late = put_page(b, 2 * CHUNK, data);
  xio_blob_submit(eng, late, on_done, &d);
  wait_done(&d, 3);
  expect_canceled(late);
  ASSERT_EQ(done_count(&d), 3);            /* each once */
  ASSERT_EQ(faultproxy_count(p.proxy), 1); /* only the stalled one reached the proxy */
  ASSERT_EQ(xio_blob_call_retries(stalled), 0);
  pfx_expect_content(&p, direct, 0, zeros, CHUNK); /* the cut write was never applied */
  xio_blob_call_free(stalled);
  xio_blob_call_free(queued);
  xio_blob_call_free(late);
  xio_blob_engine_free(eng);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

TEST(a_try_that_ends_within_the_grace_keeps_its_result_and_no_retry_is_made) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_blob_engine *eng = silent_engine(2);
  xio_blob_target *direct = pfx_direct_blob(&p, "grace.mdf", 4 * CHUNK, 0);
  xio_blob_target *b = pfx_proxied(&p, "grace.mdf", NULL, NULL);
  pfx_forget(&p);
  /* The first Put Page is refused with a retry hint of ten minutes: it waits for its
   * retry. The second is held a second, then forwarded. */
  pfx_fault(
      &p, (faultproxy_fault){
              .kind = FAULTPROXY_STATUS, .method = "PUT", .status = 503, .retry_after_ms = SILENT});
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STALL, .method = "PUT", .stall_ms = 1000});
  unsigned char *data = malloc(2 * CHUNK);
  ASSERT(data != NULL);
  test_fill_random(data, 2 * CHUNK, 62);
  done d;
  done_init(&d);
  xio_blob_call *refused = put_page(b, 0, data);
  xio_blob_call *slow = put_page(b, CHUNK, data + CHUNK);
  xio_blob_submit(eng, refused, on_done, &d);
  struct timespec tick = {0, 2 * 1000 * 1000};
  while (faultproxy_count(p.proxy) < 1 || pfx_record(&p, 0).answered_us == 0)
    nanosleep(&tick, NULL); /* refused, now waiting for its retry */
  xio_blob_submit(eng, slow, on_done, &d);
  wait_stalled(&p);
  xio_blob_engine_cancel(eng, 60000);
  wait_done(&d, 2); /* the refused one at once, the slow one when answered */
  xio_error e;
  ASSERT_EQ(xio_blob_call_result(refused, &e), XIO_ECANCELED);
  ASSERT_CONTAINS(e.message, "canceled before it was sent again");
  ASSERT_OK(xio_blob_call_result(slow, &e), &e);
  ASSERT_EQ(faultproxy_count(p.proxy), 2); /* the refused one was not sent again */
  pfx_expect_content(&p, direct, CHUNK, data + CHUNK, CHUNK);
  xio_blob_call_free(refused);
  xio_blob_call_free(slow);
  xio_blob_engine_free(eng);
  free(data);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

TEST(a_second_cancel_without_grace_cuts_at_once) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_blob_engine *eng = silent_engine(1);
  xio_blob_target *b = pfx_proxied(&p, "twice.mdf", NULL, NULL);
  xio_blob_target *direct = pfx_direct_blob(&p, "twice.mdf", 4 * CHUNK, 0);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STALL, .method = "PUT", .stall_ms = SILENT});
  unsigned char data[CHUNK];
  test_fill_random(data, CHUNK, 63);
  done d;
  done_init(&d);
  xio_blob_call *stalled = put_page(b, 0, data);
  xio_blob_submit(eng, stalled, on_done, &d);
  wait_stalled(&p);
  xio_blob_engine_cancel(eng, SILENT);        /* a grace as long as the stall */
  xio_blob_engine_cancel(eng, SILENT + 1000); /* never lengthens it */
  ASSERT_EQ(done_count(&d), 0);               /* on the wire, within its grace */
  xio_blob_engine_cancel(eng, 0);
  wait_done(&d, 1);
  expect_canceled(stalled);
  xio_blob_call_free(stalled);
  xio_blob_engine_free(eng);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}
