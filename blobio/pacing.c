/*
 * pacing.c - the engine's pacer: every request waits, if need be, until its blob and
 * its account have room under their rates, so that a client under the service's
 * scale targets is not answered 503 ServerBusy in a retry storm.
 *
 * Each blob (and each account) has a pair of rates, requests and bytes per second,
 * starting at the documented target of its tier: a standard page blob 500 requests/s
 * and 60 MiB/s, a premium one its tier's IOPS and MB/s once an answer says which
 * (x-ms-access-tier); an account 20,000 requests/s. A request costs 1/rps or
 * bytes/bps seconds, whichever is more, and is scheduled at its key's theoretical
 * arrival time (a virtual clock, with 50 ms of burst allowed). Additive increase,
 * multiplicative decrease: a throttling answer cuts the rates to 70% (with +-10%
 * jitter, so that clients sharing an account do not move in step), at most once per
 * 100 ms since the answers to requests already on the wire arrive together; other
 * answers add back, once per 100 ms, 5% of the rate the last cut left (a step that
 * scales with what the service allowed, whatever the tier), up to the target (or
 * the cap). All on the engine's I/O thread: no lock.
 */
#define _GNU_SOURCE
#include <string.h>

#include "pacing_int.h"

#define MIB          (1024.0 * 1024.0)
#define MB           (1000.0 * 1000.0)
#define BURST_US     50000
#define CUT_EVERY_US 100000
#define ACCOUNT_RPS  20000.0
#define ACCOUNT_BPS  (10.0 * 1000 * MB / 8)

enum { PACE_AUTO = 0, PACE_OFF = 1, PACE_ON = 2 }; /* as xio_blob_pacing */

void xio__blob_pace_tier(const char *tier, double *rps, double *bps) {
  static const struct {
    const char *name;
    double rps, mbps;
  } tiers[] = {{"P10", 500, 100},   {"P15", 1100, 125},  {"P20", 2300, 150},
               {"P30", 5000, 200},  {"P40", 7500, 250},  {"P50", 7500, 250},
               {"P60", 16000, 500}, {"P70", 18000, 750}, {"P80", 20000, 750}};
  *rps = 500;
  *bps = 60 * MIB;
  for (size_t i = 0; tier && i < sizeof tiers / sizeof *tiers; i++)
    if (strcmp(tier, tiers[i].name) == 0) {
      *rps = tiers[i].rps;
      *bps = tiers[i].mbps * MB;
    }
}

void xio__blob_pacer_init(xio__blob_pacer *p, int mode, double cap_bps, uint64_t seed) {
  memset(p, 0, sizeof *p);
  p->on_remote = mode != PACE_OFF;
  p->on_loopback = mode == PACE_ON;
  p->cap_bps = cap_bps > 0 ? cap_bps : 0;
  p->rng = seed | 1;
}

static uint64_t hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h ? h : 1;
}

/* The slot of `key` in `t` (`n` slots): found, free, or the least recently used,
 * set up with the targets `rps` and `bps`. */
static xio__pace_slot *slot(xio__pace_slot *t, size_t n, const char *key, double rps, double bps,
                            int64_t now) {
  uint64_t h = hash(key);
  size_t oldest = 0;
  for (size_t i = 0; i < n; i++) {
    if (t[i].key == h) {
      t[i].used_us = now;
      return &t[i];
    }
    if (!t[i].key || (t[oldest].key && t[i].used_us < t[oldest].used_us)) oldest = i;
  }
  xio__pace_slot *s = &t[oldest];
  memset(s, 0, sizeof *s);
  s->key = h;
  s->rps = s->target_rps = rps;
  s->bps = s->target_bps = bps;
  s->tat_us = s->used_us = now;
  return s;
}

static xio__pace_slot *blob_slot(xio__blob_pacer *p, const char *blob, int64_t now) {
  double rps, bps;
  xio__blob_pace_tier(NULL, &rps, &bps);
  if (p->cap_bps && p->cap_bps < bps) bps = p->cap_bps;
  return slot(p->blobs, XIO__PACE_SLOTS, blob, rps, bps, now);
}

