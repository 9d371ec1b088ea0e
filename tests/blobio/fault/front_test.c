/*
 * front_test.c - the fidelity front of the proxy (samples/testers/faultproxy/fidelity.c,
 * answers.c, throttle.c): Azurite answering as Azure does. The page-blob client
 * follows Get Page Ranges pages shaped like Azure's; XML bodies carry the byte-order
 * mark; Put Page ranges not 512-aligned, bodies over 4 MiB, sizes over 8 TiB and
 * writes past a blob's end get Azure's status, code and message without reaching the
 * emulator; a blob over its target gets 503 ServerBusy with no retry hint; and
 * prevsnapshot diffs are answered in Azure's shape and with Azure's errors. The
 * limits and the throttle are checked with requests the client would never send,
 * written by hand on a socket (the front answers them before any signature check).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <xio/alloc.h>
#include <xio/auth.h>
#include <xio/url_int.h>

#include "blob_sync_test_util.h"
#include "proxy_fixture.h"
#include "test.h"
#include "util.h"

#define RESP_MAX 65536

/* A response read whole from a raw request. */
typedef struct raw_resp {
  int status;
  char text[RESP_MAX]; /* head and body, NUL-terminated */
  const char *body;    /* in text, after the blank line */
} raw_resp;

/* Sends `head` (request line and headers, each ending CRLF, no blank line) with
 * "Connection: close" and `body` to the proxy, and reads the answer to the end. */
static void raw(pfx *p, const char *head, const void *body, size_t len, raw_resp *out) {
  const char *ep = faultproxy_endpoint(p->proxy);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)atoi(strrchr(ep, ':') + 1));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT(fd >= 0);
  ASSERT_EQ(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  char h[2048];
  int n =
      snprintf(h, sizeof h, "%sHost: 127.0.0.1\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
               head, len);
  ASSERT_EQ(send(fd, h, (size_t)n, MSG_NOSIGNAL), n);
  for (size_t off = 0; off < len;) {
    ssize_t w = send(fd, (const char *)body + off, len - off, MSG_NOSIGNAL);
    if (w <= 0) break; /* the front may answer before it has the whole body */
    off += (size_t)w;
  }
  size_t have = 0;
  ssize_t r;
  while (have < RESP_MAX - 1 && (r = recv(fd, out->text + have, RESP_MAX - 1 - have, 0)) > 0)
    have += (size_t)r;
  close(fd);
  out->text[have] = '\0';
  out->status = have > 12 ? atoi(out->text + 9) : 0;
  const char *blank = strstr(out->text, "\r\n\r\n");
  out->body = blank ? blank + 4 : "";
}

/* "/account/container" of the fixture, for raw requests. */
static const char *container_path(pfx *p) { return strchr(p->fx.container_url + 7, '/'); }

static void set_profile(pfx *p, const char *name, int page_list_size, double blob_iops) {
  faultproxy_profile prof;
  char err[512];
  ASSERT_EQ(faultproxy_profile_parse(name, &prof, err, sizeof err), 0);
  if (page_list_size) prof.page_list_size = page_list_size;
  if (blob_iops > 0) {
    prof.blob_iops = blob_iops;
    prof.blob_bps = 0;
    prof.account_iops = prof.account_bps = 0;
  }
  faultproxy_set_profile(p->proxy, &prof);
}

/* 300 separate ranges, 100 to a page: the client follows two markers shaped like
 * Azure's (holding '!', sent escaped) and gets every range once. */
TEST(front_pages_a_fragmented_page_list) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  set_profile(&p, "unthrottled", 100, 0);
  xio_error e;
  unsigned char page[512];
  test_fill_random(page, sizeof page, 5);
  xio_blob_target *direct = pfx_direct_blob(&p, "frag.mdf", 600 * 512, 0);
  for (int i = 0; i < 300; i++) /* every other page: no two ranges touch */
    ASSERT_OK(xio_blob_put_page(p.fx.engine, direct, (uint64_t)i * 1024, page, 512, NULL, &e), &e);
  xio_blob_target *b = pfx_proxied(&p, "frag.mdf", NULL, NULL);
  pfx_forget(&p);
  xio_ranges r = {0};
  ASSERT_OK(xio_blob_get_ranges(p.fx.engine, b, 0, 600 * 512, 0, &r, &e), &e);
  ASSERT_EQ(r.n, 300);
  for (size_t i = 0; i < r.n; i++) {
    ASSERT_EQ(r.v[i].start, i * 1024);
    ASSERT_EQ(r.v[i].end, i * 1024 + 511);
  }
  ASSERT_EQ(faultproxy_count(p.proxy), 3);
  ASSERT(strstr(pfx_record(&p, 0).target, "marker=") == NULL);
  ASSERT_CONTAINS(pfx_record(&p, 1).target, "marker=2%21");
  ASSERT_CONTAINS(pfx_record(&p, 2).target, "marker=2%21");
  faultproxy_stats s;
  faultproxy_stats_get(p.proxy, &s);
  ASSERT_EQ(s.paged, 3);
  xio_ranges_clear(&r);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* maxresults cuts a page shorter; the last page ends with an empty NextMarker; XML
 * bodies, errors too, start with the byte-order mark. */
