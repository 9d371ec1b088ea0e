/*
 * hook_test.c - no storage request goes untraced: every call the context's engine
 * completes passes one completion hook, which emits its xio_send_complete event.
 * A call sent on the engine without saying what it is for (as a new piece of code
 * that forgot to would) is traced all the same; and across a run of every kind of
 * operation, the engine's own count of completed calls equals the trace's count of
 * events, one for one.
 */
#define _DEFAULT_SOURCE
#include <string.h>
#include <time.h>

#include "leaseclock.h"
#include "test.h"
#include "util.h"
#include "xfix.h"
#include "xio_int.h"

TEST(a_call_sent_without_saying_what_for_is_traced) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  char url[1024];
  xfix_target(&fx, "untagged.mdf", url, sizeof url);
  xio_blob_target *t = NULL;
  ASSERT_OK(xio__ctx_blob_target(fx.ctx, url, &t, &e), &e);
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_get_properties(t, NULL, &c, &e), &e);
  /* Straight to the engine: no tag, no wrapper. */
  ASSERT_ERR(xio_blob_send(xio__ctx_engine(fx.ctx), c, &e), XIO_ENOTFOUND, &e);
  ASSERT_EQ(fx.trace.n, 1);
  const xfix_event *ev = &fx.trace.ev[0];
  ASSERT_STR_EQ(ev->event, "xio_send_complete");
  ASSERT_EQ(ev->type, XIO_REQ_GET_SIZE); /* by its operation, Get Blob Properties */
  ASSERT_STR_EQ(ev->path, xio_blob_target_safe_url(t));
  ASSERT_EQ(ev->http_status, 404);
  ASSERT_STR_EQ(ev->result, "XIO_ENOTFOUND");
  ASSERT_STR_EQ(ev->client_request_id, xio_blob_call_client_request_id(c));
  xio_blob_call_free(c);
  xio_blob_target_free(t);
  xfix_teardown(&fx);
}

/* Waits (at most 10 s) until `fx` has recorded at least `n` lease requests. */
static void wait_for_leases(xfix *fx, int n) {
  for (int i = 0; i < 1000 && xfix_count(fx, XIO_REQ_LEASE) < n; i++) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  ASSERT(xfix_count(fx, XIO_REQ_LEASE) >= n);
}

static int ignore_entry(const xio_list_entry *e, void *ud) {
  (void)e, (void)ud;
  return 0;
}

/* Every operation of an exclusively opened log file, successes and failures. */
static void file_life(xfix *fx, leaseclock *clock, const char *url) {
  xio_error e;
  xio_file *f = xfix_open_url(fx, url, XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE | XIO_OPEN_UNALIGNED,
                              XIO_KIND_LOG, 1 << 20);
  static char buf[64 * 1024];
  memset(buf, 0x5A, sizeof buf);
  ASSERT_OK(xio_file_write(f, 0, buf, sizeof buf, &e), &e);
  ASSERT_OK(xio_file_write(f, 100, buf, 1000, &e), &e); /* unaligned: edges read first */
  ASSERT_OK(xio_file_read(f, 0, buf, sizeof buf, NULL, &e), &e);
  ASSERT_OK(xio_file_zero(f, 4096, 8192, XIO_INIT_ZERO, &e), &e);
  ASSERT_OK(xio_file_zero(f, 16384, 8192, XIO_INIT_CLEAR, &e), &e);
  ASSERT_OK(xio_file_set_size(f, 2 << 20, XIO_INIT_CLEAR, &e), &e);
  ASSERT_OK(xio_file_set_size(f, (1 << 20) + 100, XIO_INIT_DEFAULT, &e), &e);
  ASSERT_ERR(xio_file_zero(f, 0, 4 << 20, XIO_INIT_CLEAR, &e), XIO_ERANGE, &e); /* not sent */
  xio_ranges r = {NULL, 0, 0};
  ASSERT_OK(xio_file_ranges(f, &r, &e), &e);
  xio_ranges_clear(&r);
  char id[64];
  ASSERT_OK(xio_file_snapshot(f, id, sizeof id, &e), &e);
  xio_file_info info;
  ASSERT_OK(xio_file_stat(f, &info, &e), &e);
  ASSERT_OK(xio_file_set_kind(f, XIO_KIND_DATA, &e), &e);
  ASSERT_OK(xio_file_set_incomplete(f, 1, &e), &e);
  ASSERT_OK(xio_file_set_incomplete(f, 0, &e), &e);
  int leases = xfix_count(fx, XIO_REQ_LEASE);
  leaseclock_advance(clock, 20 * 1000000); /* one renewal period: the keeper renews */
  wait_for_leases(fx, leases + 1);
  ASSERT_OK(xio_file_close(f, &e), &e); /* releases the lease */
}

