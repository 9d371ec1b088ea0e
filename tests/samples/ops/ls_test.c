/*
 * ls_test.c - xio ls and xio snapshot list|delete against Azurite: an empty
 * container, a listing longer than one page (more than one List Blobs request in
 * the trace, every blob once, in order), leases as the service reports them, and
 * snapshots listed under their blob and deleted one by one; and an account URL,
 * which lists the account's containers.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

/* A fresh container holding `n` blobs "f0.mdf".. of 512 bytes (created through the
 * CLI), or none; its URL into `cont`. */
static void container_with(int n, char *cont, size_t size) {
  char name[64], url[512];
  clirun r = {0};
  clirun_container(name, sizeof name);
  clirun_url(name, NULL, cont, size);
  for (int i = 0; i < n; i++) {
    char blob[32];
    snprintf(blob, sizeof blob, "f%d.mdf", i);
    clirun_url(name, blob, url, sizeof url);
    XIO(&r, "create", url, "--size", "512");
    EXPECT_EXIT(&r, 0);
  }
  clirun_free(&r);
}

/* Snapshot id printed by `xio --quiet snapshot URL`. */
static void take_snapshot(const char *url, char *id, size_t size) {
  clirun r = {0};
  XIO(&r, "--quiet", "snapshot", url);
  EXPECT_EXIT(&r, 0);
  snprintf(id, size, "%s", r.out);
  id[strcspn(id, "\n")] = '\0';
  ASSERT(strlen(id) > 10);
  clirun_free(&r);
}

TEST(ls_empty_container) {
  clirun r = {0};
  char cont[512], url[600];
  container_with(1, cont, sizeof cont);
  snprintf(url, sizeof url, "%s/f0.mdf", cont);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "--json", "ls", cont);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "blobs") == 0);
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(j, "entries")), 0);
  cJSON_Delete(j);
  int lists = 0;
  clirun_trace_sum(&r, "XIOTypeListFiles", &lists);
  ASSERT_EQ(lists, 1);
  XIO(&r, "ls", cont);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "0 blobs");
  clirun_free(&r);
}

TEST(ls_missing_container_fails) {
  clirun r = {0};
  char name[64], cont[512];
  clirun_container(name, sizeof name);
  clirun_url(name, NULL, cont, sizeof cont);
  XIO(&r, "ls", cont);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "ContainerNotFound");
  XIO(&r, "ls", "/tmp");
  EXPECT_EXIT(&r, 2);
  XIO(&r, "ls", cont, "--page-size", "0");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "--page-size");
  clirun_free(&r);
}

TEST(ls_follows_markers_over_pages) {
  clirun r = {0};
  char cont[512];
  container_with(7, cont, sizeof cont);
  XIO(&r, "--json", "ls", cont, "--page-size", "3");
  EXPECT_EXIT(&r, 0);
  int lists = 0;
  clirun_trace_sum(&r, "XIOTypeListFiles", &lists);
  ASSERT_EQ(lists, 3); /* 3 + 3 + 1 */
  cJSON *j = clirun_json(&r);
  cJSON *entries = cJSON_GetObjectItem(j, "entries");
  ASSERT_EQ(cJSON_GetArraySize(entries), 7);
  for (int i = 0; i < 7; i++) {
    char want[32];
    snprintf(want, sizeof want, "f%d.mdf", i);
    cJSON *e = cJSON_GetArrayItem(entries, i);
    ASSERT_STR_EQ(clirun_str(e, "name"), want);
    ASSERT(clirun_num(e, "size") == 512);
    ASSERT(clirun_num(e, "allocated") == 0);
  }
  cJSON_Delete(j);
  /* One page holds them all by default; a prefix narrows the listing. */
  XIO(&r, "--json", "ls", cont, "--prefix", "f6");
  EXPECT_EXIT(&r, 0);
  clirun_trace_sum(&r, "XIOTypeListFiles", &lists);
  ASSERT_EQ(lists, 1);
  j = clirun_json(&r);
  ASSERT(clirun_num(j, "blobs") == 1);
  cJSON_Delete(j);
  clirun_free(&r);
}

