/*
 * rcvlowat_test.c - plain HTTP reads taken in batches (blobio/rcvlowat.c) against
 * the emulator. A read of a blob made of a thousand isolated pages is a body the
 * emulator sends in about as many small writes; it must reach the client in a few
 * dozen pieces, not hundreds, with the right bytes. And the connection must come
 * back with its low-water mark at 1: the next, short response on it finishes in
 * its first try (a mark left high would hold it back until the try timed out).
 * Reads of a few bytes and of a MiB in flight at once on as many connections
 * all finish in their first try: no transfer sets its mark on another's socket.
 * Pieces and tries are counted, not timed.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
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
#define NBATCH    16                      /* reads in flight at once */
#define ROUNDS    4
/* A response held back fails its try after TRY_MS; a loaded machine's slow try must
 * not, so it is far longer than any try takes. */
#define TRY_MS 10000

/* Counts completed calls. */
typedef struct batch {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
} batch;

static void batch_done(xio_blob_call *c, void *ud) {
  batch *b = ud;
  (void)c;
  pthread_mutex_lock(&b->mu);
  b->done++;
  pthread_cond_signal(&b->cv);
  pthread_mutex_unlock(&b->mu);
}

static void batch_wait(batch *b, int n) {
  pthread_mutex_lock(&b->mu);
  while (b->done < n)
    pthread_cond_wait(&b->cv, &b->mu);
  pthread_mutex_unlock(&b->mu);
}

/* An engine whose tries time out after TRY_MS and are retried once. */
static void setup(fixture *fx) {
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.retry.try_timeout_ms = TRY_MS;
  o.retry.max_retries = 1;
  fixture_setup(fx, &o);
  if (strncmp(fx->container_url, "http://", 7) != 0)
    FAIL("this test needs the emulator over plain HTTP, not %s", fx->container_url);
}

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

/* Round `r` of NBATCH reads of `b` in flight at once, long and short in turn (the
 * other way round every other round), on as many connections: each finishes in its
 * first try with the bytes of `want`. `bufs` holds NBATCH MiB. */
static void read_batch(fixture *fx, xio_blob_target *b, const unsigned char *want,
                       unsigned char *bufs, int r) {
  xio_error e;
  xio_blob_call *calls[NBATCH];
  batch bt = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  size_t len[NBATCH], off[NBATCH];
  for (int i = 0; i < NBATCH; i++) {
    len[i] = (i + r) % 2 ? MiB : 1 + (size_t)i * 37;
    off[i] = (size_t)(i * 4099 + r) % MiB;
    ASSERT_OK(xio_blob_call_read(b, off[i], bufs + (size_t)i * MiB, len[i], NULL, &calls[i], &e),
              &e);
  }
  for (int i = 0; i < NBATCH; i++)
    xio_blob_submit(fx->engine, calls[i], batch_done, &bt);
  batch_wait(&bt, NBATCH);
  for (int i = 0; i < NBATCH; i++) {
    ASSERT_OK(xio_blob_call_result(calls[i], &e), &e);
    if (xio_blob_call_retries(calls[i]) != 0)
      FAIL("round %d: a read of %zu bytes was sent again", r, len[i]);
    ASSERT_MEM_EQ(bufs + (size_t)i * MiB, want + off[i], len[i]);
    xio_blob_call_free(calls[i]);
  }
}

/* The scattered read runs after a batch has left NBATCH connections open, so it
 * finds its own socket among many. */
TEST(plain_http_read_of_scattered_pages_arrives_in_batches) {
  fixture fx;
  xio_error e;
  setup(&fx);
  xio_blob_target *b = fixture_page_blob(&fx, "scattered.mdf", BLOB_SIZE);
  unsigned char *want = calloc(1, BLOB_SIZE), *bufs = malloc((size_t)NBATCH * MiB);
  ASSERT(want != NULL && bufs != NULL);
  for (size_t i = 0; i < PAGES; i++) {
    size_t off = i * 2 * KiB;
    test_fill_random(want + off, 512, (unsigned)i + 1);
    ASSERT_OK(xio_blob_put_page(fx.engine, b, off, want + off, 512, NULL, &e), &e);
  }
  read_batch(&fx, b, want, bufs, 0);
  for (int round = 0; round < 3; round++) {
    xio__blob_socks_counts before = counts(&fx);
    read_check(&fx, b, 0, BLOB_SIZE, want);
    xio__blob_socks_counts after = counts(&fx);
    unsigned long reads = after.short_pieces - before.short_pieces;
    if (reads > 64)
      FAIL("2 MiB of %u scattered pages took %lu reads from the socket (at most 64 expected)",
           (unsigned)PAGES, reads);
    ASSERT(after.raised - before.raised >= 1);
    ASSERT_EQ((int)(after.restored - before.restored), (int)(after.raised - before.raised));
    /* Short responses on the connections after the batched one. */
    for (size_t i = 0; i < 8; i++)
      read_check(&fx, b, i * 2 * KiB + 3, 100, want);
  }
  free(bufs);
  free(want);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(plain_http_reads_short_and_long_at_once_finish_in_one_try) {
  fixture fx;
  xio_error e;
  setup(&fx);
  xio_blob_target *b = fixture_page_blob(&fx, "mixed.mdf", BLOB_SIZE);
  unsigned char *want = malloc(BLOB_SIZE), *bufs = malloc((size_t)NBATCH * MiB);
  ASSERT(want != NULL && bufs != NULL);
  test_fill_random(want, BLOB_SIZE, 7);
  ASSERT_OK(xio_blob_put_page(fx.engine, b, 0, want, BLOB_SIZE, NULL, &e), &e);
  xio__blob_socks_counts before = counts(&fx);
  for (int r = 0; r < ROUNDS; r++)
    read_batch(&fx, b, want, bufs, r);
  xio__blob_socks_counts after = counts(&fx);
  ASSERT(after.raised - before.raised >= (unsigned long)ROUNDS);
  ASSERT_EQ((int)after.restored, (int)after.raised);
  free(bufs);
  free(want);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}