TEST(front_honours_maxresults_and_marks_xml_bodies) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  set_profile(&p, "unthrottled", 0, 0);
  xio_error e;
  unsigned char page[512] = {1};
  xio_blob_target *direct = pfx_direct_blob(&p, "bom.mdf", 8 * 512, 0);
  for (int i = 0; i < 3; i++)
    ASSERT_OK(xio_blob_put_page(p.fx.engine, direct, (uint64_t)i * 1024, page, 512, NULL, &e), &e);
  xio_blob_target *b = pfx_proxied(&p, "bom.mdf", NULL, NULL);
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_page_ranges(b, 0, 8 * 512, NULL, &c, &e), &e);
  ASSERT_OK(xio_blob_send(p.fx.engine, c, &e), &e);
  xio_ranges r = {0};
  char *next = NULL;
  ASSERT_OK(xio_blob_call_ranges(c, &r, &next, &e), &e);
  ASSERT_EQ(r.n, 3);
  ASSERT(next == NULL); /* <NextMarker /> */
  xio_blob_call_free(c);
  xio_ranges_clear(&r);
  /* The error of an unsigned request, as the front passes it on. */
  raw_resp *resp = malloc(sizeof *resp);
  ASSERT(resp != NULL);
  char head[1024];
  snprintf(head, sizeof head, "GET %s/bom.mdf?comp=pagelist&maxresults=2 HTTP/1.1\r\n",
           container_path(&p));
  raw(&p, head, NULL, 0, resp);
  ASSERT_EQ(resp->status, 403);
  ASSERT(memcmp(resp->body, "\xEF\xBB\xBF<?xml", 8) == 0);
  free(resp);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* Checks an Azure error answer of the front's own: status, code (header and body),
 * message, no retry hint. */
static void expect_azure_error(const raw_resp *r, int status, const char *code, const char *msg) {
  char header[128], element[128];
  ASSERT_EQ(r->status, status);
  snprintf(header, sizeof header, "x-ms-error-code: %s\r\n", code);
  snprintf(element, sizeof element, "<Code>%s</Code>", code);
  ASSERT_CONTAINS(r->text, header);
  ASSERT_CONTAINS(r->body, element);
  ASSERT_CONTAINS(r->body, msg);
  ASSERT(memcmp(r->body, "\xEF\xBB\xBF", 3) == 0);
  ASSERT(strcasestr(r->text, "Retry-After") == NULL);
}

