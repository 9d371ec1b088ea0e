/*
 * diff_test.c - xio_file_ranges_diff against the faithful emulator (Azurite behind
 * the fidelity front, which answers Get Page Ranges with prevsnapshot): the ranges
 * written and cleared since a snapshot, after a random sequence of writes, clears,
 * shrinks and growths, equal to what an independent per-page model of those
 * operations predicts, to the blob and to a later snapshot; a long diff followed
 * over its pages; and the errors (no snapshot id, an unknown one, a local file).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faultproxy.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

#define PAGE     512u
#define MAXPAGES 768u

/* What changed of each page since one snapshot: 0 nothing, 'W' written, 'C' cleared
 * (by a clear, or cut off by a shrink). */
typedef struct model {
  char st[MAXPAGES];
} model;

static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* The ranges of pages in state `want` below `pages`, merged, as xio_ranges. */
static void expected(const model *m, uint64_t pages, char want, xio_ranges *out) {
  for (uint64_t p = 0; p < pages;) {
    if (m->st[p] != want) {
      p++;
      continue;
    }
    uint64_t q = p;
    while (q < pages && m->st[q] == want)
      q++;
    ASSERT_EQ(xio_ranges_add(out, p * PAGE, q * PAGE - 1), XIO_OK);
    p = q;
  }
}

static void same_ranges(const xio_ranges *got, const xio_ranges *want, const char *what) {
  if (got->n != want->n) fprintf(stderr, "%s: %zu ranges, expected %zu\n", what, got->n, want->n);
  ASSERT_EQ(got->n, want->n);
  for (size_t i = 0; i < got->n; i++) {
    ASSERT_U64_EQ(got->v[i].start, want->v[i].start);
    ASSERT_U64_EQ(got->v[i].end, want->v[i].end);
  }
}

/* Checks the diff of `f` against `since` with the model of the changes since then,
 * in one Get Page Ranges request. */
static void check_diff(xfix *fx, xio_file *f, const char *since, const model *m, uint64_t pages) {
  xio_error e;
  xio_ranges w = {NULL, 0, 0}, c = {NULL, 0, 0}, ew = {NULL, 0, 0}, ec = {NULL, 0, 0};
  xfix_trace_reset(fx);
  ASSERT_OK(xio_file_ranges_diff(f, since, &w, &c, &e), &e);
  ASSERT_EQ(xfix_count(fx, XIO_REQ_RANGES), 1);
  expected(m, pages, 'W', &ew);
  expected(m, pages, 'C', &ec);
  same_ranges(&w, &ew, "written");
  same_ranges(&c, &ec, "cleared");
  xio_ranges_clear(&w);
  xio_ranges_clear(&c);
  xio_ranges_clear(&ew);
  xio_ranges_clear(&ec);
}

static void mark(model *ms, int nm, uint64_t from, uint64_t to, char st) {
  for (int k = 0; k < nm; k++)
    for (uint64_t p = from; p < to; p++)
      ms[k].st[p] = st;
}

/* One random operation on `f` and on every model in `ms`; `*pages` is the size. */
static void random_op(xio_file *f, uint64_t *seed, model *ms, int nm, uint64_t *pages) {
  static char buf[8 * PAGE];
  xio_error e;
  uint64_t r = rnd(seed) % 10, a = rnd(seed) % *pages, n = 1 + rnd(seed) % 8;
  if (a + n > *pages) n = *pages - a;
  if (r < 5) {
    test_fill_random(buf, n * PAGE, rnd(seed));
    ASSERT_OK(xio_file_write(f, a * PAGE, buf, n * PAGE, &e), &e);
    mark(ms, nm, a, a + n, 'W');
  } else if (r < 7) {
    ASSERT_OK(xio_file_zero(f, a * PAGE, n * PAGE, XIO_INIT_CLEAR, &e), &e);
    mark(ms, nm, a, a + n, 'C');
  } else if (r < 9 || *pages + 64 > MAXPAGES) {
    uint64_t to = *pages - 1 - rnd(seed) % 48;
    if (to < 64) to = 64;
    ASSERT_OK(xio_file_set_size(f, to * PAGE, XIO_INIT_NONE, &e), &e);
    mark(ms, nm, to, *pages, 'C');
    *pages = to;
  } else {
    uint64_t to = *pages + 1 + rnd(seed) % 64;
    ASSERT_OK(xio_file_set_size(f, to * PAGE, XIO_INIT_NONE, &e), &e);
    *pages = to;
  }
}

