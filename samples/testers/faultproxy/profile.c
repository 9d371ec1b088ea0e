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
 * Pure (part of xio_faultspec, see faultspec.h): putting the front on with a profile
 * is front.c's.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "faultspec.h"

#define MIB               (1024.0 * 1024.0)
#define MB                (1000.0 * 1000.0)
#define ACCOUNT_IOPS      20000.0
#define ACCOUNT_BPS       (10.0 * 1000 * MB / 8) /* 10 Gbit/s */
#define PREMIUM_SNAPSHOTS 100                    /* per page blob in a premium account */

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
  out->page_list_size = FAULTPROXY_PAGE_LIST_SIZE;
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
