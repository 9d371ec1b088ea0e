/*
 * engine.c - the engine: one libcurl multi handle (and with it one pool of
 * keep-alive connections) driven by one I/O thread.
 *
 * The I/O thread waits in epoll for the sockets libcurl reports and for libcurl's
 * timer, and runs only the transfers the kernel reported ready (events.c). When
 * libcurl fails to record a socket (out of memory), its multi handle can no longer
 * be trusted: every running try ends as out of memory and the next gets a new
 * handle.
 *
 * Any thread submits calls; they wait in `incoming` under the lock. The I/O thread
 * moves them to its own ready queue, starts up to max_in_flight tries at once, and
 * when a try ends asks classify.c what it means: done, or retry after a delay
 * (retry.c), in which case the call waits in the timer list until due; it tells
 * classify.c whether the try's origin has answered before (origins.c) and, when
 * plain http met a close without a word, what that port speaks (probe.c). Control
 * calls (lease actions) have a lane of their own: they start ahead of the ready
 * queue, unpaced, and beyond max_in_flight by up to CONTROL_SLOTS, so that a lease
 * renewal never waits behind a blob's thousands of queued writes. A call whose
 * target takes its credential from a source asks it before each try; while the
 * source has none ready (a token being fetched) the call waits in the timer list
 * too, and a credential the service refuses is asked for anew and, when the source
 * has another one, the call is sent once more. Each call completes exactly once, on
 * the I/O thread. Easy handles are reused between tries. An HTTPS transfer whose
 * next records its connection read ahead already is run again at once rather than
 * left waiting in epoll for a socket that has nothing more (tls_readahead.c); the
 * records an HTTPS upload gathered are sent after each round, and again after a
 * short wait when the socket could not take them all (tls_coalesce.c). libcurl
 * opens and closes its sockets through the engine's table, so that a plain HTTP
 * read can have its socket wait in the kernel for a whole batch of its body
 * (rcvlowat.c). A cancel (xio_blob_engine_cancel: any thread, or a signal handler)
 * completes every call that is not on the wire as canceled, lets the tries on the
 * wire run until its grace ends and then cuts them. Timers (timers.c) run on the
 * I/O thread too, after each round, the wait never outlasting the earliest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include <xio/alloc.h>

#include "engine_int.h"
#include "events_int.h"
#include "pacing_int.h"
#include "readcheck_int.h"
#include "timers_int.h"

#define POOL_MAX 256

/* Control calls (lease actions) start ahead of the ready queue and beyond
 * max_in_flight, by up to this many at once: a renewal never waits for a slot
 * behind thousands of queued writes, which could outlast the lease. */
#define CONTROL_SLOTS 8

struct xio_blob_engine {
  xio_blob_engine_options opts;
  CURLM *multi;
  pthread_t thread;
  pthread_mutex_t mu;
  xio_blob_call *incoming, *incoming_tail; /* under mu */
  int stopping;                            /* under mu */
  /* I/O thread only: */
  xio_blob_call *ready, *ready_tail;
  xio_blob_call *urgent, *urgent_tail; /* control calls (lease actions) ready to go */
  xio_blob_call *waiting;              /* sorted by next_try_us */
  xio_blob_call **active;
  int nactive;
  int flush_wait_ms; /* the last wait for gathered records' sockets; 0: none wait */
  CURL *pool[POOL_MAX];
  int npool;
  uint64_t rng;
  int curl_initialized;
  int tls_initialized;
  xio__blob_tls tls;          /* trust store and TLS sessions of every connection */
  xio__blob_socks socks;      /* the sockets of every connection (rcvlowat.c) */
  xio__blob_events events;    /* what the I/O thread waits for (events.c) */
  xio__blob_timers timers;    /* work run on the I/O thread at a moment (timers.c) */
  xio__blob_origins heard;    /* I/O thread: origins that have answered (origins.c) */
  _Atomic uint64_t completed; /* calls completed (xio_blob_engine_completed) */
  xio__blob_pacer pacer;      /* I/O thread only (pacing.c) */
  _Atomic uint64_t paced_waits, paced_throttled; /* the pacer's counts, for any thread */
  atomic_int crc_reads_refused; /* the service refused a CRC-64 read: reads ask for MD5 */
  /* The cancel: asked from any thread or a signal handler, done by the I/O thread. */
  atomic_uint cancel_asked;   /* bumped by each xio_blob_engine_cancel */
  atomic_int cancel_grace_ms; /* the shortest grace asked (INT_MAX until then) */
  unsigned cancel_seen;       /* I/O thread: cancel_asked when it last looked */
  int canceled;               /* I/O thread: no try starts any more */
  int64_t cut_us;             /* I/O thread, once canceled: tries on the wire end then */
};

static const xio_blob_retry_policy default_retry = {3, 800, 60000, 120000, 0, 60000};

xio_blob_engine_options xio_blob_engine_options_default(void) {
  xio_blob_engine_options o;
  memset(&o, 0, sizeof o);
  o.max_in_flight = 32;
  o.connect_timeout_ms = 10000;
  o.retry = default_retry;
  o.checksum = XIO_BLOB_CHECKSUM_CRC64;
  return o;
}

const xio_blob_engine_options *xio_blob_engine_options_get(const xio_blob_engine *e) {
  return &e->opts;
}

uint64_t xio_blob_engine_completed(const xio_blob_engine *e) { return atomic_load(&e->completed); }

