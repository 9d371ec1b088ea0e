/*
 * plain_tls_test.c - the engine's TLS read-ahead and record gathering rewire the
 * BIOs libcurl gave a connection, which is sound only on the libcurl they were
 * made for (7.88 with OpenSSL 3): on any other the engine falls back to plain
 * connections, exactly as libcurl makes them. Which libcurl gets which is one pure
 * decision, checked here over versions that exist; and an engine made plain
 * (plain_tls, what every other libcurl gets) moves the same bytes, each request in
 * one try, with no BIO of its own on any connection.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <xio/blob.h>

#include "blob_sync_test_util.h"
#include "test.h"
#include "tls_int.h"
#include "tlsfix.h"
#include "util.h"

#define KiB       1024u
#define MiB       (1024u * KiB)
#define BLOB_SIZE (8 * MiB)

static int suits(unsigned version_num, const char *ssl_version) {
  curl_version_info_data v;
  memset(&v, 0, sizeof v);
  v.version_num = version_num;
  v.ssl_version = ssl_version;
  return xio__blob_tls_rewire_supported(&v);
}

TEST(tls_rewiring_is_for_libcurl_7_88_with_openssl_3_only) {
  ASSERT_EQ(suits(0x075800, "OpenSSL/3.0.15"), 1); /* 7.88.0 */
  ASSERT_EQ(suits(0x075801, "OpenSSL/3.0.17"), 1); /* 7.88.1, Debian 12's */
  ASSERT_EQ(suits(0x075700, "OpenSSL/3.0.15"), 0); /* 7.87.0 */
  ASSERT_EQ(suits(0x080000, "OpenSSL/3.0.15"), 0); /* 8.0.0 */
  ASSERT_EQ(suits(0x080e01, "OpenSSL/3.5.0"), 0);  /* 8.14.1 */
  ASSERT_EQ(suits(0x075801, "OpenSSL/1.1.1w"), 0);
  ASSERT_EQ(suits(0x075801, "GnuTLS/3.7.9"), 0);
  ASSERT_EQ(suits(0x075801, "wolfSSL/5.5.4"), 0);
  ASSERT_EQ(suits(0x075801, NULL), 0); /* built without TLS */
  ASSERT_EQ(xio__blob_tls_rewire_supported(NULL), 0);
}

/* Writes then reads back, one request each, [off, off+len) of `data` through `t`,
 * each in its first try. */
static void round_trip(tls_engine *t, xio_blob_target *blob, const unsigned char *data, size_t off,
                       size_t len) {
  xio_error e;
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_put_page(blob, off, data + off, len, BLOB_SIZE, NULL, &c, &e), &e);
  ASSERT_OK(xio_blob_send(t->engine, c, &e), &e);
  ASSERT_EQ(xio_blob_call_retries(c), 0);
  xio_blob_call_free(c);
  unsigned char *back = malloc(len);
  ASSERT(back != NULL);
  ASSERT_OK(xio_blob_call_read(blob, off, back, len, NULL, &c, &e), &e);
  ASSERT_OK(xio_blob_send(t->engine, c, &e), &e);
  ASSERT_EQ(xio_blob_call_retries(c), 0);
  ASSERT_MEM_EQ(back, data + off, len);
  xio_blob_call_free(c);
  free(back);
}

/* Uploads and downloads of several sizes through an engine with `plain_tls`; returns
 * what its connections counted. */
static xio__blob_tls_counts transfers(int plain_tls) {
  static const size_t sizes[][2] = {
      {0, 512}, {MiB, 16 * KiB + 512}, {2 * MiB, 256 * KiB}, {4 * MiB, 4 * MiB}};
  tls_engine t;
  tls_engine_setup_with(&t, tls_ca_file(), 5000, 1, plain_tls);
  xio_blob_target *blob = tls_new_blob(&t, "plain.mdf", BLOB_SIZE);
  unsigned char *data = malloc(BLOB_SIZE);
  ASSERT(data != NULL);
  test_fill_random(data, BLOB_SIZE, 41);
  int before = tls_tries_made(&t);
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    round_trip(&t, blob, data, sizes[i][0], sizes[i][1]);
  ASSERT_EQ(tls_tries_made(&t) - before, 2 * (int)(sizeof sizes / sizeof sizes[0]));
  xio__blob_tls_counts n;
  xio__blob_engine_tls_counts(t.engine, &n);
  free(data);
  xio_blob_target_free(blob);
  tls_engine_teardown(&t);
  return n;
}

TEST(tls_plain_connections_move_every_size_in_one_try) {
  xio__blob_tls_counts n = transfers(1);
  if (n.contexts < 1) FAIL("no TLS connection counted");
  ASSERT_EQ(n.read_buffers, 0);
  ASSERT_EQ(n.write_buffers, 0);
  ASSERT_EQ(n.redrives, 0);
  ASSERT_EQ(n.gathered_records, 0);
  ASSERT_EQ(n.socket_writes, 0);
}

TEST(tls_connections_are_rewired_exactly_where_libcurl_suits) {
  xio__blob_tls_counts n = transfers(0);
  if (n.contexts < 1) FAIL("no TLS connection counted");
  if (tls_rewired()) {
    ASSERT_EQ(n.read_buffers, n.contexts);
    ASSERT(n.write_buffers >= 1); /* the uploads gathered their records */
    ASSERT(n.gathered_records >= 1);
  } else {
    ASSERT_EQ(n.read_buffers, 0);
    ASSERT_EQ(n.write_buffers, 0);
  }
}
