/*
 * diff_test.c - `xio snapshot diff` against the faithful emulator: the official
 * JavaScript SDK (diff.js) changes a blob between two snapshots and reads its diffs
 * with listPageRangesDiff (paged); the CLI's written and cleared ranges, to the blob
 * and to the later snapshot, are the same, in one Get Page Ranges request each. And
 * its errors: no --since (usage), an unknown snapshot, a local file.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

/* Runs diff.js on blob `blob` of container `cont` and returns its JSON line. */
static cJSON *run_sdk(const char *cont, const char *blob) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "AZURE_STORAGE_CONNECTION_STRING='%s' NODE_PATH='%s' node '%s' '%s' '%s'",
           test_dev_connection_string(), XIO_NODE_MODULES, XIO_DIFF_JS, cont, blob);
  FILE *p = popen(cmd, "r");
  ASSERT(p != NULL);
  static char out[1 << 20];
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = '\0';
  int st = pclose(p);
  if (st != 0) fprintf(stderr, "diff.js: %s\n", out);
  ASSERT_EQ(st, 0);
  cJSON *j = cJSON_Parse(out);
  ASSERT(j != NULL);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")));
  return j;
}

/* The SDK's [[start,end],...] against the CLI's [{"start":..,"end":..},...]. */
static void same_list(const cJSON *sdk, const cJSON *cli, const char *what) {
  int n = cJSON_GetArraySize(sdk);
  if (n != cJSON_GetArraySize(cli))
    fprintf(stderr, "%s: the SDK has %d ranges, the CLI %d\n", what, n, cJSON_GetArraySize(cli));
  ASSERT_EQ(cJSON_GetArraySize(cli), n);
  for (int i = 0; i < n; i++) {
    const cJSON *s = cJSON_GetArrayItem(sdk, i), *c = cJSON_GetArrayItem(cli, i);
    ASSERT(cJSON_GetArrayItem(s, 0)->valuedouble == clirun_num(c, "start"));
    ASSERT(cJSON_GetArrayItem(s, 1)->valuedouble == clirun_num(c, "end"));
  }
}

/* `xio --json snapshot diff` with `args` agrees with the SDK's diff `sdk`. */
static void cli_agrees(const cJSON *sdk, const char *url, const char *since, const char *to) {
  clirun r = {0};
  if (to)
    XIO(&r, "--json", "snapshot", "diff", url, "--since", since, "--to", to);
  else
    XIO(&r, "--json", "snapshot", "diff", url, "--since", since);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  same_list(cJSON_GetObjectItem(sdk, "written"), cJSON_GetObjectItem(j, "written"), "written");
  same_list(cJSON_GetObjectItem(sdk, "cleared"), cJSON_GetObjectItem(j, "cleared"), "cleared");
  ASSERT(clirun_num(j, "written_ranges") ==
         cJSON_GetArraySize(cJSON_GetObjectItem(sdk, "written")));
  ASSERT(clirun_num(j, "cleared_ranges") ==
         cJSON_GetArraySize(cJSON_GetObjectItem(sdk, "cleared")));
  int gets = 0;
  clirun_trace_sum(&r, "XIOTypeGetRanges", &gets);
  ASSERT_EQ(gets, 1); /* the SDK read it in pages of 7; the CLI at once */
  cJSON_Delete(j);
  clirun_free(&r);
}

TEST(snapshot_diff_agrees_with_the_js_sdk) {
  char cont[64], url[512];
  clirun_container(cont, sizeof cont);
  clirun_url(cont, "sdk.mdf", url, sizeof url);
  cJSON *sdk = run_sdk(cont, "sdk.mdf");
  const char *s1 = clirun_str(sdk, "s1"), *s2 = clirun_str(sdk, "s2");
  const cJSON *blob = cJSON_GetObjectItem(sdk, "blob"), *snap = cJSON_GetObjectItem(sdk, "snap");
  /* Both kinds, and more than one page of 7 for the SDK: the comparison means something. */
  ASSERT(cJSON_GetArraySize(cJSON_GetObjectItem(blob, "written")) > 3);
  ASSERT(cJSON_GetArraySize(cJSON_GetObjectItem(blob, "cleared")) > 3);
  ASSERT(clirun_num(blob, "pages") > 1);
  cli_agrees(blob, url, s1, NULL);
  cli_agrees(snap, url, s1, s2);
  /* The later snapshot named in the URL instead of --to: the same diff, named. */
  char at2[700];
  snprintf(at2, sizeof at2, "%s?snapshot=%s", url, s2);
  clirun q = {0};
  XIO(&q, "--json", "snapshot", "diff", at2, "--since", s1);
  EXPECT_EXIT(&q, 0);
  cJSON *j = clirun_json(&q);
  ASSERT_STR_EQ(clirun_str(j, "to"), s2);
  same_list(cJSON_GetObjectItem(snap, "written"), cJSON_GetObjectItem(j, "written"), "written");
  cJSON_Delete(j);
  XIO(&q, "snapshot", "diff", at2, "--since", s1, "--to", s2);
  EXPECT_EXIT(&q, 2); /* named twice */
  clirun_free(&q);
  /* The human form: one line a range and the totals. */
  clirun r = {0};
  XIO(&r, "snapshot", "diff", url, "--since", s1);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "written ");
  ASSERT_CONTAINS(r.out, "cleared ");
  ASSERT_CONTAINS(r.out, "since ");
  clirun_free(&r);
  cJSON_Delete(sdk);
}

TEST(snapshot_diff_errors) {
  clirun r = {0};
  char cont[64], url[512], local[1024];
  clirun_container(cont, sizeof cont);
  clirun_url(cont, "e.mdf", url, sizeof url);
  XIO(&r, "create", url, "--size", "64K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "snapshot", "diff", url);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "--since");
  XIO(&r, "snapshot", "diff", url, "--since", "2099-01-01T00:00:00.0000000Z");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "PreviousSnapshotNotFound");
  clirun_path("local.mdf", local, sizeof local);
  XIO(&r, "create", local, "--size", "64K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "snapshot", "diff", local, "--since", "2026-01-01T00:00:00.0000000Z");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "local files keep no snapshots to diff against");
  clirun_free(&r);
}
