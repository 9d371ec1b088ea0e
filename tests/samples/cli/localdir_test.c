/*
 * localdir_test.c - a directory as the local end of a transfer, as cp(1) takes
 * one: get URL DIR (and cp URL DIR) writes DIR/NAME, NAME the last segment of the
 * blob's name (decoded), and put LOCAL DIR writes DIR/ and LOCAL's name; an
 * existing DIR/NAME needs --force as LOCAL does; and what cannot be written (DIR/NAME
 * itself a directory, no name to take, a LOCAL ending in '/' that is no directory)
 * is refused before anything is downloaded.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clirun.h"
#include "scratch.h"
#include "test.h"
#include "util.h"

/* A 10,000-byte local file of seed `seed` at `path`. */
static void small_file(const char *path, uint64_t seed) {
  static char data[10000];
  test_fill_random(data, sizeof data, seed);
  clirun_write_file(path, data, sizeof data);
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

TEST(get_into_a_directory_writes_the_blob_name_there) {
  clirun r = {0};
  char container[64], url[512], spaced[512], src[512], dir[512], dest[600], partial[700];
  clirun_container(container, sizeof container);
  clirun_url(container, "db/files/data.mdf", url, sizeof url);
  clirun_url(container, "db/my%20file.mdf", spaced, sizeof spaced);
  clirun_path("dirsrc.bin", src, sizeof src);
  clirun_path("into", dir, sizeof dir);
  ASSERT_EQ(mkdir(dir, 0700), 0);
  small_file(src, 21);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "put", src, spaced);
  EXPECT_EXIT(&r, 0);

  snprintf(dest, sizeof dest, "%s/data.mdf", dir);
  snprintf(partial, sizeof partial, "%s.xio-partial", dir);
  XIO(&r, "get", url, dir);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, dest);
  clirun_expect_same_files(src, dest);
  ASSERT(is_dir(dir));
  ASSERT(access(partial, F_OK) != 0);
  /* It exists now: refused without --force, before anything is read. */
  XIO(&r, "get", url, dir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "data.mdf already exists; --force overwrites it");
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", NULL), 0);
  XIO(&r, "get", "--force", url, dir);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, dest);
  remove(dest);

  /* "DIR/" says the same; cp to a directory is get; the name is decoded. */
  char slashed[600];
  snprintf(slashed, sizeof slashed, "%s/", dir);
  XIO(&r, "get", url, slashed);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, dest);
  remove(dest);
  XIO(&r, "cp", url, dir);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, dest);
  snprintf(dest, sizeof dest, "%s/my file.mdf", dir);
  XIO(&r, "get", spaced, dir);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, dest);

  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", spaced);
  EXPECT_EXIT(&r, 0);
  test_remove_tree(dir);
  remove(src);
  clirun_free(&r);
}

/* What cannot be written is refused before any read: the file's place in DIR taken
 * by a directory (even with --force), a source with no name to take (a container),
 * a LOCAL that ends in '/' but names no directory. */
TEST(get_refuses_at_once_a_local_path_it_cannot_write) {
  clirun r = {0};
  char container[64], url[512], src[512], dir[512], taken[600], nodir[600];
  clirun_container(container, sizeof container);
  clirun_url(container, "taken.mdf", url, sizeof url);
  clirun_path("takensrc.bin", src, sizeof src);
  clirun_path("holder", dir, sizeof dir);
  snprintf(taken, sizeof taken, "%s/taken.mdf", dir);
  snprintf(nodir, sizeof nodir, "%s/none/", dir);
  ASSERT_EQ(mkdir(dir, 0700), 0);
  ASSERT_EQ(mkdir(taken, 0700), 0);
  small_file(src, 22);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);

  XIO(&r, "get", "--force", url, dir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "taken.mdf is a directory");
  ASSERT_NOT_CONTAINS(r.err, "rename failed");
  ASSERT_STR_EQ(r.trace, ""); /* refused before the source was even opened */
  ASSERT(is_dir(taken));
  /* A container has no name to give a file in DIR. */
  char curl[512];
  clirun_url(container, NULL, curl, sizeof curl);
  XIO(&r, "get", curl, dir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "is a directory and the source names no file to make in it");
  ASSERT_STR_EQ(r.trace, "");

  XIO(&r, "get", url, nodir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "none/");
  ASSERT_CONTAINS(r.err, "No such file or directory");
  ASSERT_STR_EQ(r.trace, "");

  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  test_remove_tree(dir);
  remove(src);
  clirun_free(&r);
}

/* put to a local directory writes DIR/ and LOCAL's name. */
TEST(put_into_a_local_directory_writes_the_local_name_there) {
  clirun r = {0};
  char src[512], dir[512], dest[600];
  clirun_path("putsrc.bin", src, sizeof src);
  clirun_path("putdir", dir, sizeof dir);
  snprintf(dest, sizeof dest, "%s/putsrc.bin", dir);
  ASSERT_EQ(mkdir(dir, 0700), 0);
  small_file(src, 23);
  XIO(&r, "put", src, dir);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, dest);
  ASSERT(is_dir(dir));
  XIO(&r, "put", src, dir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "putsrc.bin already exists; --force replaces it");
  test_remove_tree(dir);
  remove(src);
  clirun_free(&r);
}
