/*
 * overwrite_test.c - a blob's snapshots (its backups) are kept when the blob is
 * replaced: put --force overwrites in place (new size, kind and content, old content
 * cleared) and the snapshot still reads its old bytes; rm refuses a blob that has
 * snapshots until --with-snapshots says they go too. A failed overwrite says what
 * became of the blob: nothing written when a lease refused the first change, part
 * of the new content when a write was issued.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliproxy.h"
#include "clirun.h"
#include "test.h"
#include "util.h"

/* Reads the local file at `path` into a new buffer; `*n` gets its size. */
static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(len > 0 ? (size_t)len : 1);
  *n = buf ? fread(buf, 1, (size_t)len, f) : 0;
  fclose(f);
  return buf;
}

/* Takes a snapshot of `url`; its URL goes to `snap`. */
static void take_snapshot(clirun *r, const char *url, char *snap, size_t size) {
  XIO(r, "--quiet", "snapshot", url);
  EXPECT_EXIT(r, 0);
  r->out[strcspn(r->out, "\n")] = '\0';
  ASSERT(strlen(r->out) > 10);
  snprintf(snap, size, "%s?snapshot=%s", url, r->out);
}

/* Downloads `src` and checks it holds exactly the `n` bytes of `want`. */
static void expect_content(clirun *r, const char *src, const char *name, const char *want,
                           size_t n) {
  char back[512];
  clirun_path(name, back, sizeof back);
  XIO(r, "get", "--force", src, back);
  EXPECT_EXIT(r, 0);
  size_t got = 0;
  char *buf = slurp(back, &got);
  ASSERT(buf != NULL);
  ASSERT_U64_EQ(got, n);
  ASSERT_MEM_EQ(buf, want, n);
  free(buf);
}

TEST(put_force_keeps_snapshots) {
  clirun r = {0};
  char container[64], url[512], snap[768], oldp[512], newp[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "kept.ldf", url, sizeof url);
  /* The old content: 16 KiB of 'A', a log file. */
  static char old[16384], new_[10000];
  memset(old, 'A', sizeof old);
  clirun_path("old.bin", oldp, sizeof oldp);
  clirun_write_file(oldp, old, sizeof old);
  XIO(&r, "put", oldp, url, "--kind", "log");
  EXPECT_EXIT(&r, 0);
  take_snapshot(&r, url, snap, sizeof snap);
  /* The new content is shorter, not whole pages, and has all-zero pages (never
   * sent) where the old content had data: they must read as zeros afterwards. */
  memset(new_, 'B', 4096);
  memset(new_ + 4096, 0, 4096);
  memset(new_ + 8192, 'C', sizeof new_ - 8192);
  clirun_path("new.bin", newp, sizeof newp);
  clirun_write_file(newp, new_, sizeof new_);
  XIO(&r, "put", newp, url, "--kind", "data");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "--force");
  XIO(&r, "put", "--force", newp, url, "--kind", "data");
  EXPECT_EXIT(&r, 0);
  ASSERT_NOT_CONTAINS(r.trace, "XIOTypeDeleteFile");
  XIO(&r, "--json", "stat", url);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == (double)sizeof new_);
  ASSERT_STR_EQ(clirun_str(j, "kind"), "data");
  cJSON_Delete(j);
  expect_content(&r, url, "new.back", new_, sizeof new_);
  expect_content(&r, snap, "old.back", old, sizeof old);
  XIO(&r, "--json", "snapshot", "list", url);
  EXPECT_EXIT(&r, 0);
  j = clirun_json(&r);
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(j, "snapshots")), 1);
  cJSON_Delete(j);
  /* Growing past the old size in place: the new tail reads back exactly too. */
  static char big[20000];
  memset(big, 'D', sizeof big);
  clirun_write_file(newp, big, sizeof big);
  XIO(&r, "put", "--force", newp, url);
  EXPECT_EXIT(&r, 0);
  expect_content(&r, url, "big.back", big, sizeof big);
  expect_content(&r, snap, "old2.back", old, sizeof old);
  XIO(&r, "rm", "--with-snapshots", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

TEST(rm_refuses_a_blob_with_snapshots) {
  clirun r = {0};
  char container[64], url[512], snap[768], local[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "backed.mdf", url, sizeof url);
  static char data[8192];
  memset(data, 'S', sizeof data);
  clirun_path("backed.bin", local, sizeof local);
  clirun_write_file(local, data, sizeof data);
  XIO(&r, "put", local, url);
  EXPECT_EXIT(&r, 0);
  take_snapshot(&r, url, snap, sizeof snap);
  take_snapshot(&r, url, snap, sizeof snap);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "has 2 snapshots");
  ASSERT_CONTAINS(r.err, "nothing was deleted");
  ASSERT_CONTAINS(r.err, "--with-snapshots");
  ASSERT_CONTAINS(r.err, "SnapshotsPresent");
  int n = 0;
  clirun_trace_sum(&r, "XIOTypeDeleteFile", &n);
  ASSERT_EQ(n, 1); /* the refused delete, nothing more */
  /* Both are still there. */
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  expect_content(&r, snap, "snap.back", data, sizeof data);
  XIO(&r, "--json", "rm", url);
  EXPECT_EXIT(&r, 1);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(cJSON_GetObjectItem(j, "error"), "code"), "XIO_ECONFLICT");
  cJSON_Delete(j);
  /* Named, they go together. */
  XIO(&r, "rm", "--with-snapshots", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "removed");
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 1);
  char back[512];
  clirun_path("gone.back", back, sizeof back);
  XIO(&r, "get", snap, back);
  EXPECT_EXIT(&r, 1);
  /* A blob without snapshots needs no flag. */
  XIO(&r, "put", local, url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 1);
  clirun_free(&r);
}

