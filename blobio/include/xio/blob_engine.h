/*
 * xio/blob_engine.h - the engine of the page-blob client (libxio_blob): one libcurl
 * multi handle with its pool of keep-alive connections, driven by one I/O thread. It
 * signs every try, retries what can be retried, and reports each finished call once.
 * Its TLS connections share one trust store (the system's CA bundle, parsed at the
 * first TLS connection, and ca_file) and one cache of TLS sessions, so a new
 * connection resumes a session rather than making a full handshake. Calls are built
 * and sent with <xio/blob_call.h>.
 *
 * Threads: every function may be called from any thread. The engine options' on_try
 * and on_complete hooks run on the I/O thread (on_complete also on the thread that
 * frees the engine, for the calls it cancels).
 */
#ifndef XIO_BLOB_ENGINE_H
#define XIO_BLOB_ENGINE_H

#include <xio/base.h>
#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The transactional checksum: sent with every Put Page update, and asked for on
 *  every Get Blob of at most XIO_BLOB_MAX_CHECKED_READ bytes, whose body must match
 *  it (else the read is retried like a torn one, then fails with XIO_ECHECKSUM). A
 *  service that refuses the CRC-64 on reads (Azurite: 500 FeatureNotSupported) gets
 *  the read again at once with MD5, and the engine's later reads ask for MD5. */
typedef enum xio_blob_checksum {
  XIO_BLOB_CHECKSUM_CRC64 = 0, /* x-ms-content-crc64 (default) */
  XIO_BLOB_CHECKSUM_MD5,       /* Content-MD5 instead */
  XIO_BLOB_CHECKSUM_NONE
} xio_blob_checksum;

/** How calls are retried. Delays grow as base * 2^try with jitter x0.8..1.3, capped.
 *  A throttling answer (503 ServerBusy, 500 OperationTimedOut, 429) is the service
 *  asking for a lower rate, not a fault of the request: while throttle_ms allows,
 *  it is retried whatever max_retries (which bounds the other transient faults:
 *  transport errors, torn bodies, timeouts, other 5xx), so that a transfer does not
 *  fail while the pacer learns the rate the service takes. */
typedef struct xio_blob_retry_policy {
  int max_retries;    /* retries after the first try (default 3) */
  int base_delay_ms;  /* default 800 */
  int max_delay_ms;   /* default 60000 */
  int try_timeout_ms; /* per try, from send to last byte; 0: none (default 120000) */
  int deadline_ms;    /* whole call including waits; 0: none (default 0) */
  int throttle_ms;    /* throttling answers are retried until this long after a call's
                         first one; 0: they count among max_retries (default 60000) */
} xio_blob_retry_policy;

typedef struct xio_blob_call xio_blob_call; /* a REST call: <xio/blob_call.h> */

/** One finished try, for tracing and fault studies. Borrowed for the callback. */
typedef struct xio_blob_try_info {
  const char *operation; /* "PutPage" */
  const char *safe_url;
  int attempt;                 /* 0 for the first try */
  int http_status;             /* 0 when no response */
  const char *transport_error; /* libcurl's text, or NULL */
  int will_retry;              /* the call is sent again: a retry, or once more with a
                                  credential its source renewed after a refusal */
  int delay_ms;                /* before the next try, when will_retry */
  const xio_blob_call *call;   /* the call: its tag (xio_blob_call_tag), and this try's
                                  service code and request ids (xio_blob_call_*) */
  xio_err result;              /* how this try ended: XIO_OK or its failure */
  int64_t duration_us;         /* this try, from its start to its end */
} xio_blob_try_info;

/** Whether the engine paces its requests (see xio_blob_engine_options.pacing). */
typedef enum xio_blob_pacing {
  XIO_BLOB_PACING_AUTO = 0, /* on for remote endpoints, off for loopback ones */
  XIO_BLOB_PACING_OFF = 1,
  XIO_BLOB_PACING_ON = 2 /* on everywhere, an emulator on this machine too */
} xio_blob_pacing;

typedef struct xio_blob_engine_options {
  int max_in_flight;      /* requests on the wire at once (default 32) */
  int connect_timeout_ms; /* default 10000 */
  xio_blob_retry_policy retry;
  xio_blob_checksum checksum; /* default CRC64 */
  const char *ca_file;        /* extra CA bundle (PEM) to trust besides the system
                                 store, or NULL; parsed once, when the engine
                                 starts */
  int allow_insecure_remote;  /* allow http:// to non-loopback hosts (default 0) */
  int plain_tls;              /* 1: TLS connections exactly as libcurl makes them,
                                 without the engine's read-ahead buffer and record
                                 gathering (default 0: those are used where libcurl
                                 is a version they are known to suit, 7.88 with
                                 OpenSSL, and never elsewhere) */
  xio_auth_clock clock;       /* for x-ms-date; zeroed: system clock */
  void (*on_try)(const xio_blob_try_info *info, void *ud); /* may be NULL; I/O thread */
  void *on_try_ud;
  /* Runs once for every call the engine completes, whatever its result (sent,
   * refused before sending, or canceled), just before the call's own completion
   * callback: the one place every call passes. The call's results are final; it must
   * not be sent or freed here. May be NULL. */
  void (*on_complete)(const xio_blob_call *call, void *ud);
  void *on_complete_ud;
  /* Pacing: each blob and each account kept under the service's scale targets
   * (a standard page blob 500 requests/s and 60 MiB/s, a premium one its tier's, an
   * account 20,000 requests/s), backing off on throttling answers (additive increase,
   * multiplicative decrease with jitter) and shared by every call of the engine.
   * XIO_BLOB_PACING_AUTO (default): on for remote endpoints (Azure), off for a
   * loopback emulator, which has no targets unless a front gives it some. */
  xio_blob_pacing pacing;
  double max_rate_bps; /* a cap per blob in bytes per second (0: the tier's target) */
} xio_blob_engine_options;

