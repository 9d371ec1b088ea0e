/*
 * lease_test.c - the file layer tells when a file's lease is known lost
 * (xio_file_lease_lost): the lease clock ran past it, as in a paused process, or
 * the service refused a request carrying it.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <xio/xio.h>

#include "sqfix.h"
#include "test.h"

/* A lease clock the test moves ahead. */
static _Atomic int64_t clock_us = 1000000000;

static int64_t test_now(void *ud) {
  (void)ud;
  return atomic_load(&clock_us);
}

TEST(lease_lost_is_known_to_the_file_layer) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512];
  sqfix_url(&fx, "paused.bin", url, sizeof url);
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_clock.now_us = test_now;
  xio_ctx *c = NULL, *other = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &c, &e), &e);
  o = xio_ctx_options_default();
  ASSERT_OK(xio_ctx_new(&o, &other, &e), &e);
  xio_open_options fo = xio_open_options_default();
  fo.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  fo.size = 4096;
  xio_file *f = NULL, *ro = NULL;
  ASSERT_OK(xio_file_open(c, url, &fo, &f, &e), &e);
  fo.flags = XIO_OPEN_READONLY;
  ASSERT_OK(xio_file_open(other, url, &fo, &ro, &e), &e);
  ASSERT_EQ(xio_file_lease_lost(f), 0);
  ASSERT_EQ(xio_file_lease_lost(ro), 0); /* no lease to lose */
  /* Paused past the lease's 60 s: lost at once, without a request, and for good. */
  atomic_fetch_add(&clock_us, 61 * 1000000ll);
  ASSERT_EQ(xio_file_lease_lost(f), 1);
  unsigned char buf[512] = {0};
  ASSERT_ERR(xio_file_write(f, 0, buf, sizeof buf, &e), XIO_ELEASELOST, &e);
  ASSERT_EQ(xio_file_lease_lost(f), 1);
  xio_file_close(f, NULL);
  xio_file_close(ro, NULL);
  xio_ctx_free(c);
  xio_ctx_free(other);
}

TEST(lease_taken_over_is_known_at_the_next_refused_request) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512];
  sqfix_url(&fx, "taken.bin", url, sizeof url);
  xio_ctx_options o = xio_ctx_options_default();
  xio_ctx *c = NULL, *other = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &c, &e), &e);
  ASSERT_OK(xio_ctx_new(&o, &other, &e), &e);
  xio_open_options fo = xio_open_options_default();
  fo.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  fo.size = 4096;
  xio_file *f = NULL, *thief = NULL;
  ASSERT_OK(xio_file_open(c, url, &fo, &f, &e), &e);
  fo.flags = XIO_OPEN_EXCLUSIVE | XIO_OPEN_BREAK_LEASE;
  ASSERT_OK(xio_file_open(other, url, &fo, &thief, &e), &e);
  ASSERT_EQ(xio_file_lease_lost(f), 0); /* nothing has told it yet */
  unsigned char buf[512] = {0};
  ASSERT_ERR(xio_file_write(f, 0, buf, sizeof buf, &e), XIO_ELEASELOST, &e);
  ASSERT_EQ(xio_file_lease_lost(f), 1);
  ASSERT_EQ(xio_file_lease_lost(thief), 0);
  xio_file_close(f, NULL);
  xio_file_close(thief, NULL);
  xio_ctx_free(c);
  xio_ctx_free(other);
}
