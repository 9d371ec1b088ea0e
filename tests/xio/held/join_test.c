/*
 * join_test.c - a flush joins held runs a little apart: a transaction that changed
 * every second page of a table is sent as one read of the span (for the bytes between
 * the pages) and one write of it, not as a Put Page per page; runs far apart, or
 * large enough that joining would move more bytes than it saves requests, go one by
 * one; bytes the write queue knows (zeros of a new file) need no read; and a write
 * made into a gap while the span is read makes the runs go one by one, its bytes
 * kept. Counted in storage requests (the trace), checked on storage through a
 * second, read-only open.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "faultproxy.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

#define KIB  1024u
#define MIB  (1024u * 1024u)
#define PAGE (4 * KIB)

/* Creates file `name` of `size` bytes, all `c`, and closes it. */
static void make_file(xfix *fx, const char *name, size_t size, char c) {
  xio_error e;
  xio_file *f = xfix_open(fx, name, XIO_OPEN_CREATE, XIO_KIND_DATA, size);
  char *buf = malloc(size);
  ASSERT(buf != NULL);
  memset(buf, c, size);
  ASSERT_OK(xio_file_write(f, 0, buf, size, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(buf);
}

/* Holds a page of `c` at every second page of [0, pages * PAGE). */
static void hold_every_second_page(xio_file *f, int pages, char c) {
  xio_error e;
  char page[PAGE];
  memset(page, c, sizeof page);
  for (int i = 0; i < pages; i += 2)
    ASSERT_OK(xio_file_hold(f, (uint64_t)i * PAGE, page, sizeof page, &e), &e);
}

/* Asserts that storage holds, page by page over [0, pages * PAGE), `held` at even
 * pages and `other` at odd ones. */
static void storage_alternates(xfix *fx, const char *name, int pages, char held, char other) {
  xio_error e;
  xio_file *r = xfix_open(fx, name, XIO_OPEN_READONLY, XIO_KIND_DATA, 0);
  size_t len = (size_t)pages * PAGE, n = 0;
  char *got = malloc(len);
  ASSERT(got != NULL);
  ASSERT_OK(xio_file_read(r, 0, got, len, &n, &e), &e);
  ASSERT_U64_EQ(n, len);
  for (size_t i = 0; i < len; i++) {
    char want = (i / PAGE) % 2 ? other : held;
    if (got[i] != want) FAIL("byte %zu is 0x%02x, not 0x%02x", i, got[i], want);
  }
  free(got);
  ASSERT_OK(xio_file_close(r, &e), &e);
}

/* 512 pages held at every second page of 4 MiB of existing data: one read of the
 * span and one write, counted as a read-back; the pages between keep their bytes. */
TEST(flush_joins_pages_apart_into_one_read_and_one_write) {
  enum { PAGES = 1024 };
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  make_file(&fx, "join.db", 8 * MIB, 'o');
  xio_file *f = xfix_open(&fx, "join.db", XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA, 0);
  hold_every_second_page(f, PAGES, 'n');
  xio_file_stats before, after;
  xio_file_get_stats(f, &before);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  xio_file_get_stats(f, &after);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_READ), 1);
  ASSERT_U64_EQ(after.readback_requests - before.readback_requests, 1);
  ASSERT_U64_EQ(xio_file_held_bytes(f), 0);
  storage_alternates(&fx, "join.db", PAGES, 'n', 'o');
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

/* On a new file every byte between the pages is known to be zero: one write, no read. */
TEST(flush_joins_pages_over_known_zeros_without_a_read) {
  enum { PAGES = 256 };
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f =
      xfix_open(&fx, "zeros.db", XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA, 2 * MIB);
  hold_every_second_page(f, PAGES, 'n');
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_READ), 0);
  storage_alternates(&fx, "zeros.db", PAGES, 'n', 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

/* Runs further apart than a request's worth of bytes, and runs so large that a read
 * and a write of their span would move more than the requests saved: one by one,
 * nothing read. */
TEST(flush_sends_runs_far_apart_or_large_one_by_one) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  make_file(&fx, "apart.db", 8 * MIB, 'o');
  xio_file *f = xfix_open(&fx, "apart.db", XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA, 0);
  char page[PAGE];
  memset(page, 'n', sizeof page);
  for (int i = 0; i < 3; i++) /* 256 KiB apart */
    ASSERT_OK(xio_file_hold(f, (uint64_t)i * 256 * KIB, page, sizeof page, &e), &e);
  char *big = malloc(MIB);
  ASSERT(big != NULL);
  memset(big, 'b', MIB);
  ASSERT_OK(xio_file_hold(f, 4 * MIB, big, MIB, &e), &e); /* 1 MiB, 64 KiB, 1 MiB */
  ASSERT_OK(xio_file_hold(f, 5 * MIB + 64 * KIB, big, MIB, &e), &e);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 5);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_READ), 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(big);
  xfix_teardown(&fx);
}

