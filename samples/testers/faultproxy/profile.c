/*
 * profile.c - the fidelity front's profiles: Azure's documented scale targets for a
 * page blob and its account, by tier, and whether the front is on at all.
 *   standard         a standard page blob: 500 requests/s and 60 MiB/s per blob;
 *                    the account 20,000 requests/s and about 10 Gbit/s
 *   premium-p10..p80 a premium page blob of that tier (IOPS and MB/s per blob), at
 *                    most 100 snapshots per blob
 *   unthrottled      every fidelity of the front but no targets (the tests' harness:
 *                    request counts stay exact under any load)
 *   none             no front: raw Azurite
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faultproxy_int.h"

#define MIB               (1024.0 * 1024.0)
#define MB                (1000.0 * 1000.0)
#define ACCOUNT_IOPS      20000.0
#define ACCOUNT_BPS       (10.0 * 1000 * MB / 8) /* 10 Gbit/s */
#define PAGE_LIST_SIZE    2000
#define PREMIUM_SNAPSHOTS 100 /* per page blob in a premium account */

typedef struct tier {
  const char *name;
  double iops, bps;
} tier;

/* Per blob; from Azure's page blob scale targets (premium: IOPS, MB/s). */
static const tier tiers[] = {
    {"standard", 500, 60 * MIB},
    {"premium-p10", 500, 100 * MB},
    {"premium-p15", 1100, 125 * MB},
    {"premium-p20", 2300, 150 * MB},
    {"premium-p30", 5000, 200 * MB},
    {"premium-p40", 7500, 250 * MB},
    {"premium-p50", 7500, 250 * MB},
    {"premium-p60", 16000, 500 * MB},
    {"premium-p70", 18000, 750 * MB},
    {"premium-p80", 20000, 750 * MB},
    {"unthrottled", 0, 0},
};

int faultproxy_profile_parse(const char *name, faultproxy_profile *out, char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  out->page_list_size = PAGE_LIST_SIZE;
  if (name && strcmp(name, "none") == 0) {
    snprintf(out->name, sizeof out->name, "none");
    return 0;
  }
  for (size_t i = 0; name && i < sizeof tiers / sizeof *tiers; i++) {
    if (strcmp(name, tiers[i].name) != 0) continue;
    snprintf(out->name, sizeof out->name, "%s", name);
    out->faithful = 1;
    out->blob_iops = tiers[i].iops;
    out->blob_bps = tiers[i].bps;
    out->account_iops = tiers[i].iops ? ACCOUNT_IOPS : 0;
    out->account_bps = tiers[i].iops ? ACCOUNT_BPS : 0;
    out->max_snapshots = strncmp(name, "premium-", 8) == 0 ? PREMIUM_SNAPSHOTS : 0;
    return 0;
  }
  snprintf(err, errsize,
           "unknown profile '%s': standard, premium-p10, premium-p15, premium-p20, premium-p30, "
           "premium-p40, premium-p50, premium-p60, premium-p70, premium-p80, unthrottled or none",
           name ? name : "");
  return -1;
}

void faultproxy_set_profile(faultproxy *p, const faultproxy_profile *prof) {
  front *f = prof && prof->faithful ? calloc(1, sizeof *f) : NULL;
  if (f) {
    f->prof = *prof;
    if (f->prof.page_list_size <= 0) f->prof.page_list_size = PAGE_LIST_SIZE;
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
