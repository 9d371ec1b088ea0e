/*
 * faultproxy.h - a fault-injecting HTTP/1.1 proxy, in front of the storage emulator.
 *
 * One proxy, two users: the fault tests start it in their own process (scripting
 * exact faults and reading what it saw), and the xio-faultproxy program (main.c)
 * runs it in the background for any client, with random faults at given rates
 * (`xio emulator start --faults` starts that program). Requests are forwarded
 * unchanged (the Host header included: Shared Key and SAS signatures do not cover
 * it) and responses sent back unchanged, except where a fault says otherwise, or the
 * fidelity front (faultproxy_set_profile: off unless set; xio-faultproxy and `xio
 * emulator start` set the standard profile) makes the emulator answer as Azure
 * does. The code: http.c (HTTP framing and forwarding), conn.c (connections),
 * faults.c, records.c, rates.c (fault specs), profile.c, throttle.c, fidelity.c and
 * answers.c (the front), sharing faultproxy_int.h.
 *
 * Faults (each scripted with faultproxy_add, applied to matching requests only as
 * many times as asked, then spent; or drawn at random, see faultproxy_set_rates):
 *   RESET          close the client connection abruptly (SO_LINGER 0, so the client
 *                  sees a reset) after reading the request, without forwarding it;
 *   LOST_RESPONSE  forward the request (the service applies it), read the service's
 *                  response, then reset the client connection without sending it;
 *   TORN           forward, then send the response headers and only the first half
 *                  of the body, then end the connection in order: the client sees a
 *                  body short of its Content-Length (or of its chunks). A response
 *                  without a body goes out whole on a connection kept open, as if
 *                  there were no fault (and counts as none);
 *   STALL          hold the request `stall_ms` before forwarding it; if the client
 *                  hangs up meanwhile (its per-try timeout), the request is dropped
 *                  and never reaches the service;
 *   STATUS         answer with `status` and a service error (XML body, x-ms-error-code,
 *                  optional x-ms-retry-after-ms / Retry-After) without forwarding;
 *   CORRUPT_BODY   flip one byte of the request body before forwarding, so that the
 *                  service's transactional checksum check rejects it. Applies only to
 *                  requests that have a body;
 *   CORRUPT_RESPONSE forward, then flip one byte in the middle of the response body
 *                  (after the fidelity front made it, with any checksum it added), so
 *                  that the client's check of a read's checksum fails. A response
 *                  without a body goes out whole.
 *
 * HTTP handled: request line, headers, Content-Length request bodies, keep-alive;
 * responses with Content-Length, chunked (passed through), close-delimited, and
 * those that never have a body (HEAD, 1xx, 204, 304). A chunked request body is
 * refused (the connection is reset and the record says so): the client under test
 * never sends one.
 *
 * Bounds: listens on 127.0.0.1 only, on a port the kernel picks; one acceptor thread
 * and one thread per connection, at most FAULTPROXY_MAX_CONNS connections open at
 * once; records of the first FAULTPROXY_MAX_RECORDS requests (counts go on); headers
 * up to 64 KiB, bodies up to 64 MiB; every wait is a poll with a short timeout that
 * also watches for faultproxy_free. Slow clients cannot lock others out (what nginx's
 * client_header_timeout and Apache's mod_reqtimeout do): a connection idle for 30 s
 * between requests (or before its first) is closed; a request's head must be whole
 * 10 s after its first byte, however it trickles (faultproxy_set_deadlines); a body
 * must come at 500 bytes/s on average after its first 20 s. With every slot taken, a
 * new connection waits in the listen queue while the proxy cuts the connection idle
 * longest, else the one whose head has been coming longest (once that is a second),
 * never one reading a body or being answered; finished connections are reaped as new
 * ones arrive. All functions are thread-safe.
 *
 * Secrets: the record keeps the request target as sent (a SAS signature included, so
 * tests can check that the proxy saw it) but never an Authorization value, only its
 * presence and a 64-bit fingerprint to tell tries apart. The proxy prints nothing but
 * its own failures, and those never quote a request.
 */
