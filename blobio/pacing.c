/*
 * pacing.c - the engine's pacer: every request waits, if need be, until its blob and
 * its account have room under their rates, so that a client under the service's
 * scale targets is not answered 503 ServerBusy in a retry storm.
 *
 * Each blob (and each account) has targets, requests and bytes per second: a
 * standard page blob 500 requests/s and 60 MiB/s, a premium one its tier's IOPS and
 * MB/s once an answer says which (x-ms-access-tier), an account 20,000 requests/s
 * and 10 Gbit/s. The pacer keeps a key at `level` times its targets. A request costs
 * 1/rps or bytes/bps seconds, whichever is more, and is scheduled at its key's
 * theoretical arrival time (a virtual clock: a token bucket whose burst is bounded
 * to 50 ms of the rate), so requests of any size add up to the byte rate exactly.
 * A place is reserved only for a request that may start within XIO__PACE_LEAD_US;
 * one further off asks again when its time comes, so a cut applies at once to every
 * request not yet started instead of after the queue scheduled at the old rate.
 *
 * The level starts at 1 (the documented targets: what the service promises) and is
 * learned from throttling answers when the service allows less (a blob sharing its
 * partition, an account near its limit, a premium tier it was not told, an
 * emulator scaled down):
 * - A throttling answer to a try scheduled after the last cut cuts the level;
 *   answers to tries scheduled before it were sent at the old rate and are already
 *   answered by that cut (the once-per-round-trip rule of TCP's congestion control).
 *   The level where refusals began is remembered as the ceiling.
 * - The first cut, and one that comes before STREAK tries paced at the rate the last
 *   halving left were accepted (the limit is still well below), halves the level:
 *   from ten times too fast to under the limit takes four cuts, not seven of 30%.
 *   Other cuts (the rate crept past the limit) take off 10% (with +-5% jitter, so
 *   clients sharing an account do not move in step).
 * - Every refusal, news or not, says the service had no room left when its try came:
 *   between two refusals it took what it makes room for in that time, its limit
 *   times the time (less when the client sent less; more by the one try a service
 *   lets overdraw it). Each try's place among those scheduled (xio__pace_mark) is
 *   handed back with its answer, and the last XIO__PACE_PAST refusals are
 *   remembered, so at a refusal the pacer knows what the service took since each
 *   of them, tries scheduled less tries refused, over the time: the most of these
 *   over spans of MIN_SPAN_US to SPAN_US is what it was seen to take. A halving
 *   goes no lower than that, so the last halving of a descent, which may land
 *   anywhere from the limit to half of it, lands at about the limit instead: from
 *   below, the additive increase would take minutes to climb back for large
 *   requests (an answer every second or two). A 10% cut goes down to it, by at
 *   most DEEP_CUT, when the level sits well above what the service takes.
 * - After the first cut, which may answer one refusal at a right target, accepted
 *   answers bring the level back toward 95% of where it was, exponentially in time
 *   (half the way in half a second) whatever the requests' size, so it costs a
 *   fraction of a second, not many answers' worth of additive steps. Otherwise, and
 *   from there on, each accepted answer adds 0.25% of the ceiling: probing a tenth
 *   past where refusals began takes forty requests, so few are refused whatever
 *   their size; up to the target (or the cap).
 * A refusal that names the account's limit cuts the account's level, any other the
 * blob's. All on the engine's I/O thread: no lock.
 */
#define _GNU_SOURCE
#include <string.h>

#include "pacing_int.h"

#define MIB          (1024.0 * 1024.0)
#define MB           (1000.0 * 1000.0)
#define BURST_US     50000
#define ACCOUNT_RPS  20000.0
#define ACCOUNT_BPS  (10.0 * 1000 * MB / 8)
#define FAR_CUT      0.5      /* far from the ceiling */
#define NEAR_CUT     0.9      /* near it */
#define DEEP_CUT     0.85     /* near it, what the service was seen to take may cut to this */
#define STREAK       4        /* a refusal within this many answers of a far cut: far */
#define FIRST_REFILL 0.95     /* after the first cut, back to this share of the ceiling */
#define REFILL_US    500000   /* within about this long */
#define PROBE        0.0025   /* then add this share of the ceiling per accepted answer */
#define MIN_RPS      1.0      /* the least the pacer goes down to */
#define MIN_SPAN_US  500000   /* what the service took is measured over at least this */
#define SPAN_US      30000000 /* and at most this */

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

/* The slot of `key` in `t` (`n` slots), or NULL. */
static xio__pace_slot *find(xio__pace_slot *t, size_t n, uint64_t h) {
  for (size_t i = 0; i < n; i++)
    if (t[i].key == h) return &t[i];
  return NULL;
}

/* The slot of `key` in `t` (`n` slots): found, free, or the least recently used,
 * set up with the targets `rps` and `bps`. */
