/*
 * readahead_tls_test.c - HTTPS reads of every size against the emulator, with the
 * TLS connections reading ahead (many records per read from the socket): each one
 * finishes in its first try, with the right bytes. A response whose last records
 * were already taken off the socket into the connection's buffer, were they left
 * waiting for the socket to say more, would only end at the try's timeout and be
 * retried; the tries are counted, not timed. Every connection reads ahead, and a 4 MiB read shows
 * the engine driving such transfers on.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "blob_sync_test_util.h"
#include "test.h"
#include "tls_int.h"
#include "tlsfix.h"
#include "util.h"

#define KiB       1024u
#define MiB       (1024u * KiB)
#define BLOB_SIZE (8 * MiB)
#define NSMALL    128
#define NBATCH    16
/* A read left waiting fails its first try after TRY_MS; a loaded machine's slow try
 * must not, so it is far longer than any try takes. */
#define TRY_MS 10000

typedef struct fixture {
  tls_engine t;
  xio_blob_target *blob;
  unsigned char *data; /* the blob's bytes */
} fixture;

/* A BLOB_SIZE page blob of random bytes in a fresh container, on an engine that
 * times a try out after TRY_MS and retries once. */
static void setup(fixture *f) {
  xio_error e;
  tls_engine_setup_tries(&f->t, tls_ca_file(), TRY_MS, 1);
  f->blob = tls_new_blob(&f->t, "readahead.mdf", BLOB_SIZE);
  f->data = malloc(BLOB_SIZE);
  ASSERT(f->data != NULL);
  test_fill_random(f->data, BLOB_SIZE, 11);
  for (size_t off = 0; off < BLOB_SIZE; off += 4 * MiB)
    ASSERT_OK(xio_blob_put_page(f->t.engine, f->blob, off, f->data + off, 4 * MiB, NULL, &e), &e);
}

static void teardown(fixture *f) {
  xio_blob_target_free(f->blob);
  free(f->data);
  tls_engine_teardown(&f->t);
}

/* Checks a finished read of [off, off+len) into `buf`: done, first try, right bytes. */
static void check_read(fixture *f, xio_blob_call *c, const unsigned char *buf, size_t off,
                       size_t len) {
  xio_error e;
  ASSERT_OK(xio_blob_call_result(c, &e), &e);
  if (xio_blob_call_retries(c) != 0)
    FAIL("a read of %zu bytes at %zu was sent %d more time(s)", len, off, xio_blob_call_retries(c));
  ASSERT_MEM_EQ(buf, f->data + off, len);
}

/* Reads [off, off+len) through the engine and checks it. */
static void read_once(fixture *f, size_t off, size_t len) {
  xio_error e;
  xio_blob_call *c = NULL;
  unsigned char *buf = malloc(len);
  ASSERT(buf != NULL);
  memset(buf, 0xA5, len);
  ASSERT_OK(xio_blob_call_read(f->blob, off, buf, len, NULL, &c, &e), &e);
  ASSERT_OK(xio_blob_send(f->t.engine, c, &e), &e);
  check_read(f, c, buf, off, len);
  xio_blob_call_free(c);
  free(buf);
}

static xio__blob_tls_counts counts(fixture *f) {
  xio__blob_tls_counts n;
  xio__blob_engine_tls_counts(f->t.engine, &n);
  return n;
}

/* Every TLS connection the engine made reads ahead, where the running libcurl gets
 * the read-ahead; none does where it does not (tls_rewired). */
static void check_buffered(fixture *f) {
  xio__blob_tls_counts n = counts(f);
  if (n.contexts < 1) FAIL("no TLS connection counted");
  unsigned long want = tls_rewired() ? n.contexts : 0;
  if (n.read_buffers != want)
    FAIL("%lu of %lu TLS connections read ahead, wanted %lu", n.read_buffers, n.contexts, want);
}

TEST(tls_reads_of_every_size_finish_in_one_try) {
  static const size_t reads[][2] = {
      {0, 1},         {4095, 1},         {3, 511},           {5, 16 * KiB - 1},
      {0, 16 * KiB},  {7, 16 * KiB + 1}, {12345, 100 * KiB}, {1, 4 * MiB},
      {0, BLOB_SIZE}, {BLOB_SIZE - 1, 1}};
  fixture f;
  setup(&f);
  int before = tls_tries_made(&f.t);
  for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++)
    read_once(&f, reads[i][0], reads[i][1]);
  ASSERT_EQ(tls_tries_made(&f.t) - before, (int)(sizeof reads / sizeof reads[0]));
  teardown(&f);
}

TEST(tls_small_reads_back_to_back_finish_in_one_try) {
  fixture f;
  setup(&f);
  int before = tls_tries_made(&f.t);
  /* Every fourth under 512 bytes, the others up to 48 KiB: one to four records. */
  for (size_t i = 0; i < NSMALL; i++)
    read_once(&f, i * 4099 % (BLOB_SIZE - 48 * KiB),
              i % 4 == 0 ? 1 + i * 37 % 511 : 1 + i * 7919 % (48 * KiB));
  ASSERT_EQ(tls_tries_made(&f.t) - before, NSMALL);
  teardown(&f);
}

/* Reads in flight at once, on as many connections: each has records of its own
 * waiting in its buffer while the engine serves the others. */
TEST(tls_reads_at_once_finish_in_one_try) {
  fixture f;
  xio_error e;
  xio_blob_call *calls[NBATCH];
  tls_batch b = TLS_BATCH_INIT;
  setup(&f);
  int before = tls_tries_made(&f.t);
  unsigned char *bufs = malloc((size_t)NBATCH * 300 * KiB);
  ASSERT(bufs != NULL);
  for (int i = 0; i < NBATCH; i++) {
    size_t len = 1 + (size_t)i * 19 * KiB; /* 1 byte to 286 KiB */
    ASSERT_OK(xio_blob_call_read(f.blob, (size_t)i * 257 * KiB, bufs + (size_t)i * 300 * KiB, len,
                                 NULL, &calls[i], &e),
              &e);
  }
  for (int i = 0; i < NBATCH; i++)
    xio_blob_submit(f.t.engine, calls[i], tls_batch_done, &b);
  tls_batch_wait(&b, NBATCH);
  for (int i = 0; i < NBATCH; i++) {
    check_read(&f, calls[i], bufs + (size_t)i * 300 * KiB, (size_t)i * 257 * KiB,
               1 + (size_t)i * 19 * KiB);
    xio_blob_call_free(calls[i]);
  }
  ASSERT_EQ(tls_tries_made(&f.t) - before, NBATCH);
  check_buffered(&f);
  free(bufs);
  teardown(&f);
}

/* One read from the socket takes many records of a long response: libcurl would
 * wait in poll with them in the connection's buffer, had the engine not driven
 * the transfer on. */
TEST(tls_long_read_is_driven_on_from_the_buffer) {
  tls_require_rewired();
  fixture f;
  setup(&f);
  unsigned long first = counts(&f).redrives;
  read_once(&f, 0, 4 * MiB);
  if (counts(&f).redrives == first) FAIL("a 4 MiB read was never driven on from its buffer");
  check_buffered(&f);
  teardown(&f);
}
