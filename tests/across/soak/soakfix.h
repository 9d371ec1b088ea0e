/*
 * soakfix.h - what the fault soaks share: a fault proxy in front of the emulator
 * drawing random faults at the soak's rates, a context that reaches the emulator
 * only through it (its trace counted: requests, retries, the most retries one
 * request took), a second context straight to the emulator for the independent
 * reader, the run's duration, and the report line.
 *
 * The fault mix (per request): 10% 503 ServerBusy, 2% connection resets, 2%
 * responses lost after the service applied the request, 5% torn response bodies
 * and 1% stalls longer than the per-try timeout. Every kind must be injected at
 * least once in a run, and retries are bounded by SOAK_MAX_RETRIES per request.
 *
 * Duration: XIO_SOAK_SECONDS (default SOAK_DEFAULT_SECONDS) for each soak test. A
 * report line goes to stdout and, when XIO_SOAK_REPORT names a file, is appended
 * there too.
 */
#ifndef XIO_TEST_SOAKFIX_H
#define XIO_TEST_SOAKFIX_H

#include <pthread.h>
#include <stdint.h>
#include <xio/xio.h>

#include "faultproxy.h"

#define SOAK_DEFAULT_SECONDS 30
#define SOAK_MAX_RETRIES     10   /* per request: 0.2^11 odds that a request fails */
#define SOAK_TRY_TIMEOUT_MS  2000 /* per try; stalls hold a request longer */
#define SOAK_STALL_MS        2500
#define SOAK_BASE_DELAY_MS   10
#define SOAK_MAX_DELAY_MS    400
#define SOAK_RETRY_HINT_MS   20 /* the 503s' x-ms-retry-after-ms */

/** Trace counts of one context (or of one trace file). */
typedef struct soak_trace {
  pthread_mutex_t mu;
  uint64_t events;         /* trace events: storage requests as the caller sees them */
  uint64_t retries;        /* summed over the events */
  uint64_t retried;        /* events that needed at least one retry */
  uint64_t failed;         /* events whose result is not "ok" (nor XIO_ENOTFOUND) */
  uint64_t not_found;      /* events whose result is XIO_ENOTFOUND */
  int max_retries;         /* the most one event took */
  char first_failure[512]; /* the first failed event as a JSON line, "" if none */
} soak_trace;

/** What the workload and the independent reader counted. */
typedef struct soak_result {
  uint64_t ops;           /* reads, writes, zeroes, growths, flushes, transactions */
  uint64_t failed_ops;    /* calls that returned an error (their outcome unknown) */
  uint64_t bytes_checked; /* compared with the model by the independent reader */
  uint64_t bytes_differ;  /* of those, bytes that were not what the model says */
  uint64_t read_checked;  /* bytes compared by reads through the proxy, mid-run */
  uint64_t read_differ;
} soak_result;

typedef struct soakfix {
  faultproxy *proxy;
  faultproxy_rates rates;
  char container[256];        /* the test's container, through the proxy */
  char direct_container[256]; /* the same container, straight to the emulator */
  char proxy_connstr[1024];   /* the dev account at the proxy's endpoint */
  char direct_connstr[1024];  /* the dev account at the emulator's */
  xio_ctx *ctx;               /* through the proxy (soakfix_ctx) */
  soak_trace trace;
  int seconds;
} soakfix;

/** Starts the proxy with the soak's fault rates (seeded from the pid and clock, the
 *  seed printed) and picks a fresh container name. */
void soakfix_setup(soakfix *fx, const char *prefix);

/** Makes fx->ctx: the dev account through the proxy, the soak's retry policy and
 *  a trace callback counting into fx->trace. */
void soakfix_ctx(soakfix *fx);

/** A context straight to the emulator (no proxy, no faults), for the reader. */
xio_ctx *soakfix_direct_ctx(const soakfix *fx);

/** URL of blob `name` through the proxy (direct = 0) or straight (direct = 1). */
void soakfix_url(const soakfix *fx, const char *name, int direct, char *out, size_t size);

/** 1 while the run's time is not up (from the first call on). */
int soakfix_running(soakfix *fx);

/** Counts one trace event (a trace callback's body, also used for trace files). */
void soakfix_count(soak_trace *t, int retries, int ok, const char *json);

/** Prints the report line "soak NAME: ..." (and appends it to XIO_SOAK_REPORT), then
 *  asserts: faults of every kind injected, retries seen in the trace and never more
 *  than SOAK_MAX_RETRIES on one request, bytes checked and none differing. */
void soakfix_report(soakfix *fx, const char *name, const soak_trace *t, const soak_result *r);

/** Frees the context and stops the proxy. */
void soakfix_teardown(soakfix *fx);

/** Fills `buf` with the `n` bytes a model entry `seed` stands for: zeros for seed 0,
 *  else test_fill_random(seed). */
void soakfix_fill(void *buf, size_t n, uint64_t seed);

/** Bytes in which `a` and `b` differ. */
uint64_t soakfix_diff(const void *a, const void *b, size_t n);

#endif
