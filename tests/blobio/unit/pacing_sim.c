/*
 * pacing_sim.c - the simulated client and throttling service of pacing_sim.h: an
 * event loop over `depth` workers, each taking the next request of the transfer
 * (or retrying its refused one), asking the pacer when it may start, and telling
 * the pacer the answer when it comes. The service decides at the start of a try.
 */
#include "pacing_sim.h"

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
  int64_t ready_us; /* when it acts next */
  int64_t sent_us;  /* when its try started */
  int state;        /* 0 idle, 1 waiting to start, 2 answered ok, 3 refused */
  int attempt;      /* of its current request */
} worker;

/* The worker that acts first, or -1 when all are done. */
static int next_worker(const worker *w, int n) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (w[i].state && (best < 0 || w[i].ready_us < w[best].ready_us)) best = i;
  return best;
}

/* Starts a try on `k` at `now`: paced, then judged by the service. */
static void start(pacing_sim *s, xio__blob_pacer *p, service *v, worker *k, int64_t now) {
  int64_t t = xio__blob_pace(p, BLOB, ACCOUNT, 0, s->bytes, now);
  if (t - now > XIO__PACE_LEAD_US) { /* not reserved: ask again then */
    k->ready_us = t;
    return;
  }
  s->tries++;
  k->sent_us = t;
  if (accept_try(s, v, s->bytes, t)) {
    k->state = 2;
    k->ready_us = t + s->latency_us + (int64_t)(1e6 * (double)s->bytes / s->serve_bps);
  } else {
    s->refused++;
    k->state = 3;
    k->ready_us = t + s->latency_us;
  }
}

void pacing_sim_run(pacing_sim *s) {
  static xio__blob_pacer p;
  xio__blob_pacer_init(&p, s->mode, s->cap_bps, 7);
  service v = {s->limit_rps * (double)s->window_us / 1e6, s->limit_bps * (double)s->window_us / 1e6,
               0};
  if (s->limiter == SIM_WINDOW) v.req = v.bytes = 0;
  worker w[MAXW];
  int n = s->depth < MAXW ? s->depth : MAXW, issued = 0;
  memset(w, 0, sizeof w);
  s->tries = s->refused = s->failed = 0;
  for (int i = 0; i < n && issued < s->requests; i++, issued++)
    w[i].state = 1;
  for (int i; (i = next_worker(w, n)) >= 0;) {
    worker *k = &w[i];
    int64_t now = k->ready_us;
    if (k->state == 1) {
      start(s, &p, &v, k, now);
      continue;
    }
    int refused = k->state == 3;
    xio__blob_pace_answer(&p, BLOB, ACCOUNT, refused ? XIO__PACE_BUSY : XIO__PACE_OK, NULL,
                          k->sent_us, now);
    s->end_us = now;
    if (refused && k->attempt < RETRIES) {
      k->ready_us = now + (s->retry_us << k->attempt++);
      k->state = 1;
      continue;
    }
    if (refused) s->failed++;
    k->attempt = 0;
    k->state = issued < s->requests ? 1 : 0;
    issued += k->state;
  }
}

double pacing_sim_share(const pacing_sim *s) {
  double secs = (double)s->end_us / 1e6;
  double by_req = (double)s->requests / secs / s->limit_rps;
  double by_bytes = (double)s->requests * (double)s->bytes / secs / s->limit_bps;
  return by_req > by_bytes ? by_req : by_bytes;
}
