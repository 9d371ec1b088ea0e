/*
 * resume_local_test.c - interrupted transfers into a local file, by SIGINT (exit
 * 130) and by SIGTERM (exit 143): a put to a local target is left marked
 * incomplete (stat says so, a get of it is refused) until put --resume finishes it
 * byte for byte; a get, from a blob or from a local file, leaves nothing at LOCAL,
 * only LOCAL.xio-partial, which get --resume completes; and xio ls marks a blob an
 * interrupted put left, in its table and its JSON, until the put is resumed.
 *
 * The signal comes at a point fixed by the trace, not by a clock: the program's
 * trace goes to a pipe of one page that the test stops reading once a data request
 * is traced, so the transfer cannot run on by more than a few requests (the trace
 * writer blocks) before the signal arrives; the test then drains the pipe and the
 * program winds down.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xio/auth.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB  ((size_t)1 << 20)
#define SIZE (128 * MiB) /* 32 chunks; at most 16 in flight plus a pipe of trace */

static const char *slurp(const char *path) {
  static char buf[8192];
  FILE *f = fopen(path, "r");
  ASSERT(f != NULL);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Reads the pipe until `needle` has gone by; 0 if the writer ended first. */
static int read_until(int fd, const char *needle) {
  char buf[8192], tail[256] = "";
  for (;;) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 60000) <= 0) FAIL("no trace from the program for 60 s");
    ssize_t n = read(fd, buf, sizeof buf - 1);
    if (n < 0 && errno == EAGAIN) continue;
    if (n <= 0) return 0;
    buf[n] = '\0';
    char joined[sizeof tail + sizeof buf];
    snprintf(joined, sizeof joined, "%s%s", tail, buf); /* a needle split across reads */
    if (strstr(joined, needle)) return 1;
    size_t k = strlen(joined), keep = k < 128 ? k : 128;
    memcpy(tail, joined + k - keep, keep + 1);
  }
}

/* Runs `xio --trace PIPE CMD A B`, sends `sig` once the trace shows a request of
 * `type`, and returns the exit status; stderr goes to `errp`. */
static int run_and_signal(const char *cmd, const char *a, const char *b, const char *type, int sig,
                          const char *errp) {
  char fifo[512];
  clirun_path("resume.fifo", fifo, sizeof fifo);
  unlink(fifo);
  ASSERT_EQ(mkfifo(fifo, 0600), 0);
  int fd = open(fifo, O_RDONLY | O_NONBLOCK); /* opened first: the pipe exists now */
  ASSERT(fd >= 0);
  ASSERT(fcntl(fd, F_SETPIPE_SZ, 4096) >= 0); /* one page of trace at most */
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    setenv("AZURE_STORAGE_CONNECTION_STRING", test_dev_connection_string(), 1);
    int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644), out = open("/dev/null", O_WRONLY);
    dup2(e, 2);
    dup2(out, 1);
    close(fd);
    execl(XIO_CLI_PATH, XIO_CLI_PATH, "--trace", fifo, cmd, a, b, (char *)NULL);
    _exit(127);
  }
  /* Until the program opens the pipe for writing, reads see end-of-file: wait. */
  int seen = 0;
  for (int i = 0; !seen && i < 6000; i++) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid)
      FAIL("%s exited (%d) before tracing a %s request:\n%s", cmd, status, type, slurp(errp));
    seen = read_until(fd, type);
    if (!seen) usleep(10000);
  }
  if (!seen) FAIL("%s traced no %s request", cmd, type);
  kill(pid, sig);
  /* Drain the rest of the trace so that the program can finish what is in flight. */
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  char buf[8192];
  while (read(fd, buf, sizeof buf) > 0) {
  }
  close(fd);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  unlink(fifo);
  ASSERT_NOT_CONTAINS(slurp(errp), XIO_AUTH_DEV_KEY);
  ASSERT_NOT_CONTAINS(slurp(errp), "sig=");
  if (!WIFEXITED(status)) FAIL("%s died of signal %d", cmd, WTERMSIG(status));
  return WEXITSTATUS(status);
}

static const char *sig_name(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

static int sig_status(int sig) { return 128 + sig; }

/* put LOCAL LOCAL2, interrupted by `sig`: LOCAL2 marked incomplete until resumed. */
static void put_to_local(int sig) {
  clirun r = {0};
  char src[512], dst[512], back[512], errp[512], want[64];
  clirun_path("put-src.bin", src, sizeof src);
  clirun_path("put-dst.bin", dst, sizeof dst);
  clirun_path("put-back.bin", back, sizeof back);
  clirun_path("put.err", errp, sizeof errp);
  clirun_make_source(src, SIZE, 7);
  ASSERT_EQ(run_and_signal("put", src, dst, "XIOTypeWriteFile", sig, errp), sig_status(sig));
  const char *err = slurp(errp);
  printf("%s", err);
  snprintf(want, sizeof want, "put interrupted by %s", sig_name(sig));
  ASSERT_CONTAINS(err, want);
  ASSERT_CONTAINS(err, "marked incomplete");
  ASSERT_CONTAINS(err, "put --resume");
  XIO(&r, "--json", "stat", dst);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "incomplete")));
  cJSON_Delete(j);
  XIO(&r, "stat", dst);
  ASSERT_CONTAINS(r.out, "INCOMPLETE");
  /* Nothing takes it for a whole file: a get of it is refused. */
  XIO(&r, "get", dst, back);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "is incomplete");
  ASSERT(access(back, F_OK) != 0);
  /* --resume finishes it, writing less than the whole file. */
  XIO(&r, "--json", "put", "--resume", src, dst);
  EXPECT_EXIT(&r, 0);
  j = clirun_json(&r);
  ASSERT(clirun_num(j, "bytes_sent") > 0); /* the stop left work to do */
  ASSERT(clirun_num(j, "bytes_sent") < (double)SIZE);
  cJSON_Delete(j);
  XIO(&r, "--json", "stat", dst);
  EXPECT_EXIT(&r, 0);
  j = clirun_json(&r);
  ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(j, "incomplete")));
  cJSON_Delete(j);
  clirun_expect_same_files(src, dst);
  remove(src);
  remove(dst);
  clirun_free(&r);
}

