/*
 * throttle_test.c - transfers through a throttle they were not told about: Azurite
 * behind the fault proxy's front (in this process) with per-blob limits far below
 * a standard blob's targets, token buckets holding one second of the limit or
 * three, and 503 ServerBusy with no retry hint over them. `xio put`, `xio get`
 * (pacing on, as against Azure) and 8 KiB random writes on the file API, 32 in
 * flight, start from the documented targets and must learn the limit from the
 * refusals: each must finish with the right bytes. The random writes make hundreds
 * of tries, so their refusals are asserted too: once past their first seconds at
 * most 5% of their tries are refused, by the front's own count of each second. A
 * put or get makes one or two tries a second, so a refusal the machine's load
 * causes (a stalled process sending late, then two at once) weighs 10% there; for
 * them the refusals and the rate are printed (the front's seconds, the share of the
 * limit), and measured in docs/benchmarks/throttling.md, as is every rate: it
 * depends on the machine keeping up with the emulator.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clirun.h"
#include "faultproxy.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

#define MiB      (1024ull * 1024)
#define SETTLE_S 8 /* the first seconds of a transfer, while the pacer learns the limit */

/* A throttling front in front of the emulator. */
typedef struct throttle {
  faultproxy *proxy;
  double rps, bps; /* its per-blob limits */
  char conn[1100]; /* AZURE_STORAGE_CONNECTION_STRING=... through it */
} throttle;

/* Starts a front that lets each blob have `rps` requests and `mibps` MiB per second,
 * its buckets holding `burst_s` seconds of them. */
static void throttle_start(throttle *t, double rps, double mibps, double burst_s) {
  memset(t, 0, sizeof *t);
  t->proxy = faultproxy_start(test_endpoint());
  if (!t->proxy) FAIL("cannot start the fault proxy in front of %s", test_endpoint());
  faultproxy_profile prof;
  char err[512];
  ASSERT_EQ(faultproxy_profile_parse("unthrottled", &prof, err, sizeof err), 0);
  prof.blob_iops = t->rps = rps;
  prof.blob_bps = t->bps = mibps * MiB;
  prof.burst_s = burst_s;
  faultproxy_set_profile(t->proxy, &prof);
  char cs[1024];
  test_dev_connection_string_at(faultproxy_endpoint(t->proxy), cs, sizeof cs);
  snprintf(t->conn, sizeof t->conn, "AZURE_STORAGE_CONNECTION_STRING=%s", cs);
}

/* `out` = the URL of `blob` in `container` through the front. */
static void throttle_url(const throttle *t, const char *container, const char *blob, char *out,
                         size_t size) {
  snprintf(out, size, "%s/devstoreaccount1/%s/%s", faultproxy_endpoint(t->proxy), container, blob);
}

/* Runs xio with --pacing on through the front. */
#define XIO_THROTTLED(t, r, ...)                                                                   \
  XIO_ENV((r), CLIRUN_NO_CREDS, ((const char *const[]){(t)->conn, NULL}), "--pacing", "on",        \
          __VA_ARGS__)

/* Prints what the front counted in each second from the first request it saw to the
 * last, and past the first SETTLE_S (the last, partial one left out) the tries, the
 * refused ones and the share of the limit the transfer reached (`per_request`: the
 * limit that binds is the request rate, else the byte rate). With `strict`, at most
 * 5% of those tries may have been refused. */
static void report_settled(throttle *t, const char *what, int per_request, int strict) {
  static faultproxy_second s[FAULTPROXY_TIMELINE_S];
  size_t n = faultproxy_timeline(t->proxy, s, FAULTPROXY_TIMELINE_S);
  size_t first = 0, last = 0;
  while (first < n && !s[first].accepted && !s[first].throttled)
    first++;
  for (size_t i = first; i < n; i++)
    if (s[i].accepted || s[i].throttled) last = i;
  printf("%s, the front's seconds (accepted/MiB/refused):", what);
  for (size_t i = first; i <= last && i < n; i++)
    printf("%s %u/%.1f/%u", (i - first) % 10 ? "" : "\n ", s[i].accepted, (double)s[i].bytes / MiB,
           s[i].throttled);
  printf("\n");
  uint64_t tries = 0, refused = 0, taken = 0;
  double bytes = 0;
  for (size_t i = first + SETTLE_S; i < last; i++) {
    tries += s[i].accepted + s[i].throttled;
    refused += s[i].throttled;
    taken += s[i].accepted;
    bytes += (double)s[i].bytes;
  }
  double secs = last > first + SETTLE_S ? (double)(last - first - SETTLE_S) : 1.0;
  double share = per_request ? (double)taken / secs / t->rps : bytes / secs / t->bps;
  printf("%s past its first %d s: %llu tries, %llu refused (%.1f%%), %.0f%% of the limit\n", what,
         SETTLE_S, (unsigned long long)tries, (unsigned long long)refused,
         tries ? 100.0 * (double)refused / (double)tries : 0.0, 100 * share);
  if (!strict) return;
  if (tries < 100)
    FAIL("%s made %llu tries past its first %d s: too few to judge", what,
         (unsigned long long)tries, SETTLE_S);
  if (refused * 20 > tries)
    FAIL("%s: %llu of %llu tries refused past the first %d s, over 5%%", what,
         (unsigned long long)refused, (unsigned long long)tries, SETTLE_S);
}

/* ------------------------------------------------------------- put, get ---- */

