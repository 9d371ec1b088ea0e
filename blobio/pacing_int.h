/*
 * pacing_int.h - the engine's pacer (pacing.c): keeps each blob and each account
 * under the service's scale targets instead of bursting into throttling, and learns
 * a lower rate from throttling answers when the targets are not what it assumed.
 * Used by the I/O thread only (engine.c), so it takes no lock.
 */
#ifndef XIO_BLOB_PACING_INT_H
#define XIO_BLOB_PACING_INT_H

#include <stddef.h>
#include <stdint.h>

#define XIO__PACE_SLOTS   256
#define XIO__PACE_LEAD_US 20000 /* places are reserved this far ahead at most */
#define XIO__PACE_PAST    8     /* refusals a slot remembers, to measure what was taken */

/* How a try ended, for the pacer (xio__blob_pace_answer). */
enum {
  XIO__PACE_OK = 0,     /* answered, not throttled */
  XIO__PACE_BUSY = 1,   /* 503 ServerBusy / 500 OperationTimedOut for the blob */
  XIO__PACE_ACCOUNT = 2 /* the same, naming the account's limit */
};

/* Where a try stands among those its keys scheduled: the counts of tries and bytes
 * scheduled on its blob and its account up to and including it, and its own bytes.
 * Filled by xio__blob_pace when it reserves the try's place, handed back with the
 * answer, so that a refusal tells what was taken since an earlier one. */
typedef struct xio__pace_mark {
  uint64_t blob_n, account_n;
  double blob_bytes, account_bytes;
  double bytes;
} xio__pace_mark;

/* A refusal a slot remembers: when its try was sent, and its place (tries and bytes
 * scheduled up to it, its own bytes). */
typedef struct xio__pace_refusal {
  int64_t sent_us;
  uint64_t n;
  double bytes, size;
} xio__pace_refusal;

/* One paced key: a blob, or an account. Its rates are `level` times its targets. */
typedef struct xio__pace_slot {
  uint64_t key;                  /* 0: free */
  double level;                  /* the fraction of the targets kept to now, (0, 1] */
  double ceiling;                /* the level where refusals last began (0: none yet) */
  double target_rps, target_bps; /* the documented targets (or the cap) */
  int64_t tat_us;                /* when the next request may start without a wait */
  int64_t cut_us;                /* tries scheduled before it were paced at the old rate */
  int64_t raised_us;             /* the last increase or decrease */
  int64_t used_us;
  double goal;                            /* the level accepted answers bring it back to */
  int cuts;                               /* decreases so far */
  int far;                                /* the last cut halved */
  int since_cut;                          /* accepted tries paced since the last cut */
  uint64_t n;                             /* tries scheduled so far */
  double bytes;                           /* and their bytes */
  xio__pace_refusal past[XIO__PACE_PAST]; /* the latest refusals, a ring */
  int npast;                              /* refusals so far */
} xio__pace_slot;

typedef struct xio__blob_pacer {
  int on_remote, on_loopback; /* pace targets on Azure, on a loopback emulator */
  double cap_bps;             /* per blob, 0: the tier's target */
  xio__pace_slot blobs[XIO__PACE_SLOTS];
  xio__pace_slot accounts[16];
  uint64_t rng;
  uint64_t waits;     /* requests the pacer held back */
  uint64_t throttled; /* throttling answers it saw */
} xio__blob_pacer;

/** Sets the pacer up: `mode` an xio_blob_pacing value, `cap_bps` a per-blob cap in
 *  bytes per second (0: none beyond the tier's target). Cannot fail. */
void xio__blob_pacer_init(xio__blob_pacer *p, int mode, double cap_bps, uint64_t seed);

/** When a request of `bytes` to blob `blob` (a key string: origin and path) of
 *  account `account` may start, at or after `now_us`: the start time in
 *  microseconds. Its place is reserved when the start is at most XIO__PACE_LEAD_US
 *  away; a later start is only an estimate, and the caller asks again then.
 *  `loopback`: the endpoint is an emulator on this machine. Returns `now_us` when
 *  not paced. `mark` (may be NULL) gets the try's place when it is reserved, all
 *  zeros otherwise: the caller hands it back with the answer. */
int64_t xio__blob_pace(xio__blob_pacer *p, const char *blob, const char *account, int loopback,
                       size_t bytes, int64_t now_us, xio__pace_mark *mark);

/** Tells the pacer how a try of blob `blob`, sent at `sent_us`, ended at `now_us`:
 *  `how` is XIO__PACE_OK, XIO__PACE_BUSY (cuts the blob's rates) or
 *  XIO__PACE_ACCOUNT (cuts the account's). A cut happens once for the tries paced
 *  at one rate: refusals of tries scheduled before the last cut were answered by
 *  it. The first cut, or one soon after a halving, halves the rates (the limit may
 *  be far lower than assumed); others take off 10%; the level where refusals began
 *  is kept. `mark` is the try's place from xio__blob_pace (NULL, or all zeros, when
 *  it had none): with it a refusal tells what the service took since earlier ones,
 *  and no halving goes below that, nor a 10% cut above it (by at most 15%). After
 *  the first cut accepted answers bring the rates back to 95% of that level within
 *  about a second; from there, and after other cuts, each adds 0.25% of it, up to
 *  the target. `tier` (x-ms-access-tier of the answer, or NULL) moves the blob to a
 *  premium tier's targets. */
void xio__blob_pace_answer(xio__blob_pacer *p, const char *blob, const char *account, int how,
                           const char *tier, const xio__pace_mark *mark, int64_t sent_us,
                           int64_t now_us);

/** The requests and bytes per second kept to now for the blob `blob` (0 and 0 when
 *  the pacer has not seen it). */
void xio__blob_pace_rates(const xio__blob_pacer *p, const char *blob, double *rps, double *bps);

/** The documented per-blob targets of access tier `tier` ("P10".."P80"; anything
 *  else: a standard page blob): requests and bytes per second. */
void xio__blob_pace_tier(const char *tier, double *rps, double *bps);

#endif
