/*
 * rcvlowat_test.c - plain HTTP reads taken in batches (blobio/rcvlowat.c) against
 * the emulator. A read of a blob made of a thousand isolated pages is a body the
 * emulator sends in about as many small writes; it must reach the client in a few
 * dozen pieces, not hundreds, with the right bytes. And the connection must come
 * back with its low-water mark at 1: the next, short response on it finishes in
 * its first try (a mark left high would hold it back until the try timed out).
 * Pieces and tries are counted, not timed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "rcvlowat_int.h"
#include "fixture.h"
#include "test.h"
#include "util.h"

#define KiB       1024u
#define MiB       (1024u * KiB)
#define BLOB_SIZE (2 * MiB)
#define PAGES     (BLOB_SIZE / (2 * KiB)) /* one 512-byte page in every 2 KiB */
#define TRY_MS    3000                    /* a response held back fails its try this soon */

static xio__blob_socks_counts counts(fixture *fx) {
  xio__blob_socks_counts n;
  xio__blob_engine_socks_counts(fx->engine, &n);
  return n;
}

/* Reads [off, off+len) in one call: done in its first try, the bytes of `want`. */
static void read_check(fixture *fx, xio_blob_target *b, size_t off, size_t len,
                       const unsigned char *want) {
  xio_error e;
  xio_blob_call *c = NULL;
  unsigned char *buf = malloc(len);
  ASSERT(buf != NULL);
  memset(buf, 0xA5, len);
  ASSERT_OK(xio_blob_call_read(b, off, buf, len, NULL, &c, &e), &e);
  ASSERT_OK(xio_blob_send(fx->engine, c, &e), &e);
  ASSERT_OK(xio_blob_call_result(c, &e), &e);
  if (xio_blob_call_retries(c) != 0)
    FAIL("a read of %zu bytes at %zu was sent %d more time(s)", len, off, xio_blob_call_retries(c));
  ASSERT_MEM_EQ(buf, want + off, len);
  xio_blob_call_free(c);
  free(buf);
}

TEST(plain_http_read_of_scattered_pages_arrives_in_batches) {
  fixture fx;
  xio_error e;
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.retry.try_timeout_ms = TRY_MS;
  o.retry.max_retries = 1;
  fixture_setup(&fx, &o);
  if (strncmp(fx.container_url, "http://", 7) != 0)
    FAIL("this test needs the emulator over plain HTTP, not %s", fx.container_url);
  xio_blob_target *b = fixture_page_blob(&fx, "scattered.mdf", BLOB_SIZE);
  unsigned char *want = calloc(1, BLOB_SIZE);
  ASSERT(want != NULL);
  for (size_t i = 0; i < PAGES; i++) {
    size_t off = i * 2 * KiB;
    test_fill_random(want + off, 512, (unsigned)i + 1);
    ASSERT_OK(xio_blob_put_page(fx.engine, b, off, want + off, 512, NULL, &e), &e);
  }
  xio__blob_socks_counts before = counts(&fx);
  read_check(&fx, b, 0, BLOB_SIZE, want);
  xio__blob_socks_counts after = counts(&fx);
  unsigned long reads = after.short_pieces - before.short_pieces;
  if (reads > 64)
    FAIL("2 MiB of %u scattered pages took %lu reads from the socket (at most 64 expected)",
         (unsigned)PAGES, reads);
  ASSERT(after.raised - before.raised >= 1);
  ASSERT_EQ((int)(after.restored - before.restored), (int)(after.raised - before.raised));
  /* Short responses on the same connection after the batched one. */
  for (size_t i = 0; i < 8; i++)
    read_check(&fx, b, i * 2 * KiB + 3, 100, want);
  read_check(&fx, b, 0, BLOB_SIZE, want);
  after = counts(&fx);
  ASSERT_EQ((int)after.restored, (int)after.raised);
  free(want);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}