static xio__pace_slot *slot(xio__pace_slot *t, size_t n, const char *key, double rps, double bps,
                            int64_t now) {
  uint64_t h = hash(key);
  xio__pace_slot *s = find(t, n, h);
  if (s) {
    s->used_us = now;
    return s;
  }
  size_t oldest = 0;
  for (size_t i = 0; i < n && t[oldest].key; i++)
    if (!t[i].key || t[i].used_us < t[oldest].used_us) oldest = i;
  s = &t[oldest];
  memset(s, 0, sizeof *s);
  s->key = h;
  s->level = 1.0;
  s->target_rps = rps;
  s->target_bps = bps;
  s->tat_us = s->used_us = s->raised_us = now;
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

/* The earliest start of a request on `s`: its theoretical arrival time less the
 * burst allowed. */
static int64_t earliest(const xio__pace_slot *s, int64_t now) {
  int64_t t = s->tat_us - BURST_US;
  return t > now ? t : now;
}

static int64_t cost_us(const xio__pace_slot *s, size_t bytes) {
  double rps = s->target_rps * s->level, bps = s->target_bps * s->level;
  double by_req = 1e6 / rps, by_bytes = bps > 0 ? 1e6 * (double)bytes / bps : 0;
  return (int64_t)(by_req > by_bytes ? by_req : by_bytes);
}

static void reserve(xio__pace_slot *s, int64_t start, size_t bytes) {
  int64_t base = s->tat_us > start ? s->tat_us : start;
  s->tat_us = base + cost_us(s, bytes);
  s->n++;
  s->bytes += (double)bytes;
}

int64_t xio__blob_pace(xio__blob_pacer *p, const char *blob, const char *account, int loopback,
                       size_t bytes, int64_t now_us, xio__pace_mark *mark) {
  if (mark) memset(mark, 0, sizeof *mark); /* n 0: no place */
  if (!(loopback ? p->on_loopback : p->on_remote)) return now_us;
  xio__pace_slot *b = blob_slot(p, blob, now_us), *a = account_slot(p, account, now_us);
  int64_t sb = earliest(b, now_us), sa = earliest(a, now_us);
  int64_t start = sb > sa ? sb : sa;
  if (start - now_us > XIO__PACE_LEAD_US) return start; /* ask again then */
  reserve(b, start, bytes);
  reserve(a, start, bytes);
  if (mark) *mark = (xio__pace_mark){b->n, a->n, b->bytes, a->bytes, (double)bytes};
  if (start > now_us) p->waits++;
  return start;
}

/* A factor in [0.95, 1.05) from the pacer's generator. */
static double jitter(xio__blob_pacer *p) {
  p->rng ^= p->rng << 13;
  p->rng ^= p->rng >> 7;
  p->rng ^= p->rng << 17;
  return 0.95 + 0.1 * (double)(p->rng >> 11) / (double)(1ull << 53);
}

/* The least level of `s`: MIN_RPS requests per second. */
static double least(const xio__pace_slot *s) {
  double l = MIN_RPS / s->target_rps;
  return l < 1.0 ? l : 1.0;
}

/* What the service took between remembered refusal `from` and refusal `r`: the
 * tries scheduled between them less those refused, over the time between them, as
 * a share of the targets (the binding one). */
static double taken_since(const xio__pace_slot *s, const xio__pace_refusal *from,
                          const xio__pace_refusal *r) {
  int k = s->npast < XIO__PACE_PAST ? s->npast : XIO__PACE_PAST;
  double n = (double)(r->n - from->n - 1), bytes = r->bytes - r->size - from->bytes;
  for (int i = 0; i < k; i++) /* less the refused ones in between */
    if (s->past[i].n > from->n && s->past[i].n < r->n) {
      n -= 1;
      bytes -= s->past[i].size;
    }
  double secs = (double)(r->sent_us - from->sent_us) / 1e6;
  double by_req = n > 0 ? n / secs / s->target_rps : 0;
  double by_bytes = bytes > 0 && s->target_bps > 0 ? bytes / secs / s->target_bps : 0;
  return by_req > by_bytes ? by_req : by_bytes;
}

/* The level the service was seen to take by refusal `r`: the most it took since any
 * remembered refusal MIN_SPAN_US to SPAN_US before it; 0 when there is none. */
static double taken(const xio__pace_slot *s, const xio__pace_refusal *r) {
  double most = 0;
  int k = s->npast < XIO__PACE_PAST ? s->npast : XIO__PACE_PAST;
  for (int i = 0; i < k; i++) {
    const xio__pace_refusal *e = &s->past[i];
    int64_t span = r->sent_us - e->sent_us;
    if (e->n < r->n && span >= MIN_SPAN_US && span <= SPAN_US) {
      double t = taken_since(s, e, r);
      if (t > most) most = t;
    }
  }
  return most;
}

/* Remembers refusal `r` in the ring of `s`. */
static void remember(xio__pace_slot *s, const xio__pace_refusal *r) {
  s->past[s->npast % XIO__PACE_PAST] = *r;
  s->npast++;
}

/* Multiplicative decrease for a refusal of a try sent at `sent` (its place `r`, or
 * NULL). Tries already scheduled when it cuts (up to the slot's theoretical arrival
 * time) keep the old rate; their refusals are no news, but they say what the
 * service took. */
static void cut(xio__blob_pacer *p, xio__pace_slot *s, const xio__pace_refusal *r, int64_t sent,
                int64_t now) {
  double seen = r ? taken(s, r) : 0;
  if (r) remember(s, r);
  if (s->cuts && sent < s->cut_us) return;
  int far = !s->cuts || (s->far && s->since_cut < STREAK);
  double was = s->level;
  s->ceiling = s->level;
  s->level *= (far ? FAR_CUT : NEAR_CUT) * jitter(p);
  /* A halving goes no lower than what the service was seen to take, when that is
   * known, and other cuts go down to it, by at most DEEP_CUT. */
  double near = was * NEAR_CUT;
  if (far && s->level < seen) s->level = seen < near ? seen : near;
  if (!far && seen > 0 && seen < s->level) s->level = seen > was * DEEP_CUT ? seen : was * DEEP_CUT;
  far = s->level < was * (FAR_CUT + NEAR_CUT) / 2;
  if (s->level < least(s)) s->level = least(s);
  /* Only the first cut, perhaps one refusal at a right target, is refilled. */
  s->goal = s->cuts ? s->level : FIRST_REFILL * s->ceiling;
  s->far = far;
  s->since_cut = 0;
  s->cut_us = s->tat_us > now ? s->tat_us : now; /* past what was scheduled at the old rate */
  s->raised_us = now;
  s->cuts++;
}

/* The increase for an accepted answer: back toward the goal within about
 * REFILL_US, then PROBE of the ceiling per answer; at most the target. */
static void raise_level(xio__pace_slot *s, int64_t sent, int64_t now) {
  if (sent >= s->cut_us) s->since_cut++; /* paced at the new rate */
  if (!s->cuts || s->level >= 1.0) return;
  double dt = (double)(now - s->raised_us);
  if (s->level < s->goal) {
    double f = dt > 0 ? dt / (dt + REFILL_US) : 0; /* half the way in REFILL_US */
    s->level += (s->goal - s->level) * f;
    if (s->goal - s->level < 0.01 * s->ceiling) s->level = s->goal;
  } else {
    s->level += PROBE * s->ceiling;
  }
  if (s->level > 1.0) s->level = 1.0;
  s->raised_us = now;
}

/* Moves blob slot `b` to the targets of premium tier `tier`. */
static void take_tier(xio__blob_pacer *p, xio__pace_slot *b, const char *tier) {
  double rps, bps;
  xio__blob_pace_tier(tier, &rps, &bps);
  if (p->cap_bps && p->cap_bps < bps) bps = p->cap_bps;
  if (rps == b->target_rps && bps == b->target_bps) return;
  b->target_rps = rps;
  b->target_bps = bps;
  b->level = 1.0;
  b->ceiling = 0;
  b->cuts = 0;
}

void xio__blob_pace_answer(xio__blob_pacer *p, const char *blob, const char *account, int how,
                           const char *tier, const xio__pace_mark *mark, int64_t sent_us,
                           int64_t now_us) {
  if (!p->on_remote && !p->on_loopback) return;
  xio__pace_slot *b = blob_slot(p, blob, now_us), *a = account_slot(p, account, now_us);
  if (tier && tier[0] == 'P') take_tier(p, b, tier); /* a premium blob */
  if (how == XIO__PACE_BUSY || how == XIO__PACE_ACCOUNT) {
    p->throttled++;
    int acct = how == XIO__PACE_ACCOUNT;
    xio__pace_refusal r = {sent_us, 0, 0, 0};
    if (mark) {
      r.n = acct ? mark->account_n : mark->blob_n;
      r.bytes = acct ? mark->account_bytes : mark->blob_bytes;
      r.size = mark->bytes;
    }
    xio__pace_slot *s = acct ? a : b;
    cut(p, s, r.n && r.n <= s->n ? &r : NULL, sent_us, now_us);
    return;
  }
  raise_level(b, sent_us, now_us);
  raise_level(a, sent_us, now_us);
}

void xio__blob_pace_rates(const xio__blob_pacer *p, const char *blob, double *rps, double *bps) {
  uint64_t h = hash(blob);
  const xio__pace_slot *s = NULL;
  for (size_t i = 0; i < XIO__PACE_SLOTS && !s; i++)
    if (p->blobs[i].key == h) s = &p->blobs[i];
  *rps = s ? s->target_rps * s->level : 0;
  *bps = s ? s->target_bps * s->level : 0;
}
