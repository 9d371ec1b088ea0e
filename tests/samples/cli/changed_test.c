/*
 * changed_test.c - put of a local file that changes while it is uploaded never
 * leaves a blob that looks whole: a file that grows, one rewritten in place (the
 * same size) and a path renamed over by another file each end the put with exit 1,
 * a message naming what changed and saying the blob is marked incomplete and to put
 * again, and the blob marked incomplete (xio stat says so) until put --resume
 * finishes it with what the file holds then.
 *
 * The change comes at a known point: the proxy of cliproxy.c holds a Put Page
 * while the test changes the file, and the put runs one write at a time
 * (--in-flight 1), so what it has read by then is fixed. Holding the second of six
 * writes, the put has read the first three chunks and reads the rest after the
 * change; holding the second of two, it has read the whole file before the change.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cliproxy.h"
#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB ((size_t)1 << 20)

typedef enum change { GROW, REWRITE, RENAME } change;

/* Changes the file at `path` of `size` bytes as `how` says. */
static void change_file(const char *path, size_t size, change how) {
  static char block[MiB];
  test_fill_random(block, sizeof block, 4242);
  if (how == GROW) {
    int fd = open(path, O_WRONLY | O_APPEND);
    ASSERT(fd >= 0);
    ASSERT_EQ(write(fd, block, sizeof block), (ssize_t)sizeof block);
    close(fd);
  } else if (how == REWRITE) { /* the first and the last MiB, the size unchanged */
    int fd = open(path, O_WRONLY);
    ASSERT(fd >= 0);
    ASSERT_EQ(pwrite(fd, block, sizeof block, 0), (ssize_t)sizeof block);
    ASSERT_EQ(pwrite(fd, block, sizeof block, (off_t)(size - MiB)), (ssize_t)sizeof block);
    close(fd);
  } else { /* another file of the same size takes the name */
    char other[600];
    snprintf(other, sizeof other, "%s.new", path);
    clirun_make_source(other, size, 99);
    ASSERT_EQ(rename(other, path), 0);
  }
}

/* Puts a `size`-byte file, changes it as `how` says while the proxy holds the
 * put's write number `held` (0-based), and checks the outcome: the failure, its
 * message, the mark, and put --resume finishing the blob with the file's new
 * content. */
static void put_while_changing(const char *name, size_t size, int held, change how,
                               const char *why) {
  clirun r = {0};
  clirun_bg b;
  char container[64], url[512], src[512], back[512], back_name[64];
  clirun_container(container, sizeof container);
  cliproxy_url(container, name, url, sizeof url);
  clirun_path(name, src, sizeof src);
  snprintf(back_name, sizeof back_name, "%s.back", name);
  clirun_path(back_name, back, sizeof back);
  clirun_make_source(src, size, 5);
  struct timespec hour_ago[2];
  clock_gettime(CLOCK_REALTIME, &hour_ago[0]);
  hour_ago[0].tv_sec -= 3600;
  hour_ago[1] = hour_ago[0];
  ASSERT(utimensat(AT_FDCWD, src, hour_ago, 0) == 0); /* any write moves its times */
  cliproxy_hold("PUT", "comp=page", held);
  XIO_START_PROXIED(&b, 0, "put", "--in-flight", "1", src, url);
  int no = cliproxy_wait(&b);
  change_file(src, size, how);
  cliproxy_check_held(no);
  clirun_finish(&b, &r, 120);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "changed while it was being uploaded");
  ASSERT_CONTAINS(r.err, why);
  ASSERT_CONTAINS(r.err, "is marked incomplete; put again");
  ASSERT_CONTAINS(r.err, "hint: the local file was written while this command read it");
  ASSERT_CONTAINS(r.err, src);
  ASSERT_NOT_CONTAINS(r.trace, "XIOTypeDeleteFile");
  XIO_PROXIED(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "INCOMPLETE");
  XIO_PROXIED(&r, "put", "--resume", src, url);
  EXPECT_EXIT(&r, 0);
  XIO_PROXIED(&r, "get", url, back);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, back);
  XIO_PROXIED(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  remove(back);
  clirun_free(&r);
}

/* Grows by a MiB after three of six chunks were read: the put stops before it
 * reads on. */
TEST(put_of_a_file_that_grows_during_the_upload_fails_and_leaves_it_incomplete) {
  put_while_changing("growing.mdf", 24 * MiB, 1, GROW, "it grew from 25165824 to 26214400 bytes");
}

/* Rewritten in place, the size unchanged, after the last read: the check after
 * the last read sees it. */
TEST(put_of_a_file_rewritten_in_place_during_the_upload_fails_and_leaves_it_incomplete) {
  put_while_changing("rewritten.mdf", 8 * MiB, 1, REWRITE, "it was modified");
}

/* Renamed over by another file of the same size: the path names another file. */
TEST(put_of_a_path_renamed_over_during_the_upload_fails_and_leaves_it_incomplete) {
  put_while_changing("renamed.mdf", 24 * MiB, 1, RENAME, "the path now names another file");
}
