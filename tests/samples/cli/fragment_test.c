/*
 * fragment_test.c - put and get on fragmented and on mostly empty files, counted in
 * the trace's requests (XIOTypeWriteFile, XIOTypeReadFile): isolated pages one page
 * apart travel in full requests both ways (writes of 4 MiB, Put Page's limit; reads
 * of 4 MiB, the longest the service checksums); pages further apart than the data
 * between them are written one by one (zeros written are billed) but read in a few
 * requests, whose gaps stay holes in the local file (gaps too small to be a hole
 * are written with the data around them); scattered blocks of a mostly
 * empty file cost a request each and nothing more. Every round trip is
 * byte-identical. Also: the transfer options --in-flight and --checksum, and their
 * bad values.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

#define EXT4_MAGIC 0xEF53 /* statfs f_type of ext2/3/4 */

static void blob_url(const char *name, char *url, size_t size) {
  char container[64];
  clirun_container(container, sizeof container);
  clirun_url(container, name, url, size);
}

/* A sparse local file of `size` bytes with `n` blocks of `block` random bytes, the
 * k-th at offset first + k * step. */
static void write_pattern(const char *path, uint64_t size, uint64_t first, uint64_t step,
                          size_t block, int n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT(fd >= 0 && ftruncate(fd, (off_t)size) == 0);
  char *buf = malloc(block);
  for (int k = 0; k < n; k++) {
    test_fill_random(buf, block, (uint64_t)k + 11);
    buf[0] = 1; /* never an all-zero first page */
    ASSERT_EQ(pwrite(fd, buf, block, (off_t)(first + (uint64_t)k * step)), (ssize_t)block);
  }
  free(buf);
  close(fd);
}

static uint64_t allocated(const char *path) {
  struct stat st;
  ASSERT(stat(path, &st) == 0);
  return (uint64_t)st.st_blocks * 512;
}

/* 20 MiB holding 20,480 isolated 512-byte pages, every other KiB. */
TEST(fragmented_file_moves_in_full_requests_both_ways) {
  clirun r = {0};
  char url[512], src[256], back[256];
  blob_url("frag.mdf", url, sizeof url);
  clirun_path("frag.img", src, sizeof src);
  clirun_path("frag.back", back, sizeof back);
  write_pattern(src, 20 * MiB, 0, 1 * KiB, 512, 20480);

  XIO(&r, "--json", "put", src, url);
  EXPECT_EXIT(&r, 0);
  int writes = 0;
  /* five requests of 4 MiB less the zero page that ends each */
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", &writes), 20 * MiB - 5 * 512);
  ASSERT_EQ(writes, 5);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "writes") == 5);
  ASSERT(clirun_num(j, "bytes_bridged") == (double)(20480 - 5) * 512);
  cJSON_Delete(j);

  XIO(&r, "--json", "get", url, back);
  EXPECT_EXIT(&r, 0);
  int reads = 0;
  /* five reads of 4 MiB less the zero page that ends each */
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", &reads), 20 * MiB - 5 * 512);
  ASSERT_EQ(reads, 5);
  clirun_expect_same_files(src, back);
  remove(src);
  remove(back);
  clirun_free(&r);
}

/* 6 MiB holding 3,072 isolated 512-byte pages, 2 KiB apart: a gap three times the
 * data is not worth billing, so put writes page by page; get reads through the
 * gaps, in two requests of at most 4 MiB. */
TEST(pages_further_apart_are_written_one_by_one_and_read_through_in_two_requests) {
  clirun r = {0};
  char url[512], src[256], back[256];
  blob_url("apart.mdf", url, sizeof url);
  clirun_path("apart.img", src, sizeof src);
  clirun_path("apart.back", back, sizeof back);
  write_pattern(src, 6 * MiB, 0, 2 * KiB, 512, 3072);

  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  int writes = 0;
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", &writes), 3072 * 512);
  ASSERT_EQ(writes, 3072);

  XIO(&r, "--json", "get", url, back);
  EXPECT_EXIT(&r, 0);
  int reads = 0;
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", &reads), 6 * MiB - 2 * 1536);
  ASSERT_EQ(reads, 2);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "ranges") == 3072);
  ASSERT(clirun_num(j, "reads") == 2);
  /* no gap of 1.5 KiB holds a whole 4 KiB block, so each read is written in one
   * piece, all but its last, partial block with O_DIRECT (on ext4), not as 3,072
   * small buffered writes */
  struct statfs fs;
  if (statfs(clirun_dir(), &fs) == 0 && fs.f_type == EXT4_MAGIC)
    ASSERT(clirun_num(j, "bytes_direct") == (double)(6 * MiB - 2 * 4 * KiB));
  cJSON_Delete(j);
  clirun_expect_same_files(src, back);
  remove(src);
  remove(back);
  clirun_free(&r);
}

/* 16 MiB with a 4 KiB block every 64 KiB: get reads it in four requests, and the
 * gaps it read through stay holes in the local file. */
