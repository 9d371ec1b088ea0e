/*
 * retry.c - how long to wait before trying again: the service's own hint when it
 * gives one (retry-after-ms, x-ms-retry-after-ms, Retry-After in seconds), else
 * exponential backoff with jitter like the official Azure SDKs.
 */
#include <stdlib.h>

#include "engine_int.h"

/* A non-negative integer header value, or -1. */
static long header_number(const xio__blob_hdrs *h, const char *name) {
  const char *v = xio__blob_hdrs_get(h, name);
  if (!v || !*v) return -1;
  char *end;
  long n = strtol(v, &end, 10);
  return (*end == '\0' && n >= 0) ? n : -1;
}

/* xorshift64*: the jitter needs spread, not secrecy. */
static double next_unit(uint64_t *s) {
  uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
  *s = x;
  return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / (double)(1ull << 53);
}

int xio__blob_retry_delay_ms(const xio_blob_retry_policy *p, int attempt,
                             const xio__blob_hdrs *resp, uint64_t *rng) {
  long hint = resp ? header_number(resp, "retry-after-ms") : -1;
  if (hint < 0 && resp) hint = header_number(resp, "x-ms-retry-after-ms");
  if (hint < 0 && resp) {
    long s = header_number(resp, "Retry-After");
    if (s >= 0) hint = s > 86400 ? 86400000L : s * 1000;
  }
  double cap = p->max_delay_ms > 0 ? p->max_delay_ms : 60000;
  if (hint >= 0) return (int)(hint < cap ? hint : cap);
  double d = p->base_delay_ms > 0 ? p->base_delay_ms : 0;
  for (int i = 1; i < attempt && d < cap; i++)
    d *= 2;
  d *= 0.8 + 0.5 * next_unit(rng);
  return (int)(d < cap ? d : cap);
}
