/*
 * pacing_test.c - the engine's pacer (blobio/pacing.c) on a clock the test sets:
 * where each request may start for a standard blob's documented targets, a premium
 * tier, a cap, the account's share, loopback endpoints, and the additive increase
 * and multiplicative decrease on throttling answers, a halving no lower than what
 * the service was seen to take.
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
  int64_t start = 0, now = 1000000;
  for (int k = 0; k < 500; k++) {
    start = xio__blob_pace(&p, BLOB, ACCOUNT, 0, 0, now, NULL);
    if (start - now > XIO__PACE_LEAD_US) { /* too far off to reserve: asks again then */
      now = start;
      start = xio__blob_pace(&p, BLOB, ACCOUNT, 0, 0, now, NULL);
    }
    int64_t want = k * 2000 - 50000;
    ASSERT_EQ(start, 1000000 + (want > 0 ? want : 0));
  }
  ASSERT_EQ(start, 1000000 + 948000);
}

/* 4 MiB writes at 60 MiB/s: 1/15 s each, more than 1/500 s by requests. */
TEST(pacing_keeps_a_standard_blob_at_60_mib_per_second) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 1);
  int64_t s[4], now = 0;
  for (int k = 0; k < 4; k++) {
    s[k] = xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, now, NULL);
    if (s[k] - now > XIO__PACE_LEAD_US)
      now = s[k] = xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, s[k], NULL);
  }
  ASSERT_EQ(s[0], 0);
  ASSERT_EQ(s[1], 66666 - 50000);
  ASSERT_EQ(s[2], 2 * 66666 - 50000);
  ASSERT_EQ(s[3], 3 * 66666 - 50000);
}

TEST(pacing_cap_lowers_the_byte_rate) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 8 * MIB, 1);
  ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, 0, NULL), 0);
  ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, 0, NULL), 500000 - 50000); /* not kept */
  ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, 450000, NULL), 450000);
  ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, 450000, NULL), 950000);
}

/* AUTO leaves an emulator on this machine alone; ON paces it too; OFF nothing. */
TEST(pacing_modes_and_loopback) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 1);
  for (int k = 0; k < 100; k++)
    ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 1, 4u << 20, 0, NULL), 0);
  xio__blob_pacer_init(&p, OFF, 0, 1);
  for (int k = 0; k < 100; k++)
    ASSERT_EQ(xio__blob_pace(&p, BLOB, ACCOUNT, 0, 4u << 20, 0, NULL), 0);
  xio__blob_pacer_init(&p, ON, 0, 1);
  xio__blob_pace(&p, BLOB, ACCOUNT, 1, 4u << 20, 0, NULL);
  ASSERT(xio__blob_pace(&p, BLOB, ACCOUNT, 1, 4u << 20, 0, NULL) > 0);
}

/* The first throttling answer halves the rates, once for all the tries scheduled
 * at the old rate; accepted answers bring them back to 95% of that rate within about
 * a second, then probe upward by 0.25% of it per answer; a later refusal takes off
 * about 10%; the rates never pass the target. */
TEST(pacing_backs_off_on_throttling_and_recovers) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 7);
  xio__blob_pace(&p, BLOB, ACCOUNT, 0, 0, 0, NULL); /* scheduled up to 2 ms */
  xio__pace_slot *b = blob_slot_of(&p);
  for (int i = 0; i < 5; i++) /* five tries sent before the answers came */
    xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_BUSY, NULL, NULL, i, 1000 + i);
  ASSERT(b->level >= 0.475 && b->level <= 0.525);
  ASSERT(b->ceiling == 1.0);
  ASSERT_EQ(p.throttled, 5);
  ASSERT_EQ(b->cuts, 1);
  double low = b->level;
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, NULL, NULL, 3000, 1000 + 500000);
  ASSERT(b->level > low + 0.49 * (0.95 - low) && b->level < low + 0.51 * (0.95 - low));
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, NULL, NULL, 3000, 3000000);
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, NULL, NULL, 3000, 5000000);
  ASSERT(b->level == 0.95); /* within 1% of the goal: at it */
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, NULL, NULL, 3000, 5000001);
  ASSERT(b->level > 0.9524 && b->level < 0.9526);
  ASSERT_EQ(b->since_cut, 4);
  double near = b->level; /* four tries paced at it were accepted: a near cut */
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_BUSY, NULL, NULL, 5100000, 5200000);
  ASSERT(b->level >= near * 0.855 && b->level <= near * 0.945);
  ASSERT(b->ceiling == near);
  for (int i = 0; i < 2000; i++)
    xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, NULL, NULL, 6000000, 6000000 + i * 1000);
  ASSERT(b->level == 1.0); /* back at the target, never past it */
  double rps, bps;
  xio__blob_pace_rates(&p, BLOB, &rps, &bps);
  ASSERT(rps == 500.0 && bps == 60 * MIB);
}

