/*
 * chain_test.c - a chain of five links over writes, clears, growth, shrink and a
 * shrink followed by growth between snapshots: `xio restore DIR@ID` of every point
 * is byte-identical to the snapshot read directly (`xio get URL?snapshot=ID`), and
 * each incremental link downloads only what was written since the previous one.
 * Then --keep 2 folds the older links into the base, deletes their snapshots (and
 * only theirs) on the service, and both kept points still restore exactly.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bkfix.h"
#include "test.h"
#include "util.h"

#define POINTS 5

static uint64_t num(cJSON *j, const char *name) { return (uint64_t)clirun_num(j, name); }

/* Waits for f's writes, runs a backup (which takes the snapshot) and keeps its id. */
static cJSON *next_link(xio_file *f, const char *url, const char *dir, char *id) {
  xio_error e;
  ASSERT_OK(xio_file_wait(f, &e), &e);
  cJSON *j = bkfix_backup(url, dir, NULL);
  snprintf(id, 64, "%s", clirun_str(j, "snapshot"));
  return j;
}

TEST(chain_of_five_restores_every_point_byte_identical) {
  char url[512], dir[512], ids[POINTS][64], ref[POINTS][512], got[512];
  bkfix_url("chain", url, sizeof url);
  clirun_path("bk-chain", dir, sizeof dir);
  clirun_path("chain.got", got, sizeof got);
  for (int i = 0; i < POINTS; i++) {
    char name[32];
    snprintf(name, sizeof name, "chain.ref%d", i);
    clirun_path(name, ref[i], sizeof ref[i]);
  }
  xio_file *f = bkfix_open(url, 8 * MiB);
  xio_error e;
  cJSON *j;

  /* 0: the base, 3 MiB of data in an 8 MiB blob. */
  bkfix_write(f, 0, 2 * MiB, 100);
  bkfix_write(f, 6 * MiB, 1 * MiB, 101);
  bkfix_snapshot(f, ids[0]);
  char opt[96];
  snprintf(opt, sizeof opt, "--snapshot=%s", ids[0]);
  j = bkfix_backup(url, dir, opt);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "base")));
  ASSERT_EQ(num(j, "bytes_read"), 3 * MiB);
  cJSON_Delete(j);

  /* 1: writes inside and beside the data. */
  bkfix_write(f, 64 * KiB, 128 * KiB, 102);
  bkfix_write(f, 4 * MiB, 512 * KiB, 103);
  j = next_link(f, url, dir, ids[1]);
  ASSERT(!cJSON_IsTrue(cJSON_GetObjectItem(j, "base")));
  ASSERT_EQ(num(j, "written_bytes"), 640 * KiB);
  ASSERT_EQ(num(j, "bytes_read"), 640 * KiB);
  ASSERT_EQ(num(j, "read_requests"), 2);
  ASSERT_EQ(num(j, "cleared_bytes"), 0);
  cJSON_Delete(j);

  /* 2: a clear of written pages, and growth to 12 MiB with data past the old end. */
  ASSERT_OK(xio_file_zero(f, 1 * MiB, 512 * KiB, XIO_INIT_CLEAR, &e), &e);
  ASSERT_OK(xio_file_set_size(f, 12 * MiB, XIO_INIT_NONE, &e), &e);
  bkfix_write(f, 10 * MiB, 256 * KiB, 104);
  j = next_link(f, url, dir, ids[2]);
  ASSERT_EQ(num(j, "size"), 12 * MiB);
  ASSERT_EQ(num(j, "written_bytes"), 256 * KiB);
  ASSERT_EQ(num(j, "cleared_bytes"), 512 * KiB);
  cJSON_Delete(j);

  /* 3: shrink to 5 MiB (cutting data off) and a write. */
  ASSERT_OK(xio_file_set_size(f, 5 * MiB, XIO_INIT_NONE, &e), &e);
  bkfix_write(f, 3 * MiB, 64 * KiB, 105);
  j = next_link(f, url, dir, ids[3]);
  ASSERT_EQ(num(j, "size"), 5 * MiB);
  ASSERT_EQ(num(j, "bytes_read"), 64 * KiB);
  cJSON_Delete(j);

  /* 4: shrink to 4 MiB and grow back to 9 MiB: the cut-off pages must read as zero. */
  ASSERT_OK(xio_file_set_size(f, 4 * MiB, XIO_INIT_NONE, &e), &e);
  ASSERT_OK(xio_file_set_size(f, 9 * MiB, XIO_INIT_NONE, &e), &e);
  bkfix_write(f, 8 * MiB, 4 * KiB, 106);
  j = next_link(f, url, dir, ids[4]);
  ASSERT_EQ(num(j, "links"), POINTS);
  ASSERT_EQ(num(j, "bytes_read"), 4 * KiB);
  cJSON_Delete(j);

  for (int i = 0; i < POINTS; i++) {
    bkfix_get_snapshot(url, ids[i], ref[i]);
    bkfix_restore(dir, ids[i], got);
    clirun_expect_same_files(ref[i], got);
  }

  /* --keep 2 after a sixth backup: links 0..3 folded, their snapshots deleted. */
  int before = clirun_snapshot_count(url);
  bkfix_write(f, 0, 4 * KiB, 107);
  ASSERT_OK(xio_file_wait(f, &e), &e);
  j = bkfix_backup(url, dir, "--keep=2");
  ASSERT_EQ(num(j, "links"), 2);
  ASSERT_EQ(num(j, "links_pruned"), 4);
  ASSERT_EQ(num(j, "snapshots_deleted"), 4);
  const char *newest = clirun_str(j, "snapshot");
  char last[64];
  snprintf(last, sizeof last, "%s", newest);
  cJSON_Delete(j);
  ASSERT_EQ(clirun_snapshot_count(url), before + 1 - 4);
  bkfix_restore(dir, ids[4], got);
  clirun_expect_same_files(ref[4], got);
  clirun r = {0};
  char arg[600];
  snprintf(arg, sizeof arg, "%s@%s", dir, ids[3]);
  XIO(&r, "restore", "--force", arg, got);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "no link of snapshot");
  /* The chain goes on from the newest snapshot. */
  bkfix_write(f, 4 * MiB, 8 * KiB, 108);
  ASSERT_OK(xio_file_wait(f, &e), &e);
  j = bkfix_backup(url, dir, "--keep=2");
  ASSERT_EQ(num(j, "bytes_read"), 8 * KiB);
  ASSERT_EQ(num(j, "links"), 2);
  cJSON_Delete(j);
  clirun_free(&r);
  xio_file_close(f, NULL);
}
