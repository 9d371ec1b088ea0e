/*
 * pacing_int.h - the engine's pacer (pacing.c): keeps each blob and each account
 * under the service's scale targets instead of bursting into throttling. Used by the
 * I/O thread only (engine.c), so it takes no lock.
 */
#ifndef XIO_BLOB_PACING_INT_H
#define XIO_BLOB_PACING_INT_H

#include <stddef.h>
#include <stdint.h>

#define XIO__PACE_SLOTS 256

/* One paced key: a blob, or an account. */
typedef struct xio__pace_slot {
  uint64_t key;                  /* 0: free */
  double rps, bps;               /* the rates the pacer keeps to now */
  double target_rps, target_bps; /* the documented targets (or the cap) */
  int64_t tat_us;                /* when the next request may start without a wait */
  int64_t cut_us;                /* the last decrease: one per window */
  int64_t raised_us;             /* the last increase: one per window */
  double step_rps, step_bps;     /* the increase per window, set by the last cut */
  int64_t used_us;
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
 *  account `account` may start, at or after `now_us`, reserving its place: the
 *  start time in microseconds. `loopback`: the endpoint is an emulator on this
 *  machine. Returns `now_us` when not paced. */
int64_t xio__blob_pace(xio__blob_pacer *p, const char *blob, const char *account, int loopback,
                       size_t bytes, int64_t now_us);

/** Tells the pacer how a request of blob `blob` ended: `throttled` (503 ServerBusy or
 *  500 OperationTimedOut) cuts its rates (and its account's) by about 30% with
 *  jitter, at most once per 100 ms; other answers raise them, once per 100 ms, by
 *  5% of the rate the last cut left, up to the target. `tier` (x-ms-access-tier of the answer, or
 * NULL) moves the blob to a premium tier's targets. */
void xio__blob_pace_answer(xio__blob_pacer *p, const char *blob, const char *account, int throttled,
                           const char *tier, int64_t now_us);

/** The documented per-blob targets of access tier `tier` ("P10".."P80"; anything
 *  else: a standard page blob): requests and bytes per second. */
void xio__blob_pace_tier(const char *tier, double *rps, double *bps);

#endif
