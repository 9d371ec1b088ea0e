/*
 * interrupt_test.c - an interrupted transfer never looks complete: a put stopped by
 * SIGTERM once its first writes are traced exits 143 and leaves the blob marked
 * incomplete (stat says so, opening it is refused) until put --resume finishes it
 * byte for byte; a get stopped the same way leaves nothing at LOCAL, only
 * LOCAL.xio-partial, which get --resume completes.
 *
 * A stop signal in any other phase exits 128 + the signal too: while put waits for
 * the target's creation or for its final mark as complete, while get waits to
 * open its source (the proxy of cliproxy.c holds that request while the test
 * sends SIGTERM). Nothing blocks before those phases: a put of a FIFO, which no
 * process writes, is refused at once, as is any LOCAL that is not a regular file.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cliproxy.h"
#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB ((size_t)1 << 20)
#define BIG (512 * MiB) /* large enough to be still running when the signal comes */

static int file_has(const char *path, const char *needle) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f))
    found = strstr(line, needle) != NULL;
  fclose(f);
  return found;
}

/* Runs `xio --trace TRACE CMD A B` in the background, sends SIGTERM once the trace
 * shows a `type` request, and returns its exit status; its stderr goes to `errp`. */
static int run_and_stop(const char *cmd, const char *a, const char *b, const char *type,
                        const char *errp) {
  char trace[512];
  clirun_path("interrupt.trace", trace, sizeof trace);
  unlink(trace);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    setenv("AZURE_STORAGE_CONNECTION_STRING", test_dev_connection_string(), 1);
    int fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    execl(XIO_CLI_PATH, XIO_CLI_PATH, "--trace", trace, cmd, a, b, (char *)NULL);
    _exit(127);
  }
  struct timespec pause = {0, 2 * 1000 * 1000};
  int status = 0, seen = 0;
  while (!seen && waitpid(pid, &status, WNOHANG) == 0) {
    seen = file_has(trace, type);
    if (!seen) nanosleep(&pause, NULL);
  }
  if (!seen) FAIL("%s finished before a %s request was traced", cmd, type);
  kill(pid, SIGTERM);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static char *slurp_text(const char *path) {
  FILE *f = fopen(path, "r");
  ASSERT(f != NULL);
  static char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

TEST(put_interrupted_by_sigterm_is_marked_until_resumed) {
  clirun r = {0};
  char container[64], url[512], src[512], back[512], errp[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "stopped.mdf", url, sizeof url);
  clirun_path("stopped-src.bin", src, sizeof src);
  clirun_path("stopped-back.bin", back, sizeof back);
  clirun_path("put.err", errp, sizeof errp);
  clirun_make_source(src, BIG, 1);
  ASSERT_EQ(run_and_stop("put", src, url, "XIOTypeWriteFile", errp), 143);
  const char *err = slurp_text(errp);
  ASSERT_CONTAINS(err, "interrupted by SIGTERM");
  ASSERT_CONTAINS(err, "marked incomplete");
  ASSERT_CONTAINS(err, "put --resume");
  XIO(&r, "--json", "stat", url);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "incomplete")));
  ASSERT(clirun_num(j, "size") == (double)BIG);
  cJSON_Delete(j);
  XIO(&r, "stat", url);
  ASSERT_CONTAINS(r.out, "INCOMPLETE");
  /* Opening it through the file layer is refused, so neither a snapshot nor a get
   * takes it for a whole file. */
  XIO(&r, "snapshot", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "is incomplete");
  XIO(&r, "get", url, back);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "is incomplete");
  ASSERT(access(back, F_OK) != 0);
  /* --resume finishes it, sending less than the whole file. */
  XIO(&r, "--json", "put", "--resume", src, url);
  EXPECT_EXIT(&r, 0);
  j = clirun_json(&r);
  ASSERT(clirun_num(j, "bytes_sent") < (double)BIG);
  cJSON_Delete(j);
  XIO(&r, "--json", "stat", url);
  EXPECT_EXIT(&r, 0);
  j = clirun_json(&r);
  ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(j, "incomplete")));
  cJSON_Delete(j);
  XIO(&r, "get", url, back);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, back);
  remove(back);

  /* A get stopped the same way leaves nothing at LOCAL. */
  char partial[600];
  snprintf(partial, sizeof partial, "%s.xio-partial", back);
  ASSERT_EQ(run_and_stop("get", url, back, "XIOTypeReadFile", errp), 143);
  err = slurp_text(errp);
  ASSERT_CONTAINS(err, "get interrupted by SIGTERM");
  ASSERT_CONTAINS(err, "get --resume");
  ASSERT(access(back, F_OK) != 0);
  ASSERT(access(partial, F_OK) == 0);
  XIO(&r, "--json", "get", "--resume", url, back);
  EXPECT_EXIT(&r, 0);
  j = clirun_json(&r);
  ASSERT(clirun_num(j, "bytes_fetched") < (double)BIG);
  cJSON_Delete(j);
  ASSERT(access(partial, F_OK) != 0);
  clirun_expect_same_files(src, back);
  remove(src);
  remove(back);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

/* put of something that is not a regular file is refused before anything else,
 * naming what it is: a FIFO without a writer (which would block an open), a
 * character device, a directory. */
