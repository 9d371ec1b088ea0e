/*
 * interrupt_test.c - an interrupted transfer never looks complete: a put stopped by
 * SIGTERM once its first writes are traced exits 143 and leaves the blob marked
 * incomplete (stat says so, opening it is refused) until put --resume finishes it
 * byte for byte; a get stopped the same way leaves nothing at LOCAL, only
 * LOCAL.xio-partial, which get --resume completes.
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