typedef struct flusher {
  xio_file *f;
  xio_err rc;
  xio_error e;
  atomic_int done;
} flusher;

static void *flush_main(void *arg) {
  flusher *fl = arg;
  fl->rc = xio_file_flush(fl->f, &fl->e);
  atomic_store(&fl->done, 1);
  return NULL;
}

/* Waits until the proxy holds a request it stalls; fails when the flush ended first. */
static void wait_stalled(faultproxy *p, flusher *fl) {
  struct timespec tick = {0, 2 * 1000 * 1000};
  for (;;) {
    faultproxy_record rec;
    for (int i = 0; faultproxy_record_get(p, i, &rec) == 0; i++)
      if (rec.fault == FAULTPROXY_STALL) return;
    if (atomic_load(&fl->done)) FAIL("the flush ended without reading the span");
    nanosleep(&tick, NULL);
  }
}

/* A write into a gap while the span is being read: the flush cannot trust the read
 * for it, so the held pages go one by one and the write's bytes stay. */
TEST(a_write_into_a_gap_during_the_read_sends_the_pages_one_by_one) {
  enum { PAGES = 16 };
  xfix fx;
  xio_error e;
  faultproxy *proxy = faultproxy_start(test_endpoint());
  ASSERT(proxy != NULL);
  xfix_setup_at(&fx, faultproxy_endpoint(proxy), NULL);
  make_file(&fx, "stale.db", MIB, 'o');
  xio_file *f = xfix_open(&fx, "stale.db", XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA, 0);
  hold_every_second_page(f, PAGES, 'n');
  faultproxy_fault stall;
  memset(&stall, 0, sizeof stall);
  stall.kind = FAULTPROXY_STALL;
  stall.method = "GET";
  stall.match = "stale.db";
  stall.stall_ms = 1500;
  ASSERT(faultproxy_add(proxy, &stall) == 0);
  xfix_trace_reset(&fx);
  flusher fl = {f, XIO_OK, {0}, 0};
  pthread_t t;
  ASSERT(pthread_create(&t, NULL, flush_main, &fl) == 0);
  wait_stalled(proxy, &fl); /* the flush reads the span */
  char page[PAGE];
  memset(page, 'w', sizeof page);
  ASSERT_OK(xio_file_write(f, 5 * PAGE, page, sizeof page, &e), &e); /* into a gap */
  pthread_join(t, NULL);
  ASSERT_OK(fl.rc, &fl.e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_READ), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 1 + PAGES / 2); /* the gap's, then each page */
  xio_file *r = xfix_open(&fx, "stale.db", XIO_OPEN_READONLY, XIO_KIND_DATA, 0);
  char got[PAGE];
  size_t n = 0;
  ASSERT_OK(xio_file_read(r, 5 * PAGE, got, sizeof got, &n, &e), &e);
  ASSERT_MEM_EQ(got, page, sizeof page);
  ASSERT_OK(xio_file_read(r, 4 * PAGE, got, sizeof got, &n, &e), &e);
  for (size_t i = 0; i < sizeof got; i++)
    if (got[i] != 'n') FAIL("byte %zu of the held page 4 is 0x%02x", i, got[i]);
  ASSERT_OK(xio_file_close(r, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
  faultproxy_free(proxy);
}
