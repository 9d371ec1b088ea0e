/*
 * coalesce_tls_test.c - HTTPS uploads of every size against the emulator, with the
 * TLS connections gathering full records into few sends: each Put Page finishes in
 * its first try and reads back byte for byte. A body whose last record stayed in
 * the buffer, were it never flushed, would only end at the try's timeout and be
 * retried; the tries are counted, not timed. So would one whose socket was full
 * when its last records were gathered, were the engine not waiting for the socket
 * to take them (a slow server in this process keeps it full). A 4 MiB upload goes
 * to the socket in far fewer writes than records, and connections that only
 * download get no buffer.
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
#include "tlsserver.h"
#include "util.h"

#define KiB       1024u
#define MiB       (1024u * KiB)
#define BLOB_SIZE (16 * MiB)
#define NBATCH    12
/* An upload left unflushed fails its first try after TRY_MS; a loaded machine's slow
 * try must not, so it is far longer than any try takes. */
#define TRY_MS 10000

typedef struct fixture {
  tls_engine t;
  xio_blob_target *blob;
  unsigned char *data; /* what the uploads write, by offset */
} fixture;

/* An empty BLOB_SIZE page blob in a fresh container, on an engine that times a try
 * out after TRY_MS and retries once. */
static void setup(fixture *f) {
  tls_engine_setup_tries(&f->t, tls_ca_file(), TRY_MS, 1);
  f->blob = tls_new_blob(&f->t, "coalesce.ldf", BLOB_SIZE);
  f->data = malloc(BLOB_SIZE);
  ASSERT(f->data != NULL);
  test_fill_random(f->data, BLOB_SIZE, 29);
}

static void teardown(fixture *f) {
  xio_blob_target_free(f->blob);
  free(f->data);
  tls_engine_teardown(&f->t);
}

static xio__blob_tls_counts counts(fixture *f) {
  xio__blob_tls_counts n;
  xio__blob_engine_tls_counts(f->t.engine, &n);
  return n;
}

/* A finished call: done, in its first try. */
static void check_first_try(xio_blob_call *c, const char *what, size_t off, size_t len) {
  xio_error e;
  ASSERT_OK(xio_blob_call_result(c, &e), &e);
  if (xio_blob_call_retries(c) != 0)
    FAIL("%s of %zu bytes at %zu was sent %d more time(s)", what, len, off,
         xio_blob_call_retries(c));
}

/* Sends `c` and checks it finished in its first try. */
static void send_once(fixture *f, xio_blob_call *c, const char *what, size_t off, size_t len) {
  xio_error e;
  ASSERT_OK(xio_blob_send(f->t.engine, c, &e), &e);
  check_first_try(c, what, off, len);
  xio_blob_call_free(c);
}

/* Put Page of [off, off+len) from f->data. */
static void upload(fixture *f, size_t off, size_t len) {
  xio_error e;
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_put_page(f->blob, off, f->data + off, len, BLOB_SIZE, NULL, &c, &e), &e);
  send_once(f, c, "an upload", off, len);
}

/* Reads [off, off+len) back and compares it with f->data. */
static void check_back(fixture *f, size_t off, size_t len) {
  xio_error e;
  xio_blob_call *c = NULL;
  unsigned char *buf = malloc(len);
  ASSERT(buf != NULL);
  ASSERT_OK(xio_blob_call_read(f->blob, off, buf, len, NULL, &c, &e), &e);
  send_once(f, c, "a read", off, len);
  ASSERT_MEM_EQ(buf, f->data + off, len);
  free(buf);
}

/* One page; a body of exactly one full record (its last record gathers and waits
 * for the engine's flush); a record and a page; the gather buffer's size and
 * around it; 1 MiB; the largest Put Page. */
TEST(tls_uploads_of_every_size_finish_in_one_try) {
  static const size_t puts[][2] = {{0, 512},
                                   {MiB, 16 * KiB},
                                   {2 * MiB, 16 * KiB + 512},
                                   {3 * MiB, 256 * KiB - 512},
                                   {4 * MiB, 256 * KiB},
                                   {5 * MiB, 256 * KiB + 512},
                                   {6 * MiB, MiB},
                                   {8 * MiB, 4 * MiB},
                                   {BLOB_SIZE - 512, 512}};
  enum { N = sizeof puts / sizeof puts[0] };
  fixture f;
  setup(&f);
  int before = tls_tries_made(&f.t);
  for (size_t i = 0; i < N; i++)
    upload(&f, puts[i][0], puts[i][1]);
  ASSERT_EQ(tls_tries_made(&f.t) - before, (int)N);
  for (size_t i = 0; i < N; i++)
    check_back(&f, puts[i][0], puts[i][1]);
  teardown(&f);
}