static xio__pace_slot *account_slot(xio__blob_pacer *p, const char *account, int64_t now) {
  return slot(p->accounts, sizeof p->accounts / sizeof *p->accounts, account, ACCOUNT_RPS,
              ACCOUNT_BPS, now);
}

/* The earliest start of a request costing `cost_us` on `s`. */
static int64_t earliest(const xio__pace_slot *s, int64_t now) {
  int64_t t = s->tat_us - BURST_US;
  return t > now ? t : now;
}

static int64_t cost_us(const xio__pace_slot *s, size_t bytes) {
  double by_req = 1e6 / s->rps, by_bytes = s->bps > 0 ? 1e6 * (double)bytes / s->bps : 0;
  return (int64_t)(by_req > by_bytes ? by_req : by_bytes);
}

static void reserve(xio__pace_slot *s, int64_t start, size_t bytes) {
  int64_t base = s->tat_us > start ? s->tat_us : start;
  s->tat_us = base + cost_us(s, bytes);
}

int64_t xio__blob_pace(xio__blob_pacer *p, const char *blob, const char *account, int loopback,
                       size_t bytes, int64_t now_us) {
  if (!(loopback ? p->on_loopback : p->on_remote)) return now_us;
  xio__pace_slot *b = blob_slot(p, blob, now_us), *a = account_slot(p, account, now_us);
  int64_t sb = earliest(b, now_us), sa = earliest(a, now_us);
  int64_t start = sb > sa ? sb : sa;
  reserve(b, start, bytes);
  reserve(a, start, bytes);
  if (start > now_us) p->waits++;
  return start;
}

/* A factor in [0.9, 1.1) from the pacer's generator. */
static double jitter(xio__blob_pacer *p) {
  p->rng ^= p->rng << 13;
  p->rng ^= p->rng >> 7;
  p->rng ^= p->rng << 17;
  return 0.9 + 0.2 * (double)(p->rng >> 11) / (double)(1ull << 53);
}

static void cut(xio__blob_pacer *p, xio__pace_slot *s, int64_t now) {
  if (now - s->cut_us < CUT_EVERY_US && s->cut_us) return;
  double f = 0.7 * jitter(p);
  s->cut_us = s->raised_us = now;
  s->rps = s->rps * f > 1.0 ? s->rps * f : 1.0;
  s->bps = s->bps * f > 64 * 1024.0 ? s->bps * f : 64 * 1024.0;
  s->step_rps = s->rps * 0.05;
  s->step_bps = s->bps * 0.05;
}

/* Additive increase: once per window, the step set at the last cut (5% of the rate
 * it left), up to the target; before any cut the rates are at the target. */
static void raise_rates(xio__pace_slot *s, int64_t now) {
  if (now - s->raised_us < CUT_EVERY_US) return;
  s->raised_us = now;
  s->rps += s->step_rps;
  s->bps += s->step_bps;
  if (s->rps > s->target_rps) s->rps = s->target_rps;
  if (s->bps > s->target_bps) s->bps = s->target_bps;
}

void xio__blob_pace_answer(xio__blob_pacer *p, const char *blob, const char *account, int throttled,
                           const char *tier, int64_t now_us) {
  if (!p->on_remote && !p->on_loopback) return;
  xio__pace_slot *b = blob_slot(p, blob, now_us), *a = account_slot(p, account, now_us);
  if (tier && tier[0] == 'P') { /* a premium blob: its tier's targets from now on */
    double rps, bps;
    xio__blob_pace_tier(tier, &rps, &bps);
    if (p->cap_bps && p->cap_bps < bps) bps = p->cap_bps;
    if (rps != b->target_rps || bps != b->target_bps) {
      b->rps = b->target_rps = rps;
      b->bps = b->target_bps = bps;
    }
  }
  if (throttled) {
    p->throttled++;
    cut(p, b, now_us);
    cut(p, a, now_us);
    return;
  }
  raise_rates(b, now_us);
  raise_rates(a, now_us);
}
