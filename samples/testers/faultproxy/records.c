/*
 * records.c - what the fault proxy saw and did: one record per request (the first
 * FAULTPROXY_MAX_RECORDS; no Authorization value, only its fingerprint), the counts
 * (requests, random faults applied by kind) and the observer told of each change
 * before the client whose request changed them is answered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faultproxy_int.h"

static uint64_t fnv1a(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* Tells the observer the counts have changed: before the client is answered, so a
 * client that has its answer can read counts that include it. */
void faultproxy__notify(faultproxy *p) {
  pthread_mutex_lock(&p->obs_mu);
  if (p->observer) {
    faultproxy_stats now;
    faultproxy_stats_get(p, &now);
    p->observer(&now, p->observer_ud);
  }
  pthread_mutex_unlock(&p->obs_mu);
}

/* Counts a random fault as applied (scripted ones are seen in the records). */
void faultproxy__count_fault(faultproxy *p, const action *a) {
  if (a->rule < 0) return;
  pthread_mutex_lock(&p->mu);
  p->stats.injected[a->rule]++;
  pthread_mutex_unlock(&p->mu);
  faultproxy__notify(p);
}

/* Fills a record from the request head in `b`. */
static void describe(const buf *b, const request *r, int conn_no, faultproxy_record *rec) {
  char auth[1024];
  memset(rec, 0, sizeof *rec);
  rec->conn = conn_no;
  snprintf(rec->method, sizeof rec->method, "%s", r->method);
  faultproxy__request_target(b, r->m.head_len, rec->target, sizeof rec->target);
  faultproxy__header(b->d, r->m.head_len, "x-ms-client-request-id", rec->client_request_id,
                     sizeof rec->client_request_id);
  faultproxy__header(b->d, r->m.head_len, "x-ms-date", rec->date, sizeof rec->date);
  faultproxy__header(b->d, r->m.head_len, "x-ms-range", rec->range, sizeof rec->range);
  rec->has_auth = faultproxy__header(b->d, r->m.head_len, "Authorization", auth, sizeof auth);
  rec->auth_fingerprint = rec->has_auth ? fnv1a(auth) : 0;
  memset(auth, 0, sizeof auth);
  rec->body_len = r->m.body_len;
  rec->received_us = faultproxy__now_us();
}

/* Numbers and records the request, and chooses its fault. */
void faultproxy__admit(faultproxy *p, const buf *b, request *r, int conn_no, action *a) {
  faultproxy_record rec;
  describe(b, r, conn_no, &rec);
  pthread_mutex_lock(&p->mu);
  rec.no = r->no = ++p->next_no;
  p->stats.requests++;
  faultproxy__pick_fault(p, &rec, a);
  rec.fault = a->kind;
  r->rec = p->nrecords < FAULTPROXY_MAX_RECORDS ? p->nrecords++ : -1;
  if (r->rec >= 0) p->records[r->rec] = rec;
  pthread_mutex_unlock(&p->mu);
  faultproxy__notify(p);
}

/* Notes the service's answer (status 0: none) and the time the client was answered. */
void faultproxy__note_answer(faultproxy *p, const request *r, int status, const char *code) {
  pthread_mutex_lock(&p->mu);
  if (r->rec >= 0) {
    faultproxy_record *rec = &p->records[r->rec];
    if (status) rec->upstream_status = status;
    if (code) snprintf(rec->upstream_error, sizeof rec->upstream_error, "%s", code);
    rec->answered_us = faultproxy__now_us();
  }
  pthread_mutex_unlock(&p->mu);
}

int faultproxy_count(faultproxy *p) {
  pthread_mutex_lock(&p->mu);
  int n = p->nrecords;
  pthread_mutex_unlock(&p->mu);
  return n;
}

int faultproxy_record_get(faultproxy *p, int i, faultproxy_record *out) {
  pthread_mutex_lock(&p->mu);
  int ok = i >= 0 && i < p->nrecords;
  if (ok) *out = p->records[i];
  pthread_mutex_unlock(&p->mu);
  return ok ? 0 : -1;
}

void faultproxy_forget(faultproxy *p) {
  pthread_mutex_lock(&p->mu);
  p->nrecords = 0;
  pthread_mutex_unlock(&p->mu);
}

void faultproxy_set_observer(faultproxy *p, faultproxy_observer fn, void *ud) {
  pthread_mutex_lock(&p->obs_mu);
  p->observer = fn;
  p->observer_ud = ud;
  pthread_mutex_unlock(&p->obs_mu);
}

void faultproxy_stats_get(faultproxy *p, faultproxy_stats *out) {
  pthread_mutex_lock(&p->mu);
  *out = p->stats;
  pthread_mutex_unlock(&p->mu);
}
