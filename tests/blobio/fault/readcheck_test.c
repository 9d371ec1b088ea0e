/*
 * readcheck_test.c - reads verified end to end: a Get Blob asks for its range's
 * checksum (CRC-64 from the emulator's fidelity front, as Azure answers it; MD5
 * from Azurite), and a body the proxy corrupts on its way back is caught by the
 * client, read again within the retry budget, and reported as XIO_ECHECKSUM naming
 * the range once the budget is spent. Without a checksum the same corruption goes
 * through unseen, which is what the check is for.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faultproxy_int.h"
#include "proxy_fixture.h"
#include "test.h"
#include "util.h"

#define BLOB_SIZE   65536u
#define READ_OFF    1024u
#define READ_LEN    32768u
#define MAX_RETRIES 2

/* A blob of random bytes (seed) made straight on Azurite, and its proxied twin. */
static void setup(pfx *p, xio_blob_checksum kind, uint64_t seed, xio_blob_target **direct,
                  xio_blob_target **proxied) {
  xio_blob_engine_options o = pfx_options(p);
  o.checksum = kind;
  o.retry.max_retries = MAX_RETRIES;
  pfx_setup(p, &o);
  *direct = pfx_direct_blob(p, "verified.mdf", BLOB_SIZE, seed);
  *proxied = pfx_proxied(p, "verified.mdf", NULL, NULL);
  pfx_forget(p);
}

static void finish(pfx *p, xio_blob_target *direct, xio_blob_target *proxied) {
  xio_blob_target_free(proxied);
  xio_blob_target_free(direct);
  pfx_teardown(p);
}

/* Reads READ_LEN bytes at READ_OFF through the proxy into `got`; the call's result. */
static xio_err read_through(pfx *p, const xio_blob_target *b, unsigned char *got, int *retries,
                            xio_error *e) {
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_read(b, READ_OFF, got, READ_LEN, NULL, &c, e), e);
  xio_err rc = xio_blob_send(p->fx.engine, c, e);
  *retries = xio_blob_call_retries(c);
  xio_blob_call_free(c);
  return rc;
}

/* One corrupted answer: caught, read again, and the right bytes returned. */
static void corrupted_once(xio_blob_checksum kind) {
  pfx p;
  xio_blob_target *direct, *b;
  setup(&p, kind, 31, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_CORRUPT_RESPONSE, .method = "GET"});
  unsigned char want[BLOB_SIZE], got[READ_LEN];
  test_fill_random(want, sizeof want, 31);
  xio_error e;
  int retries = -1;
  ASSERT_OK(read_through(&p, b, got, &retries, &e), &e);
  ASSERT_MEM_EQ(got, want + READ_OFF, READ_LEN);
  ASSERT_EQ(retries, 1);
  ASSERT_EQ(faultproxy_count(p.proxy), 2);
  ASSERT_EQ(p.ntries, 2);
  ASSERT(p.tries[0].will_retry);
  ASSERT_EQ(p.tries[0].http_status, 206);
  ASSERT_STR_EQ(faultproxy_kind_name(pfx_record(&p, 0).fault), "CORRUPT_RESPONSE");
  ASSERT_EQ(pfx_record(&p, 1).fault, FAULTPROXY_NONE);
  ASSERT_STR_EQ(pfx_record(&p, 0).range, "bytes=1024-33791");
  ASSERT_STR_EQ(pfx_record(&p, 0).client_request_id, pfx_record(&p, 1).client_request_id);
  finish(&p, direct, b);
}

TEST(corrupted_read_crc64_is_caught_and_read_again) { corrupted_once(XIO_BLOB_CHECKSUM_CRC64); }

TEST(corrupted_read_md5_is_caught_and_read_again) { corrupted_once(XIO_BLOB_CHECKSUM_MD5); }

/* Every answer corrupted: the budget is spent, then XIO_ECHECKSUM naming the range
 * and the header that disagreed, with no secret in the detail. */
TEST(corrupted_reads_outlast_budget_give_echecksum) {
  pfx p;
  xio_blob_target *direct, *b;
  setup(&p, XIO_BLOB_CHECKSUM_CRC64, 32, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_CORRUPT_RESPONSE,
                                   .method = "GET",
                                   .times = MAX_RETRIES + 1});
  unsigned char got[READ_LEN];
  xio_error e;
  int retries = -1;
  ASSERT_ERR(read_through(&p, b, got, &retries, &e), XIO_ECHECKSUM, &e);
  ASSERT_EQ(retries, MAX_RETRIES);
  ASSERT_EQ(e.retries, MAX_RETRIES);
  ASSERT_EQ(e.http_status, 206);
  ASSERT_STR_EQ(e.operation, "GetBlob");
  ASSERT_CONTAINS(e.message, "bytes=1024-33791");
  ASSERT_CONTAINS(e.message, "x-ms-content-crc64");
  ASSERT_CONTAINS(e.target, "/verified.mdf");
  ASSERT_EQ(faultproxy_count(p.proxy), MAX_RETRIES + 1);
  ASSERT_EQ(p.ntries, MAX_RETRIES + 1);
  ASSERT(!p.tries[MAX_RETRIES].will_retry);
  for (int i = 0; i <= MAX_RETRIES; i++)
    ASSERT_STR_EQ(faultproxy_kind_name(pfx_record(&p, i).fault), "CORRUPT_RESPONSE");
  pfx_assert_detail_clean(&p, &e);
  finish(&p, direct, b);
}

/* With no checksum the corrupted byte reaches the caller in one request: the check
 * above is what catches it. */
TEST(unverified_read_lets_corruption_through) {
  pfx p;
  xio_blob_target *direct, *b;
  setup(&p, XIO_BLOB_CHECKSUM_NONE, 33, &direct, &b);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_CORRUPT_RESPONSE, .method = "GET"});
  unsigned char want[BLOB_SIZE], got[READ_LEN];
  test_fill_random(want, sizeof want, 33);
  xio_error e;
  int retries = -1;
  ASSERT_OK(read_through(&p, b, got, &retries, &e), &e);
  ASSERT_EQ(retries, 0);
  ASSERT_EQ(faultproxy_count(p.proxy), 1);
  int differ = 0;
  for (size_t i = 0; i < READ_LEN; i++)
    differ += got[i] != want[READ_OFF + i];
  ASSERT_EQ(differ, 1);
  ASSERT_EQ(got[READ_LEN / 2] ^ want[READ_OFF + READ_LEN / 2], 0x5A);
  finish(&p, direct, b);
}

/* The front's CRC-64 is its own implementation: it agrees with the published
 * vector and with the client's on bodies of every length around the table's
 * and the carry-less code's block sizes. */
TEST(front_crc64_agrees_with_the_client) {
  ASSERT_U64_EQ(faultproxy__crc64("123456789", 9), 0xAE8B14860A799888ull);
  ASSERT_U64_EQ(faultproxy__crc64("", 0), 0);
  unsigned char data[5000];
  test_fill_random(data, sizeof data, 34);
  for (size_t n = 0; n < sizeof data; n += n < 300 ? 1 : 97)
    ASSERT_U64_EQ(faultproxy__crc64(data, n), xio_blob_crc64(0, data, n));
}
