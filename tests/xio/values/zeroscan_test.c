/*
 * zeroscan_test.c - xio_is_zero and xio_zero_run, the one zero scanner: a late
 * byte found, runs of zero and non-zero blocks measured to the block, a short last
 * block, and a unit of 0 taking the whole buffer.
 */
#include <string.h>

#include <xio/xio.h>

#include "test.h"

static unsigned char buf[64 * 1024];

TEST(is_zero_finds_a_late_byte) {
  memset(buf, 0, sizeof buf);
  ASSERT(xio_is_zero(buf, sizeof buf));
  ASSERT(xio_is_zero(buf, 0));
  buf[sizeof buf - 1] = 1;
  ASSERT(!xio_is_zero(buf, sizeof buf));
  ASSERT(xio_is_zero(buf, sizeof buf - 1));
  buf[3] = 7;
  ASSERT(!xio_is_zero(buf, 5));
  ASSERT(xio_is_zero(buf, 3));
}

TEST(zero_run_measures_whole_blocks) {
  memset(buf, 0, sizeof buf);
  buf[3 * 4096 + 100] = 1; /* block 3 holds data */
  buf[5 * 4096] = 1;       /* block 5 too; block 4 is zero */
  ASSERT_EQ(xio_zero_run(buf, sizeof buf, 4096, 1), 3 * 4096);
  ASSERT_EQ(xio_zero_run(buf + 3 * 4096, sizeof buf - 3 * 4096, 4096, 0), 4096);
  ASSERT_EQ(xio_zero_run(buf + 4 * 4096, sizeof buf - 4 * 4096, 4096, 1), 4096);
  ASSERT_EQ(xio_zero_run(buf + 6 * 4096, 1000, 4096, 1), 1000); /* a short last block */
  ASSERT_EQ(xio_zero_run(buf, sizeof buf, 0, 1), 0);
  ASSERT_EQ(xio_zero_run(buf, 3 * 4096, 0, 1), 3 * 4096);
  ASSERT_EQ(xio_zero_run(buf, sizeof buf, 512, 0), 0);
}