#ifndef XIO_FAULTPROXY_H
#define XIO_FAULTPROXY_H

#include <stddef.h>
#include <stdint.h>

#define FAULTPROXY_MAX_CONNS   256
#define FAULTPROXY_MAX_FAULTS  32
#define FAULTPROXY_MAX_RECORDS 1024
#define FAULTPROXY_PPM         1000000 /* rates are parts per million */

typedef struct faultproxy faultproxy;

typedef enum faultproxy_kind {
  FAULTPROXY_NONE = 0, /* in records: forwarded unchanged */
  FAULTPROXY_RESET,
  FAULTPROXY_LOST_RESPONSE,
  FAULTPROXY_TORN,
  FAULTPROXY_STALL,
  FAULTPROXY_STATUS,
  FAULTPROXY_CORRUPT_BODY,
  FAULTPROXY_CORRUPT_RESPONSE
} faultproxy_kind;

/** One scripted fault. Zero-initialize and set what is needed: every match field left
 *  zero or NULL matches any request. Strings are copied by faultproxy_add. */
typedef struct faultproxy_fault {
  faultproxy_kind kind;
  /* Which requests it applies to. */
  const char *method; /* exact method ("PUT"), or NULL: any */
  const char *match;  /* substring of the request target (path and query), or NULL */
  int request_no;     /* only the proxy's request number n (1-based), or 0: any */
  int skip;           /* let this many matching requests pass first */
  int times;          /* apply to this many matching requests (0 means 1) */
  /* Parameters. */
  int stall_ms;           /* STALL: how long to hold the request */
  int status;             /* STATUS: e.g. 503 */
  const char *error_code; /* STATUS: <Code> and x-ms-error-code (NULL: "ServerBusy") */
  int retry_after_ms;     /* STATUS: x-ms-retry-after-ms when > 0 */
  int retry_after_s;      /* STATUS: Retry-After (seconds) when > 0 */
} faultproxy_fault;

/** What the proxy saw of one request, and what it did. */
typedef struct faultproxy_record {
  int no;   /* request number, 1-based, in arrival order */
  int conn; /* client connection number, 1-based */
  char method[16];
  char target[2048];          /* path and query as sent (may hold a SAS) */
  char client_request_id[64]; /* x-ms-client-request-id, "" if absent */
  char date[64];              /* x-ms-date, "" if absent */
  char range[64];             /* x-ms-range, "" if absent */
  int has_auth;               /* an Authorization header was present */
  uint64_t auth_fingerprint;  /* FNV-1a of its value (0 if absent): not the value */
  size_t body_len;            /* request body bytes */
  faultproxy_kind fault;      /* the fault applied, FAULTPROXY_NONE if forwarded */
  int upstream_status;        /* the service's status, 0 if never forwarded/answered */
  char upstream_error[64];    /* the service's x-ms-error-code, "" if none */
  int64_t received_us;        /* monotonic time the request was fully read */
  int64_t answered_us;        /* when the client got an answer or was cut off; 0 if not */
} faultproxy_record;

/** The kinds of random fault (faultproxy_set_rates), in the order they are drawn. */
typedef enum faultproxy_rule {
  FAULTPROXY_RULE_503 = 0, /* STATUS 503 ServerBusy with a retry hint */
  FAULTPROXY_RULE_500,     /* STATUS 500 OperationTimedOut */
  FAULTPROXY_RULE_RESET,   /* RESET: connection reset before the request is forwarded */
  FAULTPROXY_RULE_LOST,    /* LOST_RESPONSE: applied by the service, answer lost */
  FAULTPROXY_RULE_TORN,    /* TORN: response body cut short (only bodies can be torn) */
  FAULTPROXY_RULE_STALL,   /* STALL: held `stall_ms` before forwarding */
  FAULTPROXY_NRULES
} faultproxy_rule;