TEST(front_refuses_what_azure_refuses) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  set_profile(&p, "standard", 0, 0);
  xio_error e;
  xio_blob_target *b = pfx_proxied(&p, "limits.mdf", NULL, NULL);
  ASSERT_OK(xio_blob_create(p.fx.engine, b, 64 * 1024, NULL, 0, NULL, &e), &e); /* size seen */
  raw_resp *r = malloc(sizeof *r);
  size_t big = 4u * 1024 * 1024 + 512;
  char *body = calloc(1, big), head[1024];
  ASSERT(r != NULL && body != NULL);
  const char *cp = container_path(&p);
  snprintf(head, sizeof head,
           "PUT %s/limits.mdf?comp=page HTTP/1.1\r\nx-ms-page-write: update\r\n"
           "x-ms-range: bytes=100-611\r\n",
           cp);
  raw(&p, head, body, 512, r);
  expect_azure_error(r, 416, "InvalidPageRange", "The page range specified is invalid.");
  snprintf(head, sizeof head,
           "PUT %s/limits.mdf?comp=page HTTP/1.1\r\nx-ms-page-write: update\r\n"
           "x-ms-range: bytes=0-%zu\r\n",
           cp, big - 1);
  raw(&p, head, body, big, r);
  expect_azure_error(r, 413, "RequestBodyTooLarge", "exceeds the maximum permissible limit");
  ASSERT_CONTAINS(r->body, "<MaxLimit>4194304</MaxLimit>");
  snprintf(head, sizeof head,
           "PUT %s/limits.mdf?comp=page HTTP/1.1\r\nx-ms-page-write: update\r\n"
           "x-ms-range: bytes=65536-66047\r\n",
           cp);
  raw(&p, head, body, 512, r); /* one page past the end of the 64 KiB blob */
  expect_azure_error(r, 416, "InvalidPageRange", "The page range specified is invalid.");
  snprintf(head, sizeof head,
           "PUT %s/huge.mdf HTTP/1.1\r\nx-ms-blob-type: PageBlob\r\n"
           "x-ms-blob-content-length: 8796093023232\r\n",
           cp); /* 8 TiB + 512 */
  raw(&p, head, NULL, 0, r);
  expect_azure_error(r, 400, "InvalidHeaderValue", "not in the correct format");
  ASSERT_CONTAINS(r->body, "<HeaderName>x-ms-blob-content-length</HeaderName>");
  faultproxy_stats s;
  faultproxy_stats_get(p.proxy, &s);
  ASSERT_EQ(s.refused, 4);
  ASSERT_EQ(s.throttled, 0);
  /* A write inside the blob passes the front. */
  unsigned char page[512] = {7};
  ASSERT_OK(xio_blob_put_page(p.fx.engine, b, 65536 - 512, page, 512, NULL, &e), &e);
  free(body);
  free(r);
  xio_blob_target_free(b);
  pfx_teardown(&p);
}

/* A blob with a target of 1 request/s: the first request passes, the next two, at
 * once, get Azure's 503 ServerBusy with no retry hint, counted. */
TEST(front_throttles_a_blob_over_its_target) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  set_profile(&p, "standard", 0, 1.0);
  raw_resp *r = malloc(sizeof *r);
  char head[1024];
  ASSERT(r != NULL);
  snprintf(head, sizeof head, "HEAD %s/busy.mdf HTTP/1.1\r\n", container_path(&p));
  raw(&p, head, NULL, 0, r);
  ASSERT(r->status != 503);
  for (int i = 0; i < 2; i++) {
    snprintf(head, sizeof head, "GET %s/busy.mdf HTTP/1.1\r\n", container_path(&p));
    raw(&p, head, NULL, 0, r);
    expect_azure_error(r, 503, "ServerBusy", "The server is busy.");
  }
  snprintf(head, sizeof head, "GET %s/other.mdf HTTP/1.1\r\n", container_path(&p));
  raw(&p, head, NULL, 0, r); /* another blob has a bucket of its own */
  ASSERT(r->status != 503);
  faultproxy_stats s;
  faultproxy_stats_get(p.proxy, &s);
  ASSERT_EQ(s.throttled, 2);
  free(r);
  pfx_teardown(&p);
}

/* A target whose bucket holds three requests (0.01 requests/s, a burst of 300 s):
 * three requests at once pass, the fourth gets 503 ServerBusy; the timeline counts
 * each second what the throttle let through (with the bytes of a read's range) and
 * what it refused. */
TEST(front_throttles_after_the_burst_and_counts_each_second) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  faultproxy_profile prof;
  char err[512];
  ASSERT_EQ(faultproxy_profile_parse("unthrottled", &prof, err, sizeof err), 0);
  prof.blob_iops = 0.01;
  prof.burst_s = 300;
  faultproxy_set_profile(p.proxy, &prof);
  raw_resp *r = malloc(sizeof *r);
  char head[1024];
  ASSERT(r != NULL);
  for (int i = 0; i < 4; i++) {
    snprintf(head, sizeof head, "GET %s/burst.mdf HTTP/1.1\r\nx-ms-range: bytes=0-1023\r\n",
             container_path(&p));
    raw(&p, head, NULL, 0, r);
    if (i < 3)
      ASSERT(r->status != 503);
    else
      expect_azure_error(r, 503, "ServerBusy", "The server is busy.");
  }
  faultproxy_second secs[FAULTPROXY_TIMELINE_S];
  size_t n = faultproxy_timeline(p.proxy, secs, FAULTPROXY_TIMELINE_S);
  uint64_t accepted = 0, throttled = 0, bytes = 0;
  for (size_t i = 0; i < n; i++) {
    accepted += secs[i].accepted;
    throttled += secs[i].throttled;
    bytes += secs[i].bytes;
  }
  ASSERT_U64_EQ(accepted, 3);
  ASSERT_U64_EQ(throttled, 1);
  ASSERT_U64_EQ(bytes, 3 * 1024);
  free(r);
  pfx_teardown(&p);
}