/* Puts a 64 MiB file through a front of 50 requests/s and 4 MiB/s per blob. */
static void put_through(double burst_s) {
  throttle t;
  throttle_start(&t, 50, 4, burst_s);
  char src[512], back[512], container[64], url[1024], direct[1024];
  clirun_path("put.mdf", src, sizeof src);
  clirun_path("back.mdf", back, sizeof back);
  clirun_make_source(src, 64 * MiB, 38);
  clirun_container(container, sizeof container);
  throttle_url(&t, container, "put.mdf", url, sizeof url);
  clirun r = {0};
  XIO_THROTTLED(&t, &r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  report_settled(&t, "put", 0, 0);
  clirun_url(container, "put.mdf", direct, sizeof direct); /* read back around the front */
  XIO(&r, "get", direct, back);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, back);
  clirun_free(&r);
  faultproxy_free(t.proxy);
}

TEST(put_learns_a_limit_with_a_one_second_burst) { put_through(1); }

TEST(put_learns_a_limit_with_a_three_second_burst) { put_through(3); }

/* Gets a 128 MiB file (put around the front) through a front of 50 requests/s and
 * 8 MiB/s per blob. */
static void get_through(double burst_s) {
  throttle t;
  throttle_start(&t, 50, 8, burst_s);
  char src[512], got[512], container[64], url[1024], direct[1024];
  clirun_path("get.mdf", src, sizeof src);
  clirun_path("got.mdf", got, sizeof got);
  clirun_make_source(src, 128 * MiB, 39);
  clirun_container(container, sizeof container);
  clirun_url(container, "get.mdf", direct, sizeof direct);
  clirun r = {0};
  XIO(&r, "put", src, direct);
  EXPECT_EXIT(&r, 0);
  throttle_url(&t, container, "get.mdf", url, sizeof url);
  XIO_THROTTLED(&t, &r, "get", url, got);
  EXPECT_EXIT(&r, 0);
  report_settled(&t, "get", 0, 0);
  clirun_expect_same_files(src, got);
  clirun_free(&r);
  faultproxy_free(t.proxy);
}

TEST(get_learns_a_limit_with_a_one_second_burst) { get_through(1); }

TEST(get_learns_a_limit_with_a_three_second_burst) { get_through(3); }

/* ---------------------------------------------------------- random writes ---- */

#define DEPTH  32
#define WRITES 400
#define PAGE   8192
#define SPAN   (4 * MiB)

/* 400 writes of 8 KiB at random 8 KiB offsets of a 4 MiB blob, 32 in flight (never
 * two on one page at once), through a front of 16 requests/s per blob; then reads
 * the blob back around the front: every page holds its last write. */
static void random_writes_through(double burst_s) {
  throttle t;
  throttle_start(&t, 16, 6, burst_s);
  xio_ctx_options o = xio_ctx_options_default();
  o.pacing = XIO_PACING_ON;
  xfix fx, direct;
  xfix_setup_at(&fx, faultproxy_endpoint(t.proxy), &o);
  char url[1024], back[1200];
  xfix_target(&fx, "random.mdf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_DATA, SPAN);
  static unsigned char bufs[DEPTH][PAGE], want[SPAN], got[SPAN];
  static xio_io io[DEPTH];
  static int busy[SPAN / PAGE]; /* the slot + 1 of the write in flight on a page */
  int page_of[DEPTH];
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  xio_error e;
  for (int k = 0; k < WRITES + DEPTH; k++) {
    int slot = k % DEPTH;
    xio_io *w = &io[slot];
    if (k >= DEPTH) {
      ASSERT_OK(xio_io_wait(w), &w->error);
      busy[page_of[slot]] = 0;
    }
    if (k >= WRITES) continue;
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    int page = (int)((rng >> 20) % (SPAN / PAGE));
    while (busy[page])
      page = (page + 1) % (int)(SPAN / PAGE);
    busy[page] = slot + 1;
    page_of[slot] = page;
    test_fill_random(bufs[slot], PAGE, (uint64_t)k + 1);
    memcpy(want + (size_t)page * PAGE, bufs[slot], PAGE);
    memset(w, 0, sizeof *w);
    w->op = XIO_IO_WRITE;
    w->offset = (uint64_t)page * PAGE;
    w->length = PAGE;
    w->buf = bufs[slot];
    ASSERT_OK(xio_file_submit(f, w, &e), &e);
  }
  ASSERT_OK(xio_file_close(f, &e), &e);
  report_settled(&t, "8 KiB random writes", 1, 1);
  /* The same blob, read around the front. */
  xfix_setup(&direct, 0, NULL);
  snprintf(back, sizeof back, "%s%s", test_endpoint(), url + strlen(faultproxy_endpoint(t.proxy)));
  f = xfix_open_url(&direct, back, XIO_OPEN_READONLY, XIO_KIND_DATA, 0);
  size_t n = 0;
  ASSERT_OK(xio_file_read(f, 0, got, SPAN, &n, &e), &e);
  ASSERT_U64_EQ(n, SPAN);
  ASSERT(memcmp(got, want, SPAN) == 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&direct);
  xfix_teardown(&fx);
  faultproxy_free(t.proxy);
}

TEST(random_writes_learn_a_limit_with_a_one_second_burst) { random_writes_through(1); }

TEST(random_writes_learn_a_limit_with_a_three_second_burst) { random_writes_through(3); }
