/*
 * crc64_impl_test.c - the three CRC-64/NVME implementations behind xio_blob_crc64
 * (blobio/crc64_int.h), each called directly: the carry-less ones' constants
 * recomputed from the polynomial, the published vectors through each, all
 * agreeing on every length up to 4 KiB and on random slices of a 9 MiB buffer at
 * any alignment, resuming across arbitrary splits (also from one implementation
 * to another), and the choice made by the dispatch, with XIO_CRC64=table or clmul.
 *
 * Where the CPU lacks PCLMULQDQ (or VPCLMULQDQ and AVX2, for the wide one), the
 * tests that need the carry-less one (the wide one) skip.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "crc64_int.h"
#include "test.h"
#include "util.h"

/* ------------------------------------------------------------ references ---- */

/* The definition, one bit at a time. */
static uint64_t bitwise_crc64(uint64_t crc, const unsigned char *p, size_t n) {
  crc = ~crc;
  while (n--) {
    crc ^= *p++;
    for (int k = 0; k < 8; k++)
      crc = (crc & 1) ? (crc >> 1) ^ XIO__BLOB_CRC64_POLY : crc >> 1;
  }
  return ~crc;
}

/* rho: the 64 bits in reverse order (also turns the reflected polynomial into its
 * normal form, bit i the coefficient of x^i, and back). */
static uint64_t reverse64(uint64_t a) {
  uint64_t r = 0;
  for (int i = 0; i < 64; i++)
    r |= ((a >> i) & 1) << (63 - i);
  return r;
}

/* P without its x^64 term, in normal form: 0xAD93D23594C93659. */
static uint64_t poly_normal(void) { return reverse64(XIO__BLOB_CRC64_POLY); }

/* x^k mod P in normal form, by k multiplications by x. */
static uint64_t xpow_mod(unsigned k) {
  uint64_t r = 1, p = poly_normal();
  while (k--)
    r = (r >> 63) ? (r << 1) ^ p : r << 1;
  return r;
}

/* floor(x^127 / P) in normal form, by long division. Only the upper half of the
 * remainder (hi: the coefficients of x^64..x^127) decides quotient bits, so the
 * lower half is not kept: quotient bit i subtracts P * x^i, that is x^(64+i) and the
 * part of (P - x^64) * x^i that reaches x^64. */
static uint64_t barrett_mu(void) {
  uint64_t hi = 1ull << 63, q = 0, p = poly_normal();
  for (int i = 63; i >= 0; i--) {
    if (!((hi >> i) & 1)) continue;
    q |= 1ull << i;
    hi ^= 1ull << i;
    if (i) hi ^= p >> (64 - i);
  }
  ASSERT_U64_EQ(hi, 0); /* the remainder is below x^64 */
  return q;
}

typedef uint64_t (*crc64_fn)(uint64_t crc, const void *data, size_t n);

typedef struct impl {
  const char *name;
  crc64_fn fn;
} impl;

/* The carry-less implementation, or a skip where the CPU cannot run it. */
static void need_clmul(void) {
  if (!xio__blob_crc64_clmul_supported()) SKIP("this CPU has no PCLMULQDQ and SSE4.1");
}

/* The wide carry-less implementation, or a skip where the CPU cannot run it. */
static void need_vpclmul(void) {
  if (!xio__blob_crc64_vpclmul_supported()) SKIP("this CPU has no VPCLMULQDQ and AVX2");
}

/* Base64 of the 8 little-endian bytes of `crc`, as x-ms-content-crc64 carries it. */
static void crc_base64(uint64_t crc, char out[13]) {
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  unsigned char b[9] = {0};
  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char)(crc >> (8 * i));
  for (int g = 0; g < 3; g++) {
    uint32_t v = (uint32_t)b[3 * g] << 16 | (uint32_t)b[3 * g + 1] << 8 | b[3 * g + 2];
    for (int j = 0; j < 4; j++)
      out[4 * g + j] = abc[(v >> (18 - 6 * j)) & 63];
  }
  out[11] = '=';
  out[12] = '\0';
}

