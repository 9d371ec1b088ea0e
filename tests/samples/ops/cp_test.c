/*
 * cp_test.c - xio cp against Azurite: a sparse 1 GiB page blob copied server-side
 * stays sparse (the same page ranges) and byte-identical, as an independent reader
 * sees it (a context of this test process, not the CLI's, reading both blobs);
 * restoring from a snapshot brings the old bytes back; an existing destination
 * needs --force, and a leased one is refused and left untouched.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/xio.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)
#define GiB (1024ull * MiB)

/* A context of this process: the independent reader. */
static xio_ctx *reader(void) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = test_dev_connection_string();
  xio_ctx *ctx = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  return ctx;
}

static xio_file *open_ro(xio_ctx *ctx, const char *url) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(ctx, url, &o, &f, &e), &e);
  return f;
}

/* Asserts that `a` and `b` have the same size and page ranges and the same bytes in
 * them (bytes outside read as zero on both). */
static void expect_same_blobs(const char *a, const char *b) {
  xio_ctx *ctx = reader();
  xio_file *fa = open_ro(ctx, a), *fb = open_ro(ctx, b);
  ASSERT_U64_EQ(xio_file_size(fa), xio_file_size(fb));
  xio_ranges ra = {NULL, 0, 0}, rb = {NULL, 0, 0};
  xio_error e;
  ASSERT_OK(xio_file_ranges(fa, &ra, &e), &e);
  ASSERT_OK(xio_file_ranges(fb, &rb, &e), &e);
  ASSERT_EQ(ra.n, rb.n);
  char *x = malloc(4 * MiB), *y = malloc(4 * MiB);
  for (size_t i = 0; i < ra.n; i++) {
    ASSERT_U64_EQ(ra.v[i].start, rb.v[i].start);
    ASSERT_U64_EQ(ra.v[i].end, rb.v[i].end);
    for (uint64_t off = ra.v[i].start; off <= ra.v[i].end; off += 4 * MiB) {
      uint64_t left = ra.v[i].end - off + 1;
      size_t n = left < 4 * MiB ? (size_t)left : 4 * MiB;
      ASSERT_OK(xio_file_read(fa, off, x, n, NULL, &e), &e);
      ASSERT_OK(xio_file_read(fb, off, y, n, NULL, &e), &e);
      if (memcmp(x, y, n) != 0)
        FAIL("%s and %s differ in [%llu, +%zu)", a, b, (unsigned long long)off, n);
    }
  }
  free(x);
  free(y);
  xio_ranges_clear(&ra);
  xio_ranges_clear(&rb);
  xio_file_close(fa, NULL);
  xio_file_close(fb, NULL);
  xio_ctx_free(ctx);
}

/* Uploads a 1 GiB local file holding 64 random 64 KiB chunks to `url`; returns the
 * bytes of data. */
static uint64_t put_sparse_gib(const char *url) {
  char src[256];
  clirun_path("cp-sparse.img", src, sizeof src);
  int fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT(fd >= 0 && ftruncate(fd, (off_t)GiB) == 0);
  char *chunk = malloc(64 * KiB);
  for (int i = 0; i < 64; i++) {
    test_fill_random(chunk, 64 * KiB, (uint64_t)i + 7);
    off_t off = (off_t)((uint64_t)i * 16 * MiB + (uint64_t)(i % 5) * 512 * 3);
    ASSERT_EQ(pwrite(fd, chunk, 64 * KiB, off), 64 * KiB);
  }
  free(chunk);
  close(fd);
  clirun r = {0};
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
  remove(src);
  return 64 * 64 * KiB;
}