/** What the pacer did so far (xio_blob_engine_pacing). */
typedef struct xio_blob_pacing_stats {
  uint64_t waits;     /* requests held back to stay under a target */
  uint64_t throttled; /* throttling answers (503 ServerBusy, 500 OperationTimedOut) seen */
} xio_blob_pacing_stats;

typedef struct xio_blob_engine xio_blob_engine;

/** Default options; cannot fail. */
xio_blob_engine_options xio_blob_engine_options_default(void);

/** Copies the pacer's counts so far into `out`. Any thread; the counts are those of
 *  calls already completed. */
void xio_blob_engine_pacing(const xio_blob_engine *e, xio_blob_pacing_stats *out);

/**
 * Starts an engine and its I/O thread. `opts` may be NULL (defaults); it is copied
 * (ca_file too). Errors: XIO_EINVAL (a bad option, named), XIO_EIO (ca_file cannot
 * be opened), XIO_EPARSE (ca_file holds no PEM certificate), XIO_ENOMEM,
 * XIO_ETRANSPORT (libcurl could not be set up).
 */
xio_err xio_blob_engine_new(const xio_blob_engine_options *opts, xio_blob_engine **out,
                            xio_error *err);

/** Stops the engine: calls not yet finished complete with XIO_ECANCELED, then the
 *  I/O thread exits and everything is freed. `e` may be NULL. */
void xio_blob_engine_free(xio_blob_engine *e);

/**
 * Cancels the engine's calls, for good: from the call on, no try starts and nothing
 * is retried. Calls that wait (queued, or in the timer list for a retry, a
 * credential or the pacer) and every call submitted later complete with
 * XIO_ECANCELED without a try. A try on the wire runs on for `grace_ms` (negative:
 * 0): one that ends by then completes its call as it ended, except a failure that
 * would have been retried, which completes it with XIO_ECANCELED; when the grace
 * ends, the tries still on the wire are cut (their connections closed, what the
 * service made of them unknown) and their calls complete with XIO_ECANCELED. Each
 * call completes once, on the I/O thread, through on_complete and its own
 * callback, as always. A later cancel may shorten the grace (the earliest end
 * wins), never lengthen it: 0 cuts at once. There is no going back: free the
 * engine with xio_blob_engine_free when done with it.
 *
 * Any thread; async-signal-safe (lock-free atomics and a write(2) to the I/O
 * thread's wakeup; errno is kept), so a SIGINT handler may call it. `e` may be NULL.
 */
void xio_blob_engine_cancel(xio_blob_engine *e, int grace_ms);

/**
 * A timer the engine runs: `fn(ud)` on the engine's I/O thread once the monotonic
 * clock (xio_auth_monotonic_us) reaches the moment it was set for. Owned by the
 * caller, which sets `fn` and `ud` and zeroes the rest before its first use; it must
 * stay valid while armed or running. `fn` must not block: it runs between the
 * engine's transfers.
 */
typedef struct xio_blob_timer {
  void (*fn)(void *ud);
  void *ud;
  int64_t at_us;               /* the engine's: when it runs */
  int armed;                   /* the engine's */
  struct xio_blob_timer *next; /* the engine's */
} xio_blob_timer;

/** Arms `t` to run at `at_us` (a moment of xio_auth_monotonic_us; past: at once),
 *  moving it when it is armed already. Any thread, the I/O thread included. */
void xio_blob_engine_timer_set(xio_blob_engine *e, xio_blob_timer *t, int64_t at_us);

/** Disarms `t`. From any thread but the I/O thread it returns only once `t`'s
 *  function is not running, so the caller may then free what it uses; from the I/O
 *  thread (inside a timer or a completion) it only disarms. A timer never armed is
 *  fine. */
void xio_blob_engine_timer_cancel(xio_blob_engine *e, xio_blob_timer *t);

/** 1 when called on the engine's I/O thread (inside a completion callback). */
int xio_blob_engine_on_io_thread(const xio_blob_engine *e);

/** The options the engine runs with (read-only). */
const xio_blob_engine_options *xio_blob_engine_options_get(const xio_blob_engine *e);

/** How many calls the engine has completed since it started: each call counts once,
 *  when it completes (as its on_complete hook runs), whatever its result. */
uint64_t xio_blob_engine_completed(const xio_blob_engine *e);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BLOB_ENGINE_H */
