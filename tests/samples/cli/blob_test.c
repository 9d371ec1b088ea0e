/*
 * blob_test.c - the commands on page blobs in the emulator: create (with the kind's
 * init policy), stat in human and JSON form, grow (never shrinking), zero (and the
 * 512-byte rule), ranges, rm, and the --json and --quiet output modes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB (1024 * 1024)

static void fresh_blob(const char *name, char *url, size_t size) {
  char container[64];
  clirun_container(container, sizeof container);
  clirun_url(container, name, url, size);
}

TEST(create_and_stat) {
  clirun r = {0};
  char url[512];
  fresh_blob("db.ldf", url, sizeof url);
  XIO(&r, "create", url, "--size", "1G", "--kind", "log");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "created");
  ASSERT_CONTAINS(r.out, "log file");
  ASSERT_CONTAINS(r.out, "init clear");
  ASSERT_CONTAINS(r.trace, "XIOTypeCreateFile");
  ASSERT_CONTAINS(r.trace, "XIOTypeZeroFile"); /* the log is cleared by metadata */
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "1073741824 bytes (1.00 GiB)");
  ASSERT_CONTAINS(r.out, "log");
  ASSERT_CONTAINS(r.out, "pageblob");
  ASSERT_CONTAINS(r.out, "available");
  ASSERT_CONTAINS(r.out, "etag");
  XIO(&r, "--json", "stat", url);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == 1073741824.0);
  ASSERT(clirun_num(j, "allocated") == 0);
  ASSERT_STR_EQ(clirun_str(j, "kind"), "log");
  ASSERT_STR_EQ(clirun_str(j, "backend"), "pageblob");
  ASSERT_STR_EQ(clirun_str(j, "target"), url);
  ASSERT_STR_EQ(clirun_str(cJSON_GetObjectItem(j, "lease"), "state"), "available");
  cJSON_Delete(j);
  clirun_free(&r);
}

/* The digits after the point of the number that follows "NAME": in `json` (a time
 * is written to the microsecond, not as the 17 digits of its binary double). */
static size_t decimals_of(const char *json, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\":", name);
  const char *p = strstr(json, key);
  if (!p) FAIL("no %s in %s", key, json);
  p += strcspn(p + strlen(key), "0123456789") + strlen(key);
  const char *dot = p + strspn(p, "0123456789");
  return *dot == '.' ? strspn(dot + 1, "0123456789") : 0;
}

TEST(create_json_data_file_is_instant) {
  clirun r = {0};
  char url[512];
  fresh_blob("db.mdf", url, sizeof url);
  XIO(&r, "--json", "create", url, "--size", "64M");
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(j, "kind"), "data");
  ASSERT_STR_EQ(clirun_str(j, "init"), "none");
  ASSERT(clirun_num(j, "size") == 64.0 * MiB);
  ASSERT(clirun_num(j, "bytes_cleared") == 0);
  cJSON_Delete(j);
  ASSERT(decimals_of(r.out, "seconds") <= 6);
  ASSERT_NOT_CONTAINS(r.trace, "XIOTypeZeroFile");
  XIO(&r, "create", url, "--size", "64M");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "already exists");
  ASSERT_CONTAINS(r.err, "BlobAlreadyExists");
  ASSERT_CONTAINS(r.err, "hint: ");
  clirun_free(&r);
}

TEST(grow_never_shrinks) {
  clirun r = {0};
  char url[512];
  fresh_blob("grow.ldf", url, sizeof url);
  XIO(&r, "create", url, "--size", "1M", "--kind", "log");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "--json", "grow", url, "--size", "1G");
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == 1073741824.0);
  ASSERT(clirun_num(j, "bytes_cleared") == 1073741824.0 - MiB); /* one metadata clear */
  cJSON_Delete(j);
  int zeros = 0;
  clirun_trace_sum(&r, "XIOTypeZeroFile", &zeros);
  ASSERT_EQ(zeros, 1);
  XIO(&r, "grow", url, "--size", "2M");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "never shrinks");
  XIO(&r, "grow", url, "--size", "1G");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "nothing to do");
  XIO(&r, "grow", url, "--size", "2G", "--init", "none");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "init none");
  XIO(&r, "--json", "stat", url);
  j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == 2147483648.0);
  cJSON_Delete(j);
  clirun_free(&r);
}

