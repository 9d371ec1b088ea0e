/*
 * partial_test.c - the partial file of a get, LOCAL.xio-partial, belongs to one run:
 * a second get into the same LOCAL while the first runs is refused, naming the
 * first one's process, and the first completes with LOCAL holding what it says it
 * got; a symbolic link or a hard link at the partial path is never followed (the
 * file it leads to keeps its bytes, a dangling link's target is not made); a
 * partial file an interrupted run left is replaced, holes and all. LOCAL's mode:
 * the umask's when new, kept when replaced with --force (as cp(1) keeps it), and
 * the partial file is 0600 while it is written.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cliproxy.h"
#include "clirun.h"
#include "child.h"
#include "test.h"
#include "util.h"

#define MiB ((size_t)1 << 20)

static const char victim_text[] = "the bytes of a file the get must never touch\n";

static mode_t mode_of(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) FAIL("cannot stat %s", path);
  return st.st_mode & 07777;
}

/* Fails the test unless `path` still holds victim_text, and nothing else. */
static void expect_victim_untouched(const char *path) {
  char *got = test_read_file(path);
  ASSERT(got != NULL);
  ASSERT_STR_EQ(got, victim_text);
  free(got);
}

/* `xio put SRC URL` of a 4 MiB file of seed `seed`, through the proxy. */
static void put_source(clirun *r, const char *src, const char *url, uint64_t seed) {
  clirun_make_source(src, 4 * MiB, seed);
  XIO_PROXIED(r, "put", src, url);
  EXPECT_EXIT(r, 0);
}

TEST(a_second_get_into_a_local_file_being_written_is_refused) {
  clirun r = {0};
  clirun_bg bg;
  char container[64], first[512], second[512], src1[512], src2[512], local[512], partial[600];
  char holder[64];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "first.mdf", first, sizeof first);
  cliproxy_url(container, "second.mdf", second, sizeof second);
  clirun_path("two-writers-1.bin", src1, sizeof src1);
  clirun_path("two-writers-2.bin", src2, sizeof src2);
  clirun_path("two-writers.local", local, sizeof local);
  snprintf(partial, sizeof partial, "%s.xio-partial", local);
  put_source(&r, src1, first, 31);
  put_source(&r, src2, second, 32);

  /* The first get's read is held (its first GET lists the ranges): by then its
   * partial file is open, private while it is written. */
  cliproxy_hold("GET", "/first.mdf", 1);
  XIO_START_PROXIED(&bg, 0, "get", first, local);
  int no = cliproxy_wait(&bg);
  snprintf(holder, sizeof holder, "process %d", (int)bg.pid);
  ASSERT_EQ(mode_of(partial), 0600);
  XIO_PROXIED(&r, "get", second, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, partial);
  ASSERT_CONTAINS(r.err, "is being written by another run");
  ASSERT_CONTAINS(r.err, holder);
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", NULL), 0);
  /* Nor does --resume take the file of a run that goes on. */
  XIO_PROXIED(&r, "get", "--resume", first, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, holder);
  cliproxy_check_held(no);

  /* The first get ends well, and LOCAL holds what it says it got. */
  clirun_finish(&bg, &r, 120);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "got ");
  ASSERT_CONTAINS(r.out, local);
  clirun_expect_same_files(src1, local);
  ASSERT(access(partial, F_OK) != 0);
  XIO_PROXIED(&r, "rm", first);
  EXPECT_EXIT(&r, 0);
  XIO_PROXIED(&r, "rm", second);
  EXPECT_EXIT(&r, 0);
  remove(src1);
  remove(src2);
  remove(local);
  clirun_free(&r);
}