void xio_blob_engine_pacing(const xio_blob_engine *e, xio_blob_pacing_stats *out) {
  out->waits = atomic_load(&e->paced_waits);
  out->throttled = atomic_load(&e->paced_throttled);
}

/* ------------------------------------------------------------- queues ---- */

static void push(xio_blob_call **head, xio_blob_call **tail, xio_blob_call *c) {
  c->next = NULL;
  if (*tail)
    (*tail)->next = c;
  else
    *head = c;
  *tail = c;
}

static xio_blob_call *pop(xio_blob_call **head, xio_blob_call **tail) {
  xio_blob_call *c = *head;
  if (c) {
    *head = c->next;
    if (!*head) *tail = NULL;
    c->next = NULL;
  }
  return c;
}

static void wait_insert(xio_blob_engine *e, xio_blob_call *c) {
  xio_blob_call **p = &e->waiting;
  while (*p && (*p)->next_try_us <= c->next_try_us)
    p = &(*p)->next;
  c->next = *p;
  *p = c;
}

/* Queues `c` to start: a control call in the urgent lane, any other in the ready
 * queue. */
static void make_ready(xio_blob_engine *e, xio_blob_call *c) {
  if (c->control)
    push(&e->urgent, &e->urgent_tail, c);
  else
    push(&e->ready, &e->ready_tail, c);
}

/* ---------------------------------------------------------- completion ---- */

static void complete(xio_blob_engine *e, xio_blob_call *c, xio_err code) {
  c->result = code;
  c->err.code = code;
  c->done_us = xio_auth_monotonic_us();
  c->finished = 1;
  atomic_fetch_add(&e->completed, 1);
  if (e->opts.on_complete) e->opts.on_complete(c, e->opts.on_complete_ud);
  if (c->done) c->done(c, c->ud);
}

static void release_easy(xio_blob_engine *e, xio_blob_call *c) {
  if (!c->easy) return;
  curl_multi_remove_handle(e->multi, c->easy);
  if (e->npool < POOL_MAX)
    e->pool[e->npool++] = c->easy;
  else
    curl_easy_cleanup(c->easy);
  c->easy = NULL;
}

/* A multi handle that reports its sockets and timer to the engine's events; NULL
 * for want of memory. */
static CURLM *new_multi(xio_blob_engine *e) {
  CURLM *m = curl_multi_init();
  if (!m) return NULL;
  curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, (long)e->opts.max_in_flight);
  xio__blob_events_attach(&e->events, m);
  return m;
}

static void report_try(xio_blob_engine *e, const xio_blob_call *c, xio_err result, int retry,
                       int delay) {
  if (!e->opts.on_try) return;
  xio_blob_try_info info = {
      c->operation,
      c->target->safe_url,
      c->attempt,
      c->status,
      c->curl_rc ? (c->curl_err[0] ? c->curl_err : curl_easy_strerror(c->curl_rc)) : NULL,
      retry,
      delay,
      c,
      result,
      xio_auth_monotonic_us() - c->try_us};
  e->opts.on_try(&info, e->opts.on_try_ud);
}

/* ---------------------------------------------------------------- tries ---- */

static xio_err check_sas(xio_blob_engine *e, const xio_blob_call *c, const xio_auth_sas *sas,
                         xio_error *err);

/* Checks that cannot change between tries: plain http that would leave the machine
 * (loopback stays on it, and so does a link-local host for a token request that
 * allows it), SAS validity. */
static xio_err first_try_checks(xio_blob_engine *e, xio_blob_call *c, xio_error *err) {
  const xio_blob_target *t = c->target;
  if (c->early) return xio_error_set(err, c->early, "out of memory preparing the request");
  int stays_local = xio_auth_host_is_loopback(t->url.host) ||
                    (c->link_local_ok && xio_auth_host_is_link_local(t->url.host));
  if (strcmp(t->url.scheme, "http") == 0 && !stays_local && !e->opts.allow_insecure_remote) {
    xio_error_set(err, XIO_EINSECURE,
                  "plain http to %s would expose the request; use https "
                  "(or allow insecure remote hosts explicitly)",
                  t->url.host);
    xio_error_set_reason(err, XIO_REASON_HTTP_REMOTE);
    return XIO_EINSECURE;
  }
  if (!t->has_sas) return XIO_OK;
  return check_sas(e, c, &t->sas, err);
}

/* Whether `sas` allows the call now. */
static xio_err check_sas(xio_blob_engine *e, const xio_blob_call *c, const xio_auth_sas *sas,
                         xio_error *err) {
  uint32_t need = c->need_perms;
  if (c->need_any && !(sas->perms & c->need_any)) need |= c->need_any;
  return xio_auth_sas_check(sas, need, xio_auth_clock_now(&e->opts.clock), err);
}

/* Asks the target's credential source for this try's credential (see
 * xio_blob_cred_source). A SAS it gives that has expired or is not valid yet is
 * handed back as refused once, so that a renewed one can be read. *wait_ms > 0:
 * not ready yet. */
