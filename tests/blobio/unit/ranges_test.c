/*
 * ranges_test.c - the sorted, merged page-range list: adds in order and out of
 * order, overlaps, adjacency, containment, extremes, many ranges against a bitmap,
 * and the byte count.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "test.h"
#include "util.h"
#include "xml_int.h"

/* Asserts that `r` holds exactly the ranges in `want` (pairs start, end). */
#define ASSERT_RANGES(r, ...)                                                                      \
  do {                                                                                             \
    static const uint64_t w_[][2] = {__VA_ARGS__};                                                 \
    check_ranges(__LINE__, (r), w_, sizeof w_ / sizeof w_[0]);                                     \
  } while (0)

static void check_ranges(int line, const xio_ranges *r, const uint64_t (*want)[2], size_t n) {
  if (r->n != n) FAIL("line %d: %zu ranges, wanted %zu", line, r->n, n);
  for (size_t i = 0; i < n; i++)
    if (r->v[i].start != want[i][0] || r->v[i].end != want[i][1])
      FAIL("line %d: range %zu is [%" PRIu64 ", %" PRIu64 "], wanted [%" PRIu64 ", %" PRIu64 "]",
           line, i, r->v[i].start, r->v[i].end, want[i][0], want[i][1]);
}

/* Sorted, disjoint, not touching: what every list must satisfy. */
static void check_invariant(const xio_ranges *r) {
  ASSERT(r->n <= r->cap);
  for (size_t i = 0; i < r->n; i++) {
    ASSERT(r->v[i].start <= r->v[i].end);
    if (i > 0) ASSERT(r->v[i - 1].end + 1 < r->v[i].start);
  }
}

static void add(xio_ranges *r, uint64_t start, uint64_t end) {
  ASSERT_OK(xio_ranges_add(r, start, end), NULL);
  check_invariant(r);
}

TEST(ranges_in_order_disjoint) {
  xio_ranges r = {0};
  add(&r, 0, 511);
  add(&r, 1024, 1535);
  add(&r, 4096, 8191);
  ASSERT_RANGES(&r, {0, 511}, {1024, 1535}, {4096, 8191});
  xio_ranges_clear(&r);
}

TEST(ranges_in_order_adjacent_merge) {
  xio_ranges r = {0};
  add(&r, 0, 511);
  add(&r, 512, 1023); /* starts right after the last: one range */
  add(&r, 1024, 1535);
  add(&r, 2048, 2559); /* a gap of one page: stays apart */
  ASSERT_RANGES(&r, {0, 1535}, {2048, 2559});
  add(&r, 1536, 2047); /* fills the gap exactly: all one */
  ASSERT_RANGES(&r, {0, 2559});
  xio_ranges_clear(&r);
}

TEST(ranges_overlap_last) {
  xio_ranges r = {0};
  add(&r, 0, 511);
  add(&r, 1024, 2047);
  add(&r, 1536, 4095); /* overlaps the tail of the last */
  add(&r, 1024, 1535); /* inside the last */
  add(&r, 2048, 3071); /* inside, ending early: last keeps its end */
  ASSERT_RANGES(&r, {0, 511}, {1024, 4095});
  xio_ranges_clear(&r);
}

TEST(ranges_out_of_order) {
  xio_ranges r = {0};
  add(&r, 8192, 8703);
  add(&r, 0, 511);     /* before everything */
  add(&r, 4096, 4607); /* in the middle */
  add(&r, 2048, 2559); /* between the first two */
  ASSERT_RANGES(&r, {0, 511}, {2048, 2559}, {4096, 4607}, {8192, 8703});
  add(&r, 512, 1023);  /* touches the first from the right */
  add(&r, 3584, 4095); /* touches the third from the left */
  ASSERT_RANGES(&r, {0, 1023}, {2048, 2559}, {3584, 4607}, {8192, 8703});
  xio_ranges_clear(&r);
}

