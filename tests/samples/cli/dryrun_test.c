/*
 * dryrun_test.c - --dry-run of put, get, cp, rm, backup and restore: a dry run
 * changes nothing (the blob unchanged or absent, no local file, no snapshot, no
 * backup directory), its trace holds no request that writes, and for put and
 * backup the requests and bytes it plans are those the real command then sends,
 * counted in the real run's trace; a dry run refuses what the real command
 * refuses, with the same exit status.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB (1024ull * 1024)

/* The request types a dry run may send: reads. */
static const char *const reads[] = {"XIOTypeOpenFile",    "XIOTypeGetRanges", "XIOTypeReadFile",
                                    "XIOTypeGetFileSize", "XIOTypeListFiles", NULL};

/* The storage requests of a run's trace: its events with an HTTP status (local
 * files' events have 0). */
static uint64_t storage_requests(const clirun *r) {
  uint64_t n = 0;
  for (const char *p = r->trace; (p = strstr(p, "{\"event\":\"xio_send_complete\"")); p++) {
    const char *end = strchr(p, '\n');
    const char *st = strstr(p, "\"http_status\":");
    if (st && (!end || st < end) && strncmp(st, "\"http_status\":0,", 16) != 0) n++;
  }
  return n;
}

/* A sparse file of `size` bytes with `data` random bytes at 0 and 1000 at 8 MiB
 * (when it fits). */
static void make_file(const char *path, uint64_t size, size_t data, uint64_t seed) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT(fd >= 0 && ftruncate(fd, (off_t)size) == 0);
  char *buf = malloc(data);
  test_fill_random(buf, data, seed);
  ASSERT_EQ(pwrite(fd, buf, data, 0), (ssize_t)data);
  if (size >= 8 * MiB + 1000) ASSERT_EQ(pwrite(fd, buf, 1000, (off_t)(8 * MiB)), 1000);
  free(buf);
  close(fd);
}

static int exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

/* The blob's ETag by `xio --json stat` ("" when it does not exist). */
static void etag_of(const char *url, char *out, size_t size) {
  clirun r = {0};
  XIO(&r, "--json", "stat", url);
  out[0] = '\0';
  if (r.status == 0) {
    cJSON *j = clirun_json(&r);
    snprintf(out, size, "%s", clirun_str(j, "etag"));
    cJSON_Delete(j);
  }
  clirun_free(&r);
}

/* Runs `put --dry-run` then the real put with the same options; asserts that the
 * dry run sent only reads, left the blob as it was, and planned the requests and
 * Put Page bytes the real put then sent. */
static void put_both(const char *src, const char *url, const char *opt) {
  clirun r = {0};
  char before[128], after[128];
  etag_of(url, before, sizeof before);
  XIO(&r, "--json", "put", "--dry-run", src, url, opt);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(clirun_trace_others(&r, reads), 0);
  cJSON *j = clirun_json(&r);
  double planned = clirun_num(j, "requests"), bytes = clirun_num(j, "bytes_sent");
  double cleared = clirun_num(j, "bytes_cleared"), read = clirun_num(j, "bytes_read");
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "dry_run")));
  cJSON_Delete(j);
  etag_of(url, after, sizeof after);
  ASSERT_STR_EQ(after, before); /* unchanged, or still absent */

  XIO(&r, "put", src, url, opt);
  EXPECT_EXIT(&r, 0);
  ASSERT_U64_EQ(storage_requests(&r), (uint64_t)planned);
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", NULL), (uint64_t)bytes);
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeZeroFile", NULL), (uint64_t)cleared);
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", NULL), (uint64_t)read);
  clirun_free(&r);
}

TEST(put_dry_run_plans_what_put_sends) {
  clirun r = {0};
  char container[64], url[512], big[256], small[256];
  clirun_container(container, sizeof container);
  clirun_url(container, "db.mdf", url, sizeof url);
  clirun_path("big.img", big, sizeof big);
  clirun_path("small.img", small, sizeof small);
  make_file(big, 12 * MiB, 3 * MiB, 1);
  make_file(small, 5000, 5000, 2);

  /* a new blob in a new container, then replaced by a smaller and an unaligned file,
   * then grown back: creates, clears, resizes and partial sectors all counted */
  put_both(big, url, "--kind=data");
  XIO(&r, "put", "--dry-run", big, url);
  EXPECT_EXIT(&r, 1); /* exists, no --force: refused as put refuses it */
  ASSERT_CONTAINS(r.err, "--force replaces it");
  put_both(small, url, "--force");
  put_both(big, url, "--force");

  XIO(&r, "put", "--dry-run", "--force", small, url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "dry run: put");
  ASSERT_CONTAINS(r.out, "would send ");
  ASSERT_CONTAINS(r.out, "Put Page clear");
  clirun_free(&r);
}