static xio_err source_credential(xio_blob_engine *e, xio_blob_call *c, int *wait_ms,
                                 xio_error *err) {
  const xio_blob_cred_source *src = &c->target->source;
  for (int round = 0;; round++) {
    *wait_ms = 0;
    xio_err rc = src->get(src->ud, c->auth_refused, &c->auth, wait_ms, err);
    if (rc != XIO_OK || *wait_ms > 0) return rc;
    c->auth_refused = 0;
    if (c->auth.kind != XIO_AUTH_CRED_SAS) return XIO_OK;
    if (c->auth.sas != c->auth_sas_of) { /* a SAS not parsed yet */
      c->auth_sas_of = NULL;
      rc = xio_auth_sas_parse(c->auth.sas, &c->auth_sas, err);
      if (rc != XIO_OK) return rc;
      c->auth_sas_of = c->auth.sas;
    }
    rc = check_sas(e, c, &c->auth_sas, err);
    if ((rc != XIO_EEXPIRED && rc != XIO_ENOTYET) || round > 0) return rc;
    c->auth_refused = 1;
  }
}

/* Puts a call whose credential is not ready back in the timer list. */
static void park(xio_blob_engine *e, xio_blob_call *c, int64_t now, int wait_ms) {
  c->next_try_us = now + (int64_t)wait_ms * 1000;
  if (c->deadline_us && c->next_try_us > c->deadline_us) c->next_try_us = c->deadline_us;
  wait_insert(e, c);
}

static long try_timeout(const xio_blob_engine *e, const xio_blob_call *c, int64_t now) {
  long t = c->try_timeout_ms ? c->try_timeout_ms : e->opts.retry.try_timeout_ms;
  if (c->deadline_us) {
    long left = (long)((c->deadline_us - now) / 1000);
    if (left < 1) left = 1;
    if (!t || left < t) t = left;
  }
  return t;
}

/* 1 when the host of `t` is this machine (an emulator). */
static int loopback_target(const xio_blob_target *t) {
  const char *h = t->url.host ? t->url.host : "";
  return strcmp(h, "127.0.0.1") == 0 || strcmp(h, "localhost") == 0 || strcmp(h, "[::1]") == 0 ||
         strcmp(h, "::1") == 0;
}

/* The pacer's keys of a call: its blob (origin and path) and its account. */
static void pace_keys(const xio_blob_call *c, char *blob, size_t bsize, char *account,
                      size_t asize) {
  const xio_blob_target *t = c->target;
  snprintf(blob, bsize, "%s", t->safe_url ? t->safe_url : "");
  snprintf(account, asize, "%s/%s", t->origin ? t->origin : "",
           t->url.account ? t->url.account : "");
}

/* Holds the call back until its blob and account have room under their rates
 * (pacing.c); 1 when it was parked. A try whose start is too far off to reserve
 * asks the pacer again when it wakes; once it has its place it is not paced again.
 * Token and other foreign requests are not paced, nor are control calls: a lease
 * renewal is one request in tens of seconds, and must not wait behind the blob's
 * queue of writes. */
static int paced(xio_blob_engine *e, xio_blob_call *c, int64_t now) {
  if (c->foreign || c->control || c->paced_try == c->attempt + 1) return 0;
  char blob[1024], account[512];
  pace_keys(c, blob, sizeof blob, account, sizeof account);
  int64_t start = xio__blob_pace(&e->pacer, blob, account, loopback_target(c->target),
                                 c->body_len ? c->body_len : c->rbuf_len, now, &c->pace_mark);
  if (start - now <= XIO__PACE_LEAD_US) c->paced_try = c->attempt + 1; /* its place is kept */
  if (start <= now) return 0;
  atomic_store(&e->paced_waits, e->pacer.waits);
  c->next_try_us = start;
  wait_insert(e, c);
  return 1;
}

/* 1 when the try of `c` that ended with `code` was refused for the service's load:
 * 503 ServerBusy or 429 (XIO_ETHROTTLED), 500 OperationTimedOut. */
static int throttling(const xio_blob_call *c, xio_err code) {
  return code == XIO_ETHROTTLED || (c->status == 500 && code == XIO_ETIMEDOUT);
}

/* Tells the pacer how the try of `c` ended: a refusal whose message names the
 * account's limit ("... is over the account limit.") is the account's. */
static void pace_answer(xio_blob_engine *e, const xio_blob_call *c, xio_err code) {
  if (c->foreign || !c->status) return;
  char blob[1024], account[512];
  pace_keys(c, blob, sizeof blob, account, sizeof account);
  int how = !throttling(c, code)                      ? XIO__PACE_OK
            : strstr(c->err.message, "account limit") ? XIO__PACE_ACCOUNT /* Azure's words */
                                                      : XIO__PACE_BUSY;
  const xio__pace_mark *mark = c->paced_try == c->attempt + 1 ? &c->pace_mark : NULL;
  xio__blob_pace_answer(&e->pacer, blob, account, how,
                        xio__blob_hdrs_get(&c->resp_headers, "x-ms-access-tier"), mark, c->try_us,
                        xio_auth_monotonic_us());
  atomic_store(&e->paced_throttled, e->pacer.throttled);
}

static void cancel_call(xio_blob_engine *e, xio_blob_call *c);

