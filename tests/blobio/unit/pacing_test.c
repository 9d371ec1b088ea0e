/*
 * pacing_test.c - the engine's pacer (blobio/pacing.c) on a clock the test sets:
 * where each request may start for a standard blob's documented targets, a premium
 * tier, a cap, the account's share, loopback endpoints, and the additive increase
 * and multiplicative decrease on throttling answers.
 */
#include <stdio.h>
#include <string.h>

#include "pacing_int.h"
#include "test.h"

#define BLOB    "https://a.blob.core.windows.net/c/b"
#define ACCOUNT "https://a.blob.core.windows.net/a"
#define MIB     (1024.0 * 1024.0)

enum { AUTO = 0, OFF = 1, ON = 2 };

static xio__pace_slot *blob_slot_of(xio__blob_pacer *p) {
  for (int i = 0; i < XIO__PACE_SLOTS; i++)
    if (p->blobs[i].key) return &p->blobs[i];
  FAIL("no blob slot");
  return NULL;
}

/* 500 requests/s: 2 ms apart once the 50 ms burst is spent. */
TEST(pacing_keeps_a_standard_blob_at_500_requests_per_second) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 1);
  int64_t start = 0;
  for (int k = 0; k < 500; k++) {
    start = xio__blob_pace(&p, BLOB, ACCOUNT, 0, 0, 1000000);
    int64_t want = k * 2000 - 50000;
    ASSERT_EQ(start, 1000000 + (want > 0 ? want : 0));
  }
  ASSERT_EQ(start, 1000000 + 948000);
  ASSERT_EQ(p.waits, 474); /* all but the first 26, which fit the burst */
}

/* 4 MiB writes at 60 MiB/s: 1/15 s each, more than 1/500 s by requests. */
TEST(pacing_keeps_a_standard_blob_at_60_mib_per_second) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 1);
  int64_t s[4];
  for (int k = 0; k < 4; k++)
    s[k] = xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, 0);
  ASSERT_EQ(s[0], 0);
  ASSERT_EQ(s[1], 66666 - 50000);
  ASSERT_EQ(s[2], 2 * 66666 - 50000);
  ASSERT_EQ(s[3], 3 * 66666 - 50000);
}

TEST(pacing_cap_lowers_the_byte_rate) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 8 * MIB, 1);
  ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, 0), 0);
  ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, 0), 500000 - 50000);
}

/* AUTO leaves an emulator on this machine alone; ON paces it too; OFF nothing. */
TEST(pacing_modes_and_loopback) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 1);
  for (int k = 0; k < 100; k++)
    ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 1, 4u << 20, 0), 0);
  xio__blob_pacer_init(&p, OFF, 0, 1);
  for (int k = 0; k < 100; k++)
    ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, 0), 0);
  xio__blob_pacer_init(&p, ON, 0, 1);
  xio__blob_pace(&p, BLOB, ACCOUNT, 1, 4u << 20, 0);
  ASSERT(xio__blob_pace(&p, BLOB, ACCOUNT, 1, 4u << 20, 0) > 0);
}

/* A throttling answer cuts the rates to 63..77% of what they were, once per 100 ms
 * however many arrive; other answers add back 5% of the cut rate per 100 ms, up to
 * the target. */
TEST(pacing_backs_off_on_throttling_and_recovers) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 7);
  xio__blob_pace(&p, BLOB, ACCOUNT, 0, 0, 0);
  xio__pace_slot *b = blob_slot_of(&p);
  for (int i = 0; i < 5; i++)
    xio__blob_pace_answer(&p, BLOB, ACCOUNT, 1, NULL, 1000 + i);
  ASSERT(b->rps >= 0.63 * 500 && b->rps <= 0.77 * 500);
  ASSERT(b->bps >= 0.63 * 60 * MIB && b->bps <= 0.77 * 60 * MIB);
  ASSERT_EQ(p.throttled, 5);
  double once = b->rps;
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, 1, NULL, 1000 + 100000);
  ASSERT(b->rps < once * 0.78); /* a second cut, 100 ms later */
  double low = b->rps;
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, 0, NULL, 1000 + 150000); /* too soon */
  ASSERT(b->rps == low);
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, 0, NULL, 1000 + 200000);
  ASSERT(b->rps > low * 1.0499 && b->rps < low * 1.0501);
  for (int i = 0; i < 200; i++)
    xio__blob_pace_answer(&p, BLOB, ACCOUNT, 0, NULL, 300000 + i * 100000);
  ASSERT(b->rps == 500.0);
  ASSERT(b->bps == 60 * MIB);
}

/* An answer naming a premium tier moves the blob to that tier's targets. */
TEST(pacing_takes_a_premium_tier_from_the_answers) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 1);
  xio__blob_pace(&p, BLOB, ACCOUNT, 0, 0, 0);
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, 0, "P30", 0);
  xio__pace_slot *b = blob_slot_of(&p);
  ASSERT(b->target_rps == 5000.0 && b->rps == 5000.0);
  ASSERT(b->target_bps == 200e6);
  double rps, bps;
  xio__blob_pace_tier("Hot", &rps, &bps);
  ASSERT(rps == 500.0 && bps == 60 * MIB);
}
