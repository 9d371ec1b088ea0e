/*
 * cancel_test.c - xio_ctx_cancel through a fault proxy that stalls a write for ten
 * minutes (a service that accepted it and went silent): the write fails with
 * XIO_ECANCELED once the grace ends, traced once as any request; later requests
 * fail at once without reaching the proxy; the file closes and the context is freed.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "faultproxy.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

#define SILENT 600000 /* ms: no wait of the test outlasts it */

/* Number of the trace's xio_send_complete events with result `result`. */
static int completes_with(xfix *fx, const char *result) {
  int n = 0;
  pthread_mutex_lock(&fx->trace.mu);
  for (int i = 0; i < fx->trace.n; i++)
    n += strcmp(fx->trace.ev[i].event, "xio_send_complete") == 0 &&
         strcmp(fx->trace.ev[i].result, result) == 0;
  pthread_mutex_unlock(&fx->trace.mu);
  return n;
}

/* Waits (30 s at most) until the proxy holds a stalled request. */
static void wait_stalled(faultproxy *p) {
  struct timespec tick = {0, 2 * 1000 * 1000};
  faultproxy_record rec;
  for (int i = 0; i < 15000; i++) {
    for (int k = 0; faultproxy_record_get(p, k, &rec) == 0; k++)
      if (rec.fault == FAULTPROXY_STALL) return;
    nanosleep(&tick, NULL);
  }
  FAIL("the proxy never held the write");
}

TEST(ctx_cancel_cuts_a_silent_write_and_refuses_what_follows) {
  faultproxy *proxy = faultproxy_start(test_endpoint());
  ASSERT(proxy != NULL);
  xfix fx;
  xfix_setup_at(&fx, faultproxy_endpoint(proxy), NULL);
  xio_file *f = xfix_open(&fx, "silent.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, 1 << 20);
  xfix_trace_reset(&fx);
  faultproxy_forget(proxy);
  faultproxy_fault stall;
  memset(&stall, 0, sizeof stall);
  stall.kind = FAULTPROXY_STALL;
  stall.method = "PUT";
  stall.match = "comp=page";
  stall.stall_ms = SILENT;
  ASSERT(faultproxy_add(proxy, &stall) == 0);
  static char buf[65536];
  memset(buf, 'w', sizeof buf);
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_WRITE;
  io.length = sizeof buf;
  io.buf = buf;
  xio_error e;
  ASSERT_OK(xio_file_submit(f, &io, &e), &e);
  wait_stalled(proxy);
  xio_ctx_cancel(fx.ctx, 100);
  ASSERT_EQ(xio_io_wait(&io), XIO_ECANCELED);
  ASSERT_EQ(io.error.code, XIO_ECANCELED);
  /* What follows is not sent: it fails at once. */
  ASSERT_ERR(xio_file_write(f, 65536, buf, sizeof buf, &e), XIO_ECANCELED, &e);
  xio_file_info info;
  ASSERT_ERR(xio_file_stat(f, &info, &e), XIO_ECANCELED, &e);
  ASSERT_EQ(faultproxy_count(proxy), 1);              /* the stalled write only */
  ASSERT_EQ(completes_with(&fx, "XIO_ECANCELED"), 3); /* each traced once */
  xio_file_close(f, NULL);
  xfix_teardown(&fx);
  faultproxy_free(proxy);
}