/* Runs `backup --dry-run` then the real backup; asserts that the dry run took no
 * snapshot, left DIR as it was and planned what the real run sent and read. */
static void backup_both(const char *url, const char *dir, const char *opt, int dir_before) {
  clirun r = {0};
  int snaps = clirun_snapshot_count(url);
  XIO(&r, "--json", "backup", "--dry-run", url, dir, opt);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(clirun_trace_others(&r, reads), 0);
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", NULL), 0); /* no data read */
  cJSON *j = clirun_json(&r);
  double planned = clirun_num(j, "requests"), bytes = clirun_num(j, "bytes_read");
  cJSON_Delete(j);
  ASSERT_EQ(clirun_snapshot_count(url), snaps);
  ASSERT_EQ(exists(dir), dir_before);

  XIO(&r, "backup", url, dir, opt);
  EXPECT_EXIT(&r, 0);
  ASSERT_U64_EQ(storage_requests(&r), (uint64_t)planned);
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", NULL), (uint64_t)bytes);
  clirun_free(&r);
}

TEST(backup_dry_run_plans_what_backup_sends) {
  clirun r = {0};
  char container[64], url[512], a[256], b[256], dir[256];
  clirun_container(container, sizeof container);
  clirun_url(container, "db.mdf", url, sizeof url);
  clirun_path("a.img", a, sizeof a);
  clirun_path("b.img", b, sizeof b);
  clirun_path("chain", dir, sizeof dir);
  make_file(a, 12 * MiB, 5 * MiB, 3);
  make_file(b, 12 * MiB, 1 * MiB, 4);
  XIO(&r, "put", a, url);
  EXPECT_EXIT(&r, 0);

  backup_both(url, dir, "--keep=5", 0); /* the base */
  XIO(&r, "put", "--force", b, url);
  EXPECT_EXIT(&r, 0);
  backup_both(url, dir, "--keep=1", 1); /* incremental, one link folded, a snapshot deleted */

  XIO(&r, "backup", "--dry-run", url, dir);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "would add an incremental link");
  ASSERT_CONTAINS(r.out, "1 Snapshot Blob");
  XIO(&r, "backup", "--dry-run", "--resume", url, dir);
  EXPECT_EXIT(&r, 1); /* nothing to resume, as a real run says */
  ASSERT_CONTAINS(r.err, "nothing to resume");
  clirun_free(&r);
}

/* Runs `restore --dry-run DIR BLOB` then the real restore with the same options
 * (`opt`, then `opt2`; NULL ends them); asserts that the dry run sent only reads,
 * left the blob as it was (or absent), and planned the requests, Put Pages and
 * bytes the real restore then sent. */
static void restore_both(const char *dir, const char *url, const char *opt, const char *opt2) {
  clirun r = {0};
  char before[128], after[128];
  etag_of(url, before, sizeof before);
  XIO(&r, "--json", "restore", "--dry-run", dir, url, opt, opt2);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(clirun_trace_others(&r, reads), 0);
  cJSON *j = clirun_json(&r);
  double planned = clirun_num(j, "requests"), bytes = clirun_num(j, "bytes_sent");
  double cleared = clirun_num(j, "bytes_cleared"), read = clirun_num(j, "bytes_read");
  cJSON *ops = cJSON_GetObjectItem(j, "operations");
  cJSON *pages = ops ? cJSON_GetObjectItem(ops, "Put Page") : NULL;
  double put_pages = cJSON_IsNumber(pages) ? pages->valuedouble : 0;
  cJSON_Delete(j);
  etag_of(url, after, sizeof after);
  ASSERT_STR_EQ(after, before); /* unchanged, or still absent */

  XIO(&r, "restore", dir, url, opt, opt2);
  EXPECT_EXIT(&r, 0);
  int sent_pages = 0;
  ASSERT_U64_EQ(storage_requests(&r), (uint64_t)planned);
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", &sent_pages), (uint64_t)bytes);
  ASSERT(sent_pages > 0);
  ASSERT_EQ(sent_pages, (int)put_pages);
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeZeroFile", NULL), (uint64_t)cleared);
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", NULL), (uint64_t)read);
  clirun_free(&r);
}

