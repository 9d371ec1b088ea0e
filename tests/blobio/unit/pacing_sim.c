/*
 * pacing_sim.c - the simulated client and throttling service of pacing_sim.h: an
 * event loop over `depth` workers, each taking the next request of the transfer
 * (or retrying its refused one), asking the pacer when it may start, and telling
 * the pacer the answer when it comes. The service decides at the start of a try,
 * and moves the bytes of the tries it took one after the other at serve_bps.
 */
#include "pacing_sim.h"

#include <stdlib.h>
#include <string.h>

#include "pacing_int.h"

#define BLOB    "https://a.blob.core.windows.net/c/b"
#define ACCOUNT "https://a.blob.core.windows.net/a"
#define MAXW    64
#define RETRIES 3

typedef struct service {
  double req, bytes; /* bucket levels, or counts in the current window */
  int64_t at_us;     /* the last refill, or the current window's start */
} service;

/* 1 when the service accepts a try of `n` bytes at `t`, taking its share. */
static int accept_try(const pacing_sim *s, service *v, size_t n, int64_t t) {
  double w = (double)s->window_us / 1e6;
  if (s->limiter == SIM_BUCKET) {
    double dt = (double)(t - v->at_us) / 1e6;
    v->at_us = t;
    v->req += s->limit_rps * dt;
    v->bytes += s->limit_bps * dt;
    if (v->req > s->limit_rps * w) v->req = s->limit_rps * w;
    if (v->bytes > s->limit_bps * w) v->bytes = s->limit_bps * w;
    if (v->req < 1.0 || v->bytes <= 0) return 0;
    v->req -= 1.0;
    v->bytes -= (double)n;
    return 1;
  }
  if (t - v->at_us >= s->window_us) {
    v->at_us = t - (t - v->at_us) % s->window_us;
    v->req = v->bytes = 0;
  }
  if (v->req + 1 > s->limit_rps * w || v->bytes + (double)n > s->limit_bps * w + (double)n / 2)
    return 0;
  v->req += 1;
  v->bytes += (double)n;
  return 1;
}

typedef struct worker {
  xio__pace_mark mark; /* its try's place among the paced ones */
  int64_t ready_us;    /* when it acts next */
  int64_t sent_us;     /* when its try started */
  int64_t refused_us;  /* its request's first refusal, 0: none */
  int state;           /* 0 idle, 1 waiting to start, 2 answered ok, 3 refused */
  int attempt;         /* of its current request */
  int request;         /* its number in the transfer */
} worker;

/* What the workers share: the requests answered, the service's queue. */
typedef struct transfer {
  unsigned char *done; /* per request: answered */
  int lowest;          /* every request below has its answer */
  int64_t busy_us;     /* the service moves bytes until then */
} transfer;

/* The worker that acts first, or -1 when all are done. */
static int next_worker(const worker *w, int n) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (w[i].state && (best < 0 || w[i].ready_us < w[best].ready_us)) best = i;
  return best;
}

/* Starts a try on `k` at `now`, once the window allows: paced, then judged by the
 * service. */
static void start(pacing_sim *s, xio__blob_pacer *p, service *v, transfer *x, worker *k,
                  int64_t now) {
  while (x->lowest < s->requests && x->done[x->lowest])
    x->lowest++;
  if (s->window && k->request - x->lowest >= s->window) {
    k->ready_us = now + 1000; /* behind the oldest unanswered */
    return;
  }
  int64_t t = xio__blob_pace(p, BLOB, ACCOUNT, 0, s->bytes, now, &k->mark);
  if (t - now > XIO__PACE_LEAD_US) { /* not reserved: ask again then */
    k->ready_us = t;
    return;
  }
  int after = t >= s->settle_us;
  s->tries++;
  s->tries_after += after;
  k->sent_us = t;
  if (accept_try(s, v, s->bytes, t)) {
    int64_t from = t > x->busy_us ? t : x->busy_us;
    x->busy_us = from + (int64_t)(1e6 * (double)s->bytes / s->serve_bps);
    s->taken_after += after ? (double)s->bytes : 0;
    k->state = 2;
    k->ready_us = x->busy_us + s->latency_us;
  } else {
    s->refused++;
    s->refused_after += after;
    k->state = 3;
    k->ready_us = t + s->latency_us;
  }
}

/* Whether `k`'s refused request is tried again, and when: `now` is the refusal. */
static int again(const pacing_sim *s, worker *k, int64_t now) {
  if (!k->refused_us) k->refused_us = now;
  int64_t delay = s->mode == 1 ? s->retry_us << k->attempt : s->retry_us; /* 1: unpaced */
  int ok = s->budget_us ? now + delay - k->refused_us <= s->budget_us : k->attempt < RETRIES;
  if (ok) {
    k->ready_us = now + delay;
    k->attempt++;
  }
  return ok;
}

void pacing_sim_run(pacing_sim *s) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, s->mode, s->cap_bps, 7);
  service v = {s->limit_rps * (double)s->window_us / 1e6, s->limit_bps * (double)s->window_us / 1e6,
               0};
  if (s->limiter == SIM_WINDOW) v.req = v.bytes = 0;
  worker w[MAXW];
  transfer x = {calloc((size_t)s->requests, 1), 0, 0};
  int n = s->depth < MAXW ? s->depth : MAXW, issued = 0;
  memset(w, 0, sizeof w);
  s->tries = s->refused = s->failed = s->tries_after = s->refused_after = 0;
  s->taken_after = 0;
  for (int i = 0; i < n && issued < s->requests; i++) {
    w[i].state = 1;
    w[i].request = issued++;
  }
  for (int i; x.done && (i = next_worker(w, n)) >= 0;) {
    worker *k = &w[i];
    int64_t now = k->ready_us;
    if (k->state == 1) {
      start(s, &p, &v, &x, k, now);
      continue;
    }
    int refused = k->state == 3;
    xio__blob_pace_answer(&p, BLOB, ACCOUNT, refused ? XIO__PACE_BUSY : XIO__PACE_OK, NULL,
                          &k->mark, k->sent_us, now);
    s->end_us = now;
    if (refused && again(s, k, now)) {
      k->state = 1;
      continue;
    }
    s->failed += refused;
    x.done[k->request] = 1;
    k->attempt = 0;
    k->refused_us = 0;
    k->state = issued < s->requests ? 1 : 0;
    k->request = issued;
    issued += k->state;
  }
  free(x.done);
}

double pacing_sim_share_after(const pacing_sim *s) {
  double secs = (double)(s->end_us - s->settle_us) / 1e6;
  double by_req = (double)(s->tries_after - s->refused_after) / secs / s->limit_rps;
  double by_bytes = s->taken_after / secs / s->limit_bps;
  return by_req > by_bytes ? by_req : by_bytes;
}

double pacing_sim_share(const pacing_sim *s) {
  double secs = (double)s->end_us / 1e6;
  double by_req = (double)s->requests / secs / s->limit_rps;
  double by_bytes = (double)s->requests * (double)s->bytes / secs / s->limit_bps;
  return by_req > by_bytes ? by_req : by_bytes;
}
