/*
 * named_test.c - `xio backup URL DIR --snapshot ID` into a DIR where an earlier run
 * left an unfinished link of another snapshot: the snapshot named is what the run
 * backs up. The unfinished link is finished first and the named snapshot follows
 * it as the next link (both restore byte for byte); when the named snapshot cannot
 * follow it (older, or --resume asked to finish only) or the unfinished link cannot
 * be finished (its snapshot was deleted), the run fails and says that the named
 * snapshot was not backed up, never exit 0 with another snapshot backed up.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bkfix.h"
#include "cliproxy.h"
#include "test.h"
#include "util.h"

/* Asserts that the restore of link `id` of `dir` equals snapshot `id` of `direct`. */
static void expect_point(const char *direct, const char *dir, const char *id) {
  char ref[512], got[512];
  clirun_path("named.ref", ref, sizeof ref);
  clirun_path("named.got", got, sizeof got);
  bkfix_get_snapshot(direct, id, ref);
  bkfix_restore(dir, id, got);
  clirun_expect_same_files(ref, got);
}

TEST(named_snapshot_is_backed_up_after_the_unfinished_link) {
  char direct[512], url[1024], dir[512], pending[600], s1[64], s2[64];
  bkfix_url("named", direct, sizeof direct);
  bkfix_proxied(direct, url, sizeof url);
  clirun_path("bk-named", dir, sizeof dir);
  snprintf(pending, sizeof pending, "%s/pending.json", dir);
  xio_file *f = bkfix_open(direct, 4 * MiB);
  bkfix_write(f, 0, 1 * MiB, 60);
  bkfix_snapshot(f, s1);
  bkfix_write(f, 2 * MiB, 256 * KiB, 61);
  bkfix_snapshot(f, s2); /* the consistent point the user names */

  bkfix_unfinished(url, dir, s1);
  clirun r = {0};
  XIO_PROXIED(&r, "--json", "backup", url, dir, "--snapshot", s2);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(j, "snapshot"), s2);
  ASSERT(!cJSON_IsTrue(cJSON_GetObjectItem(j, "base")));
  ASSERT_EQ((uint64_t)clirun_num(j, "written_bytes"), 256 * KiB);
  ASSERT_EQ((int)clirun_num(j, "links"), 2);
  cJSON *first = cJSON_GetObjectItem(j, "finished_first");
  ASSERT(cJSON_IsObject(first));
  ASSERT_STR_EQ(clirun_str(first, "snapshot"), s1);
  ASSERT_EQ((int)clirun_num(first, "pieces"), 1);
  /* the unfinished base (1 MiB) and the named link (256 KiB): one read each */
  ASSERT_EQ((uint64_t)clirun_num(j, "bytes_read"), 1 * MiB + 256 * KiB);
  cJSON_Delete(j);
  ASSERT(!bkfix_exists(pending));
  expect_point(direct, dir, s1);
  expect_point(direct, dir, s2);
  xio_file_close(f, NULL);
  clirun_free(&r);
}

TEST(named_snapshot_that_cannot_follow_the_unfinished_link_is_refused) {
  char direct[512], url[1024], dir[512], pending[600], s[5][64], want[160];
  bkfix_url("refused", direct, sizeof direct);
  bkfix_proxied(direct, url, sizeof url);
  clirun_path("bk-refused", dir, sizeof dir);
  snprintf(pending, sizeof pending, "%s/pending.json", dir);
  xio_file *f = bkfix_open(direct, 4 * MiB);
  for (int i = 0; i < 5; i++) {
    bkfix_write(f, (uint64_t)i * 512 * KiB, 64 * KiB, 70 + (uint64_t)i);
    bkfix_snapshot(f, s[i]);
  }
  clirun r = {0};
  XIO_PROXIED(&r, "backup", url, dir, "--snapshot", s[0]);
  EXPECT_EXIT(&r, 0);

  /* Unfinished: s[2]. Named: s[1], older than it. */
  bkfix_unfinished(url, dir, s[2]);
  XIO_PROXIED(&r, "backup", url, dir, "--snapshot", s[1]);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "older than snapshot");
  snprintf(want, sizeof want, "%s was not backed up", s[1]);
  ASSERT_CONTAINS(r.err, want);
  /* --resume with another snapshot named: finish only, so refused. */
  XIO_PROXIED(&r, "backup", url, dir, "--resume", "--snapshot", s[3]);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "--resume alone finishes it");
  ASSERT(bkfix_exists(pending));
  /* The snapshot of the unfinished link named: it is finished, nothing else. */
  XIO_PROXIED(&r, "--json", "backup", url, dir, "--snapshot", s[2]);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(j, "snapshot"), s[2]);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "resumed")));
  ASSERT(cJSON_IsNull(cJSON_GetObjectItem(j, "finished_first")));
  ASSERT_EQ((int)clirun_num(j, "links"), 2);
  cJSON_Delete(j);

  /* The unfinished link's snapshot deleted: it cannot be finished, and the run
   * says the named one was not backed up. */
  bkfix_unfinished(url, dir, s[3]);
  XIO(&r, "snapshot", "delete", direct, "--id", s[3]);
  EXPECT_EXIT(&r, 0);
  XIO_PROXIED(&r, "backup", url, dir, "--snapshot", s[4]);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "is gone");
  snprintf(want, sizeof want, "%s was not backed up", s[4]);
  ASSERT_CONTAINS(r.err, want);
  ASSERT(bkfix_exists(pending));
  xio_file_close(f, NULL);
  clirun_free(&r);
}
