/*
 * resume_test.c - `xio restore --resume DIR TARGET` finishes only what an
 * interrupted restore left: onto a blob no transfer left marked incomplete it is
 * refused ("nothing to resume: ... is complete"), nothing is written (not even the
 * mark), and the blob keeps its bytes; --force with --resume replaces it, sending
 * only the pages that differ.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bkfix.h"
#include "test.h"
#include "util.h"

TEST(restore_resume_onto_a_complete_blob_is_refused) {
  char url[512], copy[1024], dir[512], ref[512], other[512], got[512];
  bkfix_url("resume", url, sizeof url);
  snprintf(copy, sizeof copy, "%s-copy", url);
  clirun_path("bk-resume", dir, sizeof dir);
  clirun_path("resume.ref", ref, sizeof ref);
  clirun_path("resume.other", other, sizeof other);
  clirun_path("resume.got", got, sizeof got);
  xio_file *f = bkfix_open(url, 4 * MiB);
  bkfix_write(f, 0, 4 * MiB, 40);
  xio_file_close(f, NULL);
  cJSON *j = bkfix_backup(url, dir, NULL);
  char id[64];
  snprintf(id, sizeof id, "%s", clirun_str(j, "snapshot"));
  cJSON_Delete(j);
  bkfix_get_snapshot(url, id, ref);

  /* A complete blob of other bytes, put there by a put that finished. */
  clirun_make_source(other, 4 * MiB, 41);
  clirun r = {0};
  XIO(&r, "put", other, copy);
  EXPECT_EXIT(&r, 0);

  XIO(&r, "restore", "--resume", dir, copy);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "nothing to resume");
  ASSERT_CONTAINS(r.err, "is complete");
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", NULL), 0);
  int marks = -1;
  clirun_trace_sum(&r, "XIOTypeSetFileSize", &marks); /* the mark, the size, the kind */
  ASSERT_EQ(marks, 0);
  XIO(&r, "get", copy, got);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(other, got);

  /* --force says to replace it. */
  XIO(&r, "restore", "--resume", "--force", dir, copy);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "get", "--force", copy, got);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(ref, got);
  clirun_free(&r);
}
