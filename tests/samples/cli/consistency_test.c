/*
 * consistency_test.c - a copy is one version of its source or nothing: a get (or a
 * cp to a local file) of a blob that another client writes while it downloads
 * fails, exits 1, says what happened and what to do, and leaves neither LOCAL nor
 * a partial file; with --snapshot the same download succeeds with the content the
 * blob had when the get began, and the snapshot it took is gone afterwards.
 *
 * The writer strikes once the downloader's trace shows its first read: the blob is
 * 128 MiB read 4 MiB at a time with one read in flight, so thirty-two reads are still
 * to come when it changes.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB  ((size_t)1 << 20)
#define SIZE (128 * MiB)

static int file_has(const char *path, const char *needle) {
  char *text = test_read_file(path);
  int found = strstr(text, needle) != NULL;
  free(text);
  return found;
}

/* A blob of SIZE random bytes uploaded from the new local file `src`. */
static void make_blob(const char *name, char *url, size_t url_size, char *src, size_t src_size) {
  clirun r = {0};
  char container[64], local[64];
  clirun_container(container, sizeof container);
  clirun_url(container, name, url, url_size);
  snprintf(local, sizeof local, "%s.src", name);
  clirun_path(local, src, src_size);
  clirun_make_source(src, SIZE, 7);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

/* Another client's write: 1 MiB of zeros, by clear, at 100 MiB. */
static void change_blob(const char *url) {
  clirun r = {0};
  XIO(&r, "zero", url, "--offset", "100M", "--length", "1M", "--init", "clear");
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

/* Runs `xio --trace T ARGS...` in the background with one read in flight, changes
 * `url` once the trace shows a read, and returns the exit status; stdout and
 * stderr go to `outp` and `errp`. */
static int run_while_written(const char *url, const char *outp, const char *errp,
                             const char *const *args) {
  char trace[512];
  clirun_path("consistency.trace", trace, sizeof trace);
  unlink(trace);
  const char *argv[16] = {XIO_CLI_PATH, "--trace", trace};
  size_t k = 3;
  for (size_t i = 0; args[i] && k < 15; i++)
    argv[k++] = args[i];
  argv[k] = NULL;
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    setenv("AZURE_STORAGE_CONNECTION_STRING", test_dev_connection_string(), 1);
    int out = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    execv(XIO_CLI_PATH, (char *const *)argv);
    _exit(127);
  }
  struct timespec pause = {0, 2 * 1000 * 1000};
  int status = 0, seen = 0;
  while (!seen && waitpid(pid, &status, WNOHANG) == 0) {
    seen = file_has(trace, "XIOTypeReadFile");
    if (!seen) nanosleep(&pause, NULL);
  }
  if (!seen) FAIL("%s finished before a read was traced", args[0]);
  change_blob(url);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT(WIFEXITED(status));
  return WEXITSTATUS(status);
}

/* Fails the test when `path` exists. */
static void expect_absent(const char *path) {
  if (access(path, F_OK) == 0) FAIL("%s exists", path);
}

/* A get, or a cp to a local file, of a blob written meanwhile fails and keeps
 * nothing. */
static void expect_refused(const char *cmd) {
  char url[512], src[512], local[512], partial[600], outp[512], errp[512];
  make_blob(cmd, url, sizeof url, src, sizeof src);
  clirun_path("changed.bin", local, sizeof local);
  snprintf(partial, sizeof partial, "%s.xio-partial", local);
  clirun_path("changed.out", outp, sizeof outp);
  clirun_path("changed.err", errp, sizeof errp);
  unlink(local);
  const char *args[] = {cmd, url, local, "--in-flight", "1", NULL};
  if (strcmp(cmd, "cp") == 0) args[3] = NULL; /* cp takes get's default */
  int status = run_while_written(url, outp, errp, args);
  char *err = test_read_file(errp);
  if (status != 1) FAIL("%s exited %d, wanted 1; stderr:\n%s", cmd, status, err);
  ASSERT_CONTAINS(err, "changed since it was opened");
  ASSERT_CONTAINS(err, "--snapshot"); /* the hint says what to do */
  free(err);
  expect_absent(local);
  expect_absent(partial);
  remove(src);
}

TEST(get_of_a_blob_written_meanwhile_fails_and_keeps_nothing) { expect_refused("get"); }

TEST(cp_to_a_local_file_of_a_blob_written_meanwhile_fails) { expect_refused("cp"); }

TEST(get_snapshot_copies_the_blob_as_it_was_when_the_get_began) {
  char url[512], src[512], local[512], outp[512], errp[512];
  make_blob("snapget", url, sizeof url, src, sizeof src);
  clirun_path("snapget.bin", local, sizeof local);
  clirun_path("snapget.out", outp, sizeof outp);
  clirun_path("snapget.err", errp, sizeof errp);
  unlink(local);
  const char *args[] = {"--json", "get", "--snapshot", url, local, "--in-flight", "1", NULL};
  int status = run_while_written(url, outp, errp, args);
  char *out = test_read_file(outp), *err = test_read_file(errp);
  if (status != 0) FAIL("get --snapshot exited %d; stderr:\n%s", status, err);
  clirun_expect_same_files(src, local); /* the version before the change, whole */
  cJSON *j = cJSON_Parse(out);
  ASSERT(j != NULL);
  ASSERT(strlen(clirun_str(j, "snapshot")) > 0);
  ASSERT_EQ(clirun_num(j, "size"), (double)SIZE);
  cJSON_Delete(j);
  free(out);
  free(err);
  ASSERT_EQ(clirun_snapshot_count(url), 0); /* the snapshot taken for the copy is deleted */
  /* The blob itself did change: a plain get now has the zeros. */
  clirun r = {0};
  remove(local);
  XIO(&r, "get", url, local);
  EXPECT_EXIT(&r, 0);
  int fd = open(local, O_RDONLY);
  char *buf = malloc(MiB);
  ASSERT_EQ(pread(fd, buf, MiB, 100 * (off_t)MiB), (ssize_t)MiB);
  ASSERT(test_all_zero(buf, MiB));
  free(buf);
  close(fd);
  remove(local);
  remove(src);
  clirun_free(&r);
}

TEST(get_snapshot_of_a_leased_blob_and_cp_snapshot) {
  clirun r = {0};
  char container[64], url[512], src[512], local[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "held.mdf", url, sizeof url);
  clirun_path("held.src", src, sizeof src);
  clirun_path("held.bin", local, sizeof local);
  clirun_make_source(src, 4 * MiB, 3);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  /* Another client holds the lease, as a database in use does: the snapshot is taken
   * and deleted without it. */
  XIO(&r, "lease", "acquire", url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "get", "--snapshot", url, local);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "read from snapshot");
  int snaps = 0, deletes = 0;
  clirun_trace_sum(&r, "XIOTypeSnapshot", &snaps);
  clirun_trace_sum(&r, "XIOTypeDeleteFile", &deletes);
  ASSERT_EQ(snaps, 1);
  ASSERT_EQ(deletes, 1);
  clirun_expect_same_files(src, local);
  ASSERT_EQ(clirun_snapshot_count(url), 0);
  remove(local);
  XIO(&r, "cp", "--snapshot", url, local);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, local);
  ASSERT_EQ(clirun_snapshot_count(url), 0);
  /* --snapshot copies a blob to a local file, nothing else. */
  XIO(&r, "cp", "--snapshot", src, url);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "--snapshot");
  remove(local);
  remove(src);
  clirun_free(&r);
}