TEST(cp_sparse_gib_keeps_ranges_and_bytes) {
  clirun r = {0};
  char name[64], src[512], dst[512];
  clirun_container(name, sizeof name);
  clirun_url(name, "big.mdf", src, sizeof src);
  clirun_url(name, "copy/big.mdf", dst, sizeof dst);
  uint64_t data = put_sparse_gib(src);
  XIO(&r, "--json", "cp", src, dst);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == (double)GiB);
  ASSERT(clirun_num(j, "source_allocated") == (double)data);
  ASSERT(clirun_num(j, "allocated") == (double)data);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "sparse")));
  cJSON_Delete(j);
  /* One Copy Blob, and no byte of the file went through this client. */
  int copies = 0;
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeCopyFile", &copies), GiB);
  ASSERT_EQ(copies, 1);
  const char *allowed[] = {"XIOTypeOpenFile", "XIOTypeCopyFile", "XIOTypeGetFileSize",
                           "XIOTypeGetRanges", NULL};
  ASSERT_EQ(clirun_trace_others(&r, allowed), 0);
  XIO(&r, "--json", "stat", dst);
  j = clirun_json(&r);
  ASSERT(clirun_num(j, "allocated") == (double)data);
  cJSON_Delete(j);
  expect_same_blobs(src, dst);
  clirun_free(&r);
}

TEST(cp_restores_a_snapshot) {
  clirun r = {0};
  char name[64], url[512], snap[700], id[64];
  clirun_container(name, sizeof name);
  clirun_url(name, "db.mdf", url, sizeof url);
  put_sparse_gib(url);
  XIO(&r, "--quiet", "snapshot", url);
  EXPECT_EXIT(&r, 0);
  snprintf(id, sizeof id, "%s", r.out);
  id[strcspn(id, "\n")] = '\0';
  snprintf(snap, sizeof snap, "%s?snapshot=%s", url, id);
  /* Change the blob after the snapshot: zero the first chunk, grow it. */
  XIO(&r, "zero", url, "--offset", "0", "--length", "64K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "grow", url, "--size", "2G");
  EXPECT_EXIT(&r, 0);
  xio_ctx *ctx = reader();
  xio_file *f = open_ro(ctx, url);
  ASSERT_U64_EQ(xio_file_size(f), 2 * GiB);
  xio_file_close(f, NULL);
  xio_ctx_free(ctx);

  XIO(&r, "--json", "cp", snap, url); /* onto its own blob: no --force needed */
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "restored")));
  ASSERT_STR_EQ(cJSON_GetObjectItem(j, "source")->valuestring, snap); /* names the snapshot */
  cJSON_Delete(j);
  expect_same_blobs(snap, url);
  ctx = reader();
  f = open_ro(ctx, url);
  ASSERT_U64_EQ(xio_file_size(f), GiB);
  char *buf = malloc(64 * KiB), *want = malloc(64 * KiB);
  xio_error e;
  ASSERT_OK(xio_file_read(f, 0, buf, 64 * KiB, NULL, &e), &e);
  test_fill_random(want, 64 * KiB, 7);
  ASSERT_MEM_EQ(buf, want, 64 * KiB); /* the zeroed chunk is back */
  free(buf);
  free(want);
  xio_file_close(f, NULL);
  xio_ctx_free(ctx);
  /* The snapshot is still there. */
  XIO(&r, "--quiet", "snapshot", "list", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, id);
  clirun_free(&r);
}