TEST(a_link_at_the_partial_path_is_never_followed) {
  clirun r = {0};
  char container[64], url[512], src[512], local[512], partial[600], victim[512], nowhere[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "linked.mdf", url, sizeof url);
  clirun_path("linked-src.bin", src, sizeof src);
  clirun_path("linked.local", local, sizeof local);
  clirun_path("linked-victim.txt", victim, sizeof victim);
  clirun_path("linked-nowhere.txt", nowhere, sizeof nowhere);
  snprintf(partial, sizeof partial, "%s.xio-partial", local);
  clirun_make_source(src, 4 * MiB, 33);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  clirun_write_file(victim, victim_text, strlen(victim_text));

  /* A symbolic link: refused, whichever way the get is asked. */
  ASSERT_EQ(symlink(victim, partial), 0);
  const char *const modes[] = {NULL, "--force", "--resume"};
  for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
    if (modes[i])
      XIO(&r, "get", modes[i], url, local);
    else
      XIO(&r, "get", url, local);
    EXPECT_EXIT(&r, 1);
    ASSERT_CONTAINS(r.err, partial);
    ASSERT_CONTAINS(r.err, "is a symbolic link");
    expect_victim_untouched(victim);
    ASSERT(access(local, F_OK) != 0);
    struct stat st;
    ASSERT(lstat(partial, &st) == 0 && S_ISLNK(st.st_mode)); /* left for its owner to see */
  }

  /* A dangling one: nothing is made where it leads. */
  ASSERT_EQ(unlink(partial), 0);
  ASSERT_EQ(symlink(nowhere, partial), 0);
  XIO(&r, "get", url, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "is a symbolic link");
  ASSERT(access(nowhere, F_OK) != 0);

  /* A hard link to a file elsewhere: refused too. */
  ASSERT_EQ(unlink(partial), 0);
  ASSERT_EQ(link(victim, partial), 0);
  XIO(&r, "get", url, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "hard links");
  expect_victim_untouched(victim);
  ASSERT(access(local, F_OK) != 0);

  /* Once the path is clear, the get goes through. */
  ASSERT_EQ(unlink(partial), 0);
  XIO(&r, "get", url, local);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, local);
  expect_victim_untouched(victim);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  remove(local);
  remove(victim);
  clirun_free(&r);
}

TEST(a_partial_file_an_interrupted_run_left_is_replaced) {
  clirun r = {0};
  char container[64], url[512], src[512], local[512], partial[600];
  clirun_container(container, sizeof container);
  clirun_url(container, "stale.mdf", url, sizeof url);
  clirun_path("stale-src.bin", src, sizeof src);
  clirun_path("stale.local", local, sizeof local);
  snprintf(partial, sizeof partial, "%s.xio-partial", local);
  /* 8 MiB whose second half is a hole, so the blob's second half is no range. */
  clirun_make_source(src, 4 * MiB, 34);
  ASSERT_EQ(truncate(src, (off_t)(8 * MiB)), 0);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  /* Left by a run that no longer holds it: 12 MiB of other bytes. */
  clirun_make_source(partial, 12 * MiB, 35);
  XIO(&r, "get", url, local);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, local); /* its size, and zeros where the hole is */
  ASSERT(access(partial, F_OK) != 0);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  remove(local);
  clirun_free(&r);
}

TEST(get_gives_a_new_file_the_umask_mode_and_keeps_a_replaced_ones) {
  clirun r = {0};
  char container[64], url[512], src[512], local[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "modes.mdf", url, sizeof url);
  clirun_path("modes-src.bin", src, sizeof src);
  clirun_path("modes.local", local, sizeof local);
  clirun_make_source(src, 4 * MiB, 36);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  mode_t old = umask(022);
  XIO(&r, "get", url, local);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(mode_of(local), 0644);
  /* Replaced with --force: its mode stays, whatever the umask says. */
  const mode_t kept[] = {0600, 0640, 0604};
  for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
    ASSERT_EQ(chmod(local, kept[i]), 0);
    XIO(&r, "get", "--force", url, local);
    EXPECT_EXIT(&r, 0);
    ASSERT_EQ(mode_of(local), kept[i]);
    clirun_expect_same_files(src, local);
  }
  /* A new file under another umask. */
  ASSERT_EQ(remove(local), 0);
  umask(077);
  XIO(&r, "get", url, local);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(mode_of(local), 0600);
  umask(old);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  remove(local);
  clirun_free(&r);
}
