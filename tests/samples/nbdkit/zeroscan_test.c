/*
 * zeroscan_test.c - the plugin's zero rule (samples/engines/nbdkit/zeroscan.c) on buffers:
 * what is shipped, what is cleared, and when a split is not worth its requests.
 */
#include <stdlib.h>
#include <string.h>

#include "nbd_int.h"
#include "test.h"

#define KIB 1024u
#define MIB (1024u * 1024u)

/* A buffer of `len` zeros with `n` 4 KiB blocks of 0xab at the given offsets. */
static unsigned char *buffer(size_t len, const size_t *blocks, size_t n) {
  unsigned char *b = calloc(1, len);
  ASSERT(b != NULL);
  for (size_t i = 0; i < n; i++)
    memset(b + blocks[i], 0xab, 4 * KIB);
  return b;
}

TEST(all_zero_is_one_clear) {
  unsigned char *b = buffer(4 * MIB, NULL, 0);
  xnbd_plan p;
  ASSERT_EQ(xnbd_plan_write(b, 4 * MIB, &p), 0);
  ASSERT_EQ(p.n, 1);
  ASSERT_EQ(p.v[0].clear, 1);
  ASSERT_U64_EQ(p.shipped, 0);
  ASSERT_U64_EQ(p.cleared, 4 * MIB);
  xnbd_plan_free(&p);
  free(b);
}

TEST(all_zero_detects_a_late_byte) {
  unsigned char *b = buffer(MIB, NULL, 0);
  ASSERT(xio_is_zero(b, MIB));
  b[MIB - 1] = 1;
  ASSERT(!xio_is_zero(b, MIB));
  b[MIB - 1] = 0;
  b[3] = 1;
  ASSERT(!xio_is_zero(b, MIB));
  ASSERT(xio_is_zero(b + 4, 7));
  free(b);
}

TEST(data_then_long_zeros_splits) {
  size_t at[] = {0};
  unsigned char *b = buffer(MIB, at, 1);
  xnbd_plan p;
  ASSERT_EQ(xnbd_plan_write(b, MIB, &p), 0);
  ASSERT_EQ(p.n, 2); /* 2 requests instead of 1: 1020 KiB of zeros saved >= 256 KiB */
  ASSERT_EQ(p.v[0].clear, 0);
  ASSERT_EQ(p.v[0].len, 4 * KIB);
  ASSERT_EQ(p.v[1].clear, 1);
  ASSERT_EQ(p.v[1].off, 4 * KIB);
  ASSERT_U64_EQ(p.shipped, 4 * KIB);
  ASSERT_U64_EQ(p.cleared, MIB - 4 * KIB);
  xnbd_plan_free(&p);
  free(b);
}

TEST(short_zero_runs_ride_along) {
  /* data every 32 KiB: no zero run reaches 64 KiB, so one plain write */
  size_t at[32];
  for (size_t i = 0; i < 32; i++)
    at[i] = i * 32 * KIB;
  unsigned char *b = buffer(MIB, at, 32);
  xnbd_plan p;
  ASSERT_EQ(xnbd_plan_write(b, MIB, &p), 0);
  ASSERT_EQ(p.n, 1);
  ASSERT_EQ(p.v[0].clear, 0);
  ASSERT_U64_EQ(p.shipped, MIB);
  xnbd_plan_free(&p);
  free(b);
}

TEST(split_not_worth_its_requests_stays_plain) {
  /* 128 KiB: data, 64 KiB zeros, data: a split is 3 requests to save 60 KiB */
  size_t at[] = {0, 124 * KIB};
  unsigned char *b = buffer(128 * KIB + 0, at, 2);
  memset(b + 4 * KIB, 0, 120 * KIB);
  xnbd_plan p;
  ASSERT_EQ(xnbd_plan_write(b, 128 * KIB, &p), 0);
  ASSERT_EQ(p.n, 1);
  ASSERT_U64_EQ(p.shipped, 128 * KIB);
  ASSERT_U64_EQ(p.cleared, 0);
  xnbd_plan_free(&p);
  free(b);
}

TEST(middle_data_splits_when_it_saves_enough) {
  /* 4 MiB, data in the middle only: clear, data, clear = 3 requests for 1; saves
   * 4 MiB - 4 KiB >= 2 * 256 KiB */
  size_t at[] = {2 * MIB};
  unsigned char *b = buffer(4 * MIB, at, 1);
  xnbd_plan p;
  ASSERT_EQ(xnbd_plan_write(b, 4 * MIB, &p), 0);
  ASSERT_EQ(p.n, 3);
  ASSERT_EQ(p.v[0].clear, 1);
  ASSERT_EQ(p.v[1].clear, 0);
  ASSERT_EQ(p.v[1].off, 2 * MIB);
  ASSERT_EQ(p.v[2].clear, 1);
  size_t covered = 0;
  for (size_t i = 0; i < p.n; i++) {
    ASSERT_EQ(p.v[i].off, covered);
    covered += p.v[i].len;
  }
  ASSERT_EQ(covered, 4 * MIB);
  xnbd_plan_free(&p);
  free(b);
}

TEST(odd_tail_is_covered) {
  /* 1 MiB + 512: data at the start, the tail unit shorter than 4 KiB */
  size_t at[] = {0};
  size_t len = MIB + 512;
  unsigned char *b = buffer(len, at, 1);
  b[len - 1] = 9;
  xnbd_plan p;
  ASSERT_EQ(xnbd_plan_write(b, len, &p), 0);
  size_t covered = 0;
  for (size_t i = 0; i < p.n; i++)
    covered += p.v[i].len;
  ASSERT_EQ(covered, len);
  ASSERT_EQ(p.v[p.n - 1].clear, 0); /* the last byte is data */
  xnbd_plan_free(&p);
  free(b);
}
