/*
 * throttle.c - the front's throttling to a profile's targets, per blob and per
 * account: a token bucket of requests and one of bytes each, refilled at the target
 * rate and holding at most the profile's burst of it (one second unless it says
 * otherwise), full at the start. A request takes one request token and
 * its bytes (a write's body, a read's range) from its blob's buckets and the
 * account's; when a bucket is spent it is answered 503 ServerBusy with Azure's
 * message and no Retry-After, as the service does (or, every Nth time when the
 * profile says so, 500 OperationTimedOut, Azure's other answer), and takes nothing. The bytes
 * bucket may go into debt for one large request, so that a single 4 MiB write is
 * never refused for its size alone. Every function here runs under the proxy's mu.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "faultproxy_int.h"

/* FNV-1a of a path, to start the search for its entry. */
static uint64_t path_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

blob_entry *faultproxy__blob(front *f, const char *path, int64_t now_us) {
  size_t start = (size_t)(path_hash(path) % FRONT_BLOBS), oldest = start;
  for (size_t k = 0; k < FRONT_BLOBS; k++) {
    blob_entry *e = &f->blobs[(start + k) % FRONT_BLOBS];
    if (strcmp(e->path, path) == 0) {
      e->used_us = now_us;
      return e;
    }
    if (!e->path[0]) {
      oldest = (start + k) % FRONT_BLOBS;
      break;
    }
    if (e->used_us < f->blobs[oldest].used_us) oldest = (start + k) % FRONT_BLOBS;
  }
  blob_entry *e = &f->blobs[oldest];
  memset(e, 0, sizeof *e);
  snprintf(e->path, sizeof e->path, "%s", path);
  e->size = -1;
  e->req_tokens = f->prof.blob_iops * faultproxy__burst_s(&f->prof);
  e->byte_tokens = f->prof.blob_bps * faultproxy__burst_s(&f->prof);
  e->refilled_us = e->used_us = now_us;
  return e;
}

double faultproxy__burst_s(const faultproxy_profile *pr) {
  return pr->burst_s > 0 ? pr->burst_s : 1.0;
}

/* Refills a pair of buckets at `iops` and `bps` for the time since the last refill,
 * up to `burst` seconds' worth. */
static void refill(double *req, double *bytes, int64_t *at, double iops, double bps, double burst,
                   int64_t now) {
  double dt = (double)(now - *at) / 1e6;
  *at = now;
  *req += iops * dt;
  *bytes += bps * dt;
  if (*req > iops * burst) *req = iops * burst;
  if (*bytes > bps * burst) *bytes = bps * burst;
}

/* 1 when a pair of buckets (a zero rate: unlimited) has room for one request. */
static int room(double req, double bytes, double iops, double bps) {
  return (iops <= 0 || req >= 1.0) && (bps <= 0 || bytes > 0);
}

/* Azure's answer over a target: 503 ServerBusy with `message`, or, every
 * prof.timeout_every-th time, 500 OperationTimedOut. */
static void server_busy(front *f, refusal *out, const char *message) {
  memset(out, 0, sizeof *out);
  f->over++;
  if (f->prof.timeout_every > 0 && f->over % (uint64_t)f->prof.timeout_every == 0) {
    out->status = 500;
    snprintf(out->code, sizeof out->code, "OperationTimedOut");
    snprintf(out->message, sizeof out->message,
             "Operation could not be completed within the specified time.");
    return;
  }
  out->status = 503;
  snprintf(out->code, sizeof out->code, "ServerBusy");
  snprintf(out->message, sizeof out->message, "%s", message);
}

/* The timeline's entry of the second `now` falls in, or NULL past its end. */
static faultproxy_second *second(front *f, int64_t now) {
  int64_t k = (now - f->born_us) / 1000000;
  return k >= 0 && k < FAULTPROXY_TIMELINE_S ? &f->timeline[k] : NULL;
}

int faultproxy__throttle(front *f, const char *path, uint64_t bytes, refusal *out) {
  const faultproxy_profile *pr = &f->prof;
  if (pr->blob_iops <= 0 && pr->account_iops <= 0) return 0;
  int64_t now = faultproxy__now_us();
  blob_entry *e = faultproxy__blob(f, path, now);
  bucket *a = &f->account;
  double burst = faultproxy__burst_s(pr);
  faultproxy_second *sec = second(f, now);
  refill(&e->req_tokens, &e->byte_tokens, &e->refilled_us, pr->blob_iops, pr->blob_bps, burst, now);
  refill(&a->req_tokens, &a->byte_tokens, &a->refilled_us, pr->account_iops, pr->account_bps, burst,
         now);
  if (!room(a->req_tokens, a->byte_tokens, pr->account_iops, pr->account_bps)) {
    if (sec) sec->throttled++;
    server_busy(f, out,
                a->req_tokens < 1.0 ? "Operations per second is over the account limit."
                                    : "Ingress or egress is over the account limit.");
    return 1;
  }
  if (!room(e->req_tokens, e->byte_tokens, pr->blob_iops, pr->blob_bps)) {
    if (sec) sec->throttled++;
    server_busy(f, out, "The server is busy.");
    return 1;
  }
  e->req_tokens -= 1.0;
  e->byte_tokens -= (double)bytes;
  a->req_tokens -= 1.0;
  a->byte_tokens -= (double)bytes;
  if (sec) {
    sec->accepted++;
    sec->bytes += bytes;
  }
  return 0;
}