/** Random faults: rates per kind and the seed that makes a run repeatable. */
typedef struct faultproxy_rates {
  uint32_t ppm[FAULTPROXY_NRULES]; /* parts per million of requests; sum <= 1000000 */
  int stall_ms;                    /* STALL: hold time (0: 3000) */
  int retry_after_ms;              /* 503: the retry hint (0: 1000) */
  uint64_t seed;
} faultproxy_rates;

/** What the proxy did so far. */
typedef struct faultproxy_stats {
  uint64_t requests;                    /* requests read in full */
  uint64_t injected[FAULTPROXY_NRULES]; /* random faults applied, by kind */
  uint64_t throttled;                   /* 503 ServerBusy answers of the profile's targets */
  uint64_t refused;                     /* requests refused for Azure's limits */
  uint64_t paged;                       /* Get Page Ranges answers cut into pages */
  uint64_t diffs; /* Get Page Ranges answers with prevsnapshot made by the front */
} faultproxy_stats;

/**
 * The fidelity front: how far the proxy makes the emulator behind it answer as Azure
 * does (fidelity.c, throttle.c), on top of which the faults apply. Every profile but
 * "none" pages Get Page Ranges, puts the UTF-8 byte-order mark on XML bodies and
 * enforces Azure's limits with Azure's status, code and message; the targets (zero:
 * none) are what it throttles to, per blob and per account, answering 503 ServerBusy
 * without a retry hint over them, as the service does.
 */
typedef struct faultproxy_profile {
  char name[32];       /* "standard", "premium-p10".."premium-p80", "unthrottled", "none" */
  int faithful;        /* 0: "none", requests and answers pass unchanged */
  double blob_iops;    /* requests per second per blob */
  double blob_bps;     /* bytes per second per blob (request bodies and ranges read) */
  double account_iops; /* requests per second over all blobs */
  double account_bps;  /* bytes per second over all blobs */
  int page_list_size;  /* ranges per Get Page Ranges page (default 2000) */
  int max_snapshots;   /* snapshots a blob may have (premium: 100; 0: no limit); one more
                          is refused 409 SnapshotCountExceeded */
  int timeout_every;   /* every Nth answer over a target is 500 OperationTimedOut instead
                          of 503 ServerBusy, as Azure answers either (0: always 503) */
  double burst_s;      /* what each throttling bucket holds, in seconds of its rate: the
                          burst a target allows (0: one second) */
} faultproxy_profile;

/** What the front's throttle did in one second of its own clock (counted from
 *  faultproxy_set_profile): the requests it let through to the service, their bytes
 *  (a write's body, a read's range), and those it answered over a target. */
typedef struct faultproxy_second {
  uint32_t accepted, throttled;
  uint64_t bytes;
} faultproxy_second;

#define FAULTPROXY_TIMELINE_S 3600 /* seconds the front counts; later ones are not */

/** Copies what the throttle did in each second since the front was set up (at most
 *  `max` seconds, the first in out[0]) and returns how many seconds it copied: up
 *  to the one now running. 0 when the front is off or has no targets. */
size_t faultproxy_timeline(faultproxy *p, faultproxy_second *out, size_t max);

/** Fills `out` for profile `name` (see faultproxy_profile). Returns 0, or -1 with the
 *  profiles there are named in `err`. */
int faultproxy_profile_parse(const char *name, faultproxy_profile *out, char *err, size_t errsize);

/** Puts the fidelity front on (a copy of `prof`) or off (`prof` NULL: the default, as
 *  "none"). */
void faultproxy_set_profile(faultproxy *p, const faultproxy_profile *prof);

/**
 * Starts a proxy forwarding to `upstream` ("http://HOST:PORT", no path; HOST numeric
 * or resolvable). Binds 127.0.0.1 on a port the kernel picks and starts its acceptor
 * thread. Returns NULL (after printing why to stderr) if the address is malformed or
 * a socket or thread cannot be made. Free with faultproxy_free.
 */
faultproxy *faultproxy_start(const char *upstream);

/** Stops accepting, cuts every open connection, joins every thread and frees
 *  everything. Waits at most ~100 ms per thread. `p` may be NULL. */
