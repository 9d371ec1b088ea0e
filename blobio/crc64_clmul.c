/*
 * crc64_clmul.c - CRC-64/NVME by carry-less multiplication (x86-64 PCLMULQDQ),
 * folding 128 bytes per step and ending with a Barrett reduction; much faster than
 * slicing-by-8 on the 4 MiB bodies of Put Page (docs/benchmarks/design.md#crc64-clmul). checksum.c
 * calls it only where the CPU has PCLMULQDQ and SSE4.1; the functions that use them carry
 * __attribute__((target)), so the rest of the project is built for the baseline.
 * On other architectures or compilers the file holds stubs (never chosen).
 *
 * Where the CPU also has VPCLMULQDQ and AVX2 (x86-64 since about 2019: AMD Zen 3,
 * Intel Ice Lake), xio__blob_crc64_vpclmul folds two blocks per instruction in
 * 256-bit registers, 256 bytes per step. The 128-bit version is bound by the
 * multiplier, not by memory: it runs as fast whether the bytes are in cache or
 * not, so doing twice the work per instruction is what makes the wide one faster.
 * Both end the same way.
 *
 * Notation. Polynomials are over GF(2); P = x^64 + 0xAD93D23594C93659 (normal
 * form). The CRC is reflected: the first bit of the message is the lowest bit of
 * its first byte and the highest power of x. So 16 message bytes loaded little-
 * endian into a 128-bit register hold a polynomial X with bit j the coefficient of
 * x^(127-j), and a 64-bit lane holds rho(A): bit j the coefficient of x^(63-j).
 * The raw CRC register after a message M is M(x) * x^64 mod P, with the previous
 * register (the inverted previous result) added into the first 8 bytes of M.
 *
 * Carry-less multiplication of two lanes, clmul(rho(A), rho(B)), gives a 128-bit
 * register whose bit k is the coefficient of x^(126-k) in A*B: read as a 128-bit
 * message block it is A*B*x. Every constant below is therefore taken one power of
 * x lower than the algebra asks for.
 *
 * Folding. Split a 128-bit block X = H*x^64 + L (H is the low lane, L the high
 * lane). Moving X forward over T more message bits (X * x^T) keeps it mod P as
 *     H * (x^(T+64) mod P)  +  L * (x^T mod P),
 * two clmuls whose sum fits in 128 bits and lines up with the block T bits later,
 * into which it is XORed. The pair of constants for T is
 *     rho(x^(T+63) mod P)  (low lane, multiplies H),  rho(x^(T-1) mod P)  (high lane).
 * The main loop keeps eight independent accumulators over 128-byte strides
 * (T = 1024, so the multiplications overlap in the pipeline); at the end,
 * accumulator i of 8 is folded over the 7-i blocks after it (T = 128*(7-i)) and
 * the eight are XORed into one; then whole 16-byte blocks fold one at a time
 * (T = 128). Bytes short of a whole block go through the table implementation.
 * The wide version keeps eight 256-bit accumulators, two blocks each, over
 * 256-byte strides (T = 2048, the same pair of constants in both halves); at the
 * end each is folded over the 32 bytes to the next (T = 256) and added to it, and
 * the two blocks of the last are folded into one (T = 128).
 *
 * Reduction to the 64-bit register R = X * x^64 mod P:
 *  1. Y = H * (x^128 mod P) + L * x^64: one clmul with rho(x^127 mod P) (the same
 *     constant as the high lane of T = 128), plus L shifted into the low lane.
 *     Y = Yh*x^64 + Yl is congruent to X * x^64 and of degree < 128.
 *  2. Barrett: Y mod P = Y + q*P with q = floor(Y / P) = floor(Yh * mu / x^63),
 *     mu = floor(x^127 / P) (degree 63: exact for deg Y < 128 because deg Yh <= 63).
 *     clmul(rho(Yh), rho(mu)) has rho(q) as its low lane (the extra x is the x^63).
 *  3. The remainder is Yl + (q * (P - x^64) mod x^64). Writing P - x^64 = x*G + 1
 *     (the constant term of P is 1), clmul(rho(q), rho(G)) is q*x*G exactly, so
 *     R = Yl + high lane of clmul(rho(q), rho(G)) + q. rho(G) is the reflected
 *     polynomial shifted left by one bit.
 *
 * Where the constants come from: xio__blob_crc64_clmul_k below holds
 * rho(x^k mod P), rho(floor(x^127 / P)) and rho(G), computed bit by bit from P
 * (x^k mod P by k shifts, each adding P when x^64 appears; floor(x^127 / P) by long
 * division) by xpow_mod and barrett_mu in tests/blobio/unit/crc64_impl_test.c,
 * which recomputes every one from XIO__BLOB_CRC64_POLY and fails if any differs.
 */
