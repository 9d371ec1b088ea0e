/*
 * source_test.c - which blob a chain's directory is of, and when a chain cannot go
 * on:
 *  - `xio cp URL?snapshot=ID URL` replaces the blob, after which the service
 *    refuses every diff against its older snapshots (409 BlobOverwritten): the next
 *    backup says that the chain ended and what to do, deletes the snapshot it took,
 *    and the advice holds (a new directory starts a new chain; `xio restore --force
 *    DIR@ID URL`, which writes in place, keeps a chain going);
 *  - pending.json records the blob its unfinished link is of: a backup of another
 *    blob into that directory is refused as for a chain of another blob, and the
 *    unfinished link stays, to be finished by a backup of its own blob; a
 *    pending.json of the older, unversioned layout (no source) is still read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bkfix.h"
#include "child.h"
#include "cliproxy.h"
#include "test.h"
#include "util.h"

TEST(a_copy_onto_the_blob_ends_the_chain_and_says_so) {
  char url[512], dir[512], fresh[512], snap[1024], ref[512], got[512];
  bkfix_url("ended", url, sizeof url);
  clirun_path("bk-ended", dir, sizeof dir);
  clirun_path("bk-ended-new", fresh, sizeof fresh);
  clirun_path("ended.ref", ref, sizeof ref);
  clirun_path("ended.got", got, sizeof got);
  xio_file *f = bkfix_open(url, 2 * MiB);
  bkfix_write(f, 0, 256 * KiB, 80);
  xio_file_close(f, NULL);
  cJSON *j = bkfix_backup(url, dir, NULL);
  char id[64];
  snprintf(id, sizeof id, "%s", clirun_str(j, "snapshot"));
  cJSON_Delete(j);

  /* The documented server-side restore: the blob is replaced. */
  snprintf(snap, sizeof snap, "%s?snapshot=%s", url, id);
  clirun r = {0};
  XIO(&r, "cp", snap, url);
  EXPECT_EXIT(&r, 0);
  int snapshots = clirun_snapshot_count(url);
  XIO(&r, "backup", url, dir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "BlobOverwritten");
  ASSERT_CONTAINS(r.err, "was replaced since the chain's newest snapshot");
  ASSERT_CONTAINS(r.err, "has ended");
  ASSERT_CONTAINS(r.err, "back up into a new directory");
  ASSERT_CONTAINS(r.err, "xio restore --force DIR@ID URL");
  ASSERT_EQ(clirun_snapshot_count(url), snapshots); /* the one it took is deleted */

  /* A new directory starts a new chain. */
  j = bkfix_backup(url, fresh, NULL);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "base")));
  snprintf(id, sizeof id, "%s", clirun_str(j, "snapshot"));
  cJSON_Delete(j);
  bkfix_get_snapshot(url, id, ref);
  /* A mistake, then the restore in place: the chain goes on. */
  XIO(&r, "zero", url, "--offset", "0", "--length", "64K");
  EXPECT_EXIT(&r, 0);
  cJSON_Delete(bkfix_backup(url, fresh, NULL));
  char arg[600];
  snprintf(arg, sizeof arg, "%s@%s", fresh, id);
  XIO(&r, "restore", "--force", arg, url);
  EXPECT_EXIT(&r, 0);
  j = bkfix_backup(url, fresh, NULL);
  ASSERT(!cJSON_IsTrue(cJSON_GetObjectItem(j, "base")));
  ASSERT_EQ((int)clirun_num(j, "links"), 3);
  cJSON_Delete(j);
  bkfix_restore(fresh, NULL, got);
  clirun_expect_same_files(ref, got);
  clirun_free(&r);
}

/* Rewrites DIR/pending.json as older xio wrote it: the link alone, no format,
 * version or source. */
static void make_unversioned(const char *pending) {
  char *text = test_read_file(pending);
  cJSON *o = cJSON_Parse(text);
  free(text);
  ASSERT(o != NULL);
  ASSERT_STR_EQ(cJSON_GetObjectItem(o, "format")->valuestring, "xio-backup-pending");
  ASSERT_EQ((int)cJSON_GetObjectItem(o, "version")->valuedouble, 1);
  ASSERT(cJSON_IsString(cJSON_GetObjectItem(o, "source")));
  cJSON_DeleteItemFromObject(o, "format");
  cJSON_DeleteItemFromObject(o, "version");
  cJSON_DeleteItemFromObject(o, "source");
  char *out = cJSON_PrintUnformatted(o);
  clirun_write_file(pending, out, strlen(out));
  cJSON_free(out);
  cJSON_Delete(o);
}

TEST(an_unfinished_link_of_another_blob_is_refused) {
  char da[512], db[512], a[1024], b[1024], dir[512], pending[600], id[64], ignored[64];
  bkfix_url("first", da, sizeof da);
  bkfix_url("second", db, sizeof db);
  bkfix_proxied(da, a, sizeof a);
  bkfix_proxied(db, b, sizeof b);
  clirun_path("bk-two", dir, sizeof dir);
  snprintf(pending, sizeof pending, "%s/pending.json", dir);
  xio_file *fa = bkfix_open(da, 1 * MiB), *fb = bkfix_open(db, 1 * MiB);
  bkfix_write(fa, 0, 64 * KiB, 90);
  bkfix_write(fb, 0, 64 * KiB, 91);
  bkfix_snapshot(fa, id);
  bkfix_snapshot(fb, ignored);

  /* A's first link is unfinished: no chain.json yet, only pending.json. */
  bkfix_unfinished(a, dir, id);
  int snapshots = clirun_snapshot_count(db);
  clirun r = {0};
  XIO_PROXIED(&r, "backup", b, dir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "holds an unfinished backup of");
  ASSERT_CONTAINS(r.err, a);
  ASSERT_NOT_CONTAINS(r.err, "remove");
  ASSERT(bkfix_exists(pending));
  ASSERT_EQ(clirun_snapshot_count(db), snapshots); /* refused before taking one */

  /* The layout of older xio, without a source: still read; B cannot tell, and the
   * message says so rather than to discard it. */
  make_unversioned(pending);
  XIO_PROXIED(&r, "backup", b, dir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "or the backup is of another blob");
  ASSERT(bkfix_exists(pending));
  XIO_PROXIED(&r, "--json", "backup", a, dir, "--resume");
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(j, "snapshot"), id);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "resumed")));
  cJSON_Delete(j);
  ASSERT(!bkfix_exists(pending));
  XIO_PROXIED(&r, "backup", b, dir); /* now the chain of A */
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "holds the backups of");
  xio_file_close(fa, NULL);
  xio_file_close(fb, NULL);
  clirun_free(&r);
}