TEST(put_to_local_resumes_after_sigint) { put_to_local(SIGINT); }

TEST(put_to_local_resumes_after_sigterm) { put_to_local(SIGTERM); }

/* get SOURCE LOCAL, interrupted by `sig`: only LOCAL.xio-partial, until resumed. */
static void get_stopped_and_resumed(const char *source, const char *src, const char *back,
                                    int sig) {
  clirun r = {0};
  char partial[600], errp[512], want[64];
  snprintf(partial, sizeof partial, "%s.xio-partial", back);
  clirun_path("get.err", errp, sizeof errp);
  ASSERT_EQ(run_and_signal("get", source, back, "XIOTypeReadFile", sig, errp), sig_status(sig));
  const char *err = slurp(errp);
  printf("%s", err);
  snprintf(want, sizeof want, "get interrupted by %s", sig_name(sig));
  ASSERT_CONTAINS(err, want);
  ASSERT_CONTAINS(err, "get --resume");
  ASSERT(access(back, F_OK) != 0);
  ASSERT(access(partial, F_OK) == 0);
  XIO(&r, "--json", "get", "--resume", source, back);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "bytes_fetched") > 0); /* the stop left work to do */
  ASSERT(clirun_num(j, "bytes_fetched") < (double)SIZE);
  cJSON_Delete(j);
  ASSERT(access(partial, F_OK) != 0);
  clirun_expect_same_files(src, back);
  remove(back);
  clirun_free(&r);
}

TEST(get_local_to_local_resumes_after_sigint) {
  char src[512], back[512];
  clirun_path("get-src.bin", src, sizeof src);
  clirun_path("get-back.bin", back, sizeof back);
  clirun_make_source(src, SIZE, 7);
  get_stopped_and_resumed(src, src, back, SIGINT);
  remove(src);
}

TEST(get_blob_to_local_resumes_after_sigint) {
  clirun r = {0};
  char container[64], url[512], src[512], back[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "whole.mdf", url, sizeof url);
  clirun_path("blob-src.bin", src, sizeof src);
  clirun_path("blob-back.bin", back, sizeof back);
  clirun_make_source(src, SIZE, 7);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  get_stopped_and_resumed(url, src, back, SIGINT);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  clirun_free(&r);
}

/* The entry of `name` among the --json ls entries (fails the test when missing). */
static cJSON *ls_entry(cJSON *j, const char *name) {
  cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, "entries")) {
    if (strcmp(clirun_str(e, "name"), name) == 0) return e;
  }
  FAIL("ls lists no %s", name);
}

/* The line of `name` in ls's table, copied into `out`. */
static void ls_line(const char *out, const char *name, char *line, size_t size) {
  char key[128];
  snprintf(key, sizeof key, "\n%s ", name);
  const char *p = strstr(out, key);
  if (!p) FAIL("ls shows no line for %s:\n%s", name, out);
  p++;
  size_t n = strcspn(p, "\n");
  snprintf(line, size, "%.*s", (int)(n < size ? n : size - 1), p);
}

TEST(ls_marks_an_interrupted_put_until_resumed) {
  clirun r = {0};
  char container[64], cont[512], url[512], whole[512], src[512], errp[512], line[512];
  clirun_container(container, sizeof container);
  clirun_url(container, NULL, cont, sizeof cont);
  clirun_url(container, "cut.mdf", url, sizeof url);
  clirun_url(container, "whole.mdf", whole, sizeof whole);
  clirun_path("ls-src.bin", src, sizeof src);
  clirun_path("ls.err", errp, sizeof errp);
  clirun_make_source(src, SIZE, 7);
  XIO(&r, "create", whole, "--size", "64K");
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(run_and_signal("put", src, url, "XIOTypeWriteFile", SIGTERM, errp), 143);
  XIO(&r, "ls", cont);
  EXPECT_EXIT(&r, 0);
  ls_line(r.out, "cut.mdf", line, sizeof line);
  ASSERT_CONTAINS(line, "INCOMPLETE");
  ls_line(r.out, "whole.mdf", line, sizeof line);
  ASSERT_NOT_CONTAINS(line, "INCOMPLETE");
  ASSERT_CONTAINS(r.out, "1 blob INCOMPLETE");
  XIO(&r, "--json", "ls", cont);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "incomplete") == 1);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(ls_entry(j, "cut.mdf"), "incomplete")));
  ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(ls_entry(j, "whole.mdf"), "incomplete")));
  cJSON_Delete(j);
  XIO(&r, "put", "--resume", src, url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "ls", cont);
  EXPECT_EXIT(&r, 0);
  ASSERT_NOT_CONTAINS(r.out, "INCOMPLETE");
  XIO(&r, "--json", "ls", cont);
  EXPECT_EXIT(&r, 0);
  j = clirun_json(&r);
  ASSERT(clirun_num(j, "incomplete") == 0);
  ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(ls_entry(j, "cut.mdf"), "incomplete")));
  cJSON_Delete(j);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", whole);
  EXPECT_EXIT(&r, 0);
  remove(src);
  clirun_free(&r);
}
