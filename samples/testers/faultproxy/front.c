/*
 * front.c - the fidelity front's life in a proxy: put on with a profile (a copy of
 * it, with its throttling buckets full and its memory of snapshots empty) or off,
 * the timeline of what its throttle did read back, and freed. The profiles
 * themselves are profile.c's (faultspec.h).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "faultproxy_int.h"

void faultproxy_set_profile(faultproxy *p, const faultproxy_profile *prof) {
  front *f = prof && prof->faithful ? calloc(1, sizeof *f) : NULL;
  if (f) {
    f->prof = *prof;
    if (f->prof.page_list_size <= 0) f->prof.page_list_size = FAULTPROXY_PAGE_LIST_SIZE;
    f->account.req_tokens = f->prof.account_iops * faultproxy__burst_s(&f->prof);
    f->account.byte_tokens = f->prof.account_bps * faultproxy__burst_s(&f->prof);
    f->account.refilled_us = f->born_us = faultproxy__now_us();
    f->diffs = faultproxy__diffs_new();
  }
  pthread_mutex_lock(&p->mu);
  front *old = p->front;
  p->front = f;
  pthread_mutex_unlock(&p->mu);
  faultproxy__front_free(old);
}

size_t faultproxy_timeline(faultproxy *p, faultproxy_second *out, size_t max) {
  pthread_mutex_lock(&p->mu);
  front *f = p->front;
  size_t n = 0;
  if (f && (f->prof.blob_iops > 0 || f->prof.account_iops > 0)) {
    int64_t now = (faultproxy__now_us() - f->born_us) / 1000000;
    n = (size_t)now + 1;
    if (n > FAULTPROXY_TIMELINE_S) n = FAULTPROXY_TIMELINE_S;
    if (n > max) n = max;
    memcpy(out, f->timeline, n * sizeof *out);
  }
  pthread_mutex_unlock(&p->mu);
  return n;
}

void faultproxy__front_free(front *f) {
  if (f) faultproxy__diffs_free(f->diffs);
  free(f);
}