static void start_try(xio_blob_engine *e, xio_blob_call *c) {
  if (e->canceled) { /* whatever queue it came from: no try after a cancel */
    cancel_call(e, c);
    return;
  }
  xio_error detail;
  xio_error_clear(&detail);
  int64_t now = xio_auth_monotonic_us();
  if (paced(e, c, now)) return;
  xio_err rc = c->attempt == 0 ? first_try_checks(e, c, &detail) : XIO_OK;
  if (rc == XIO_OK && c->target->source.get) {
    int wait_ms = 0;
    rc = source_credential(e, c, &wait_ms, &detail);
    if (rc == XIO_OK && wait_ms > 0 && (!c->deadline_us || now < c->deadline_us)) {
      park(e, c, now, wait_ms);
      return;
    }
    if (rc == XIO_OK && wait_ms > 0)
      rc = xio_error_set(&detail, XIO_ETIMEDOUT, "no credential came before the deadline");
  }
  CURL *easy = NULL;
  if (rc == XIO_OK && !e->multi && !(e->multi = new_multi(e)))
    rc = xio_error_set(&detail, XIO_ENOMEM, "out of memory for a libcurl multi handle");
  if (rc == XIO_OK) {
    easy = e->npool ? e->pool[--e->npool] : curl_easy_init();
    if (!easy) rc = xio_error_set(&detail, XIO_ENOMEM, "out of memory for a libcurl handle");
  }
  c->refused = xio_alloc_failures(); /* libcurl may send a mangled request when short */
  c->try_us = now;
  if (rc == XIO_OK)
    rc = xio__blob_try_prepare(c, easy, &e->opts, &e->tls, &e->socks,
                               xio_auth_clock_now(&e->opts.clock), try_timeout(e, c, now), &detail);
  CURLMcode mrc = rc == XIO_OK ? curl_multi_add_handle(e->multi, easy) : CURLM_OK;
  if (mrc == CURLM_OUT_OF_MEMORY)
    rc = xio_error_set(&detail, XIO_ENOMEM, "out of memory");
  else if (mrc != CURLM_OK)
    rc = xio_error_set(&detail, XIO_ETRANSPORT, "libcurl refused the transfer");
  if (rc != XIO_OK) {
    if (easy && e->npool < POOL_MAX)
      e->pool[e->npool++] = easy;
    else if (easy)
      curl_easy_cleanup(easy);
    c->easy = NULL;
    xio__blob_fail_early(c, rc, &detail);
    complete(e, c, rc);
    return;
  }
  e->active[e->nactive++] = c;
}

static void drop_active(xio_blob_engine *e, xio_blob_call *c) {
  for (int i = 0; i < e->nactive; i++)
    if (e->active[i] == c) {
      e->active[i] = e->active[--e->nactive];
      return;
    }
}

/* A 401/403 refusal of the credential (not of a permission) on a target whose
 * credential source may have a newer one; once per call. */
static int refused_credential(const xio_blob_call *c, xio_err code) {
  return (code == XIO_EAUTH || code == XIO_ENOCRED) && (c->status == 401 || c->status == 403) &&
         c->target->source.get && !c->auth_renewed;
}

/* Tells the source the service refused the call's credential and asks for the
 * current one: 1 when it differs (a rotated SAS or key in the file, a new token on
 * its way), 0 when the source has nothing else, so sending again would only be
 * refused again. A replaced credential never keeps its strings' addresses. */
static int renewed_credential(xio_blob_call *c) {
  const xio_blob_cred_source *src = &c->target->source;
  xio_auth_cred before = c->auth;
  int wait_ms = 0;
  xio_error ignored;
  xio_error_clear(&ignored);
  c->auth_renewed = 1;
  if (src->get(src->ud, 1, &c->auth, &wait_ms, &ignored) != XIO_OK) return 0;
  return wait_ms > 0 || before.kind != c->auth.kind || before.sas != c->auth.sas ||
         before.key != c->auth.key || before.account != c->auth.account ||
         before.token != c->auth.token;
}

/* Whether the try of `c` that failed may be retried: a throttling answer within the
 * budget in time since the call's first one (`budgeted`, see
 * xio_blob_retry_policy.throttle_ms: a throttled try is the pacer's signal, not a
 * fault of the request), any other failure by the count of the other retries. */
static int retries_left(const xio_blob_engine *e, const xio_blob_call *c, int budgeted,
                        int64_t now) {
  const xio_blob_retry_policy *p = &e->opts.retry;
  if (budgeted) return now - c->throttled_us < (int64_t)p->throttle_ms * 1000;
  return c->attempt - c->throttle_retries < p->max_retries;
}

/* How long a look at what a port speaks may take (probe.c). */
#define PROBE_MAX_MS 2000

/* Classifies the try of `c` that ended, with what the engine knows beside it:
 * whether its origin has answered before, and, when plain http met a silent close,
 * what the port speaks. Then remembers an origin that answered. */
static xio__blob_verdict judge(xio_blob_engine *e, xio_blob_call *c) {
  c->origin_heard = xio__blob_origins_has(&e->heard, c->target->origin);
  if (xio__blob_probe_wanted(c)) {
    int ms = c->connect_timeout_ms ? c->connect_timeout_ms : e->opts.connect_timeout_ms;
    c->speaks_tls = xio__blob_probe_tls(c->peer_ip, c->peer_port, c->target->url.host,
                                        ms > 0 && ms < PROBE_MAX_MS ? ms : PROBE_MAX_MS);
  }
  xio__blob_verdict v = xio__blob_classify(c);
  if (c->status > 0) xio__blob_origins_add(&e->heard, c->target->origin);
  return v;
}