TEST(ranges_bridge_merges_several) {
  xio_ranges r = {0};
  for (uint64_t p = 0; p < 10; p++)
    add(&r, p * 2048, p * 2048 + 511);
  ASSERT_EQ(r.n, 10);
  add(&r, 2100, 10000); /* overlaps ranges 1..4, touches none of 0 or 5 */
  ASSERT_EQ(r.n, 7);
  ASSERT_RANGES(&r, {0, 511}, {2048, 10000}, {10240, 10751}, {12288, 12799}, {14336, 14847},
                {16384, 16895}, {18432, 18943});
  add(&r, 512, 10239); /* adjacent on both sides: joins 0, the bridge, and 5 */
  ASSERT_RANGES(&r, {0, 10751}, {12288, 12799}, {14336, 14847}, {16384, 16895}, {18432, 18943});
  xio_ranges_clear(&r);
}

TEST(ranges_contained_and_containing) {
  xio_ranges r = {0};
  add(&r, 1024, 4095);
  add(&r, 8192, 9215);
  add(&r, 2048, 2559); /* inside the first: nothing changes */
  add(&r, 1024, 4095); /* the same again */
  ASSERT_RANGES(&r, {1024, 4095}, {8192, 9215});
  add(&r, 0, 20000); /* covers both */
  ASSERT_RANGES(&r, {0, 20000});
  xio_ranges_clear(&r);
}

TEST(ranges_invalid_start_after_end) {
  xio_ranges r = {0};
  add(&r, 0, 511);
  ASSERT_ERR(xio_ranges_add(&r, 1024, 1023), XIO_EINVAL, NULL);
  ASSERT_ERR(xio_ranges_add(NULL, 0, 1), XIO_EINVAL, NULL);
  ASSERT_RANGES(&r, {0, 511});
  add(&r, 600, 600); /* a one-byte range is valid */
  ASSERT_RANGES(&r, {0, 511}, {600, 600});
  xio_ranges_clear(&r);
}

/* Arithmetic at both ends of uint64: no wrap-around makes 0 touch UINT64_MAX. */
TEST(ranges_extremes) {
  xio_ranges r = {0};
  add(&r, UINT64_MAX, UINT64_MAX);
  add(&r, 0, 0);
  ASSERT_RANGES(&r, {0, 0}, {UINT64_MAX, UINT64_MAX});
  add(&r, UINT64_MAX - 10, UINT64_MAX - 1); /* touches the last from the left */
  add(&r, 1, 1);                            /* touches the first from the right */
  ASSERT_RANGES(&r, {0, 1}, {UINT64_MAX - 10, UINT64_MAX});
  add(&r, 5, UINT64_MAX - 20);
  ASSERT_RANGES(&r, {0, 1}, {5, UINT64_MAX - 20}, {UINT64_MAX - 10, UINT64_MAX});
  add(&r, UINT64_MAX - 19, UINT64_MAX); /* touches the middle, covers the last */
  ASSERT_RANGES(&r, {0, 1}, {5, UINT64_MAX});
  xio_ranges_clear(&r);
}

/* Many ranges in order, as the service returns them: alternate pages stay apart,
 * consecutive pages become one range. */
TEST(ranges_many_in_order) {
  enum { N = 200000 };
  xio_ranges alt = {0}, run = {0};
  for (uint64_t p = 0; p < N; p++) {
    ASSERT_OK(xio_ranges_add(&alt, p * 1024, p * 1024 + 511), NULL);
    ASSERT_OK(xio_ranges_add(&run, p * 512, p * 512 + 511), NULL);
  }
  check_invariant(&alt);
  ASSERT_EQ(alt.n, N);
  ASSERT_U64_EQ(alt.v[N - 1].start, (uint64_t)(N - 1) * 1024);
  ASSERT_U64_EQ(xio_ranges_bytes(&alt), (uint64_t)N * 512);
  ASSERT_RANGES(&run, {0, (uint64_t)N * 512 - 1});
  /* The first alternate pages added in reverse order (each one at the front) end up
   * identical. */
  enum { NREV = 10000 };
  xio_ranges rev = {0};
  for (uint64_t p = NREV; p-- > 0;)
    ASSERT_OK(xio_ranges_add(&rev, p * 1024, p * 1024 + 511), NULL);
  ASSERT_EQ(rev.n, NREV);
  ASSERT_MEM_EQ(rev.v, alt.v, NREV * sizeof *alt.v);
  xio_ranges_clear(&alt);
  xio_ranges_clear(&run);
  xio_ranges_clear(&rev);
}