/* A small deterministic generator for offsets, lengths and seeds (xorshift64*). */
static uint64_t next_random(uint64_t *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

/* ------------------------------------------------------------- constants ---- */

/* Every folding and Barrett constant of crc64_clmul.c, recomputed bit by bit from
 * the polynomial (the derivation is in the comment at the top of that file). */
TEST(crc64_clmul_constants) {
  const xio__blob_crc64_clmul_consts *k = &xio__blob_crc64_clmul_k;
  ASSERT_U64_EQ(poly_normal(), 0xAD93D23594C93659ull); /* CRC-64/NVME, normal form */
  for (unsigned j = 1; j <= 8; j++) {
    unsigned t = 128 * j;
    if (k->fold[j - 1][0] != reverse64(xpow_mod(t + 63)))
      FAIL("fold[%u][0] is %016" PRIx64 ", rho(x^%u mod P) is %016" PRIx64, j - 1,
           k->fold[j - 1][0], t + 63, reverse64(xpow_mod(t + 63)));
    if (k->fold[j - 1][1] != reverse64(xpow_mod(t - 1)))
      FAIL("fold[%u][1] is %016" PRIx64 ", rho(x^%u mod P) is %016" PRIx64, j - 1,
           k->fold[j - 1][1], t - 1, reverse64(xpow_mod(t - 1)));
  }
  ASSERT_U64_EQ(k->wide[0], reverse64(xpow_mod(2048 + 63)));
  ASSERT_U64_EQ(k->wide[1], reverse64(xpow_mod(2048 - 1)));
  ASSERT_U64_EQ(k->mu, reverse64(barrett_mu()));
  /* G = (P - x^64 - 1) / x: P's constant term must be 1 for that to exist. */
  ASSERT_U64_EQ(poly_normal() & 1, 1);
  ASSERT_U64_EQ(k->poly, reverse64(poly_normal() >> 1));
  /* The derivation tools themselves: x^64 mod P is P - x^64, and x^63 is itself. */
  ASSERT_U64_EQ(xpow_mod(64), poly_normal());
  ASSERT_U64_EQ(xpow_mod(63), 1ull << 63);
}

/* --------------------------------------------------------------- vectors ---- */

static void check_vectors(const impl *im) {
  static char a1024[1024];
  memset(a1024, 'A', sizeof a1024);
  static const struct {
    const char *data;
    size_t n;
    const char *base64;
  } v[] = {{"", 0, "AAAAAAAAAAA="},
           {"Hello Azure!", 12, "DtjZpL9/o8c="},
           {"123456789", 9, "iJh5CoYUi64="}, /* 0xAE8B14860A799888 */
           {a1024, sizeof a1024, "KonGe6F86EE="}};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    char b64[13];
    crc_base64(im->fn(0, v[i].data, v[i].n), b64);
    if (strcmp(b64, v[i].base64) != 0)
      FAIL("%s: vector %zu gives %s, wanted %s", im->name, i, b64, v[i].base64);
  }
  ASSERT_U64_EQ(im->fn(0, "123456789", 9), 0xAE8B14860A799888ull);
  ASSERT_U64_EQ(im->fn(0, NULL, 0), 0);
  ASSERT_U64_EQ(im->fn(0x1234, NULL, 0), 0x1234); /* no bytes: unchanged */
}

/* The table implementation, called explicitly, whatever the dispatch would pick. */
TEST(crc64_table_vectors) { check_vectors(&(impl){"table", xio__blob_crc64_table}); }

TEST(crc64_clmul_vectors) {
  need_clmul();
  check_vectors(&(impl){"clmul", xio__blob_crc64_clmul});
}

TEST(crc64_vpclmul_vectors) {
  need_vpclmul();
  check_vectors(&(impl){"vpclmul", xio__blob_crc64_vpclmul});
}

/* The table path on its own against the definition, at every alignment and on a
 * whole Put Page body (crc64_clmul only hands it short pieces). */
TEST(crc64_table_matches_bitwise) {
  size_t n = XIO_BLOB_MAX_PUT_PAGE + 64;
  unsigned char *buf = malloc(n);
  ASSERT(buf != NULL);
  test_fill_random(buf, n, 5);
  for (size_t off = 0; off < 16; off++)
    for (size_t len = 0; len <= 300; len++) {
      uint64_t seed = len * 0x9E3779B97F4A7C15ull;
      if (xio__blob_crc64_table(seed, buf + off, len) != bitwise_crc64(seed, buf + off, len))
        FAIL("offset %zu length %zu", off, len);
    }
  ASSERT_U64_EQ(xio__blob_crc64_table(0, buf + 3, XIO_BLOB_MAX_PUT_PAGE),
                bitwise_crc64(0, buf + 3, XIO_BLOB_MAX_PUT_PAGE));
  free(buf);
}

/* ------------------------------------------------------------- agreement ---- */