/* Writes, clears, shrinks and growths in a random order (fixed seed) after snapshot
 * s0, with s1 and s2 taken on the way: the diffs s0..blob, s1..blob and s0..s2 (on
 * the snapshot opened by URL) each match the model kept since that snapshot. */
TEST(diff_matches_a_model_of_writes_clears_shrinks_and_growths) {
  xfix fx;
  xio_error e;
  char url[1024], s0[64], s1[64], s2[64], snap_url[1200];
  model since0, since1, at2;
  uint64_t pages = 512, seed = 0x5eed2026, pages_at2 = 0;
  memset(&since0, 0, sizeof since0);
  memset(&since1, 0, sizeof since1);
  xfix_setup(&fx, 0, NULL);
  xfix_target(&fx, "diff.mdf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_DATA, pages * PAGE);
  static char first[64 * PAGE];
  test_fill_random(first, sizeof first, 7);
  ASSERT_OK(xio_file_write(f, 0, first, sizeof first, &e), &e);
  ASSERT_OK(xio_file_snapshot(f, s0, sizeof s0, &e), &e);
  model both[2];
  for (int i = 0; i < 90; i++) {
    if (i == 30) ASSERT_OK(xio_file_snapshot(f, s1, sizeof s1, &e), &e);
    if (i == 60) {
      ASSERT_OK(xio_file_snapshot(f, s2, sizeof s2, &e), &e);
      at2 = since0;
      pages_at2 = pages;
    }
    both[0] = since0;
    both[1] = since1;
    random_op(f, &seed, both, i >= 30 ? 2 : 1, &pages);
    since0 = both[0];
    if (i >= 30) since1 = both[1];
  }
  ASSERT_U64_EQ(xio_file_size(f), pages * PAGE);
  check_diff(&fx, f, s0, &since0, pages);
  check_diff(&fx, f, s1, &since1, pages);
  snprintf(snap_url, sizeof snap_url, "%s?snapshot=%s", url, s2);
  xio_file *g = xfix_open_url(&fx, snap_url, XIO_OPEN_READONLY, XIO_KIND_DATA, 0);
  check_diff(&fx, g, s0, &at2, pages_at2);
  ASSERT_OK(xio_file_close(g, &e), &e);
  /* The same snapshot on both sides: nothing changed. */
  model none;
  memset(&none, 0, sizeof none);
  g = xfix_open_url(&fx, snap_url, XIO_OPEN_READONLY, XIO_KIND_DATA, 0);
  check_diff(&fx, g, s2, &none, pages_at2);
  ASSERT_OK(xio_file_close(g, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

/* A diff longer than a page of the listing is followed over its NextMarkers: with
 * 10 ranges a page, 45 alternating written and cleared ranges take 5 requests. */
TEST(long_diff_is_followed_over_its_pages) {
  faultproxy *proxy = faultproxy_start(test_endpoint());
  ASSERT(proxy != NULL);
  faultproxy_profile prof;
  char perr[512];
  ASSERT_EQ(faultproxy_profile_parse("unthrottled", &prof, perr, sizeof perr), 0);
  prof.page_list_size = 10;
  faultproxy_set_profile(proxy, &prof);
  xfix fx;
  xio_error e;
  char url[1024], s0[64];
  xfix_setup_at(&fx, faultproxy_endpoint(proxy), NULL);
  xfix_target(&fx, "long.mdf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_DATA, 64 * PAGE);
  ASSERT_OK(xio_file_snapshot(f, s0, sizeof s0, &e), &e);
  static char buf[PAGE];
  memset(buf, 0x3C, sizeof buf);
  for (uint64_t p = 0; p < 45; p++) {
    if (p % 2 == 0) ASSERT_OK(xio_file_write(f, p * PAGE, buf, PAGE, &e), &e);
    if (p % 2 == 1) ASSERT_OK(xio_file_zero(f, p * PAGE, PAGE, XIO_INIT_CLEAR, &e), &e);
  }
  xio_ranges w = {NULL, 0, 0}, c = {NULL, 0, 0};
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_ranges_diff(f, s0, &w, &c, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_RANGES), 5);
  ASSERT_EQ(w.n, 23);
  ASSERT_EQ(c.n, 22);
  for (size_t i = 0; i < w.n; i++)
    ASSERT_U64_EQ(w.v[i].start, 2 * i * PAGE);
  for (size_t i = 0; i < c.n; i++)
    ASSERT_U64_EQ(c.v[i].start, (2 * i + 1) * PAGE);
  faultproxy_stats st;
  faultproxy_stats_get(proxy, &st);
  ASSERT_EQ(st.diffs, 5); /* each page answered by the front */
  /* Without a list for the cleared ranges, only the written ones come back. */
  xio_ranges w2 = {NULL, 0, 0};
  ASSERT_OK(xio_file_ranges_diff(f, s0, &w2, NULL, &e), &e);
  ASSERT_EQ(w2.n, 23);
  xio_ranges_clear(&w);
  xio_ranges_clear(&w2);
  xio_ranges_clear(&c);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
  faultproxy_free(proxy);
}

/* No snapshot id, one that does not exist, a blob replaced since, and a local file:
 * each a clear error. */
TEST(diff_errors_name_the_problem) {
  xfix fx, lfx;
  xio_error e;
  char url[1024], s0[64], path[1024];
  xio_ranges w = {NULL, 0, 0};
  xfix_setup(&fx, 0, NULL);
  xfix_target(&fx, "err.mdf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_DATA, 16 * PAGE);
  ASSERT_ERR(xio_file_ranges_diff(f, "", &w, NULL, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "snapshot");
  ASSERT_ERR(xio_file_ranges_diff(f, NULL, &w, NULL, &e), XIO_EINVAL, &e);
  xfix_trace_reset(&fx);
  ASSERT_ERR(xio_file_ranges_diff(f, "2099-01-01T00:00:00.0000000Z", &w, NULL, &e), XIO_ENOTFOUND,
             &e);
  ASSERT_STR_EQ(e.service_code, "PreviousSnapshotNotFound");
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_RANGES), 1);
  ASSERT_ERR(xio_file_ranges_diff(f, "yesterday", &w, NULL, &e), XIO_EINVAL, &e);
  ASSERT_STR_EQ(e.service_code, "InvalidQueryParameterValue");
  /* A snapshot older than the emulator's front: it cannot know, and says so. */
  ASSERT_ERR(xio_file_ranges_diff(f, "2001-01-01T00:00:00.0000000Z", &w, NULL, &e),
             XIO_EUNSUPPORTED, &e);
  ASSERT_CONTAINS(e.message, "did not see snapshot");
  ASSERT_OK(xio_file_snapshot(f, s0, sizeof s0, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  /* Replaced by a new blob of the same name (Put Blob): the snapshot is no base. */
  ASSERT_OK(xio_file_delete(fx.ctx, url, &e), &e);
  f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_DATA, 16 * PAGE);
  ASSERT_ERR(xio_file_ranges_diff(f, s0, &w, NULL, &e), XIO_ENOTFOUND, &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);

  xfix_setup(&lfx, 1, NULL);
  xfix_target(&lfx, "local.mdf", path, sizeof path);
  f = xfix_open_url(&lfx, path, XIO_OPEN_CREATE, XIO_KIND_DATA, 16 * PAGE);
  ASSERT_ERR(xio_file_ranges_diff(f, "2026-01-01T00:00:00.0000000Z", &w, NULL, &e),
             XIO_EUNSUPPORTED, &e);
  ASSERT_CONTAINS(e.message, "local files keep no snapshots to diff against");
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&lfx);
  ASSERT_EQ(w.n, 0);
}