/* ------------------------------------------------------------ diffs ---- */

/* A service SAS for one blob of the fixture's container, for raw requests the
 * service must authorize (free it). */
static char *read_sas(pfx *p, const char *blob) {
  xio_error e;
  xio_auth_sas_options so = xio_auth_sas_options_default();
  so.permissions = "r";
  so.start = time(NULL) - 3600;
  so.expiry = time(NULL) + 3600;
  char *tok = NULL;
  const char *container = xio_blob_target_url(p->fx.container)->container;
  ASSERT_OK(xio_auth_sas_generate_service(XIO_AUTH_DEV_ACCOUNT, p->fx.cred.key, p->fx.cred.key_len,
                                          container, blob, &so, &tok, &e),
            &e);
  return tok;
}

/* The diff of blob `b` (or its snapshot `snap`, may be NULL) since `prev` through the
 * proxy: 0 with the lists, or the failure with `e`. */
static xio_err diff_of(pfx *p, const char *name, const char *snap, const char *prev, xio_ranges *w,
                       xio_ranges *c, xio_error *e) {
  char q[128] = "";
  if (snap) snprintf(q, sizeof q, "snapshot=%s", snap);
  xio_blob_target *t = pfx_proxied(p, name, &p->fx.cred, snap ? q : NULL);
  xio_blob_call *call = NULL;
  char *next = NULL;
  xio_err rc = xio_blob_call_page_ranges_diff(t, 0, 0, prev, NULL, &call, e);
  if (rc == XIO_OK) rc = xio_blob_send(p->fx.engine, call, e);
  if (rc == XIO_OK) rc = xio_blob_call_ranges_diff(call, w, c, &next, e);
  ASSERT(next == NULL);
  xio_blob_call_free(call);
  xio_blob_target_free(t);
  return rc;
}

/* Azure's recorded shape: a blob of 'b' snapshotted, then every other page written
 * and the ones between cleared; the diff interleaves PageRange and ClearRange in
 * offset order, carries the BOM, the blob's size and ETag. */
TEST(front_answers_diffs_in_azures_shape) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  set_profile(&p, "unthrottled", 0, 0);
  xio_error e;
  unsigned char b4k[4096], a[512];
  memset(b4k, 'b', sizeof b4k);
  memset(a, 'a', sizeof a);
  xio_blob_target *b = pfx_proxied(&p, "shape.mdf", NULL, NULL);
  ASSERT_OK(xio_blob_create(p.fx.engine, b, 4096, NULL, 0, NULL, &e), &e);
  ASSERT_OK(xio_blob_put_page(p.fx.engine, b, 0, b4k, sizeof b4k, NULL, &e), &e);
  char s1[64];
  ASSERT_OK(xio_blob_snapshot(p.fx.engine, b, s1, &e), &e);
  for (int i = 0; i < 4; i++) {
    ASSERT_OK(xio_blob_put_page(p.fx.engine, b, (uint64_t)i * 1024, a, 512, NULL, &e), &e);
    ASSERT_OK(xio_blob_clear(p.fx.engine, b, (uint64_t)i * 1024 + 512, 512, NULL, &e), &e);
  }
  char *sas = read_sas(&p, "shape.mdf"), head[2048];
  snprintf(head, sizeof head,
           "GET %s/shape.mdf?comp=pagelist&prevsnapshot=%s&%s HTTP/1.1\r\n"
           "x-ms-version: 2025-11-05\r\n",
           container_path(&p), s1, sas);
  raw_resp *r = malloc(sizeof *r);
  ASSERT(r != NULL);
  raw(&p, head, NULL, 0, r);
  ASSERT_EQ(r->status, 200);
  const char *want = "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<PageList>"
                     "<PageRange><Start>0</Start><End>511</End></PageRange>"
                     "<ClearRange><Start>512</Start><End>1023</End></ClearRange>"
                     "<PageRange><Start>1024</Start><End>1535</End></PageRange>"
                     "<ClearRange><Start>1536</Start><End>2047</End></ClearRange>"
                     "<PageRange><Start>2048</Start><End>2559</End></PageRange>"
                     "<ClearRange><Start>2560</Start><End>3071</End></ClearRange>"
                     "<PageRange><Start>3072</Start><End>3583</End></PageRange>"
                     "<ClearRange><Start>3584</Start><End>4095</End></ClearRange>"
                     "<NextMarker /></PageList>";
  ASSERT_STR_EQ(r->body, want);
  ASSERT_CONTAINS(r->text, "x-ms-blob-content-length: 4096\r\n");
  ASSERT_CONTAINS(r->text, "ETag: ");
  /* maxresults 3: the first page ends with a marker at the fourth range. */
  snprintf(head, sizeof head,
           "GET %s/shape.mdf?comp=pagelist&prevsnapshot=%s&maxresults=3&%s HTTP/1.1\r\n"
           "x-ms-version: 2025-11-05\r\n",
           container_path(&p), s1, sas);
  raw(&p, head, NULL, 0, r);
  ASSERT_EQ(r->status, 200);
  ASSERT_CONTAINS(r->body, "<PageRange><Start>1024</Start><End>1535</End></PageRange>"
                           "<NextMarker>2!");
  faultproxy_stats st;
  faultproxy_stats_get(p.proxy, &st);
  ASSERT_EQ(st.diffs, 2);
  free(r);
  xio_free(sas);
  xio_blob_target_free(b);
  pfx_teardown(&p);
}

