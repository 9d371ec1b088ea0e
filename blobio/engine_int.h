/*
 * engine_int.h - the pieces of a try that the engine (engine.c) puts together:
 * preparing a libcurl handle for one try (transport.c), judging its outcome
 * (classify.c) and choosing the wait before the next (retry.c). Internal.
 */
#ifndef XIO_BLOB_ENGINE_INT_H
#define XIO_BLOB_ENGINE_INT_H

#include "call_int.h"
#include "rcvlowat_int.h"
#include "tls_int.h"

/**
 * Prepares `easy` for the next try of `c`: full URL with the credential, fresh
 * x-ms-date (from `now`), x-ms-version, client request id, Shared Key signature,
 * method, body and callbacks; TLS connections use `tls` (NULL: libcurl's own
 * defaults, for tests that only build requests); sockets are opened through
 * `socks` (NULL: libcurl opens them, and plain HTTP reads are not batched).
 * `timeout_ms` bounds the try (0: none).
 * Errors: XIO_ENOMEM, XIO_EINVAL (signing failed), XIO_ETRANSPORT (libcurl refused
 * an option).
 */
xio_err xio__blob_try_prepare(xio_blob_call *c, CURL *easy, const xio_blob_engine_options *opts,
                              xio__blob_tls *tls, xio__blob_socks *socks, time_t now,
                              long timeout_ms, xio_error *err);

/** After libcurl finished a try with `rc`: records the status (and, for a refused
 *  certificate, OpenSSL's verify result) and releases the per-try header list. */
void xio__blob_try_finished(xio_blob_call *c, CURLcode rc);

/** Verdict on a finished try. */
typedef struct xio__blob_verdict {
  xio_err code; /* XIO_OK or the failure */
  int retry;    /* worth another try (if the policy allows) */
} xio__blob_verdict;

/** Judges the try that just finished and, on failure, fills c->err with everything
 *  known (operation, status, service code, request ids, message, target). */
xio__blob_verdict xio__blob_classify(xio_blob_call *c);

/** Whether the try of `c` that just failed may have met a TLS server with plain
 *  http (classify.c): a plain-http first try to an origin never heard from, its
 *  connection closed or broken with not one byte of answer. Then the engine asks
 *  xio__blob_probe_tls and sets c->speaks_tls before classifying. */
int xio__blob_probe_wanted(const xio_blob_call *c);

/** 1 when `ip`:`port` (a numeric address: no name is looked up) answers a TLS
 *  ClientHello with a TLS record, 0 otherwise or after `timeout_ms` (probe.c).
 *  `host` goes in the hello as its server name unless it is an IP literal. Blocks
 *  for at most `timeout_ms`; never fails otherwise. */
int xio__blob_probe_tls(const char *ip, long port, const char *host, int timeout_ms);

/** The origins an engine has had an HTTP answer from (origins.c), the last
 *  XIO__BLOB_ORIGINS_MAX of them; an origin too long for a slot is never kept. */
#define XIO__BLOB_ORIGINS_MAX 8
typedef struct xio__blob_origins {
  char v[XIO__BLOB_ORIGINS_MAX][280];
  int next;
} xio__blob_origins;

/** 1 when `origin` (scheme://host[:port]) is among those of `o`. */
int xio__blob_origins_has(const xio__blob_origins *o, const char *origin);

/** Remembers `origin`, in place of the oldest when every slot is taken. */
void xio__blob_origins_add(xio__blob_origins *o, const char *origin);

/** Milliseconds to wait before retry number `attempt` (1-based): the service's hint
 *  (retry-after-ms, x-ms-retry-after-ms, Retry-After) when present, else
 *  base * 2^(attempt-1) * jitter(0.8..1.3), capped at max_delay_ms. */
int xio__blob_retry_delay_ms(const xio_blob_retry_policy *p, int attempt,
                             const xio__blob_hdrs *resp, uint64_t *rng);

/** Fills `c->err` from a failure that happened before anything was sent (the
 *  message and reason of `detail`, which may be NULL). */
void xio__blob_fail_early(xio_blob_call *c, xio_err code, const xio_error *detail);

#endif