/* Every length 0..4096, each in a heap block of exactly its size at a start offset
 * cycling through 0..16 (so sanitizers catch a read past either end), resuming from
 * a random previous value: each of the `n` implementations equals the definition. */
static void agree_every_length(const impl *ims, size_t n_ims, uint64_t fill) {
  enum { MAX = 4096 };
  unsigned char src[MAX];
  test_fill_random(src, MAX, fill);
  uint64_t rng = 99 + fill;
  for (size_t n = 0; n <= MAX; n++) {
    size_t off = n % 17;
    unsigned char *block = malloc(off + n + 1);
    ASSERT(block != NULL);
    unsigned char *p = block + off;
    memcpy(p, src, n);
    uint64_t seed = (n % 3 == 0) ? 0 : next_random(&rng);
    uint64_t want = bitwise_crc64(seed, p, n);
    for (size_t i = 0; i < n_ims; i++) {
      uint64_t got = ims[i].fn(seed, p, n);
      if (got != want)
        FAIL("length %zu offset %zu: %s %016" PRIx64 " want %016" PRIx64, n, off, ims[i].name, got,
             want);
    }
    free(block);
  }
}

TEST(crc64_impls_agree_every_length) {
  need_clmul();
  const impl ims[] = {{"table", xio__blob_crc64_table}, {"clmul", xio__blob_crc64_clmul}};
  agree_every_length(ims, 2, 17);
}

/* The same for the wide one: lengths on both sides of its 256-byte stride and of
 * every count of strides up to 16, and the tails after them. */
TEST(crc64_vpclmul_agrees_every_length) {
  need_vpclmul();
  agree_every_length(&(impl){"vpclmul", xio__blob_crc64_vpclmul}, 1, 19);
}

/* Many random (offset, length) slices of a 9 MiB buffer: short, medium and up to the
 * whole buffer, any start, resuming from 0 or a random value. */
TEST(crc64_impls_agree_random_slices) {
  need_clmul();
  const size_t size = 9u << 20;
  unsigned char *buf = malloc(size);
  ASSERT(buf != NULL);
  test_fill_random(buf, size, 2024);
  int wide_ok = xio__blob_crc64_vpclmul_supported(); /* checked too where it runs */
  uint64_t rng = 7;
  for (int i = 0; i < 600; i++) {
    size_t off = (size_t)(next_random(&rng) % size), room = size - off, len;
    switch (i % 3) {
    case 0: len = (size_t)(next_random(&rng) % 513); break;
    case 1: len = (size_t)(next_random(&rng) % 65537); break;
    default: len = (size_t)(next_random(&rng) % (room + 1)); break;
    }
    if (len > room) len = room;
    uint64_t seed = (i & 1) ? next_random(&rng) : 0;
    uint64_t table = xio__blob_crc64_table(seed, buf + off, len);
    uint64_t clmul = xio__blob_crc64_clmul(seed, buf + off, len);
    if (table != clmul)
      FAIL("slice %d (offset %zu length %zu): table %016" PRIx64 " clmul %016" PRIx64, i, off, len,
           table, clmul);
    uint64_t wide = wide_ok ? xio__blob_crc64_vpclmul(seed, buf + off, len) : clmul;
    if (wide != clmul)
      FAIL("slice %d (offset %zu length %zu): vpclmul %016" PRIx64 " clmul %016" PRIx64, i, off,
           len, wide, clmul);
  }
  /* The whole buffer, and nearly all of it from odd starts. */
  for (size_t off = 0; off < 4; off++) {
    size_t len = size - off - (off ? 5 : 0);
    ASSERT_U64_EQ(xio__blob_crc64_clmul(0, buf + off, len),
                  xio__blob_crc64_table(0, buf + off, len));
    if (wide_ok)
      ASSERT_U64_EQ(xio__blob_crc64_vpclmul(0, buf + off, len),
                    xio__blob_crc64_table(0, buf + off, len));
  }
  free(buf);
}

/* ----------------------------------------------------------- incremental ---- */

/* A buffer cut at random points into up to 12 pieces, each piece handed to the
 * table, the carry-less or the public function at random, equals one call of each;
 * and every two-piece split of 1000 bytes through the carry-less one. */