static void finish_try(xio_blob_engine *e, xio_blob_call *c, CURLcode rc) {
  xio__blob_try_finished(c, rc);
  if (xio_alloc_failures() != c->refused) c->oom = 1;
  release_easy(e, c);
  drop_active(e, c);
  xio__blob_verdict v = judge(e, c);
  pace_answer(e, c, v.code);
  int64_t now = xio_auth_monotonic_us();
  int throttled = v.code != XIO_OK && throttling(c, v.code);
  int budgeted = throttled && e->opts.retry.throttle_ms > 0 && !c->throttle_counted;
  if (budgeted && !c->throttled_us) c->throttled_us = now;
  int retry = v.code != XIO_OK && v.retry && c->retryable && retries_left(e, c, budgeted, now);
  /* A throttled try the pacer placed is sent again after the first retry's delay, not a
   * growing one: the refusal has cut the pacer's rate and the retry waits for its place
   * at the new one, so a longer wait would only idle the request, and with it a
   * transfer that takes its requests' answers in order. */
  int paced_retry = throttled && c->paced_try == c->attempt + 1 && c->pace_mark.blob_n;
  int delay = retry ? xio__blob_retry_delay_ms(&e->opts.retry, paced_retry ? 1 : c->attempt + 1,
                                               &c->resp_headers, &e->rng)
                    : 0;
  if (retry && c->deadline_us && now + (int64_t)delay * 1000 >= c->deadline_us) retry = 0;
  if (retry && budgeted &&
      now + (int64_t)delay * 1000 - c->throttled_us > (int64_t)e->opts.retry.throttle_ms * 1000)
    retry = 0; /* the retry would go out past the budget */
  if (v.code != XIO_OK && xio__blob_read_check_fallback(c)) {
    /* The service does not answer CRC-64 on reads (Azurite): read again at once with
     * MD5, and ask later reads for MD5. Nothing was read, so this is not a retry. */
    atomic_store(&e->crc_reads_refused, 1);
    report_try(e, c, v.code, 1, 0);
    c->next_try_us = now;
    wait_insert(e, c);
    return;
  }
  if (!retry && refused_credential(c, v.code) && renewed_credential(c)) {
    /* Sent again at once with what the source read anew (a rotated SAS or key, a
     * fresh token); the service applied nothing, so this is not a retry. */
    report_try(e, c, v.code, 1, 0);
    c->next_try_us = now;
    wait_insert(e, c);
    return;
  }
  report_try(e, c, v.code, retry, delay);
  if (!retry) {
    complete(e, c, v.code);
    return;
  }
  c->attempt++;
  c->throttle_retries += budgeted;
  c->next_try_us = now + (int64_t)delay * 1000;
  wait_insert(e, c);
}

/* ------------------------------------------------------------ the loop ---- */

static void take_incoming(xio_blob_engine *e, int *stopping) {
  pthread_mutex_lock(&e->mu);
  while (e->incoming) {
    xio_blob_call *c = pop(&e->incoming, &e->incoming_tail);
    make_ready(e, c);
  }
  *stopping = e->stopping;
  pthread_mutex_unlock(&e->mu);
}

static void wake_due(xio_blob_engine *e, int64_t now) {
  while (e->waiting && e->waiting->next_try_us <= now) {
    xio_blob_call *c = e->waiting;
    e->waiting = c->next;
    make_ready(e, c);
  }
}

/* Starts the control calls first, then the others while there is room. */
static void start_ready(xio_blob_engine *e) {
  while (e->urgent && e->nactive < e->opts.max_in_flight + CONTROL_SLOTS)
    start_try(e, pop(&e->urgent, &e->urgent_tail));
  while (e->ready && e->nactive < e->opts.max_in_flight)
    start_try(e, pop(&e->ready, &e->ready_tail));
}

static void reap(xio_blob_engine *e) {
  CURLMsg *m;
  int left;
  while ((m = curl_multi_info_read(e->multi, &left))) {
    if (m->msg != CURLMSG_DONE) continue;
    xio_blob_call *c = NULL;
    CURL *easy = m->easy_handle;
    CURLcode rc = m->data.result;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&c);
    finish_try(e, c, rc);
  }
}

static int timer_ms(const xio_blob_engine *e, int64_t now) {
  if (e->ready && e->nactive < e->opts.max_in_flight) return 0;
  if (e->urgent && e->nactive < e->opts.max_in_flight + CONTROL_SLOTS) return 0;
  int ms = 1000;
  if (e->waiting) {
    int64_t d = (e->waiting->next_try_us - now + 999) / 1000;
    if (d < ms) ms = d < 0 ? 0 : (int)d;
  }
  return ms;
}

static void cancel_all(xio_blob_engine *e) {
  xio_error none;
  xio_error_clear(&none);
  xio_error_set(&none, XIO_ECANCELED, "the engine was stopped");
  while (e->nactive) {
    xio_blob_call *c = e->active[--e->nactive];
    release_easy(e, c);
    xio__blob_fail_early(c, XIO_ECANCELED, &none);
    complete(e, c, XIO_ECANCELED);
  }
  xio_blob_call *c;
  while ((c = pop(&e->urgent, &e->urgent_tail)) || (c = pop(&e->ready, &e->ready_tail))) {
    xio__blob_fail_early(c, XIO_ECANCELED, &none);
    complete(e, c, XIO_ECANCELED);
  }
  while ((c = e->waiting)) {
    e->waiting = c->next;
    xio__blob_fail_early(c, XIO_ECANCELED, &none);
    complete(e, c, XIO_ECANCELED);
  }
}

/* ----------------------------------------------------------- the cancel ---- */

/* Completes `c`, which is not on the wire, as canceled: before its first try, or
 * before the retry it waited for (the last try's failure named). */