TEST(ls_shows_leases_kinds_and_allocation) {
  clirun r = {0};
  char name[64], a[512], b[512], cont[512];
  clirun_container(name, sizeof name);
  clirun_url(name, NULL, cont, sizeof cont);
  clirun_url(name, "db.mdf", a, sizeof a);
  clirun_url(name, "db.ldf", b, sizeof b);
  XIO(&r, "create", a, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "create", b, "--size", "1000", "--kind", "log", "--init", "zero");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "lease", "acquire", a);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "--json", "ls", cont);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  cJSON *entries = cJSON_GetObjectItem(j, "entries");
  ASSERT_EQ(cJSON_GetArraySize(entries), 2);
  cJSON *log = cJSON_GetArrayItem(entries, 0), *data = cJSON_GetArrayItem(entries, 1);
  ASSERT_STR_EQ(clirun_str(log, "name"), "db.ldf");
  ASSERT_STR_EQ(clirun_str(log, "kind"), "log");
  ASSERT(clirun_num(log, "size") == 1000);
  ASSERT(clirun_num(log, "stored_size") == 1024);
  ASSERT(clirun_num(log, "allocated") == 1024); /* init zero wrote its pages */
  ASSERT_STR_EQ(clirun_str(cJSON_GetObjectItem(log, "lease"), "state"), "available");
  ASSERT_STR_EQ(clirun_str(data, "kind"), "data");
  cJSON *lease = cJSON_GetObjectItem(data, "lease");
  ASSERT_STR_EQ(clirun_str(lease, "state"), "leased");
  ASSERT_STR_EQ(clirun_str(lease, "status"), "locked");
  ASSERT_STR_EQ(clirun_str(lease, "duration"), "infinite");
  cJSON_Delete(j);
  int ranges = 0;
  clirun_trace_sum(&r, "XIOTypeGetRanges", &ranges);
  ASSERT_EQ(ranges, 2); /* one per page blob */
  XIO(&r, "ls", cont);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "leased (infinite)");
  ASSERT_CONTAINS(r.out, "2 blobs");
  XIO(&r, "lease", "break", a, "--break-period", "0");
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

