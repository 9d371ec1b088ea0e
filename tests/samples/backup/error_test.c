/*
 * error_test.c - backup and restore refuse bad input with a message that names the
 * problem and the right exit status: a local file as the source (no snapshots), a
 * directory with no chain, an unknown @ID, an existing target without --force,
 * --resume with nothing to resume, a chain of another blob.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bkfix.h"
#include "test.h"
#include "util.h"

TEST(bad_input_is_refused_with_a_clear_error) {
  char url[512], other[512], id[64], dir[512], local[512], missing[512];
  bkfix_url("errors", url, sizeof url);
  bkfix_url("other", other, sizeof other);
  xio_file *f = bkfix_open(url, 1 * MiB);
  bkfix_write(f, 0, 64 * KiB, 5);
  bkfix_snapshot(f, id);
  xio_file *g = bkfix_open(other, 1 * MiB);
  clirun_path("bk-errors", dir, sizeof dir);
  clirun_path("errors.local", local, sizeof local);
  clirun_path("no-such-dir", missing, sizeof missing);
  clirun_write_file(local, "x", 1);
  clirun r = {0};

  XIO(&r, "backup", local, dir);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "local files have no snapshots");

  XIO(&r, "restore", missing, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "no backup chain in");

  XIO(&r, "backup", url, dir, "--resume");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "nothing to resume");
  /* A run that fails leaves no directory it made. */
  ASSERT(access(dir, F_OK) != 0);
  XIO(&r, "backup", "http://[bad/x", dir);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "URL host is not valid");
  ASSERT(access(dir, F_OK) != 0);

  cJSON_Delete(bkfix_backup(url, dir, NULL));

  char arg[600];
  snprintf(arg, sizeof arg, "%s@2001-01-01T00:00:00.0000000Z", dir);
  XIO(&r, "restore", arg, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "no link of snapshot 2001-01-01T00:00:00.0000000Z");

  XIO(&r, "restore", dir, local); /* exists */
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "already exists; --force replaces it");

  XIO(&r, "restore", dir, url); /* a blob that exists */
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "already exists");

  XIO(&r, "backup", other, dir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "holds the backups of");

  XIO(&r, "backup", url, dir, "--snapshot", id); /* not newer than the chain */
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "not newer than the chain's newest link");

  XIO(&r, "backup", url, dir, "--keep", "0");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "--keep");
  clirun_free(&r);
  xio_file_close(f, NULL);
  xio_file_close(g, NULL);
}
