/*
 * kill_test.c - kill -9 during a backup and during a restore leaves nothing that
 * looks complete, and the next run finishes the work. The fault proxy (cliproxy.c)
 * holds one request of the run at a known point while the test kills it:
 *  - a base backup of an 80 MiB blob (ten 8 MiB pieces, each read as two checked
 *    requests of 4 MiB, pending.json brought up to date after 64 MiB) killed at its
 *    last read: no chain.json, so restore
 *    finds no backup; `backup --resume` keeps the pieces pending.json lists (each
 *    checked against its CRC-64) and reads only the others;
 *  - a restore into a blob killed at its second write: the blob stays marked
 *    incomplete (opening it is refused); `restore --resume` finishes it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bkfix.h"
#include "cliproxy.h"
#include "test.h"
#include "util.h"

#define PIECES 10

static int pending_pieces(const char *dir) {
  char path[600], text[65536];
  snprintf(path, sizeof path, "%s/pending.json", dir);
  FILE *f = fopen(path, "r");
  ASSERT(f != NULL);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  cJSON *o = cJSON_Parse(text);
  ASSERT(o != NULL);
  int k = cJSON_GetArraySize(cJSON_GetObjectItem(o, "pieces"));
  cJSON_Delete(o);
  return k;
}

TEST(kill_during_backup_then_resume_reads_only_what_is_missing) {
  char direct[512], url[512], id[64], dir[512], ref[512], local[512], path[600];
  bkfix_url("killed", direct, sizeof direct);
  bkfix_proxied(direct, url, sizeof url);
  xio_file *f = bkfix_open(direct, PIECES * 8 * MiB);
  for (int i = 0; i < PIECES; i++)
    bkfix_write(f, (uint64_t)i * 8 * MiB, 8 * MiB, 20 + (uint64_t)i);
  bkfix_snapshot(f, id);
  clirun_path("bk-killed", dir, sizeof dir);
  clirun_path("killed.ref", ref, sizeof ref);
  clirun_path("killed.restored", local, sizeof local);

  /* Held: the last read (after the range listing and nineteen reads: each 8 MiB
   * piece is read as two requests of 4 MiB, the most the service checksums). */
  cliproxy_hold("GET", "snapshot=", 2 * PIECES);
  clirun_bg b;
  XIO_START_PROXIED(&b, 0, "backup", url, dir, "--snapshot", id);
  cliproxy_wait(&b);
  kill(b.pid, SIGKILL);
  clirun r = {0};
  clirun_finish(&b, &r, 30);
  ASSERT_EQ(r.status, 128 + SIGKILL);
  snprintf(path, sizeof path, "%s/chain.json", dir);
  ASSERT(!bkfix_exists(path));
  snprintf(path, sizeof path, "%s/link-000001.data", dir);
  ASSERT(!bkfix_exists(path));
  int kept = pending_pieces(dir);
  ASSERT(kept >= 1 && kept < PIECES);
  XIO(&r, "restore", dir, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "no backup chain in");
  ASSERT(!bkfix_exists(local));

  XIO_PROXIED(&r, "--json", "backup", url, dir, "--resume");
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "resumed")));
  ASSERT_EQ((int)clirun_num(j, "pieces_kept"), kept);
  ASSERT_EQ((int)clirun_num(j, "read_requests"), 2 * (PIECES - kept));
  ASSERT_EQ((uint64_t)clirun_num(j, "bytes_read"), (uint64_t)(PIECES - kept) * 8 * MiB);
  cJSON_Delete(j);
  snprintf(path, sizeof path, "%s/pending.json", dir);
  ASSERT(!bkfix_exists(path));
  bkfix_get_snapshot(direct, id, ref);
  bkfix_restore(dir, NULL, local);
  clirun_expect_same_files(ref, local);

  /* A restore into a new blob killed at its second write. */
  char copy[1024], copy_direct[1024], got[512];
  snprintf(copy, sizeof copy, "%s-copy", url);
  snprintf(copy_direct, sizeof copy_direct, "%s-copy", direct);
  clirun_path("killed.copy", got, sizeof got);
  cliproxy_hold("PUT", "comp=page", 1);
  XIO_START_PROXIED(&b, 0, "restore", dir, copy);
  cliproxy_wait(&b);
  kill(b.pid, SIGKILL);
  clirun_finish(&b, &r, 30);
  ASSERT_EQ(r.status, 128 + SIGKILL);
  XIO(&r, "get", copy_direct, got);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "incomplete");
  XIO(&r, "restore", dir, copy_direct); /* not over it without --force or --resume */
  EXPECT_EXIT(&r, 1);
  XIO(&r, "restore", "--resume", dir, copy_direct);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "get", "--force", copy_direct, got);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(ref, got);
  clirun_free(&r);
  xio_file_close(f, NULL);
}