TEST(get_cp_rm_restore_dry_runs_change_nothing) {
  clirun r = {0};
  char container[64], url[512], copy[512], src[256], local[256], partial[300], dir[256];
  char restored[256], before[128], after[128];
  clirun_container(container, sizeof container);
  clirun_url(container, "db.mdf", url, sizeof url);
  clirun_url(container, "copy.mdf", copy, sizeof copy);
  clirun_path("src.img", src, sizeof src);
  clirun_path("got.img", local, sizeof local);
  clirun_path("restored.img", restored, sizeof restored);
  clirun_path("chain", dir, sizeof dir);
  snprintf(partial, sizeof partial, "%s.xio-partial", local);
  make_file(src, 12 * MiB, 2 * MiB, 5);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  etag_of(url, before, sizeof before);

  /* get: plans the reads get then sends, creates no file */
  XIO(&r, "--json", "get", "--dry-run", "--snapshot", url, local);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(clirun_trace_others(&r, reads), 0);
  ASSERT(!exists(local) && !exists(partial));
  ASSERT_EQ(clirun_snapshot_count(url), 0);
  cJSON *j = clirun_json(&r);
  double bytes = clirun_num(j, "bytes_read"), planned = clirun_num(j, "requests");
  cJSON_Delete(j);
  XIO(&r, "get", "--snapshot", url, local);
  EXPECT_EXIT(&r, 0);
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", NULL), (uint64_t)bytes);
  ASSERT_U64_EQ(storage_requests(&r), (uint64_t)planned);
  XIO(&r, "get", "--dry-run", url, local);
  EXPECT_EXIT(&r, 1); /* LOCAL exists, no --force */

  /* cp between blobs, and to a local file */
  XIO(&r, "cp", "--dry-run", url, copy);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "1 Copy Blob");
  ASSERT_EQ(clirun_trace_others(&r, reads), 0);
  etag_of(copy, after, sizeof after);
  ASSERT_STR_EQ(after, "");
  unlink(local);
  XIO(&r, "cp", "--dry-run", url, local);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "dry run: get");
  ASSERT(!exists(local));

  /* rm: the blob stays; one with a snapshot is refused as rm refuses it */
  XIO(&r, "rm", "--dry-run", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "1 Delete Blob");
  ASSERT_EQ(clirun_trace_others(&r, reads), 0);
  etag_of(url, after, sizeof after);
  ASSERT_STR_EQ(after, before);

  /* restore: neither the local file nor the blob appears */
  XIO(&r, "backup", url, dir);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", "--dry-run", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "has 1 snapshot");
  XIO(&r, "restore", "--dry-run", dir, restored);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "would write 12.0 MiB to");
  ASSERT(!exists(restored));
  XIO(&r, "restore", "--dry-run", dir, copy);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "1 Put Blob");
  ASSERT_EQ(clirun_trace_others(&r, reads), 0);
  etag_of(copy, after, sizeof after);
  ASSERT_STR_EQ(after, "");
  XIO(&r, "restore", "--dry-run", dir, url);
  EXPECT_EXIT(&r, 1); /* exists, no --force */

  /* restore into a new blob, then over one that exists: planned as sent */
  restore_both(dir, copy, NULL, NULL);
  restore_both(dir, url, "--force", NULL);
  XIO(&r, "restore", "--dry-run", "--force", dir, url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "Put Page (");
  ASSERT_CONTAINS(r.out, "Put Page clear");

  /* a point of an unaligned size: partial last sectors, a blob shrunk onto it, and a
   * resume that compares every byte */
  char small[256], tiny[512], dir2[256];
  clirun_path("small.img", small, sizeof small);
  clirun_path("chain2", dir2, sizeof dir2);
  clirun_url(container, "tiny.mdf", tiny, sizeof tiny);
  make_file(small, 5000, 5000, 6);
  XIO(&r, "put", small, tiny);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "backup", tiny, dir2);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", "--with-snapshots", tiny);
  EXPECT_EXIT(&r, 0);
  restore_both(dir2, tiny, NULL, NULL);
  restore_both(dir2, copy, "--force", NULL);
  make_file(small, 5000, 3000, 7); /* other bytes in the blob: the resume sends them */
  XIO(&r, "put", "--force", small, copy);
  EXPECT_EXIT(&r, 0);
  restore_both(dir2, copy, "--force", "--resume");
  clirun_free(&r);
}
