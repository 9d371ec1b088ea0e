/*
 * random.c - pseudo-random numbers (xorshift64*) for random offsets and for the
 * payload of writes, so that nothing on the way can shortcut all-zero or repeated
 * data. Deterministic for a given seed.
 */
#include <string.h>

#include "bench.h"

uint64_t bench_rand(uint64_t *state) {
  uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

void bench_fill_random(void *buf, size_t n, uint64_t seed) {
  uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
  unsigned char *p = buf;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = bench_rand(&st);
    memcpy(p + i, &v, 8);
  }
  for (uint64_t v = bench_rand(&st); i < n; i++, v >>= 8)
    p[i] = (unsigned char)v;
}