/* Records of a 4 MiB body go to the socket many per write. */
TEST(tls_upload_sends_many_records_per_write) {
  tls_require_rewired();
  fixture f;
  setup(&f);
  xio__blob_tls_counts a = counts(&f);
  upload(&f, 0, 4 * MiB);
  xio__blob_tls_counts b = counts(&f);
  unsigned long records = b.gathered_records - a.gathered_records;
  unsigned long writes = b.socket_writes - a.socket_writes;
  if (records < 4 * MiB / (16 * KiB))
    FAIL("a 4 MiB upload gathered %lu records, not its 256 or more", records);
  if (writes * 4 > records) FAIL("%lu records went to the socket in %lu writes", records, writes);
  if (b.write_buffers < 1) FAIL("no connection counted a gather buffer");
  check_back(&f, 0, 4 * MiB);
  teardown(&f);
}

/* Uploads in flight at once, on as many connections, each filling its socket
 * while the engine serves the others: the rest of each waits for its socket. */
TEST(tls_uploads_at_once_finish_in_one_try) {
  fixture f;
  xio_error e;
  xio_blob_call *calls[NBATCH];
  tls_batch b = TLS_BATCH_INIT;
  setup(&f);
  int before = tls_tries_made(&f.t);
  for (int i = 0; i < NBATCH; i++) {
    size_t off = (size_t)i * MiB + (size_t)i * 4 * KiB, len = 16 * KiB * (size_t)(1 + i * 5);
    ASSERT_OK(
        xio_blob_call_put_page(f.blob, off, f.data + off, len, BLOB_SIZE, NULL, &calls[i], &e), &e);
  }
  for (int i = 0; i < NBATCH; i++)
    xio_blob_submit(f.t.engine, calls[i], tls_batch_done, &b);
  tls_batch_wait(&b, NBATCH);
  for (int i = 0; i < NBATCH; i++) {
    size_t off = (size_t)i * MiB + (size_t)i * 4 * KiB, len = 16 * KiB * (size_t)(1 + i * 5);
    check_first_try(calls[i], "an upload", off, len);
    xio_blob_call_free(calls[i]);
  }
  ASSERT_EQ(tls_tries_made(&f.t) - before, NBATCH);
  for (int i = 0; i < NBATCH; i++)
    check_back(&f, (size_t)i * MiB + (size_t)i * 4 * KiB, 16 * KiB * (size_t)(1 + i * 5));
  teardown(&f);
}

/* Requests without a body write no full record: a download allocates no buffer. */
TEST(tls_downloads_take_no_gather_buffer) {
  fixture f;
  setup(&f);
  memset(f.data, 0, 4 * MiB); /* what the new blob holds */
  check_back(&f, 0, 4 * MiB);
  xio__blob_tls_counts n = counts(&f);
  if (n.contexts < 1) FAIL("no TLS connection counted");
  if (n.write_buffers != 0)
    FAIL("%lu connections that only downloaded took a gather buffer", n.write_buffers);
  teardown(&f);
}

/* A server that waits 20 ms before each 16 KiB it reads, from a 16 KiB receive
 * buffer, the client's send buffer the smallest there is. A body of 14 full
 * records all gathers (the buffer sends when a 15th would not fit), and when the
 * engine sends it after libcurl's round the socket takes only part: only the
 * engine's wait for the socket to be writable sends the rest (in about 0.3 s; the
 * try would time out after 5 s). */
TEST(tls_upload_to_a_slow_reader_finishes_in_one_try) {
  enum { BODY = 14 * 16 * KiB };
  tls_require_rewired();
  tls_engine t;
  xio_error e;
  char cert[512], key[512], url[512];
  tls_fixture_file("server.pem", cert, sizeof cert);
  tls_fixture_file("server.key", key, sizeof key);
  tlsserver *s = tlsserver_start_slow(cert, key, 16 * KiB, 20000);
  snprintf(url, sizeof url, "https://127.0.0.1:%d/devstoreaccount1/slow/reader.ldf",
           tlsserver_port(s));
  tls_engine_setup_tries(&t, tls_ca_file(), 5000, 0);
  xio_blob_target *blob = tls_target(&t, url);
  unsigned char *data = malloc(BODY);
  ASSERT(data != NULL);
  test_fill_random(data, BODY, 31);
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_put_page(blob, 0, data, BODY, 0, NULL, &c, &e), &e);
  ASSERT_OK(xio_blob_send(t.engine, c, &e), &e);
  check_first_try(c, "an upload to a slow reader", 0, BODY);
  xio_blob_call_free(c);
  ASSERT_EQ(tls_tries_made(&t), 1);
  ASSERT_EQ(tlsserver_answered(s), 1);
  xio__blob_tls_counts n;
  xio__blob_engine_tls_counts(t.engine, &n);
  if (n.write_buffers != 1) FAIL("%lu gather buffers for one upload", n.write_buffers);
  if (n.socket_waits < 1) FAIL("the socket was never full when records were gathered");
  free(data);
  xio_blob_target_free(blob);
  tls_engine_teardown(&t);
  tlsserver_free(s);
}
