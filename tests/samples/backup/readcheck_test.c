/*
 * readcheck_test.c - a backup never records bytes the service did not vouch for. A
 * fault proxy between xio and the emulator flips one byte in the middle of the
 * first read of the snapshot's data (headers untouched): the read fails its check
 * against the checksum the service answered, is read again, and the link holds the
 * snapshot's bytes, which a restore gives back byte for byte.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bkfix.h"
#include "cliproxy.h"
#include "test.h"
#include "util.h"

TEST(backup_reads_a_damaged_body_again_and_records_the_true_bytes) {
  char direct[512], url[512], id[64], dir[512], ref[512], local[512];
  bkfix_url("damaged", direct, sizeof direct);
  bkfix_proxied(direct, url, sizeof url);
  xio_file *f = bkfix_open(direct, 16 * MiB);
  bkfix_write(f, 0, 16 * MiB, 61);
  bkfix_snapshot(f, id);
  ASSERT_OK(xio_file_close(f, NULL), NULL);
  clirun_path("bk-damaged", dir, sizeof dir);
  clirun_path("damaged.ref", ref, sizeof ref);
  clirun_path("damaged.restored", local, sizeof local);
  bkfix_get_snapshot(direct, id, ref);
  /* After the range listing, the first read of the data. */
  cliproxy_corrupt("GET", "snapshot=", 1);
  clirun r = {0};
  XIO_PROXIED(&r, "backup", url, dir, "--snapshot", id);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.trace, "xio_failed_request");
  ASSERT_CONTAINS(r.trace, "XIO_ECHECKSUM");
  clirun_free(&r);
  bkfix_restore(dir, id, local);
  clirun_expect_same_files(ref, local);
}