/* Puts `n` bytes of random data as blob `url`. */
static void put_random(const char *url, size_t n, uint64_t seed) {
  char path[256];
  clirun r = {0};
  char *data = malloc(n);
  test_fill_random(data, n, seed);
  clirun_path("random.bin", path, sizeof path);
  clirun_write_file(path, data, n);
  free(data);
  XIO(&r, "put", path, url);
  EXPECT_EXIT(&r, 0);
  remove(path);
  clirun_free(&r);
}

static void expect_range(const cJSON *a, int i, double start, double end) {
  const cJSON *o = cJSON_GetArrayItem(a, i);
  ASSERT(o != NULL);
  ASSERT(clirun_num(o, "start") == start);
  ASSERT(clirun_num(o, "end") == end);
  ASSERT(clirun_num(o, "length") == end - start + 1);
}

TEST(zero_and_ranges) {
  clirun r = {0};
  char url[512];
  fresh_blob("z.mdf", url, sizeof url);
  put_random(url, 2 * MiB, 5);
  XIO(&r, "--json", "ranges", url);
  EXPECT_EXIT(&r, 0);
  cJSON *a = clirun_json(&r);
  ASSERT_EQ(cJSON_GetArraySize(a), 1);
  expect_range(a, 0, 0, 2 * MiB - 1);
  cJSON_Delete(a);
  XIO(&r, "zero", url, "--offset", "512K", "--length", "512K");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "zeroed");
  ASSERT_CONTAINS(r.trace, "XIOTypeZeroFile");
  XIO(&r, "--json", "ranges", url);
  a = clirun_json(&r);
  ASSERT_EQ(cJSON_GetArraySize(a), 2);
  expect_range(a, 0, 0, 512 * 1024 - 1);
  expect_range(a, 1, MiB, 2 * MiB - 1);
  cJSON_Delete(a);
  XIO(&r, "ranges", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "0               524287          524288");
  ASSERT_CONTAINS(r.out, "2 ranges, 1572864 bytes");
  XIO(&r, "--quiet", "ranges", url);
  ASSERT_NOT_CONTAINS(r.out, "ranges,");
  ASSERT_CONTAINS(r.out, "1048576         2097151         1048576");
  XIO(&r, "zero", url, "--offset", "1M", "--length", "4K", "--init", "zero");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "of zeros written");
  XIO(&r, "--json", "stat", url);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "allocated") == 1.5 * MiB);
  cJSON_Delete(j);
  clirun_free(&r);
}

TEST(zero_misaligned_fails_with_the_512_rule) {
  clirun r = {0};
  char url[512];
  fresh_blob("odd.mdf", url, sizeof url);
  XIO(&r, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "zero", url, "--offset", "100", "--length", "512");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "xio: zero failed: ZeroFile:");
  ASSERT_CONTAINS(r.err, "512");
  ASSERT_CONTAINS(r.err, "hint: page blobs take offsets and lengths in multiples of 512");
  XIO(&r, "zero", url, "--offset", "0", "--length", "4M");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "past the file");
  clirun_free(&r);
}

TEST(rm_deletes) {
  clirun r = {0};
  char url[512];
  fresh_blob("gone.mdf", url, sizeof url);
  XIO(&r, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "removed");
  ASSERT_CONTAINS(r.trace, "XIOTypeDeleteFile");
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "BlobNotFound");
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "DeleteBlob");
  ASSERT_CONTAINS(r.err, "BlobNotFound");
  ASSERT_CONTAINS(r.err, "hint: no such blob");
  clirun_free(&r);
}