static void cancel_call(xio_blob_engine *e, xio_blob_call *c) {
  xio_error why;
  xio_error_clear(&why);
  if (c->err.code == XIO_OK && !c->err.message[0]) /* no try failed yet */
    xio_error_set(&why, XIO_ECANCELED, "canceled before it was sent");
  else
    xio_error_set(&why, XIO_ECANCELED, "canceled before it was sent again (the last try: %.300s)",
                  c->err.message[0] ? c->err.message : "failed");
  xio__blob_fail_early(c, XIO_ECANCELED, &why);
  complete(e, c, XIO_ECANCELED);
}

/* Cuts the tries on the wire: each transfer leaves the multi handle (libcurl closes
 * its connection) and its call completes as canceled. */
static void cut_active(xio_blob_engine *e) {
  xio_error why;
  xio_error_clear(&why);
  xio_error_set(&why, XIO_ECANCELED, "canceled: its try was cut on the wire");
  while (e->nactive) {
    xio_blob_call *c = e->active[--e->nactive];
    xio__blob_try_finished(c, CURLE_ABORTED_BY_CALLBACK);
    release_easy(e, c);
    xio__blob_fail_early(c, XIO_ECANCELED, &why);
    complete(e, c, XIO_ECANCELED);
  }
}

/* The I/O thread's part of a cancel, once per round: takes a new ask (the cut comes
 * at the earliest end of a grace asked), completes every call that waits (ready, or
 * in the timer list for a retry, a credential or the pacer) as canceled, and once
 * the cut is due, the tries on the wire too. */
static void cancel_pass(xio_blob_engine *e, int64_t now) {
  unsigned asked = atomic_load_explicit(&e->cancel_asked, memory_order_acquire);
  if (asked != e->cancel_seen) {
    e->cancel_seen = asked;
    int64_t cut = now + (int64_t)atomic_load(&e->cancel_grace_ms) * 1000;
    if (!e->canceled || cut < e->cut_us) e->cut_us = cut;
    e->canceled = 1;
  }
  if (!e->canceled) return;
  xio_blob_call *c;
  while ((c = pop(&e->urgent, &e->urgent_tail)) || (c = pop(&e->ready, &e->ready_tail)))
    cancel_call(e, c);
  while ((c = e->waiting)) {
    e->waiting = c->next;
    cancel_call(e, c);
  }
  if (now >= e->cut_us) cut_active(e);
}

/* `ms`, the wait for events, shortened so that the I/O thread is awake for the cut. */
static int cancel_wait_ms(const xio_blob_engine *e, int ms) {
  if (!e->canceled || !e->nactive) return ms;
  int64_t left = (e->cut_us - xio_auth_monotonic_us() + 999) / 1000;
  return left < ms ? (left < 0 ? 0 : (int)left) : ms;
}

/* After libcurl failed to record a socket (events.c: note), or epoll refused one:
 * every running try ends as out of memory, and the multi handle, whose socket
 * records may be broken, is cleaned up (closing its connections). The next try
 * makes a new one. */
static void abandon_multi(xio_blob_engine *e) {
  while (e->nactive) {
    xio_blob_call *c = e->active[0];
    c->oom = 1;
    finish_try(e, c, CURLE_OUT_OF_MEMORY);
  }
  curl_multi_cleanup(e->multi);
  if (!(e->multi = new_multi(e))) xio__blob_events_attach(&e->events, NULL);
}

/* For each running HTTPS transfer: sends the records its connection gathered
 * (tls_coalesce.c), and counts in *held the transfers whose socket could not
 * take them all; marks the transfers whose next records wait in their
 * connection's read-ahead buffer, for libcurl to read without asking the socket
 * (tls_readahead.c). How many it marked; a failure of libcurl's marks the multi
 * handle failed. */
static int tls_pass(xio_blob_engine *e, int *held) {
  int n = 0;
  *held = 0;
  if (!e->tls.rewire) return 0; /* plain connections: libcurl reads and sends itself */
  for (int i = 0; i < e->nactive; i++) {
    xio_blob_call *c = e->active[i];
    if (!c->easy || strcmp(c->target->url.scheme, "https") != 0) continue;
    SSL *ssl = xio__blob_tls_connection(&e->tls, c->easy);
    if (!ssl) continue; /* no connection yet */
    *held += xio__blob_tls_flush(ssl);
    int r = xio__blob_tls_redrive(&e->tls, c->easy, ssl);
    if (r < 0) xio__blob_events_fail(&e->events);
    n += r > 0;
  }
  return n;
}

/* How long the wait may be: until the next timer (the engine's or libcurl's), and while gathered
 * records wait for a full socket, 1 ms, doubling up to FLUSH_WAIT_MAX_MS while they still do. */
#define FLUSH_WAIT_MAX_MS 8

static int wait_ms(xio_blob_engine *e, int held) {
  int64_t now = xio_auth_monotonic_us();
  int ms = xio__blob_events_timeout(&e->events, now, timer_ms(e, now));
  int64_t next = xio__blob_timers_next(&e->timers);
  if (next != INT64_MAX) {
    int64_t d = next <= now ? 0 : (next - now + 999) / 1000;
    if (d < ms) ms = (int)d;
  }
  if (!held) {
    e->flush_wait_ms = 0;
    return ms;
  }
  e->flush_wait_ms = e->flush_wait_ms ? e->flush_wait_ms * 2 : 1;
  if (e->flush_wait_ms > FLUSH_WAIT_MAX_MS) e->flush_wait_ms = FLUSH_WAIT_MAX_MS;
  return ms < e->flush_wait_ms ? ms : e->flush_wait_ms;
}