TEST(put_of_a_fifo_without_a_writer_is_refused_at_once) {
  clirun r = {0};
  clirun_bg b;
  char container[64], url[512], fifo[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "fifo.mdf", url, sizeof url);
  clirun_path("nobody-writes.fifo", fifo, sizeof fifo);
  ASSERT_EQ(mkfifo(fifo, 0600), 0);
  XIO_START(&b, 0, "put", fifo, url);
  clirun_finish(&b, &r, 60); /* fails the test if put blocks on the FIFO */
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "is not a regular file but a FIFO (pipe)");
  ASSERT_CONTAINS(r.err, fifo);
  ASSERT_NOT_CONTAINS(r.err, "Interrupted system call");
  ASSERT_STR_EQ(r.trace, ""); /* not even the target was looked at */
  XIO(&r, "put", "/dev/null", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "/dev/null is not a regular file but a character device");
  XIO(&r, "put", clirun_dir(), url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "is not a regular file but a directory");
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "no such");
  unlink(fifo);
  clirun_free(&r);
}

/* Starts `xio put LOCAL URL` (through the proxy) or `xio get URL LOCAL`, sends
 * SIGTERM while the proxy holds the request after the first `skip` of `method`
 * whose target contains `match`, and returns how the command ended. */
static void stop_while_held(clirun *r, const char *cmd, const char *a, const char *b,
                            const char *method, const char *match, int skip) {
  clirun_bg bg;
  cliproxy_hold(method, match, skip);
  XIO_START_PROXIED(&bg, 0, cmd, a, b);
  int no = cliproxy_wait(&bg);
  ASSERT_EQ(kill(bg.pid, SIGTERM), 0);
  cliproxy_check_held(no);
  clirun_finish(&bg, r, 120);
}

/* put stopped while the target is being created: 143, and the target is marked
 * incomplete, for put --resume. */
TEST(sigterm_while_put_creates_the_target_exits_143) {
  clirun r = {0};
  char container[64], url[512], src[512];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "creating.mdf", url, sizeof url);
  clirun_path("creating.bin", src, sizeof src);
  clirun_make_source(src, 4 * MiB, 7);
  stop_while_held(&r, "put", src, url, "PUT", "/creating.mdf", 0);
  EXPECT_EXIT(&r, 143);
  ASSERT_CONTAINS(r.err, "put interrupted by SIGTERM");
  ASSERT_CONTAINS(r.err, "marked incomplete");
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", NULL), 0);
  XIO_PROXIED(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "INCOMPLETE");
  XIO_PROXIED(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  clirun_free(&r);
}

/* put stopped while its last request, the mark as complete, is on its way: the
 * upload is whole, and the command still exits 143, saying so. */
TEST(sigterm_while_put_marks_the_target_complete_exits_143) {
  clirun r = {0};
  char container[64], url[512], src[512], back[512];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "marking.mdf", url, sizeof url);
  clirun_path("marking.bin", src, sizeof src);
  clirun_path("marking.back", back, sizeof back);
  clirun_make_source(src, 4 * MiB, 8);
  stop_while_held(&r, "put", src, url, "PUT", "comp=metadata", 1);
  EXPECT_EXIT(&r, 143);
  ASSERT_CONTAINS(r.err, "SIGTERM");
  ASSERT_CONTAINS(r.err, "is complete");
  XIO_PROXIED(&r, "get", url, back);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, back);
  XIO_PROXIED(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  remove(back);
  clirun_free(&r);
}

/* get stopped while it opens its source: 143, and nothing at LOCAL, whether the
 * source holds data or none at all (no read to stop before). */
TEST(sigterm_while_get_opens_the_source_exits_143) {
  clirun r = {0};
  char container[64], url[512], empty[512], src[512], back[512], partial[600];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "opening.mdf", url, sizeof url);
  cliproxy_url(container, "empty.mdf", empty, sizeof empty);
  clirun_path("opening.bin", src, sizeof src);
  clirun_path("opening.back", back, sizeof back);
  snprintf(partial, sizeof partial, "%s.xio-partial", back);
  clirun_make_source(src, 4 * MiB, 9);
  XIO_PROXIED(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  stop_while_held(&r, "get", url, back, "HEAD", "/opening.mdf", 0);
  EXPECT_EXIT(&r, 143);
  ASSERT_CONTAINS(r.err, "get interrupted by SIGTERM");
  ASSERT(access(back, F_OK) != 0);
  remove(partial);
  XIO_PROXIED(&r, "create", empty, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  stop_while_held(&r, "get", empty, back, "HEAD", "/empty.mdf", 0);
  EXPECT_EXIT(&r, 143);
  ASSERT_CONTAINS(r.err, "get interrupted by SIGTERM");
  ASSERT(access(back, F_OK) != 0);
  ASSERT(access(partial, F_OK) != 0);
  XIO_PROXIED(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  XIO_PROXIED(&r, "rm", empty);
  EXPECT_EXIT(&r, 0);
  remove(src);
  clirun_free(&r);
}

/* get stopped while its last read is on its way: the download is whole, LOCAL
 * is in place, and the command still exits 143, saying so. */
TEST(sigterm_while_get_reads_the_last_range_exits_143) {
  clirun r = {0};
  char container[64], url[512], src[512], back[512];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "reading.mdf", url, sizeof url);
  clirun_path("reading.bin", src, sizeof src);
  clirun_path("reading.back", back, sizeof back);
  clirun_make_source(src, 4 * MiB, 10);
  XIO_PROXIED(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  /* The first GET lists the page ranges; the second is the one read. */
  stop_while_held(&r, "get", url, back, "GET", "/reading.mdf", 1);
  EXPECT_EXIT(&r, 143);
  ASSERT_CONTAINS(r.err, "SIGTERM came as the transfer finished");
  ASSERT_CONTAINS(r.err, "is complete");
  clirun_expect_same_files(src, back);
  XIO_PROXIED(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  remove(back);
  clirun_free(&r);
}