TEST(quiet_prints_only_what_is_asked) {
  clirun r = {0};
  char url[512];
  fresh_blob("q.mdf", url, sizeof url);
  XIO(&r, "--quiet", "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  ASSERT_STR_EQ(r.out, "");
  ASSERT_STR_EQ(r.err, "");
  XIO(&r, "grow", url, "--size", "2M", "--quiet"); /* global options after the command */
  EXPECT_EXIT(&r, 0);
  ASSERT_STR_EQ(r.out, "");
  XIO(&r, "--quiet", "stat", url);
  ASSERT_CONTAINS(r.out, "2097152 bytes");
  XIO(&r, "--quiet", "stat", url, "--json");
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == 2.0 * MiB);
  cJSON_Delete(j);
  clirun_free(&r);
}

TEST(trace_to_stderr) {
  clirun r = {0};
  char url[512];
  fresh_blob("t.ldf", url, sizeof url);
  XIO(&r, "--trace", "-", "create", url, "--size", "8M", "--kind", "log");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.err, "\"event\":\"xio_send_complete\"");
  ASSERT_CONTAINS(r.err, "\"request_type\":\"XIOTypeZeroFile\"");
  ASSERT_CONTAINS(r.err, "\"length\":8388608");
  clirun_free(&r);
}

TEST(every_request_is_traced) {
  clirun r = {0};
  char container[64], url[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "traced.mdf", url, sizeof url);
  XIO(&r, "create", url, "--size", "8M");
  EXPECT_EXIT(&r, 0);
  int n = 0;
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  clirun_trace_sum(&r, "XIOTypeOpenFile", &n);
  ASSERT_EQ(n, 1);
  clirun_trace_sum(&r, "XIOTypeGetRanges", &n);
  ASSERT_EQ(n, 1);
  clirun_trace_sum(&r, "XIOTypeGetFileSize", &n);
  ASSERT_EQ(n, 1);
  XIO(&r, "ranges", url);
  EXPECT_EXIT(&r, 0);
  clirun_trace_sum(&r, "XIOTypeGetRanges", &n);
  ASSERT_EQ(n, 1);
  XIO(&r, "lease", "acquire", url);
  EXPECT_EXIT(&r, 0);
  clirun_trace_sum(&r, "XIOTypeLease", &n);
  ASSERT_EQ(n, 1);
  XIO(&r, "rm", url, "--break-lease");
  EXPECT_EXIT(&r, 0);
  clirun_trace_sum(&r, "XIOTypeLease", &n);
  ASSERT_EQ(n, 1);
  clirun_trace_sum(&r, "XIOTypeDeleteFile", &n);
  ASSERT_EQ(n, 1);
  clirun_free(&r);
}

TEST(snapshot_keeps_the_old_bytes) {
  clirun r = {0};
  char container[64], url[512], snap[768], local[512], back[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "snapped.mdf", url, sizeof url);
  clirun_path("before.bin", local, sizeof local);
  FILE *f = fopen(local, "wb");
  for (int i = 0; i < 8192; i++)
    fputc('A' + i % 26, f);
  fclose(f);
  XIO(&r, "put", local, url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "--quiet", "snapshot", url);
  EXPECT_EXIT(&r, 0);
  r.out[strcspn(r.out, "\n")] = '\0';
  ASSERT(strlen(r.out) > 10);
  snprintf(snap, sizeof snap, "%s?snapshot=%s", url, r.out);
  int n = 0;
  clirun_trace_sum(&r, "XIOTypeSnapshot", &n);
  ASSERT_EQ(n, 1);
  XIO(&r, "zero", url, "--offset", "0", "--length", "8K");
  EXPECT_EXIT(&r, 0);
  clirun_path("back.bin", back, sizeof back);
  XIO(&r, "get", snap, back);
  EXPECT_EXIT(&r, 0);
  f = fopen(back, "rb");
  for (int i = 0; i < 8192; i++)
    ASSERT_EQ(fgetc(f), 'A' + i % 26);
  fclose(f);
  /* Local files have none. */
  XIO(&r, "snapshot", local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "no snapshots");
  clirun_free(&r);
}