TEST(crc64_incremental_random_splits) {
  need_clmul();
  enum { N = 200000 };
  unsigned char *buf = malloc(N);
  ASSERT(buf != NULL);
  test_fill_random(buf, N, 31);
  const crc64_fn fns[] = {xio__blob_crc64_table, xio__blob_crc64_clmul, xio_blob_crc64,
                          xio__blob_crc64_vpclmul};
  uint64_t nfns = xio__blob_crc64_vpclmul_supported() ? 4 : 3; /* the wide one where it runs */
  uint64_t whole = xio__blob_crc64_table(0, buf, N);
  ASSERT_U64_EQ(xio__blob_crc64_clmul(0, buf, N), whole);
  ASSERT_U64_EQ(xio_blob_crc64(0, buf, N), whole);
  uint64_t rng = 1234;
  for (int trial = 0; trial < 300; trial++) {
    size_t cuts[12];
    int ncuts = (int)(next_random(&rng) % 12);
    for (int i = 0; i < ncuts; i++) {
      /* Mostly anywhere, sometimes close to the previous cut for tiny pieces. */
      size_t prev = i ? cuts[i - 1] : 0;
      size_t c = (next_random(&rng) & 1) ? (size_t)(next_random(&rng) % (N + 1))
                                         : prev + (size_t)(next_random(&rng) % 40);
      cuts[i] = c > N ? N : c;
    }
    for (int i = 1; i < ncuts; i++) /* insertion sort */
      for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
        size_t t = cuts[j];
        cuts[j] = cuts[j - 1];
        cuts[j - 1] = t;
      }
    uint64_t crc = 0;
    size_t at = 0;
    for (int i = 0; i <= ncuts; i++) {
      size_t end = i < ncuts ? cuts[i] : N;
      crc = fns[next_random(&rng) % nfns](crc, buf + at, end - at);
      at = end;
    }
    if (crc != whole)
      FAIL("trial %d (%d cuts): %016" PRIx64 " != %016" PRIx64, trial, ncuts, crc, whole);
  }
  uint64_t w1000 = xio__blob_crc64_table(0, buf + 1, 1000);
  for (size_t s = 0; s <= 1000; s++) {
    uint64_t c = xio__blob_crc64_clmul(xio__blob_crc64_clmul(0, buf + 1, s), buf + 1 + s, 1000 - s);
    if (c != w1000) FAIL("split at %zu: %016" PRIx64 " != %016" PRIx64, s, c, w1000);
  }
  uint64_t w3000 = xio__blob_crc64_table(0, buf + 3, 3000);
  for (size_t s = 0; nfns == 4 && s <= 3000; s++) {
    uint64_t c =
        xio__blob_crc64_vpclmul(xio__blob_crc64_vpclmul(0, buf + 3, s), buf + 3 + s, 3000 - s);
    if (c != w3000) FAIL("vpclmul split at %zu: %016" PRIx64 " != %016" PRIx64, s, c, w3000);
  }
  free(buf);
}

/* -------------------------------------------------------------- dispatch ---- */

/* XIO_CRC64=table makes xio_blob_crc64 use the portable implementation. The choice
 * is made on first use, so this relies on running in a fresh process, as ctest
 * runs every test. */
TEST(crc64_env_forces_table) {
  ASSERT_EQ(setenv("XIO_CRC64", "table", 1), 0);
  ASSERT_STR_EQ(xio__blob_crc64_impl(), "table");
  check_vectors(&(impl){"xio_blob_crc64 (table)", xio_blob_crc64});
  size_t n = XIO_BLOB_MAX_PUT_PAGE;
  unsigned char *buf = malloc(n + 1);
  ASSERT(buf != NULL);
  test_fill_random(buf, n + 1, 8);
  ASSERT_U64_EQ(xio_blob_crc64(0, buf + 1, n), bitwise_crc64(0, buf + 1, n));
  free(buf);
}

/* XIO_CRC64=clmul: the 128-bit carry-less one even where the wide one could run. */
TEST(crc64_env_forces_clmul) {
  need_clmul();
  ASSERT_EQ(setenv("XIO_CRC64", "clmul", 1), 0);
  ASSERT_STR_EQ(xio__blob_crc64_impl(), "clmul");
  check_vectors(&(impl){"xio_blob_crc64 (clmul)", xio_blob_crc64});
}

/* Without it, the fastest implementation the CPU can run. */
TEST(crc64_dispatch_default) {
  ASSERT_EQ(unsetenv("XIO_CRC64"), 0);
  const char *want = xio__blob_crc64_vpclmul_supported() ? "vpclmul"
                     : xio__blob_crc64_clmul_supported() ? "clmul"
                                                         : "table";
  ASSERT_STR_EQ(xio__blob_crc64_impl(), want);
  check_vectors(&(impl){"xio_blob_crc64", xio_blob_crc64});
}