TEST(gaps_read_through_stay_holes_locally) {
  clirun r = {0};
  char url[512], src[256], back[256];
  blob_url("holes.mdf", url, sizeof url);
  clirun_path("holes.img", src, sizeof src);
  clirun_path("holes.back", back, sizeof back);
  write_pattern(src, 16 * MiB, 0, 64 * KiB, 4 * KiB, 256);

  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  int writes = 0;
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", &writes), 256 * 4 * KiB);
  ASSERT_EQ(writes, 256);

  XIO(&r, "get", url, back);
  EXPECT_EXIT(&r, 0);
  int reads = 0;
  clirun_trace_sum(&r, "XIOTypeReadFile", &reads);
  ASSERT_EQ(reads, 4);
  clirun_expect_same_files(src, back);
  /* 1 MiB of data; writing the gaps too would allocate all 16 MiB */
  ASSERT(allocated(back) <= 2 * MiB);
  remove(src);
  remove(back);
  clirun_free(&r);
}

/* 256 MiB with 64 scattered 4 KiB blocks, one in each 4 MiB at least 1 MiB apart. */
TEST(mostly_empty_file_costs_a_request_per_block) {
  clirun r = {0};
  char url[512], src[256], back[256];
  blob_url("empty.mdf", url, sizeof url);
  clirun_path("empty.img", src, sizeof src);
  clirun_path("empty.back", back, sizeof back);
  int fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT(fd >= 0 && ftruncate(fd, (off_t)(256 * MiB)) == 0);
  char block[4096];
  for (int k = 0; k < 64; k++) {
    test_fill_random(block, sizeof block, (uint64_t)k + 100);
    block[0] = 1;
    uint64_t off = (uint64_t)k * 4 * MiB + (uint64_t)((k * 37) % 768) * 4 * KiB;
    ASSERT_EQ(pwrite(fd, block, sizeof block, (off_t)off), (ssize_t)sizeof block);
  }
  close(fd);

  XIO(&r, "--json", "put", src, url);
  EXPECT_EXIT(&r, 0);
  int writes = 0;
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", &writes), 64 * 4 * KiB);
  ASSERT_EQ(writes, 64);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "bytes_bridged") == 0);
  cJSON_Delete(j);

  XIO(&r, "--json", "get", url, back);
  EXPECT_EXIT(&r, 0);
  int reads = 0;
  ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", &reads), 64 * 4 * KiB);
  ASSERT_EQ(reads, 64);
  clirun_expect_same_files(src, back);
  ASSERT(allocated(back) <= 512 * KiB); /* 256 KiB of data */
  remove(src);
  remove(back);
  clirun_free(&r);
}

TEST(transfer_options_take_in_flight_and_checksum) {
  clirun r = {0};
  char url[512], src[256], back[256];
  blob_url("opts.mdf", url, sizeof url);
  clirun_path("opts.img", src, sizeof src);
  clirun_path("opts.back", back, sizeof back);
  write_pattern(src, 9 * MiB, 0, 1 * MiB, 256 * KiB, 9);
  const char *sums[] = {"md5", "none", "crc64"};
  for (int i = 0; i < 3; i++) {
    XIO(&r, "put", src, url, "--force", "--in-flight", "1", "--checksum", sums[i]);
    EXPECT_EXIT(&r, 0);
    int writes = 0;
    ASSERT_U64_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", &writes), 9 * 256 * KiB);
    ASSERT_EQ(writes, 9);
    XIO(&r, "get", url, back, "--force", "--in-flight=64");
    EXPECT_EXIT(&r, 0);
    clirun_expect_same_files(src, back);
  }
  remove(src);
  remove(back);
  clirun_free(&r);
}

TEST(transfer_options_refuse_bad_values) {
  clirun r = {0};
  const char *bad[] = {"0", "65", "-1", "8x", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    XIO(&r, "put", "a.img", "http://127.0.0.1:1/c/b", "--in-flight", bad[i]);
    EXPECT_EXIT(&r, 2);
    ASSERT_CONTAINS(r.err, "--in-flight");
    XIO(&r, "get", "http://127.0.0.1:1/c/b", "a.img", "--in-flight", bad[i]);
    EXPECT_EXIT(&r, 2);
    ASSERT_CONTAINS(r.err, "--in-flight");
  }
  XIO(&r, "put", "a.img", "http://127.0.0.1:1/c/b", "--checksum", "sha1");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "bad --checksum 'sha1': use crc64, md5 or none");
  XIO(&r, "put", "a.img", "http://127.0.0.1:1/c/b", "--checksum");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "--checksum needs a value");
  XIO(&r, "get", "http://127.0.0.1:1/c/b", "a.img", "--checksum", "md5");
  EXPECT_EXIT(&r, 2); /* reads carry no transactional checksum */
  ASSERT_CONTAINS(r.err, "unknown option --checksum");
  ASSERT_STR_EQ(r.trace, ""); /* nothing was sent */
  clirun_free(&r);
}