/* Deleting a snapshot keeps the diffs from older ones whole; a diff against a deleted,
 * a newer or an overwritten snapshot gets Azure's error. */
TEST(front_diffs_across_deleted_newer_and_overwritten_snapshots) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  set_profile(&p, "unthrottled", 0, 0);
  xio_error e;
  unsigned char a[512];
  memset(a, 'a', sizeof a);
  xio_blob_target *b = pfx_proxied(&p, "life.mdf", NULL, NULL);
  ASSERT_OK(xio_blob_create(p.fx.engine, b, 8192, NULL, 0, NULL, &e), &e);
  char s0[64], s1[64];
  ASSERT_OK(xio_blob_snapshot(p.fx.engine, b, s0, &e), &e);
  ASSERT_OK(xio_blob_put_page(p.fx.engine, b, 0, a, 512, NULL, &e), &e);
  ASSERT_OK(xio_blob_snapshot(p.fx.engine, b, s1, &e), &e);
  ASSERT_OK(xio_blob_clear(p.fx.engine, b, 512, 512, NULL, &e), &e);
  ASSERT_OK(xio_blob_resize(p.fx.engine, b, 4096, NULL, &e), &e); /* shrink: 4096.. cut */
  xio_ranges w = {0}, c = {0};
  ASSERT_ERR(diff_of(&p, "life.mdf", s0, s1, &w, &c, &e), XIO_EINVAL, &e);
  ASSERT_STR_EQ(e.service_code, "PreviousSnapshotCannotBeNewer");
  /* s1 deleted: what changed after it counts from s0. */
  xio_blob_call *call = NULL;
  ASSERT_OK(xio_blob_call_delete_snapshot(b, s1, NULL, &call, &e), &e);
  ASSERT_OK(xio_blob_send(p.fx.engine, call, &e), &e);
  xio_blob_call_free(call);
  ASSERT_ERR(diff_of(&p, "life.mdf", NULL, s1, &w, &c, &e), XIO_ENOTFOUND, &e);
  ASSERT_STR_EQ(e.service_code, "PreviousSnapshotNotFound");
  ASSERT_OK(diff_of(&p, "life.mdf", NULL, s0, &w, &c, &e), &e);
  ASSERT_EQ(w.n, 1);
  ASSERT_U64_EQ(w.v[0].start, 0);
  ASSERT_U64_EQ(w.v[0].end, 511);
  ASSERT_EQ(c.n, 1); /* the clear; the pages cut off lie past the end */
  ASSERT_U64_EQ(c.v[0].start, 512);
  ASSERT_U64_EQ(c.v[0].end, 1023);
  xio_ranges_clear(&w);
  xio_ranges_clear(&c);
  /* Grown back: the pages the shrink cut off read as zeros again, cleared since s0. */
  ASSERT_OK(xio_blob_resize(p.fx.engine, b, 8192, NULL, &e), &e);
  ASSERT_OK(diff_of(&p, "life.mdf", NULL, s0, &w, &c, &e), &e);
  ASSERT_EQ(c.n, 2);
  ASSERT_U64_EQ(c.v[1].start, 4096);
  ASSERT_U64_EQ(c.v[1].end, 8191);
  xio_ranges_clear(&w);
  xio_ranges_clear(&c);
  /* Put Blob over it: s0 is no base any more. */
  ASSERT_OK(xio_blob_create(p.fx.engine, b, 8192, NULL, 0, NULL, &e), &e);
  ASSERT_ERR(diff_of(&p, "life.mdf", NULL, s0, &w, &c, &e), XIO_ECONFLICT, &e);
  ASSERT_STR_EQ(e.service_code, "BlobOverwritten");
  xio_blob_target_free(b);
  pfx_teardown(&p);
}