/* Random ranges in random order against a bitmap of the bytes they cover. */
TEST(ranges_random_against_bitmap) {
  enum { UNIVERSE = 4096, ROUNDS = 3000 };
  static unsigned char map[UNIVERSE];
  uint32_t rnd[2 * ROUNDS];
  test_fill_random(rnd, sizeof rnd, 99);
  xio_ranges r = {0};
  for (int i = 0; i < ROUNDS; i++) {
    uint64_t start = rnd[2 * i] % UNIVERSE;
    uint64_t end = start + rnd[2 * i + 1] % 24; /* short: many stay apart */
    if (end >= UNIVERSE) end = UNIVERSE - 1;
    memset(map + start, 1, end - start + 1);
    add(&r, start, end);
  }
  /* Rebuild the ranges from the bitmap and compare. */
  size_t k = 0;
  uint64_t covered = 0;
  for (uint64_t b = 0; b < UNIVERSE;) {
    if (!map[b]) {
      b++;
      continue;
    }
    uint64_t e = b;
    while (e + 1 < UNIVERSE && map[e + 1])
      e++;
    ASSERT(k < r.n);
    ASSERT_U64_EQ(r.v[k].start, b);
    ASSERT_U64_EQ(r.v[k].end, e);
    covered += e - b + 1;
    k++;
    b = e + 1;
  }
  ASSERT_EQ(k, r.n);
  ASSERT_U64_EQ(xio_ranges_bytes(&r), covered);
  xio_ranges_clear(&r);
}

TEST(ranges_bytes) {
  xio_ranges r = {0};
  ASSERT_U64_EQ(xio_ranges_bytes(NULL), 0);
  ASSERT_U64_EQ(xio_ranges_bytes(&r), 0);
  add(&r, 0, 511);
  add(&r, 1024, 1024);
  add(&r, XIO_BLOB_MAX_SIZE - 512, XIO_BLOB_MAX_SIZE - 1);
  ASSERT_U64_EQ(xio_ranges_bytes(&r), 512 + 1 + 512);
  add(&r, 0, XIO_BLOB_MAX_SIZE - 1);
  ASSERT_U64_EQ(xio_ranges_bytes(&r), XIO_BLOB_MAX_SIZE);
  add(&r, 0, UINT64_MAX); /* 2^64 bytes do not fit: the count saturates */
  ASSERT_U64_EQ(xio_ranges_bytes(&r), UINT64_MAX);
  xio_ranges_clear(&r);
}

TEST(ranges_clear_and_reuse) {
  xio_ranges r = {0};
  xio_ranges_clear(NULL);
  add(&r, 0, 511);
  add(&r, 2048, 4095);
  xio_ranges_clear(&r);
  ASSERT(r.v == NULL);
  ASSERT_EQ(r.n, 0);
  ASSERT_EQ(r.cap, 0);
  add(&r, 100, 200);
  ASSERT_RANGES(&r, {100, 200});
  xio_ranges_clear(&r);
}

/* After reserving k, k adds never reallocate (what lets a parser apply a body
 * without failing half way). */
TEST(ranges_reserve) {
  xio_ranges r = {0};
  ASSERT_OK(xio_ranges_reserve(&r, 1000), NULL);
  ASSERT(r.cap >= 1000);
  xio_range *v = r.v;
  for (uint64_t p = 1000; p-- > 0;)
    add(&r, p * 1024, p * 1024 + 511);
  ASSERT(r.v == v);
  ASSERT_EQ(r.n, 1000);
  ASSERT_ERR(xio_ranges_reserve(&r, SIZE_MAX), XIO_ENOMEM, NULL);
  ASSERT_ERR(xio_ranges_reserve(NULL, 1), XIO_EINVAL, NULL);
  ASSERT_EQ(r.n, 1000);
  xio_ranges_clear(&r);
}