static void *io_thread(void *arg) {
  xio_blob_engine *e = arg;
  for (;;) {
    int stopping;
    take_incoming(e, &stopping);
    if (stopping) break;
    wake_due(e, xio_auth_monotonic_us());
    cancel_pass(e, xio_auth_monotonic_us());
    start_ready(e);
    int held;
    if (tls_pass(e, &held)) /* made due by curl_easy_pause, which sets no timer */
      xio__blob_events_run_timers(&e->events);
    else
      xio__blob_events_wait(&e->events, cancel_wait_ms(e, wait_ms(e, held)));
    reap(e);
    if (e->events.failed) abandon_multi(e);
    xio__blob_timers_run(&e->timers, xio_auth_monotonic_us());
  }
  cancel_all(e);
  return NULL;
}

/* ------------------------------------------------------------ public ---- */

static xio_err check_options(const xio_blob_engine_options *o, xio_error *err) {
  if (o->max_in_flight < 1 || o->max_in_flight > 1024)
    return xio_error_set(err, XIO_EINVAL, "max_in_flight %d outside 1..1024", o->max_in_flight);
  if (o->retry.max_retries < 0 || o->retry.max_retries > 100)
    return xio_error_set(err, XIO_EINVAL, "max_retries %d outside 0..100", o->retry.max_retries);
  if (o->retry.base_delay_ms < 0 || o->retry.max_delay_ms < 0 || o->retry.try_timeout_ms < 0 ||
      o->retry.deadline_ms < 0 || o->retry.throttle_ms < 0 || o->connect_timeout_ms < 0)
    return xio_error_set(err, XIO_EINVAL, "negative delay or timeout");
  if ((unsigned)o->checksum > XIO_BLOB_CHECKSUM_NONE)
    return xio_error_set(err, XIO_EINVAL, "unknown checksum kind %d", (int)o->checksum);
  if ((unsigned)o->pacing > XIO_BLOB_PACING_ON)
    return xio_error_set(err, XIO_EINVAL, "unknown pacing mode %d", (int)o->pacing);
  if (!(o->max_rate_bps >= 0) || o->max_rate_bps > 1e15)
    return xio_error_set(err, XIO_EINVAL, "max_rate_bps must be 0 (none) or a rate in bytes/s");
  return XIO_OK;
}