TEST(cp_refuses_existing_and_leased_destinations) {
  clirun r = {0};
  char name[64], src[512], dst[512], id[64];
  clirun_container(name, sizeof name);
  clirun_url(name, "src.mdf", src, sizeof src);
  clirun_url(name, "dst.mdf", dst, sizeof dst);
  XIO(&r, "create", src, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "create", dst, "--size", "4K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "cp", src, dst);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "exists");
  ASSERT_CONTAINS(r.err, "--force");
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeCopyFile", NULL), 0);
  XIO(&r, "--quiet", "lease", "acquire", dst);
  EXPECT_EXIT(&r, 0);
  snprintf(id, sizeof id, "%s", r.out);
  id[strcspn(id, "\n")] = '\0';
  XIO(&r, "cp", src, dst, "--force");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "leased by another client");
  ASSERT_CONTAINS(r.err, "xio lease break");
  int copies = 0;
  clirun_trace_sum(&r, "XIOTypeCopyFile", &copies);
  ASSERT_EQ(copies, 0);
  XIO(&r, "--json", "stat", dst);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == 4096); /* untouched */
  cJSON_Delete(j);
  XIO(&r, "lease", "release", dst, "--lease-id", id);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "cp", src, dst, "--force");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "--json", "stat", dst);
  j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == 1024 * 1024);
  cJSON_Delete(j);
  /* Bad usage: two local paths, a missing source, the same blob twice. */
  XIO(&r, "cp", "/tmp/a", "/tmp/b");
  EXPECT_EXIT(&r, 2);
  XIO(&r, "cp", src);
  EXPECT_EXIT(&r, 2);
  XIO(&r, "cp", src, src, "--force");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "same blob");
  char missing[512];
  clirun_url(name, "missing.mdf", missing, sizeof missing);
  XIO(&r, "cp", missing, dst, "--force");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "BlobNotFound");
  clirun_free(&r);
}

TEST(cp_local_ends_are_put_and_get) {
  clirun r = {0};
  char name[64], url[512], local[256], back[256];
  clirun_container(name, sizeof name);
  clirun_url(name, "small.mdf", url, sizeof url);
  clirun_path("cp-small.img", local, sizeof local);
  clirun_path("cp-small.back", back, sizeof back);
  char data[8192];
  test_fill_random(data, sizeof data, 11);
  clirun_write_file(local, data, sizeof data);
  XIO(&r, "cp", local, url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "put");
  XIO(&r, "cp", url, back);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "cp", url, back);
  EXPECT_EXIT(&r, 1); /* get refuses an existing local file without --force */
  XIO(&r, "cp", url, back, "--force");
  EXPECT_EXIT(&r, 0);
  FILE *f = fopen(back, "rb");
  ASSERT(f != NULL);
  char got[8192];
  ASSERT_EQ(fread(got, 1, sizeof got, f), sizeof got);
  fclose(f);
  ASSERT_MEM_EQ(got, data, sizeof data);
  clirun_free(&r);
}

TEST(cp_from_a_sas_source_keeps_the_sas_secret) {
  clirun r = {0};
  char name[64], src[512], dst[512];
  clirun_container(name, sizeof name);
  clirun_url(name, "sas-src.mdf", src, sizeof src);
  clirun_url(name, "sas-dst.mdf", dst, sizeof dst);
  XIO(&r, "create", src, "--size", "64K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "zero", src, "--offset", "0", "--length", "4K", "--init", "zero");
  EXPECT_EXIT(&r, 0);
  XIO_ENV(&r, CLIRUN_SECRET_STDOUT, NULL, "sas", src, "--permissions", "r", "--expiry", "1h");
  EXPECT_EXIT(&r, 0);
  char *sas = strdup(r.out);
  sas[strcspn(sas, "\n")] = '\0';
  const char *sig = strstr(sas, "sig=");
  ASSERT(sig != NULL);
  clirun_forbid(sig + 4); /* no later output or trace may carry it */
  /* The service reads the source with its SAS (Azurite checks it like Azure). */
  XIO(&r, "--json", "cp", sas, dst);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "allocated") == 4096);
  ASSERT_STR_EQ(clirun_str(j, "source"), src);
  cJSON_Delete(j);
  expect_same_blobs(src, dst);
  /* A SAS without read cannot read the source: refused. */
  XIO_ENV(&r, CLIRUN_SECRET_STDOUT, NULL, "sas", src, "--permissions", "w", "--expiry", "1h");
  EXPECT_EXIT(&r, 0);
  char *wsas = strdup(r.out);
  wsas[strcspn(wsas, "\n")] = '\0';
  clirun_forbid(strstr(wsas, "sig=") + 4);
  XIO(&r, "cp", wsas, dst, "--force");
  EXPECT_EXIT(&r, 1);
  free(wsas);
  free(sas);
  clirun_free(&r);
}
