/*
 * resume_mark_test.c - `xio put --resume LOCAL TARGET` finishes only what an
 * interrupted transfer left marked incomplete: onto a complete blob or local file
 * it is refused ("nothing to resume: ... is complete", exit 1) without a single
 * write, the target keeping its bytes; with --force it replaces the target,
 * sending only the pages that differ.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB ((size_t)1 << 20)

/* put --resume of `b` onto `target`, which holds `a`, complete. */
static void refused_then_forced(const char *a, const char *b, const char *target,
                                const char *back) {
  clirun r = {0};
  XIO(&r, "put", "--resume", b, target);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "nothing to resume");
  ASSERT_CONTAINS(r.err, "is complete");
  ASSERT_CONTAINS(r.err, "--force with --resume replaces it");
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", NULL), 0);
  int meta = -1;
  clirun_trace_sum(&r, "XIOTypeSetFileSize", &meta); /* no mark, size or kind set */
  ASSERT_EQ(meta, 0);
  XIO(&r, "get", "--force", target, back);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(a, back);

  XIO(&r, "--json", "put", "--resume", "--force", b, target);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "get", "--force", target, back);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(b, back);
  clirun_free(&r);
}

TEST(put_resume_onto_a_complete_target_is_refused) {
  char cont[64], url[512], a[512], b[512], back[512], local[512];
  clirun_container(cont, sizeof cont);
  clirun_url(cont, "whole.mdf", url, sizeof url);
  clirun_path("mark.a", a, sizeof a);
  clirun_path("mark.b", b, sizeof b);
  clirun_path("mark.back", back, sizeof back);
  clirun_path("mark.local", local, sizeof local);
  clirun_make_source(a, 8 * MiB, 7);
  clirun_make_source(b, 8 * MiB, 8);
  clirun r = {0};
  XIO(&r, "put", a, url);
  EXPECT_EXIT(&r, 0);
  refused_then_forced(a, b, url, back);
  XIO(&r, "put", a, local); /* a local target keeps the mark the same way */
  EXPECT_EXIT(&r, 0);
  refused_then_forced(a, b, local, back);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}
