/*
 * lane_test.c - a lease renewal never waits behind data: an exclusive writer whose
 * queue of writes takes longer than its lease (every Put Page held 1 s by a fault
 * proxy in front of the emulator, four requests on the wire at once, twenty seconds
 * of writes against a 15 s lease) keeps its lease, renewed on time in the engine's
 * control lane, and every write succeeds. Were the renewals queued behind the
 * writes, the lease would run out at the service and the writes after it would be
 * refused (412 LeaseNotPresentWithBlobOperation).
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "faultproxy.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

#define WRITES 80 /* 4 at a time, 1 s each: 20 s */

TEST(renewals_go_ahead_of_a_queue_that_outlasts_the_lease) {
  faultproxy *proxy = faultproxy_start(test_endpoint());
  ASSERT(proxy != NULL);
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_duration_s = 15;
  o.lease_renew_s = 2;
  o.max_in_flight = 4;
  xfix fx;
  xio_error e;
  xfix_setup_at(&fx, faultproxy_endpoint(proxy), &o);
  xio_file *f = xfix_open(&fx, "lane.mdf", XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA,
                          (uint64_t)WRITES * 2 * 4096);
  faultproxy_fault stall;
  memset(&stall, 0, sizeof stall);
  stall.kind = FAULTPROXY_STALL;
  stall.method = "PUT";
  stall.match = "comp=page";
  stall.stall_ms = 1000;
  stall.times = WRITES;
  ASSERT(faultproxy_add(proxy, &stall) == 0);
  xfix_trace_reset(&fx);
  /* Pages apart, so that no two are combined into one request. */
  static char page[4096];
  memset(page, 7, sizeof page);
  xio_io io[WRITES];
  memset(io, 0, sizeof io);
  for (int i = 0; i < WRITES; i++) {
    io[i].op = XIO_IO_WRITE;
    io[i].offset = (uint64_t)i * 2 * sizeof page;
    io[i].length = sizeof page;
    io[i].buf = page;
    ASSERT_OK(xio_file_submit(f, &io[i], &e), &e);
  }
  for (int i = 0; i < WRITES; i++)
    ASSERT_OK(xio_io_wait(&io[i]), &io[i].error);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), WRITES);
  ASSERT_EQ(xio_file_lease_lost(f), 0);
  /* Renewed all along: at least one renewal in every 15 s of the 20. */
  pthread_mutex_lock(&fx.trace.mu);
  int renewals = 0;
  for (int i = 0; i < fx.trace.n; i++)
    if (fx.trace.ev[i].type == XIO_REQ_LEASE &&
        strcmp(fx.trace.ev[i].event, "xio_send_complete") == 0) {
      ASSERT_STR_EQ(fx.trace.ev[i].result, "ok");
      renewals++;
    }
  pthread_mutex_unlock(&fx.trace.mu);
  ASSERT(renewals >= 2);
  ASSERT_OK(xio_file_write(f, 0, page, sizeof page, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
  faultproxy_free(proxy);
}
