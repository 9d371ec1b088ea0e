/*
 * local_test.c - the commands on local paths (the local backend): create, grow,
 * zero (any alignment), stat, ranges (data extents), rm, and lease refused.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

TEST(local_create_and_stat) {
  clirun r = {0};
  char path[256];
  clirun_path("data.mdf", path, sizeof path);
  XIO(&r, "create", path, "--size", "1M", "--kind", "log");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "created");
  struct stat st;
  ASSERT(stat(path, &st) == 0);
  ASSERT_EQ(st.st_size, 1 << 20);
  XIO(&r, "--json", "stat", path);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(j, "backend"), "local");
  ASSERT_STR_EQ(clirun_str(j, "kind"), "log");
  ASSERT(clirun_num(j, "size") == 1 << 20);
  cJSON_Delete(j);
  XIO(&r, "stat", path);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "local");
  ASSERT_CONTAINS(r.out, "1048576 bytes");
  XIO(&r, "create", path, "--size", "1M");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "hint: the target already exists");
  clirun_free(&r);
}

TEST(local_grow) {
  clirun r = {0};
  char path[256];
  clirun_path("grow.ldf", path, sizeof path);
  XIO(&r, "create", path, "--size", "64K", "--kind", "log");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "grow", path, "--size", "3M");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "grew");
  struct stat st;
  ASSERT(stat(path, &st) == 0);
  ASSERT_EQ(st.st_size, 3 << 20);
  XIO(&r, "grow", path, "--size", "1M");
  EXPECT_EXIT(&r, 2);
  clirun_free(&r);
}

TEST(local_zero_any_alignment) {
  clirun r = {0};
  char path[256], data[8192], back[8192];
  clirun_path("zero.mdf", path, sizeof path);
  test_fill_random(data, sizeof data, 9);
  clirun_write_file(path, data, sizeof data);
  XIO(&r, "zero", path, "--offset", "100", "--length", "1000");
  EXPECT_EXIT(&r, 0);
  int fd = open(path, O_RDONLY);
  ASSERT_EQ(pread(fd, back, sizeof back, 0), sizeof back);
  close(fd);
  ASSERT_MEM_EQ(back, data, 100);
  ASSERT(test_all_zero(back + 100, 1000));
  ASSERT_MEM_EQ(back + 1100, data + 1100, sizeof data - 1100);
  clirun_free(&r);
}

TEST(local_ranges_are_data_extents) {
  clirun r = {0};
  char path[256], data[4096];
  clirun_path("sparse.mdf", path, sizeof path);
  test_fill_random(data, sizeof data, 4);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT(ftruncate(fd, 8 << 20) == 0);
  ASSERT_EQ(pwrite(fd, data, sizeof data, 0), sizeof data);
  ASSERT_EQ(pwrite(fd, data, sizeof data, 4 << 20), sizeof data);
  close(fd);
  XIO(&r, "--json", "ranges", path);
  EXPECT_EXIT(&r, 0);
  cJSON *a = clirun_json(&r);
  ASSERT_EQ(cJSON_GetArraySize(a), 2);
  ASSERT(clirun_num(cJSON_GetArrayItem(a, 0), "start") == 0);
  ASSERT(clirun_num(cJSON_GetArrayItem(a, 1), "start") == 4 << 20);
  ASSERT(clirun_num(cJSON_GetArrayItem(a, 1), "length") >= 4096);
  cJSON_Delete(a);
  XIO(&r, "ranges", path);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "2 ranges");
  clirun_free(&r);
}

TEST(local_rm) {
  clirun r = {0};
  char path[256];
  clirun_path("gone.mdf", path, sizeof path);
  XIO(&r, "create", path, "--size", "4K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", path);
  EXPECT_EXIT(&r, 0);
  ASSERT(access(path, F_OK) != 0);
  XIO(&r, "rm", path);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "No such file");
  ASSERT_CONTAINS(r.err, "hint: no such file");
  XIO(&r, "lease", "acquire", path);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "leases are held on blobs");
  clirun_free(&r);
}