/* A refusal soon after a halving (fewer than 4 tries paced at the new rate taken)
 * halves again, and brings nothing back: the limit is further down. */
TEST(pacing_halves_again_while_refusals_go_on) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 7);
  xio__blob_pace(&p, BLOB, ACCOUNT, 0, 0, 0, NULL);
  xio__pace_slot *b = blob_slot_of(&p);
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_BUSY, NULL, NULL, 0, 1000);
  double first = b->level;
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, NULL, NULL, 2000, 3000);
  first = b->level; /* a little back toward 95% */
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_BUSY, NULL, NULL, 4000, 5000);
  ASSERT_EQ(b->cuts, 2);
  ASSERT(b->level <= first * 0.525 && b->ceiling == first);
  double second = b->level;
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, NULL, NULL, 6000, 2000000);
  ASSERT(b->level > second && b->level < second + 0.003 * first); /* one probe step */
}

/* The place of a try of `bytes` at or after *now (asking again when it is too far off
 * to reserve): its start, *now moved there. */
static int64_t place(xio__blob_pacer *p, size_t bytes, int64_t *now, xio__pace_mark *m) {
  int64_t start;
  while ((start = xio__blob_pace(p, BLOB, ACCOUNT, 0, bytes, *now, m)) - *now > XIO__PACE_LEAD_US)
    *now = start;
  *now = start;
  return start;
}

/* A halving goes no lower than what the service was seen to take between two
 * refusals: three 4 MiB tries taken in the half second between them, 24 MiB/s. */
TEST(pacing_halves_no_lower_than_what_the_service_took) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, ON, 0, 7);
  xio__pace_mark a, k[3], e;
  int64_t now = 0, sent[3];
  int64_t first = place(&p, 4u << 20, &now, &a);
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_BUSY, NULL, &a, first, now + 5000);
  xio__pace_slot *b = blob_slot_of(&p);
  ASSERT_EQ(b->cuts, 1);
  now += 10000;
  for (int i = 0; i < 3; i++)
    sent[i] = place(&p, 4u << 20, &now, &k[i]);
  for (int i = 0; i < 3; i++)
    xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, NULL, &k[i], sent[i], sent[i] + 10000);
  now = first + 500000;
  ASSERT_EQ(place(&p, 4u << 20, &now, &e), first + 500000);
  double was = b->level;
  ASSERT(was * 0.525 < 0.4 && was * 0.9 > 0.4); /* a halving would go below it */
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_BUSY, NULL, &e, now, now + 5000);
  ASSERT_EQ(b->cuts, 2);
  ASSERT(b->level > 0.4 - 1e-9 && b->level < 0.4 + 1e-9); /* 24 of 60 MiB/s */
  /* Without the places, the same refusals halve. */
  xio__blob_pacer_init(&p, ON, 0, 7);
  now = 0;
  first = place(&p, 4u << 20, &now, &a);
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_BUSY, NULL, NULL, first, now + 5000);
  now += 10000;
  for (int i = 0; i < 3; i++)
    sent[i] = place(&p, 4u << 20, &now, &k[i]);
  for (int i = 0; i < 3; i++)
    xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, NULL, NULL, sent[i], sent[i] + 10000);
  now = first + 500000;
  place(&p, 4u << 20, &now, &e);
  was = b->level;
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_BUSY, NULL, NULL, now, now + 5000);
  ASSERT(b->level <= was * 0.525);
}

/* A refusal naming the account's limit cuts the account, not the blob. */
TEST(pacing_account_refusals_cut_the_account) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 7);
  xio__blob_pace(&p, BLOB, ACCOUNT, 0, 0, 0, NULL);
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_ACCOUNT, NULL, NULL, 0, 1000);
  ASSERT(blob_slot_of(&p)->level == 1.0);
  ASSERT(p.accounts[0].key && p.accounts[0].level <= 0.525 && p.accounts[0].cuts == 1);
}

/* An answer naming a premium tier moves the blob to that tier's targets. */
TEST(pacing_takes_a_premium_tier_from_the_answers) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, AUTO, 0, 1);
  xio__blob_pace(&p, BLOB, ACCOUNT, 0, 0, 0, NULL);
  xio__blob_pace_answer(&p, BLOB, ACCOUNT, XIO__PACE_OK, "P30", NULL, 0, 0);
  xio__pace_slot *b = blob_slot_of(&p);
  ASSERT(b->target_rps == 5000.0 && b->level == 1.0);
  ASSERT(b->target_bps == 200e6);
  double rps, bps;
  xio__blob_pace_tier("Hot", &rps, &bps);
  ASSERT(rps == 500.0 && bps == 60 * MIB);
}