/* Every operation on targets without keeping them open. */
static void target_life(xfix *fx, const char *url, const char *copy) {
  xio_error e;
  xio_lease_request acquire = {XIO_LEASE_ACQUIRE, NULL, 15, 0};
  xio_lease_result held;
  ASSERT_OK(xio_lease(fx->ctx, url, &acquire, &held, &e), &e);
  ASSERT_ERR(xio_lease(fx->ctx, url, &acquire, NULL, &e), XIO_EBUSY, &e);
  xio_lease_request release = {XIO_LEASE_RELEASE, held.id, 0, 0};
  ASSERT_OK(xio_lease(fx->ctx, url, &release, NULL, &e), &e);
  xio_file_info info;
  ASSERT_OK(xio_stat(fx->ctx, url, &info, &e), &e);
  xio_list_options lo = xio_list_options_default();
  lo.flags = XIO_LIST_SNAPSHOTS | XIO_LIST_ALLOCATED;
  ASSERT_OK(xio_list(fx->ctx, fx->base, &lo, ignore_entry, NULL, &e), &e);
  ASSERT_OK(xio_copy(fx->ctx, url, copy, NULL, NULL, &e), &e);
  ASSERT_OK(xio_snapshot_list(fx->ctx, url, XIO_LIST_ALLOCATED, ignore_entry, NULL, &e), &e);
  ASSERT_ERR(xio_snapshot_delete(fx->ctx, url, "2001-01-01T00:00:00.0000000Z", &e), XIO_ENOTFOUND,
             &e);
  ASSERT_ERR(xio_file_delete_unless_snapshots(fx->ctx, url, &e), XIO_ECONFLICT, &e);
  ASSERT_OK(xio_file_delete_unless_snapshots(fx->ctx, copy, &e), &e);
  ASSERT_OK(xio_file_delete(fx->ctx, url, &e), &e);
  xio_open_options o = xio_open_options_default();
  xio_file *f = NULL;
  ASSERT_ERR(xio_file_open(fx->ctx, url, &o, &f, &e), XIO_ENOTFOUND, &e);
}

TEST(every_call_the_engine_completes_is_traced_once) {
  xfix fx;
  leaseclock *clock = leaseclock_new();
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_clock = leaseclock_lease(clock);
  xfix_setup(&fx, 0, &o);
  char url[1024], copy[1024];
  xfix_target(&fx, "every.ldf", url, sizeof url);
  xfix_target(&fx, "every-copy.ldf", copy, sizeof copy);
  file_life(&fx, clock, url);
  target_life(&fx, url, copy);
  /* Every file is closed: nothing is in flight and the lease keeper holds nothing. */
  uint64_t completed = xio_blob_engine_completed(xio__ctx_engine(fx.ctx));
  ASSERT_U64_EQ(xfix_count_event(&fx, "xio_send_complete"), completed);
  ASSERT(completed >= 40);
  /* The run made every kind of request there is on page blobs, but a user delegation
   * key (which needs Entra ID). */
  for (int t = 0; t < XIO_REQ_COUNT; t++)
    if (t != XIO_REQ_USER_DELEGATION_KEY && xfix_count(&fx, (xio_request_type)t) == 0)
      FAIL("no %s request in the run", xio_request_type_name((xio_request_type)t));
  xfix_teardown(&fx);
  leaseclock_free(clock);
}

/* Creating a file in a container that does not exist yet: the open looks for the
 * blob (404 BlobNotFound), the create finds no container (404 ContainerNotFound),
 * the container is made and the create sent again. Both 404s were expected and
 * handled: traced as "ok" with their status and code, and no failure is counted;
 * an open without CREATE of a missing blob still fails, and says so. */
TEST(expected_not_found_answers_are_no_failures) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  char url[1024];
  xfix_target(&fx, "fresh.mdf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_DATA, 4096);
  xio_file_stats s;
  xio_file_get_stats(f, &s);
  ASSERT_U64_EQ(s.failures, 0);
  int not_found = 0;
  pthread_mutex_lock(&fx.trace.mu);
  for (int i = 0; i < fx.trace.n; i++) {
    ASSERT_STR_EQ(fx.trace.ev[i].result, "ok");
    not_found += fx.trace.ev[i].http_status == 404;
  }
  pthread_mutex_unlock(&fx.trace.mu);
  ASSERT_EQ(not_found, 2);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_CREATE), 3); /* blob, container, blob again */
  ASSERT_OK(xio_file_close(f, &e), &e);
  char missing[1024];
  xfix_target(&fx, "missing.mdf", missing, sizeof missing);
  int before = fx.trace.n;
  xio_open_options o = xio_open_options_default();
  xio_file *g = NULL;
  ASSERT_ERR(xio_file_open(fx.ctx, missing, &o, &g, &e), XIO_ENOTFOUND, &e);
  ASSERT_EQ(fx.trace.n, before + 1);
  ASSERT_STR_EQ(fx.trace.ev[before].result, "XIO_ENOTFOUND");
  xfix_teardown(&fx);
}
