/*
 * failed_test.c - every refused try is visible: a request that a fault proxy in front
 * of the emulator refuses before it succeeds leaves one xio_failed_request event per
 * refused try (its status, service error code, request id and result) beside its one
 * xio_send_complete, and the file counts the throttling answers among them (503
 * ServerBusy, 500 OperationTimedOut) apart from other failures.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>

#include "faultproxy.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

typedef struct proxied {
  faultproxy *proxy;
  xfix fx;
  xio_file *f;
} proxied;

/* A context reaching the emulator through a fault proxy, retrying at once (throttling
 * answers counted among the retries, as other faults), and a 1 MiB data file made
 * there before any fault is scripted. */
static void proxied_setup(proxied *p) {
  p->proxy = faultproxy_start(test_endpoint());
  ASSERT(p->proxy != NULL);
  xio_ctx_options o = xio_ctx_options_default();
  o.retry.base_delay_ms = 1;
  o.retry.throttle_ms = 0;
  xfix_setup_at(&p->fx, faultproxy_endpoint(p->proxy), &o);
  p->f = xfix_open(&p->fx, "refused.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, 1 << 20);
  xfix_trace_reset(&p->fx);
  faultproxy_forget(p->proxy);
}

static void proxied_teardown(proxied *p) {
  xio_error e;
  ASSERT_OK(xio_file_close(p->f, &e), &e);
  xfix_teardown(&p->fx);
  faultproxy_free(p->proxy);
}

/* Refuses the next Put Page with `status` and service error `code`. */
static void refuse_put_page(proxied *p, int status, const char *code) {
  faultproxy_fault f;
  memset(&f, 0, sizeof f);
  f.kind = FAULTPROXY_STATUS;
  f.method = "PUT";
  f.match = "comp=page";
  f.status = status;
  f.error_code = code;
  ASSERT(faultproxy_add(p->proxy, &f) == 0);
}

/* The request id the proxy gave its answer to the `i`-th request it refused. */
static void refused_request_id(proxied *p, int i, char *out, size_t size) {
  faultproxy_record rec;
  for (int k = 0, seen = 0; faultproxy_record_get(p->proxy, k, &rec) == 0; k++)
    if (rec.fault == FAULTPROXY_STATUS && seen++ == i) {
      snprintf(out, size, "faultproxy-%d", rec.no);
      return;
    }
  FAIL("the proxy refused fewer than %d requests", i + 1);
}

static const struct {
  int status;
  const char *code, *result;
} refusals[] = {
    {503, "ServerBusy", "XIO_ETHROTTLED"},
    {500, "OperationTimedOut", "XIO_ETIMEDOUT"},
    {500, "InternalError", "XIO_EHTTP"},
};
#define NREFUSED 3

/* Checks that the first `n` events are the failed tries of `refusals`, in order, of
 * the write at 0 of 4 KiB whose client request id is `crid`. */
static void expect_failed_tries(proxied *p, int n, const char *crid) {
  const char *path = xio_file_path(p->f);
  for (int i = 0; i < n; i++) {
    const xfix_event *ev = &p->fx.trace.ev[i];
    int k = i % NREFUSED;
    char rid[64];
    refused_request_id(p, i, rid, sizeof rid);
    ASSERT_STR_EQ(ev->event, "xio_failed_request");
    ASSERT_EQ(ev->type, XIO_REQ_WRITE);
    ASSERT_STR_EQ(ev->path, path);
    ASSERT_U64_EQ(ev->offset, 0);
    ASSERT_U64_EQ(ev->length, 4096);
    ASSERT_EQ(ev->http_status, refusals[k].status);
    ASSERT_STR_EQ(ev->error_code, refusals[k].code);
    ASSERT_STR_EQ(ev->request_id, rid);
    ASSERT_STR_EQ(ev->client_request_id, crid);
    ASSERT_STR_EQ(ev->result, refusals[k].result);
    ASSERT_EQ(ev->retries, i); /* the retries before this try */
  }
}

TEST(each_refused_try_is_traced_and_throttling_counted) {
  proxied p;
  proxied_setup(&p);
  for (int i = 0; i < NREFUSED; i++)
    refuse_put_page(&p, refusals[i].status, refusals[i].code);
  static char page[4096];
  memset(page, 0x33, sizeof page);
  xio_error e;
  ASSERT_OK(xio_file_write(p.f, 0, page, sizeof page, &e), &e); /* the fourth try succeeds */
  ASSERT_EQ(p.fx.trace.n, NREFUSED + 1);
  const xfix_event *done = &p.fx.trace.ev[NREFUSED];
  ASSERT_STR_EQ(done->event, "xio_send_complete"); /* still one per request */
  ASSERT_EQ(done->type, XIO_REQ_WRITE);
  ASSERT_EQ(done->retries, NREFUSED);
  ASSERT_EQ(done->http_status, 201);
  ASSERT_STR_EQ(done->result, "ok");
  ASSERT(done->request_id[0] && strncmp(done->request_id, "faultproxy-", 11) != 0);
  expect_failed_tries(&p, NREFUSED, done->client_request_id);
  /* The JSON lines say the same, under the event's own name. */
  int lines = 0;
  for (const char *s = strstr(p.fx.trace.json, "{\"event\":\"xio_failed_request\""); s;
       s = strstr(s + 1, "{\"event\":\"xio_failed_request\""))
    lines++;
  ASSERT_EQ(lines, NREFUSED);
  ASSERT_CONTAINS(p.fx.trace.json, "\"error_code\":\"OperationTimedOut\"");
  xio_file_stats st;
  xio_file_get_stats(p.f, &st);
  ASSERT_U64_EQ(st.requests, 1);
  ASSERT_U64_EQ(st.retries, NREFUSED);
  ASSERT_U64_EQ(st.failures, 0);
  ASSERT_U64_EQ(st.throttled, 2); /* ServerBusy and OperationTimedOut, not InternalError */
  proxied_teardown(&p);
}

TEST(a_request_refused_on_every_try_ends_in_its_send_complete) {
  proxied p;
  proxied_setup(&p);
  /* Four tries (three retries), all refused: the last one is the request's end. */
  for (int i = 0; i < 4; i++)
    refuse_put_page(&p, 503, "ServerBusy");
  static char page[4096];
  xio_error e;
  ASSERT_ERR(xio_file_write(p.f, 0, page, sizeof page, &e), XIO_ETHROTTLED, &e);
  ASSERT_EQ(p.fx.trace.n, 4);
  ASSERT_EQ(xfix_count_event(&p.fx, "xio_failed_request"), 3);
  const xfix_event *done = &p.fx.trace.ev[3];
  ASSERT_STR_EQ(done->event, "xio_send_complete");
  ASSERT_EQ(done->http_status, 503);
  ASSERT_STR_EQ(done->error_code, "ServerBusy");
  ASSERT_STR_EQ(done->result, "XIO_ETHROTTLED");
  char rid[64];
  refused_request_id(&p, 3, rid, sizeof rid);
  ASSERT_STR_EQ(done->request_id, rid);
  for (int i = 0; i < 3; i++) {
    ASSERT_STR_EQ(p.fx.trace.ev[i].event, "xio_failed_request");
    ASSERT_EQ(p.fx.trace.ev[i].http_status, 503);
    ASSERT_STR_EQ(p.fx.trace.ev[i].client_request_id, done->client_request_id);
  }
  xio_file_stats st;
  xio_file_get_stats(p.f, &st);
  ASSERT_U64_EQ(st.requests, 1);
  ASSERT_U64_EQ(st.failures, 1);
  ASSERT_U64_EQ(st.throttled, 4); /* every try's answer, the last one's too */
  proxied_teardown(&p);
}
