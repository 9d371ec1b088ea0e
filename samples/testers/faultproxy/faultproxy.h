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
 * faults.c, records.c, front.c, throttle.c, fidelity.c and answers.c (the front),
 * sharing faultproxy_int.h; the fault specs and profiles it takes are faultspec.h's
 * (rates.c, profile.c), included here.
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

#include "faultspec.h"

#define FAULTPROXY_MAX_CONNS   256
#define FAULTPROXY_MAX_FAULTS  32
#define FAULTPROXY_MAX_RECORDS 1024

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

/** What the proxy did so far. */
typedef struct faultproxy_stats {
  uint64_t requests;                    /* requests read in full */
  uint64_t injected[FAULTPROXY_NRULES]; /* random faults applied, by kind */
  uint64_t throttled;                   /* 503 ServerBusy answers of the profile's targets */
  uint64_t refused;                     /* requests refused for Azure's limits */
  uint64_t paged;                       /* Get Page Ranges answers cut into pages */
  uint64_t diffs; /* Get Page Ranges answers with prevsnapshot made by the front */
} faultproxy_stats;

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

#endif
