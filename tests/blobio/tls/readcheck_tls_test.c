/*
 * readcheck_tls_test.c - reads that ask for a CRC-64 against Azurite alone (the
 * HTTPS emulator, no fidelity front), which refuses x-ms-range-get-content-crc64
 * with 500 FeatureNotSupported: the first read learns that and is sent again at
 * once with MD5 (not a retry), every later read of the engine asks for MD5 at once,
 * and the bytes come back right, verified.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "blob_sync_test_util.h"
#include "test.h"
#include "tlsfix.h"
#include "util.h"

#define BLOB_SIZE 65536u

TEST(tls_crc64_reads_fall_back_to_md5_once) {
  tls_engine t;
  xio_error e;
  tls_engine_setup_checksum(&t, tls_ca_file(), 10000, 3, 0, XIO_BLOB_CHECKSUM_CRC64);
  xio_blob_target *b = tls_new_blob(&t, "fallback.mdf", BLOB_SIZE);
  unsigned char data[BLOB_SIZE], got[8192];
  test_fill_random(data, sizeof data, 41);
  ASSERT_OK(xio_blob_put_page(t.engine, b, 0, data, sizeof data, NULL, &e), &e);
  int before = tls_tries_made(&t);
  for (int i = 0; i < 3; i++) {
    xio_blob_call *c = NULL;
    size_t off = (size_t)i * 8192;
    ASSERT_OK(xio_blob_call_read(b, off, got, sizeof got, NULL, &c, &e), &e);
    ASSERT_OK(xio_blob_send(t.engine, c, &e), &e);
    ASSERT_EQ(xio_blob_call_retries(c), 0);
    ASSERT_MEM_EQ(got, data + off, sizeof got);
    /* The answer carries the MD5 the read asked for in the end. */
    ASSERT(xio_blob_call_header(c, "Content-MD5") != NULL);
    ASSERT(xio_blob_call_header(c, "x-ms-content-crc64") == NULL);
    xio_blob_call_free(c);
  }
  /* Four tries: the refused one, then one per read. */
  ASSERT_EQ(tls_tries_made(&t) - before, 4);
  ASSERT_EQ(t.tries->http_status[before], 500);
  ASSERT(t.tries->will_retry[before]);
  ASSERT_EQ(t.tries->attempt[before + 1], 0);
  xio_blob_target_free(b);
  tls_engine_teardown(&t);
}