TEST(put_force_overwrites_a_local_file_in_place) {
  clirun r = {0};
  char src[512], dst[512];
  static char a[12288], b[5000];
  memset(a, 'a', sizeof a);
  memset(b, 'b', sizeof b);
  clirun_path("local-src.bin", src, sizeof src);
  clirun_path("local-dst.bin", dst, sizeof dst);
  clirun_write_file(src, a, sizeof a);
  XIO(&r, "put", "--kind", "log", src, dst);
  EXPECT_EXIT(&r, 0);
  clirun_write_file(src, b, sizeof b);
  XIO(&r, "put", "--force", "--kind", "data", src, dst);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "--json", "stat", dst);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == (double)sizeof b);
  ASSERT_STR_EQ(clirun_str(j, "kind"), "data");
  cJSON_Delete(j);
  size_t n = 0;
  char *got = slurp(dst, &n);
  ASSERT(got != NULL);
  ASSERT_U64_EQ(n, sizeof b);
  ASSERT_MEM_EQ(got, b, sizeof b);
  free(got);
  clirun_free(&r);
}

TEST(put_force_on_a_leased_blob_changes_nothing) {
  clirun r = {0};
  char container[64], url[512], snap[768], local[512], other[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "held.mdf", url, sizeof url);
  static char data[8192], next[4096];
  memset(data, 'H', sizeof data);
  memset(next, 'N', sizeof next);
  clirun_path("held.bin", local, sizeof local);
  clirun_write_file(local, data, sizeof data);
  clirun_path("next.bin", other, sizeof other);
  clirun_write_file(other, next, sizeof next);
  XIO(&r, "put", local, url);
  EXPECT_EXIT(&r, 0);
  take_snapshot(&r, url, snap, sizeof snap);
  XIO(&r, "lease", "acquire", url);
  EXPECT_EXIT(&r, 0);
  /* Another client holds the blob: the overwrite fails at its first change, names
   * the lease and how to end it, says that nothing was written (not that the blob
   * may hold part of the new content) and that the snapshots are kept; neither the
   * blob nor the snapshot changed. */
  XIO(&r, "put", "--force", other, url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "in use");
  ASSERT_CONTAINS(r.err, "is leased by another client; nothing was written");
  ASSERT_CONTAINS(r.err, "`xio lease break ");
  ASSERT_NOT_CONTAINS(r.err, "may hold part");
  ASSERT_CONTAINS(r.err, "its snapshots are kept");
  ASSERT_NOT_CONTAINS(r.trace, "XIOTypeWriteFile");
  ASSERT_NOT_CONTAINS(r.trace, "XIOTypeDeleteFile");
  expect_content(&r, url, "held.back", data, sizeof data);
  expect_content(&r, snap, "held-snap.back", data, sizeof data);
  XIO(&r, "lease", "break", url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", "--with-snapshots", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

/* An overwrite that fails after its writes were issued says that the blob may hold
 * part of the new content, and how to replace it. */
TEST(put_force_failing_at_a_write_says_the_blob_may_hold_part_of_it) {
  clirun r = {0};
  char container[64], url[512], local[512];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "torn.mdf", url, sizeof url);
  static char data[8192];
  memset(data, 'T', sizeof data);
  clirun_path("torn.bin", local, sizeof local);
  clirun_write_file(local, data, sizeof data);
  XIO_PROXIED(&r, "put", local, url);
  EXPECT_EXIT(&r, 0);
  cliproxy_refuse("PUT", "comp=page", 0, 403, "AuthorizationPermissionMismatch");
  XIO_PROXIED(&r, "put", "--force", local, url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "HTTP 403 AuthorizationPermissionMismatch");
  ASSERT_CONTAINS(r.err, "may hold part of the new content (its snapshots are kept)");
  ASSERT_CONTAINS(r.err, "put --force again replaces it");
  ASSERT_NOT_CONTAINS(r.err, "nothing was written");
  XIO_PROXIED(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}
