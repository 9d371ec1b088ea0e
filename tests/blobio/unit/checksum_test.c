/*
 * checksum_test.c - CRC-64/NVME and MD5 of Put Page bodies: the published vectors,
 * resuming a CRC across pieces, and the fast (sliced) CRC against a bitwise one.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "test.h"
#include "util.h"

#define POLY 0x9A6C9329AC4BC9B5ull

/* The definition, one bit at a time: the reference the fast CRC must match. */
static uint64_t bitwise_crc64(uint64_t crc, const unsigned char *p, size_t n) {
  crc = ~crc;
  while (n--) {
    crc ^= *p++;
    for (int k = 0; k < 8; k++)
      crc = (crc & 1) ? (crc >> 1) ^ POLY : crc >> 1;
  }
  return ~crc;
}

static void check_crc64_b64(const char *data, size_t n, const char *want) {
  char out[14];
  memset(out, '#', sizeof out);
  ASSERT(xio_blob_crc64_base64(data, n, out) == out);
  ASSERT_STR_EQ(out, want);
  ASSERT_EQ(out[13], '#'); /* nothing written past the 13 bytes */
}

static void check_md5_b64(const char *data, size_t n, const char *want) {
  char out[26];
  memset(out, '#', sizeof out);
  ASSERT(xio_blob_md5_base64(data, n, out) == out);
  ASSERT_STR_EQ(out, want);
  ASSERT_EQ(out[25], '#');
}

TEST(crc64_vector_empty) {
  ASSERT_U64_EQ(xio_blob_crc64(0, "", 0), 0);
  ASSERT_U64_EQ(xio_blob_crc64(0, NULL, 0), 0);
  ASSERT_U64_EQ(xio_blob_crc64(0x1234, NULL, 0), 0x1234); /* no bytes: unchanged */
  check_crc64_b64("", 0, "AAAAAAAAAAA=");
}

TEST(crc64_vector_hello_azure) { check_crc64_b64("Hello Azure!", 12, "DtjZpL9/o8c="); }

TEST(crc64_vector_check) {
  ASSERT_U64_EQ(xio_blob_crc64(0, "123456789", 9), 0xAE8B14860A799888ull);
  /* The header carries the little-endian bytes 88 98 79 0A 86 14 8B AE. */
  check_crc64_b64("123456789", 9, "iJh5CoYUi64=");
}

TEST(crc64_vector_1024_a) {
  char a[1024];
  memset(a, 'A', sizeof a);
  check_crc64_b64(a, sizeof a, "KonGe6F86EE=");
  ASSERT_U64_EQ(xio_blob_crc64(0, a, sizeof a), bitwise_crc64(0, (unsigned char *)a, 1024));
}

TEST(md5_vectors) {
  char a[1024];
  memset(a, 'A', sizeof a);
  check_md5_b64(a, sizeof a, "1HsSe8LeLWh93ILaw1TEFQ==");
  check_md5_b64("", 0, "1B2M2Y8AsgTpgAmY7PhCfg==");
  check_md5_b64(NULL, 0, "1B2M2Y8AsgTpgAmY7PhCfg==");
  check_md5_b64("abc", 3, "kAFQmDzST7DWlj99KOF/cg==");
  check_md5_b64("Hello Azure!", 12, "Pz8543xut4RVSbb2g52Mww==");
}

/* crc(crc(0, a), b) == crc(0, a b) for every split of a buffer, and across three
 * pieces, so a body can be checksummed as it is assembled. */
TEST(crc64_incremental_every_split) {
  enum { N = 300 };
  unsigned char buf[N];
  test_fill_random(buf, N, 7);
  uint64_t whole = xio_blob_crc64(0, buf, N);
  ASSERT_U64_EQ(whole, bitwise_crc64(0, buf, N));
  for (size_t s = 0; s <= N; s++) {
    uint64_t c = xio_blob_crc64(xio_blob_crc64(0, buf, s), buf + s, N - s);
    if (c != whole) FAIL("split at %zu: %016" PRIx64 " != %016" PRIx64, s, c, whole);
  }
  for (size_t s = 0; s <= N; s += 17)
    for (size_t t = s; t <= N; t += 13) {
      uint64_t c = xio_blob_crc64(0, buf, s);
      c = xio_blob_crc64(c, buf + s, t - s);
      c = xio_blob_crc64(c, buf + t, N - t);
      if (c != whole) FAIL("split at %zu and %zu", s, t);
    }
}

/* Every length 0..80 at every alignment 0..7: the head and tail loops and the
 * eight-byte loop all agree with the definition. */
TEST(crc64_matches_bitwise_small) {
  unsigned char buf[96];
  test_fill_random(buf, sizeof buf, 11);
  for (size_t off = 0; off < 8; off++)
    for (size_t n = 0; n <= 80; n++) {
      uint64_t seed = n * 0x0101010101010101ull; /* also resume from arbitrary values */
      uint64_t got = xio_blob_crc64(seed, buf + off, n);
      uint64_t want = bitwise_crc64(seed, buf + off, n);
      if (got != want)
        FAIL("offset %zu length %zu: %016" PRIx64 " != %016" PRIx64, off, n, got, want);
    }
}

/* A full 4 MiB Put Page body (plus odd tails, misaligned) against the definition. */
TEST(crc64_matches_bitwise_large) {
  size_t n = XIO_BLOB_MAX_PUT_PAGE + 16;
  unsigned char *buf = malloc(n);
  ASSERT(buf != NULL);
  test_fill_random(buf, n, 42);
  static const size_t cases[][2] = {{0, XIO_BLOB_MAX_PUT_PAGE},
                                    {1, XIO_BLOB_MAX_PUT_PAGE},
                                    {3, XIO_BLOB_MAX_PUT_PAGE + 13},
                                    {7, 1000003}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint64_t got = xio_blob_crc64(0, buf + cases[i][0], cases[i][1]);
    uint64_t want = bitwise_crc64(0, buf + cases[i][0], cases[i][1]);
    if (got != want) FAIL("case %zu: %016" PRIx64 " != %016" PRIx64, i, got, want);
  }
  free(buf);
}

typedef struct crc_job {
  const unsigned char *buf;
  size_t n;
  uint64_t crc;
} crc_job;

static void *crc_thread(void *arg) {
  crc_job *j = arg;
  j->crc = xio_blob_crc64(0, j->buf, j->n);
  return NULL;
}

/* The tables are built on first use: threads racing to that first use must all get
 * the right answer (each ctest test is a fresh process, so this is the first use). */
TEST(crc64_first_use_from_threads) {
  enum { THREADS = 8, N = 65536 };
  static unsigned char buf[N];
  test_fill_random(buf, N, 3);
  pthread_t t[THREADS];
  crc_job jobs[THREADS];
  for (int i = 0; i < THREADS; i++) {
    jobs[i] = (crc_job){.buf = buf, .n = N};
    ASSERT_EQ(pthread_create(&t[i], NULL, crc_thread, &jobs[i]), 0);
  }
  for (int i = 0; i < THREADS; i++)
    ASSERT_EQ(pthread_join(t[i], NULL), 0);
  uint64_t want = bitwise_crc64(0, buf, N);
  for (int i = 0; i < THREADS; i++)
    ASSERT_U64_EQ(jobs[i].crc, want);
}