void faultproxy_free(faultproxy *p);

/** "http://127.0.0.1:PORT": where clients should connect. Valid until free. */
const char *faultproxy_endpoint(const faultproxy *p);

/** Sets how long a request's head may take from its first byte (`head_ms`, default
 *  10000) and how long a connection may stay idle between requests (`idle_ms`,
 *  default 30000); 0 or less keeps the default. Applies from each connection's next
 *  request on. A connection that misses the head deadline is reset; an idle one is
 *  closed in order. */
void faultproxy_set_deadlines(faultproxy *p, int head_ms, int idle_ms);

/** Scripts a fault (copied). Faults are matched in the order added; the first that
 *  matches a request and has uses left is applied (one fault per request).
 *  Returns 0, or -1 when FAULTPROXY_MAX_FAULTS are already scripted or on ENOMEM. */
int faultproxy_add(faultproxy *p, const faultproxy_fault *f);

/** Drops every scripted fault, spent or not. */
void faultproxy_clear_faults(faultproxy *p);

/** Uses left over all scripted faults: 0 once every fault has been applied as many
 *  times as asked. */
int faultproxy_pending(faultproxy *p);

/** Number of requests recorded (at most FAULTPROXY_MAX_RECORDS are kept). */
int faultproxy_count(faultproxy *p);

/** Copies record `i` (0-based, arrival order) into `out`. Returns 0, or -1 if there
 *  is no such record. */
int faultproxy_record_get(faultproxy *p, int i, faultproxy_record *out);

/** Forgets every record (numbering continues). */
void faultproxy_forget(faultproxy *p);

/** Name of a fault kind ("RESET"), for messages. */
const char *faultproxy_kind_name(faultproxy_kind k);

/** Turns random faults on (a copy of `r`) or off (`r` NULL). A request that no
 *  scripted fault claims gets the fault faultproxy_rates_draw picks for its number,
 *  so the same seed and the same sequence of requests give the same faults. */
void faultproxy_set_rates(faultproxy *p, const faultproxy_rates *r);

/** Copies the counts so far into `out`. */
void faultproxy_stats_get(faultproxy *p, faultproxy_stats *out);

/** Called with the counts each time they change, from the connection thread that
 *  changed them, one call at a time, before that request's client is answered. */
typedef void (*faultproxy_observer)(const faultproxy_stats *now, void *ud);

/** Sets the observer (NULL: none). It must not call back into the proxy. */
void faultproxy_set_observer(faultproxy *p, faultproxy_observer fn, void *ud);

/* ------------------------------------------------------------ rates.c ---- */

/**
 * Parses a fault spec: comma-separated KIND=RATE% items, KIND one of 503, 500,
 * reset, lost, torn, stall (faultproxy_rule_name), RATE a decimal of at most four
 * places in 0..100; `503` and `stall` take an optional ":DURATION" ("3000ms", "3s",
 * or plain milliseconds): the retry hint and the hold time. Example:
 * "503=10%,500=2%,reset=2%,lost=2%,torn=5%,stall=1%:3000ms". Fills `out` (its seed
 * left 0). Returns 0, or -1 with a message naming what is wrong in `err` (an unknown
 * kind, a rate over 100%, rates adding up to more than 100%, a kind given twice, a
 * malformed rate or duration).
 */
int faultproxy_rates_parse(const char *spec, faultproxy_rates *out, char *err, size_t errsize);

/** The random fault for request number `no` (1-based), or -1 for none: a pure
 *  function of the rates, the seed and `no`. */
int faultproxy_rates_draw(const faultproxy_rates *r, uint64_t no);

/** "503", "500", "reset", "lost", "torn", "stall" (as in a spec), or "?". */
const char *faultproxy_rule_name(int rule);

/** Writes the rates back as a spec ("503=10%:1000ms,reset=2%") into `out`. */
void faultproxy_rates_format(const faultproxy_rates *r, char *out, size_t size);

#endif