/* ------------------------------------------------------ stretch limits ---- */

/* Over the target, every Nth answer is Azure's other throttling answer, 500
 * OperationTimedOut, when the profile asks for it; counted as throttled too. */
TEST(front_answers_operation_timed_out_every_nth_time_over_a_target) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  faultproxy_profile prof;
  char err[512];
  ASSERT_EQ(faultproxy_profile_parse("standard", &prof, err, sizeof err), 0);
  ASSERT_EQ(prof.timeout_every, 0); /* off unless asked for */
  prof.blob_iops = 1.0;
  prof.blob_bps = prof.account_iops = prof.account_bps = 0;
  prof.timeout_every = 2;
  faultproxy_set_profile(p.proxy, &prof);
  raw_resp *r = malloc(sizeof *r);
  char head[1024];
  ASSERT(r != NULL);
  snprintf(head, sizeof head, "HEAD %s/slow.mdf HTTP/1.1\r\n", container_path(&p));
  raw(&p, head, NULL, 0, r);
  ASSERT(r->status != 503 && r->status != 500);
  snprintf(head, sizeof head, "GET %s/slow.mdf HTTP/1.1\r\n", container_path(&p));
  raw(&p, head, NULL, 0, r);
  expect_azure_error(r, 503, "ServerBusy", "The server is busy.");
  raw(&p, head, NULL, 0, r);
  expect_azure_error(r, 500, "OperationTimedOut",
                     "Operation could not be completed within the specified time.");
  raw(&p, head, NULL, 0, r);
  expect_azure_error(r, 503, "ServerBusy", "The server is busy.");
  faultproxy_stats s;
  faultproxy_stats_get(p.proxy, &s);
  ASSERT_EQ(s.throttled, 3);
  free(r);
  pfx_teardown(&p);
}

/* A premium page blob holds at most 100 snapshots: the 101st is refused with 409
 * SnapshotCountExceeded, and deleting one makes room again. Standard has no limit. */
TEST(front_limits_a_premium_blob_to_100_snapshots) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  faultproxy_profile prof;
  char err[512];
  ASSERT_EQ(faultproxy_profile_parse("standard", &prof, err, sizeof err), 0);
  ASSERT_EQ(prof.max_snapshots, 0);
  ASSERT_EQ(faultproxy_profile_parse("premium-p30", &prof, err, sizeof err), 0);
  ASSERT_EQ(prof.max_snapshots, 100);
  prof.blob_iops = prof.blob_bps = prof.account_iops = prof.account_bps = 0;
  faultproxy_set_profile(p.proxy, &prof);
  xio_error e;
  xio_blob_target *b = pfx_proxied(&p, "many.mdf", NULL, NULL);
  ASSERT_OK(xio_blob_create(p.fx.engine, b, 4096, NULL, 0, NULL, &e), &e);
  char id[64], first[64];
  for (int i = 0; i < 100; i++) {
    ASSERT_OK(xio_blob_snapshot(p.fx.engine, b, id, &e), &e);
    if (i == 0) snprintf(first, sizeof first, "%s", id);
  }
  ASSERT_ERR(xio_blob_snapshot(p.fx.engine, b, id, &e), XIO_ECONFLICT, &e);
  ASSERT_STR_EQ(e.service_code, "SnapshotCountExceeded");
  ASSERT_EQ(e.http_status, 409);
  xio_blob_call *call = NULL;
  ASSERT_OK(xio_blob_call_delete_snapshot(b, first, NULL, &call, &e), &e);
  ASSERT_OK(xio_blob_send(p.fx.engine, call, &e), &e);
  xio_blob_call_free(call);
  ASSERT_OK(xio_blob_snapshot(p.fx.engine, b, id, &e), &e);
  faultproxy_stats s;
  faultproxy_stats_get(p.proxy, &s);
  ASSERT_EQ(s.refused, 1);
  xio_blob_target_free(b);
  pfx_teardown(&p);
}