#include <stddef.h>
#include <stdint.h>

#include "crc64_int.h"

/* The constants, for every architecture, so the test can check them anywhere. */
const xio__blob_crc64_clmul_consts xio__blob_crc64_clmul_k = {
    .fold =
        {
            {0xeadc41fd2ba3d420ull, 0x21e9761e252621acull}, /* T = 128:  x^191,  x^127 */
            {0xb0bc2e589204f500ull, 0xe1e0bb9d45d7a44cull}, /* T = 256:  x^319,  x^255 */
            {0xbdd7ac0ee1a4a0f0ull, 0xa3ffdc1fe8e82a8bull}, /* T = 384:  x^447,  x^383 */
            {0x0c32cdb31e18a84aull, 0x62242240ace5045aull}, /* T = 512:  x^575,  x^511 */
            {0x7b0ab10dd0f809feull, 0x03363823e6e791e5ull}, /* T = 640:  x^703,  x^639 */
            {0x3c255f5ebc414423ull, 0x34f5a24e22d66e90ull}, /* T = 768:  x^831,  x^767 */
            {0xd083dd594d96319dull, 0x946588403d4adcbcull}, /* T = 896:  x^959,  x^895 */
            {0xa1ca681e733f9c40ull, 0x5f852fb61e8d92dcull}, /* T = 1024: x^1087, x^1023 */
        },
    .wide = {0x37ccd3e14069cabcull, 0xa043808c0f782663ull}, /* T = 2048: x^2111, x^2047 */
    .mu = 0x27ecfa329aef9f77ull,                            /* rho(floor(x^127 / P)) */
    .poly = 0x34d926535897936aull,                          /* rho(G), P = x^64 + x*G + 1 */
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

int xio__blob_crc64_clmul_supported(void) {
  __builtin_cpu_init(); /* harmless if done; needed if we run before constructors */
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

/* 16 bytes at any alignment. */
CLMUL_TARGET static __m128i load16(const unsigned char *p) {
  return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* Both constants of one fold distance: element 0 in the low lane. */
CLMUL_TARGET static __m128i load_k(const uint64_t k[2]) {
  return _mm_loadu_si128((const __m128i *)(const void *)k);
}

/* Moves block `x` forward over the distance `k` was made for and adds `next`,
 * the block found there. */
CLMUL_TARGET static __m128i fold(__m128i x, __m128i k, __m128i next) {
  __m128i h = _mm_clmulepi64_si128(x, k, 0x00); /* low lane of x times low lane of k */
  __m128i l = _mm_clmulepi64_si128(x, k, 0x11); /* high lane times high lane */
  return _mm_xor_si128(_mm_xor_si128(h, l), next);
}

/* The raw 64-bit register X * x^64 mod P of the last block (steps 1-3 above). */
CLMUL_TARGET static uint64_t reduce(__m128i x, const xio__blob_crc64_clmul_consts *k) {
  __m128i k127 = _mm_cvtsi64_si128((long long)k->fold[0][1]);
  __m128i y = _mm_xor_si128(_mm_clmulepi64_si128(x, k127, 0x00), _mm_srli_si128(x, 8));
  __m128i barrett = _mm_set_epi64x((long long)k->poly, (long long)k->mu);
  __m128i q = _mm_clmulepi64_si128(y, barrett, 0x00);  /* low lane: rho(q) */
  __m128i qg = _mm_clmulepi64_si128(q, barrett, 0x10); /* q times rho(G) */
  __m128i r = _mm_xor_si128(y, qg);
  return (uint64_t)_mm_extract_epi64(r, 1) ^ (uint64_t)_mm_cvtsi128_si64(q);
}

/* Folds the whole 16-byte blocks of the `n` bytes at `p` into `x`, the folded
 * message so far, reduces it and runs the bytes short of a block through the
 * table: the CRC of the whole message. */
CLMUL_TARGET static uint64_t finish(__m128i x, const unsigned char *p, size_t n) {
  const xio__blob_crc64_clmul_consts *k = &xio__blob_crc64_clmul_k;
  const __m128i k1 = load_k(k->fold[0]);
  for (; n >= 16; p += 16, n -= 16)
    x = fold(x, k1, load16(p));
  return xio__blob_crc64_table(~reduce(x, k), p, n);
}

CLMUL_TARGET uint64_t xio__blob_crc64_clmul(uint64_t crc, const void *data, size_t n) {
  const xio__blob_crc64_clmul_consts *k = &xio__blob_crc64_clmul_k;
  const unsigned char *p = data;
  if (n < 16) return xio__blob_crc64_table(crc, data, n);

  /* The previous register (the inverted previous result: all ones to start) goes
   * into the first 8 bytes of the message. */
  uint64_t reg = ~crc;
  __m128i x = _mm_cvtsi64_si128((long long)reg);
  if (n >= 128) {
    __m128i x0 = _mm_xor_si128(load16(p), x), x1 = load16(p + 16), x2 = load16(p + 32),
            x3 = load16(p + 48), x4 = load16(p + 64), x5 = load16(p + 80), x6 = load16(p + 96),
            x7 = load16(p + 112);
    p += 128, n -= 128;
    const __m128i k8 = load_k(k->fold[7]);
    for (; n >= 128; p += 128, n -= 128) {
      x0 = fold(x0, k8, load16(p));
      x1 = fold(x1, k8, load16(p + 16));
      x2 = fold(x2, k8, load16(p + 32));
      x3 = fold(x3, k8, load16(p + 48));
      x4 = fold(x4, k8, load16(p + 64));
      x5 = fold(x5, k8, load16(p + 80));
      x6 = fold(x6, k8, load16(p + 96));
      x7 = fold(x7, k8, load16(p + 112));
    }
    /* Accumulator i lies 7-i blocks before the last one, x7: fold[6-i] moves it there. */
    x = fold(x0, load_k(k->fold[6]), x7);
    x = fold(x1, load_k(k->fold[5]), x);
    x = fold(x2, load_k(k->fold[4]), x);
    x = fold(x3, load_k(k->fold[3]), x);
    x = fold(x4, load_k(k->fold[2]), x);
    x = fold(x5, load_k(k->fold[1]), x);
    x = fold(x6, load_k(k->fold[0]), x);
  } else {
    x = _mm_xor_si128(load16(p), x);
    p += 16, n -= 16;
  }
  return finish(x, p, n);
}

#define VPCLMUL_TARGET __attribute__((target("vpclmulqdq,avx2,pclmul,sse4.1")))

int xio__blob_crc64_vpclmul_supported(void) {
  return xio__blob_crc64_clmul_supported() && __builtin_cpu_supports("vpclmulqdq") &&
         __builtin_cpu_supports("avx2");
}

/* 32 bytes at any alignment: two blocks, the first in the low half. */
VPCLMUL_TARGET static __m256i load32(const unsigned char *p) {
  return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* fold() on both blocks of `x` at once, `k` holding the same pair in both halves. */
VPCLMUL_TARGET static __m256i fold2(__m256i x, __m256i k, __m256i next) {
  __m256i h = _mm256_clmulepi64_epi128(x, k, 0x00);
  __m256i l = _mm256_clmulepi64_epi128(x, k, 0x11);
  return _mm256_xor_si256(_mm256_xor_si256(h, l), next);
}

/* One fold distance's pair of constants in both halves. */
VPCLMUL_TARGET static __m256i load_k2(const uint64_t k[2]) {
  return _mm256_broadcastsi128_si256(load_k(k));
}

VPCLMUL_TARGET uint64_t xio__blob_crc64_vpclmul(uint64_t crc, const void *data, size_t n) {
  const xio__blob_crc64_clmul_consts *k = &xio__blob_crc64_clmul_k;
  const unsigned char *p = data;
  if (n < 256) return xio__blob_crc64_clmul(crc, data, n);
  __m256i x[8];
  for (int i = 0; i < 8; i++)
    x[i] = load32(p + 32 * i);
  uint64_t reg = ~crc; /* into the first 8 bytes, as in xio__blob_crc64_clmul */
  x[0] = _mm256_xor_si256(x[0], _mm256_set_epi64x(0, 0, 0, (long long)reg));
  p += 256, n -= 256;
  const __m256i kw = load_k2(k->wide);
  for (; n >= 256; p += 256, n -= 256) {
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
      x[i] = fold2(x[i], kw, load32(p + 32 * i));
  }
  /* Accumulator i lies 32 bytes before i + 1: each is folded on into the next. */
  const __m256i k2 = load_k2(k->fold[1]);
  __m256i y = x[0];
  for (int i = 1; i < 8; i++)
    y = fold2(y, k2, x[i]);
  __m128i last =
      fold(_mm256_castsi256_si128(y), load_k(k->fold[0]), _mm256_extracti128_si256(y, 1));
  return finish(last, p, n);
}

#else /* no PCLMULQDQ here: never chosen, and the table does the work if called */

int xio__blob_crc64_clmul_supported(void) { return 0; }

int xio__blob_crc64_vpclmul_supported(void) { return 0; }

uint64_t xio__blob_crc64_clmul(uint64_t crc, const void *data, size_t n) {
  return xio__blob_crc64_table(crc, data, n);
}

uint64_t xio__blob_crc64_vpclmul(uint64_t crc, const void *data, size_t n) {
  return xio__blob_crc64_table(crc, data, n);
}

#endif
