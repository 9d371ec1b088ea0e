/*
 * counter.c - counting storage requests. The context's trace callback sees every
 * request that reaches storage (one xio_send_complete event each, beside an
 * xio_failed_request for each try refused on the way); the counter tallies the
 * requests by request type, so a measurement can say "clear growth: 1
 * XIOTypeSetFileSize + 1 XIOTypeZeroFile", and the refused tries apart: throttling
 * answers (503, 500 OperationTimedOut), other failures, and the retries. Events
 * arrive on I/O and worker threads, hence the mutex.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_counter {
  pthread_mutex_t mu;
  bench_counts counts; /* since the last reset */
  bench_counts all;    /* since it was made */
};

/* Counts are indexed by xio_request_type; the last slot, XIO_REQ_COUNT, is "other". */
const char *bench_type_name(int i) {
  return i >= 0 && i < XIO_REQ_COUNT ? xio_request_type_name((xio_request_type)i) : "other";
}

int bench_type_zero(void) { return XIO_REQ_ZERO; }

static int type_index(xio_request_type t) {
  return (unsigned)t < XIO_REQ_COUNT ? (int)t : XIO_REQ_COUNT;
}

bench_counter *bench_counter_new(void) {
  bench_counter *c = calloc(1, sizeof *c);
  if (c) pthread_mutex_init(&c->mu, NULL);
  return c;
}

void bench_counter_free(bench_counter *c) {
  if (!c) return;
  pthread_mutex_destroy(&c->mu);
  free(c);
}

/* 1 when a failed try was refused by throttling: 503, or 500 OperationTimedOut. */
static int throttling(const xio_trace_event *ev) {
  return ev->http_status == 503 || (ev->http_status == 500 && ev->error_code &&
                                    strcmp(ev->error_code, "OperationTimedOut") == 0);
}

static void count(bench_counts *k, const xio_trace_event *ev, int request) {
  if (!request) {
    k->throttled += throttling(ev);
    k->failed += !throttling(ev);
    return;
  }
  int i = type_index(ev->request_type);
  k->total++;
  k->by_type[i]++;
  k->retries += ev->retries > 0 ? (uint64_t)ev->retries : 0;
}

void bench_counter_trace(const xio_trace_event *ev, void *ud) {
  bench_counter *c = ud;
  int request = strcmp(ev->event, "xio_send_complete") == 0; /* else a refused try */
  pthread_mutex_lock(&c->mu);
  count(&c->counts, ev, request);
  count(&c->all, ev, request);
  pthread_mutex_unlock(&c->mu);
}

void bench_counter_total(bench_counter *c, bench_counts *out) {
  pthread_mutex_lock(&c->mu);
  *out = c->all;
  pthread_mutex_unlock(&c->mu);
}

void bench_counts_add(bench_counts *a, const bench_counts *b) {
  a->total += b->total;
  for (int i = 0; i < BENCH_NTYPES; i++)
    a->by_type[i] += b->by_type[i];
  a->throttled += b->throttled;
  a->failed += b->failed;
  a->retries += b->retries;
}

void bench_counter_reset(bench_counter *c) {
  pthread_mutex_lock(&c->mu);
  memset(&c->counts, 0, sizeof c->counts);
  pthread_mutex_unlock(&c->mu);
}

void bench_counter_get(bench_counter *c, bench_counts *out) {
  pthread_mutex_lock(&c->mu);
  *out = c->counts;
  pthread_mutex_unlock(&c->mu);
}

char *bench_counts_detail(const bench_counts *c, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < BENCH_NTYPES && used < n; i++) {
    if (!c->by_type[i]) continue;
    int k = snprintf(buf + used, n - used, "%s%s:%llu", used ? " " : "", bench_type_name(i),
                     (unsigned long long)c->by_type[i]);
    if (k < 0) break;
    used += (size_t)k;
  }
  return buf;
}