TEST(ls_and_snapshot_list_delete) {
  clirun r = {0};
  char name[64], cont[512], url[512], other[512], s1[64], s2[64], del[700];
  clirun_container(name, sizeof name);
  clirun_url(name, NULL, cont, sizeof cont);
  clirun_url(name, "db.mdf", url, sizeof url);
  clirun_url(name, "db.mdf2", other, sizeof other);
  XIO(&r, "create", url, "--size", "64K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "create", other, "--size", "4K");
  EXPECT_EXIT(&r, 0);
  take_snapshot(url, s1, sizeof s1);
  take_snapshot(url, s2, sizeof s2);
  take_snapshot(other, del, sizeof del); /* a snapshot of a blob whose name extends db.mdf */
  XIO(&r, "--json", "ls", cont, "--snapshots");
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "blobs") == 2);
  ASSERT(clirun_num(j, "snapshots") == 3);
  cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "entries"), 0);
  ASSERT_STR_EQ(clirun_str(first, "name"), "db.mdf");
  cJSON *snaps = cJSON_GetObjectItem(first, "snapshots");
  ASSERT_EQ(cJSON_GetArraySize(snaps), 2);
  /* Azure lists snapshots oldest first; Azurite newest first: either order. */
  const char *a0 = clirun_str(cJSON_GetArrayItem(snaps, 0), "snapshot");
  const char *a1 = clirun_str(cJSON_GetArrayItem(snaps, 1), "snapshot");
  ASSERT((strcmp(a0, s1) == 0 && strcmp(a1, s2) == 0) ||
         (strcmp(a0, s2) == 0 && strcmp(a1, s1) == 0));
  ASSERT(clirun_num(cJSON_GetArrayItem(snaps, 0), "size") == 64 * 1024);
  cJSON_Delete(j);

  /* For people: each snapshot's line under its blob's, whatever the service's order. */
  XIO(&r, "ls", cont, "--snapshots");
  EXPECT_EXIT(&r, 0);
  char at1[80], at2[80];
  snprintf(at1, sizeof at1, "@%s", s1);
  snprintf(at2, sizeof at2, "@%s", s2);
  const char *blob_line = strstr(r.out, "\ndb.mdf "), *l1 = strstr(r.out, at1),
             *l2 = strstr(r.out, at2), *other_line = strstr(r.out, "\ndb.mdf2 ");
  ASSERT(blob_line && l1 && l2 && other_line);
  ASSERT(blob_line < l1 && blob_line < l2 && l1 < other_line && l2 < other_line);
  ASSERT_CONTAINS(r.out, "2 blobs, 3 snapshots");

  XIO(&r, "--json", "snapshot", "list", url);
  EXPECT_EXIT(&r, 0);
  j = clirun_json(&r);
  cJSON *list = cJSON_GetObjectItem(j, "snapshots");
  ASSERT_EQ(cJSON_GetArraySize(list), 2); /* not db.mdf2's */
  ASSERT_NOT_CONTAINS(r.out, del);
  cJSON_Delete(j);

  snprintf(del, sizeof del, "%s?snapshot=%s", url, s1);
  XIO(&r, "snapshot", "delete", del);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "--quiet", "snapshot", "list", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_NOT_CONTAINS(r.out, s1);
  ASSERT_CONTAINS(r.out, s2);
  XIO(&r, "snapshot", "delete", url, "--id", s1); /* gone already */
  EXPECT_EXIT(&r, 1);
  XIO(&r, "snapshot", "delete", url, "--id", s2);
  EXPECT_EXIT(&r, 0);
  int deletes = 0;
  clirun_trace_sum(&r, "XIOTypeDeleteFile", &deletes);
  ASSERT_EQ(deletes, 1);
  XIO(&r, "--json", "snapshot", "list", url);
  j = clirun_json(&r);
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(j, "snapshots")), 0);
  cJSON_Delete(j);
  /* The blob itself stays. */
  XIO(&r, "--json", "stat", url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "snapshot", "delete", url);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "--id");
  clirun_free(&r);
}

/* ls ACCOUNT_URL lists containers: those under a prefix of this test's own, in
 * order, in both output modes, with one List Containers request; the options that
 * only list blobs are refused as usage. */
TEST(ls_account_lists_containers) {
  char base[64], name[96], url[512];
  clirun r = {0};
  clirun_container(base, sizeof base);
  for (int i = 0; i < 3; i++) {
    snprintf(name, sizeof name, "%s%d", base, i);
    clirun_url(name, "x.mdf", url, sizeof url);
    XIO(&r, "create", url, "--size", "512"); /* makes the container along with the blob */
    EXPECT_EXIT(&r, 0);
  }
  XIO(&r, "ls", test_account_url(), "--prefix", base);
  EXPECT_EXIT(&r, 0);
  snprintf(name, sizeof name, "%s0 ", base);
  const char *a = strstr(r.out, name);
  snprintf(name, sizeof name, "%s2 ", base);
  const char *c = strstr(r.out, name);
  ASSERT(a && c && a < c);
  ASSERT_CONTAINS(r.out, "3 containers");
  ASSERT_EQ(clirun_trace_on(&r, "XIOTypeListFiles", test_account_url()), 1);
  const char *const lists[] = {"XIOTypeListFiles", NULL};
  ASSERT_EQ(clirun_trace_others(&r, lists), 0);
  XIO(&r, "--json", "ls", test_account_url(), "--prefix", base);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "containers") == 3);
  const cJSON *entries = cJSON_GetObjectItem(j, "entries");
  ASSERT_EQ(cJSON_GetArraySize(entries), 3);
  snprintf(name, sizeof name, "%s1", base);
  ASSERT_STR_EQ(clirun_str(cJSON_GetArrayItem(entries, 1), "name"), name);
  ASSERT(strlen(clirun_str(cJSON_GetArrayItem(entries, 1), "last_modified")) > 20);
  cJSON_Delete(j);
  XIO(&r, "ls", test_account_url(), "--snapshots");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "give a container URL");
  clirun_free(&r);
}
