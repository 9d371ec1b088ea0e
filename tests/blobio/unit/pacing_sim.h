/*
 * pacing_sim.h - a simulated client and throttling service for the pacer's tests
 * (pacing_sim.c): a transfer of equal requests, some in flight at once, each paced
 * by the pacer (blobio/pacing.c) on a simulated clock, against a service that
 * refuses what is over its limit. Deterministic: no threads, no real time.
 */
#ifndef XIO_TEST_PACING_SIM_H
#define XIO_TEST_PACING_SIM_H

#include <stddef.h>
#include <stdint.h>

/* How the simulated service throttles. */
typedef enum pacing_sim_limiter {
  SIM_BUCKET, /* token buckets of requests and bytes refilled at the limit, holding
                 `window_us` of it; a request may take the bytes bucket into debt
                 (the emulator's front) */
  SIM_WINDOW  /* fixed windows of `window_us`: at most the limit's share of requests
                 and bytes per window, counted as they come (a coarse service) */
} pacing_sim_limiter;

typedef struct pacing_sim {
  /* the service */
  pacing_sim_limiter limiter;
  double limit_rps, limit_bps; /* what it allows per second */
  int64_t window_us;           /* its bucket or window */
  double serve_bps;            /* how fast it moves an accepted request's bytes */
  int64_t latency_us;          /* the round trip of an answer */
  /* the client */
  int mode;          /* xio_blob_pacing */
  double cap_bps;    /* --max-rate */
  int depth;         /* requests in flight */
  int window;        /* a request starts only when the one this many before it has its
                        answer (a transfer that takes answers in order); 0: any */
  size_t bytes;      /* per request */
  int requests;      /* in the transfer */
  int64_t retry_us;  /* the first retry's delay, doubled per retry (no jitter) when
                        unpaced; paced, every retry waits this long (as the engine) */
  int64_t budget_us; /* refusals are retried until this long after a request's first
                        (the engine's throttle_ms); 0: 3 retries */
  int64_t settle_us; /* the results past it are counted apart too */
  /* results */
  int tries, refused, failed;     /* failed: gave up */
  int64_t end_us;                 /* when the last answer came */
  int tries_after, refused_after; /* tries starting at or after settle_us */
  double taken_after;             /* bytes the service took in them */
} pacing_sim;

/** Runs the transfer that `s` describes and fills its results. */
void pacing_sim_run(pacing_sim *s);

/** The transfer's rate as a share of the service's limit (the binding one). */
double pacing_sim_share(const pacing_sim *s);

/** The same past settle_us: what the service took from then to the end. */
double pacing_sim_share_after(const pacing_sim *s);

#endif