static xio_err engine_setup(xio_blob_engine *e, const xio_blob_engine_options *opts,
                            xio_error *err) {
  e->opts = opts ? *opts : xio_blob_engine_options_default();
  xio__blob_pacer_init(&e->pacer, (int)e->opts.pacing, e->opts.max_rate_bps,
                       (uint64_t)xio_auth_monotonic_us());
  /* e->opts.ca_file is only ever the engine's own copy: engine_release frees it,
   * also when setup fails before the copy is made. */
  const char *ca_file = e->opts.ca_file;
  e->opts.ca_file = NULL;
  xio_err rc = check_options(&e->opts, err);
  if (rc != XIO_OK) return rc;
  if (ca_file && !(e->opts.ca_file = xio_strdup(ca_file)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (RAND_bytes((unsigned char *)&e->rng, sizeof e->rng) != 1) e->rng = (uint64_t)(uintptr_t)e;
  /* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
  e->active = xio_calloc((size_t)e->opts.max_in_flight + CONTROL_SLOTS, sizeof *e->active);
  if (!e->active) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  CURLcode grc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (grc == CURLE_OUT_OF_MEMORY) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (grc != CURLE_OK)
    return xio_error_set(err, XIO_ETRANSPORT, "libcurl could not be initialized");
  e->curl_initialized = 1;
  e->tls_initialized = 1;
  rc = xio__blob_tls_init(&e->tls, e->opts.ca_file, e->opts.plain_tls, err);
  if (rc != XIO_OK) return rc;
  rc = xio__blob_events_init(&e->events, err);
  if (rc == XIO_OK && !(e->multi = new_multi(e))) /* it fails only for want of memory */
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  return rc;
}

static void engine_release(xio_blob_engine *e) {
  for (int i = 0; i < e->npool; i++)
    curl_easy_cleanup(e->pool[i]);
  if (e->multi) curl_multi_cleanup(e->multi);
  xio__blob_events_free(&e->events);
  xio__blob_socks_free(&e->socks); /* after the multi handle: it closes through it */
  if (e->tls_initialized) xio__blob_tls_free(&e->tls);
  if (e->curl_initialized) curl_global_cleanup();
  xio_free(e->active);
  xio_free((char *)e->opts.ca_file);
  xio__blob_timers_destroy(&e->timers);
  pthread_mutex_destroy(&e->mu);
  xio_free(e);
}

xio_err xio_blob_engine_new(const xio_blob_engine_options *opts, xio_blob_engine **out,
                            xio_error *err) {
  *out = NULL;
  xio_blob_engine *e = xio_calloc(1, sizeof *e);
  if (!e) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  e->events.epfd = e->events.wakefd = -1;
  atomic_init(&e->cancel_grace_ms, INT_MAX);
  pthread_mutex_init(&e->mu, NULL);
  xio__blob_timers_init(&e->timers);
  xio_err rc = engine_setup(e, opts, err);
  if (rc == XIO_OK && pthread_create(&e->thread, NULL, io_thread, e) != 0)
    rc = xio_error_set(err, XIO_ENOMEM, "cannot start the I/O thread");
  if (rc != XIO_OK) {
    xio_error_set_operation(err, "StartEngine");
    engine_release(e);
    return rc;
  }
  *out = e;
  return XIO_OK;
}

void xio_blob_engine_free(xio_blob_engine *e) {
  if (!e) return;
  pthread_mutex_lock(&e->mu);
  e->stopping = 1;
  pthread_mutex_unlock(&e->mu);
  xio__blob_events_wake(&e->events);
  pthread_join(e->thread, NULL);
  /* Calls submitted while stopping were never taken: cancel them here. */
  take_incoming(e, &(int){0});
  cancel_all(e);
  engine_release(e);
}

/* Async-signal-safe: lock-free atomics and a write(2) to the wakeup, errno kept. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a cancel from a signal handler needs lock-free ints");

void xio_blob_engine_cancel(xio_blob_engine *e, int grace_ms) {
  if (!e) return;
  int saved = errno;
  if (grace_ms < 0) grace_ms = 0;
  int was = atomic_load(&e->cancel_grace_ms);
  while (grace_ms < was && !atomic_compare_exchange_weak(&e->cancel_grace_ms, &was, grace_ms))
    continue; /* another cancel changed it: compare with that one */
  atomic_fetch_add_explicit(&e->cancel_asked, 1, memory_order_release);
  xio__blob_events_wake(&e->events);
  errno = saved;
}

/* Adds the transactional checksum of a Put Page body, computed once per call. */
static xio_err add_checksum(xio_blob_engine *e, xio_blob_call *c) {
  xio_err rc = XIO_OK;
  if (!c->body || !c->body_len || xio__blob_hdrs_get(&c->headers, "x-ms-content-crc64") ||
      xio__blob_hdrs_get(&c->headers, "Content-MD5"))
    return XIO_OK;
  if (e->opts.checksum == XIO_BLOB_CHECKSUM_CRC64) {
    char v[13];
    xio__blob_call_header(c, "x-ms-content-crc64", xio_blob_crc64_base64(c->body, c->body_len, v),
                          &rc);
  } else if (e->opts.checksum == XIO_BLOB_CHECKSUM_MD5) {
    char v[25];
    xio__blob_call_header(c, "Content-MD5", xio_blob_md5_base64(c->body, c->body_len, v), &rc);
  }
  return rc;
}

void xio_blob_submit(xio_blob_engine *e, xio_blob_call *c, xio_blob_done_fn done, void *ud) {
  c->done = done;
  c->ud = ud;
  c->finished = 0;
  c->attempt = c->resends = 0;
  c->throttle_retries = 0;
  c->throttled_us = 0;
  c->auth_refused = c->auth_renewed = 0;
  xio_error_clear(&c->err);
  c->submit_us = xio_auth_monotonic_us();
  int deadline_ms = c->deadline_ms ? c->deadline_ms : e->opts.retry.deadline_ms;
  c->deadline_us = deadline_ms ? c->submit_us + (int64_t)deadline_ms * 1000 : 0;
  c->early = add_checksum(e, c);
  if (c->early == XIO_OK)
    c->early = xio__blob_read_check_ask(c, e->opts.checksum, atomic_load(&e->crc_reads_refused));
  pthread_mutex_lock(&e->mu);
  push(&e->incoming, &e->incoming_tail, c);
  pthread_mutex_unlock(&e->mu);
  xio__blob_events_wake(&e->events);
}

void xio__blob_engine_tls_counts(xio_blob_engine *e, xio__blob_tls_counts *out) {
  xio__blob_tls_get_counts(&e->tls, out);
}

void xio__blob_engine_socks_counts(xio_blob_engine *e, xio__blob_socks_counts *out) {
  xio__blob_socks_get_counts(&e->socks, out);
}

void xio_blob_engine_timer_set(xio_blob_engine *e, xio_blob_timer *t, int64_t at_us) {
  xio__blob_timers_set(&e->timers, t, at_us);
  if (!xio_blob_engine_on_io_thread(e)) xio__blob_events_wake(&e->events);
}

void xio_blob_engine_timer_cancel(xio_blob_engine *e, xio_blob_timer *t) {
  xio__blob_timers_cancel(&e->timers, t, xio_blob_engine_on_io_thread(e));
}

int xio_blob_engine_on_io_thread(const xio_blob_engine *e) {
  return pthread_equal(pthread_self(), e->thread);
}

/* ------------------------------------------------------------- sync ---- */

typedef struct waiter {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
} waiter;

static void wake_waiter(xio_blob_call *c, void *ud) {
  (void)c;
  waiter *w = ud;
  pthread_mutex_lock(&w->mu);
  w->done = 1;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

xio_err xio_blob_send(xio_blob_engine *e, xio_blob_call *c, xio_error *err) {
  if (xio_blob_engine_on_io_thread(e))
    return xio_error_set(err, XIO_EINVAL, "synchronous %s called from a completion callback",
                         c->operation);
  waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  xio_blob_submit(e, c, wake_waiter, &w);
  pthread_mutex_lock(&w.mu);
  while (!w.done)
    pthread_cond_wait(&w.cv, &w.mu);
  pthread_mutex_unlock(&w.mu);
  pthread_cond_destroy(&w.cv);
  pthread_mutex_destroy(&w.mu);
  return xio_blob_call_result(c, err);
}
