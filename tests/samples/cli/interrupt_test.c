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
 * sends SIGTERM, within the grace the requests on their way get). Nothing blocks
 * before those phases: a put of a FIFO, which no process writes, is refused at
 * once, as is any LOCAL that is not a regular file.
 *
 * A service that accepted a request and went silent holds a stopped transfer no
 * longer than the grace (2 s, XIO_STOP_GRACE_SECONDS), a second signal not even
 * that: the request is cut, the blob stays marked incomplete or the partial file
 * kept, and --resume finishes the transfer.
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
#define BIG (128 * MiB) /* 32 requests: about a second to send, the signal comes within ms */

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

/* The end of a case through the proxy: `back` holds the bytes of `src`; then the
 * blob at `url`, both files and `r` go. */
static void expect_back_and_clean(clirun *r, const char *url, const char *src, const char *back) {
  clirun_expect_same_files(src, back);
  XIO_PROXIED(r, "rm", url);
  EXPECT_EXIT(r, 0);
  remove(src);
  remove(back);
  clirun_free(r);
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
  ASSERT_CONTAINS(r.err, "(HTTP 404 "); /* nothing was created */
  unlink(fifo);
  clirun_free(&r);
}

/* The proxy's credential and a grace of `grace` seconds for the requests on their
 * way when a stop signal comes (XIO_STOP_GRACE_SECONDS). Static. */
static const char *const *grace_env(const char *grace) {
  static char g[64];
  static const char *env[3];
  snprintf(g, sizeof g, "XIO_STOP_GRACE_SECONDS=%s", grace);
  env[0] = cliproxy_env()[0];
  env[1] = g;
  env[2] = NULL;
  return env;
}

/* Starts `xio put LOCAL URL` (through the proxy) or `xio get URL LOCAL`, sends
 * SIGTERM while the proxy holds the request after the first `skip` of `method`
 * whose target contains `match`, and returns how the command ended. The grace of
 * the requests on their way (60 s) outlasts the hold: the held request ends as the
 * service answers it, and the command after it. */
static void stop_while_held(clirun *r, const char *cmd, const char *a, const char *b,
                            const char *method, const char *match, int skip) {
  clirun_bg bg;
  cliproxy_hold(method, match, skip);
  clirun_start_v(&bg, CLIRUN_NO_CREDS, grace_env("60"), (const char *const[]){cmd, a, b, NULL});
  int no = cliproxy_wait(&bg);
  ASSERT_EQ(kill(bg.pid, SIGTERM), 0);
  cliproxy_check_held(no);
  clirun_finish(&bg, r, 120);
}

/* put stopped while the target is being created: 143, and the target, created
 * marked incomplete, stays so, for put --resume. In a container that does not
 * exist yet, the create that finds it missing is answered within the grace, but
 * the container is not made after the stop: nothing is created, and put says so. */
TEST(sigterm_while_put_creates_the_target_exits_143) {
  clirun r = {0};
  char container[64], url[512], other[512], src[512];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "creating.mdf", url, sizeof url);
  cliproxy_url(container, "other.mdf", other, sizeof other);
  clirun_path("creating.bin", src, sizeof src);
  clirun_make_source(src, 4 * MiB, 7);
  stop_while_held(&r, "put", src, url, "PUT", "/creating.mdf", 0);
  EXPECT_EXIT(&r, 143);
  ASSERT_CONTAINS(r.err, "put interrupted by SIGTERM before it wrote data to");
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", NULL), 0);
  XIO_PROXIED(&r, "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "(HTTP 404 ");             /* nothing was created */
  XIO_PROXIED(&r, "create", other, "--size", "1M"); /* the container exists now */
  EXPECT_EXIT(&r, 0);
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
  stop_while_held(&r, "put", src, url, "PUT", "comp=metadata", 0); /* created marked */
  EXPECT_EXIT(&r, 143);
  ASSERT_CONTAINS(r.err, "SIGTERM");
  ASSERT_CONTAINS(r.err, "is complete");
  XIO_PROXIED(&r, "get", url, back);
  EXPECT_EXIT(&r, 0);
  expect_back_and_clean(&r, url, src, back);
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
  expect_back_and_clean(&r, url, src, back);
}

/* ------------------------------------------- a service that went silent ---- */

/* Starts `xio ARGS` through the proxy with `env`, waits until the proxy stalls the
 * request scripted by cliproxy_stall, and sends `sig`. */
static void start_and_signal(clirun_bg *bg, const char *const *env, const char *const *args,
                             int sig) {
  clirun_start_v(bg, CLIRUN_NO_CREDS, env, args);
  cliproxy_wait(bg);
  ASSERT_EQ(kill(bg->pid, sig), 0);
}

/* put through a service that accepted a Put Page and went silent: SIGINT ends it
 * within the grace (2 s; the bound of 30 s only catches the old wait of minutes,
 * tries of 120 s retried), exit 130, the blob marked incomplete, and put --resume
 * finishes it, sending only what the blob lacks. */
TEST(sigint_ends_a_put_stalled_by_a_silent_service) {
  clirun r = {0};
  clirun_bg bg;
  char container[64], url[512], src[512], back[512];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "silent-put.mdf", url, sizeof url);
  clirun_path("silent-put.bin", src, sizeof src);
  clirun_path("silent-put.back", back, sizeof back);
  clirun_make_source(src, 16 * MiB, 11);
  cliproxy_stall("PUT", "comp=page", 1); /* the second write: the first is acknowledged */
  start_and_signal(&bg, cliproxy_env(),
                   (const char *const[]){"put", "--in-flight", "1", src, url, NULL}, SIGINT);
  clirun_finish(&bg, &r, 30);
  EXPECT_EXIT(&r, 130);
  ASSERT_CONTAINS(r.err, "xio: SIGINT: stopping; requests on their way get 2 s to end");
  ASSERT_CONTAINS(r.err, "put interrupted by SIGINT");
  ASSERT_CONTAINS(r.err, "is marked incomplete");
  ASSERT_CONTAINS(r.err, "`xio put --resume ");
  ASSERT_EQ(clirun_trace_events(&r, "xio_failed_request"), 0); /* nothing was retried */
  XIO_PROXIED(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "INCOMPLETE");
  XIO_PROXIED(&r, "--json", "put", "--resume", src, url);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "bytes_sent") < 16.0 * MiB); /* the first 4 MiB were there */
  cJSON_Delete(j);
  XIO_PROXIED(&r, "get", url, back);
  EXPECT_EXIT(&r, 0);
  expect_back_and_clean(&r, url, src, back);
}

/* get through a service that went silent on a read past the first: SIGINT ends it
 * within the grace, exit 130, nothing at LOCAL, the partial file kept with the
 * reads before in it, and get --resume fetches only the rest. */
TEST(sigint_ends_a_get_stalled_by_a_silent_service) {
  clirun r = {0};
  clirun_bg bg;
  char container[64], url[512], src[512], back[512], partial[600];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "silent-get.mdf", url, sizeof url);
  clirun_path("silent-get.bin", src, sizeof src);
  clirun_path("silent-get.back", back, sizeof back);
  snprintf(partial, sizeof partial, "%s.xio-partial", back);
  clirun_make_source(src, 32 * MiB, 12);
  XIO_PROXIED(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  /* The first GET lists the page ranges; the reads follow one at a time, and the
   * third (at least the second read) is stalled. */
  cliproxy_stall("GET", "/silent-get.mdf", 3);
  start_and_signal(&bg, cliproxy_env(),
                   (const char *const[]){"get", "--in-flight", "1", url, back, NULL}, SIGINT);
  clirun_finish(&bg, &r, 30);
  EXPECT_EXIT(&r, 130);
  ASSERT_CONTAINS(r.err, "get interrupted by SIGINT");
  ASSERT_CONTAINS(r.err, "get --resume");
  ASSERT(access(back, F_OK) != 0);
  ASSERT(access(partial, F_OK) == 0);
  XIO_PROXIED(&r, "--json", "get", "--resume", url, back);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "bytes_fetched") < 32.0 * MiB); /* the reads before were kept */
  cJSON_Delete(j);
  ASSERT(access(partial, F_OK) != 0);
  expect_back_and_clean(&r, url, src, back);
}

/* Waits (30 s at most) until the background run's stderr holds `text`. */
static void wait_for_stderr(const clirun_bg *bg, const char *text) {
  struct timespec tick = {0, 10 * 1000 * 1000};
  for (int i = 0; i < 3000; i++) {
    if (file_has(bg->err, text)) return;
    if (clirun_ended(bg)) break;
    nanosleep(&tick, NULL);
  }
  FAIL("xio never said \"%s\" on stderr", text);
}

/* With a grace longer than the test (XIO_STOP_GRACE_SECONDS=600), the first SIGINT
 * leaves the stalled write its grace; the second ends it at once: exit 130 (the
 * first signal's), the blob marked incomplete, put --resume finishes it. */
TEST(a_second_sigint_ends_a_stalled_put_at_once) {
  clirun r = {0};
  clirun_bg bg;
  char container[64], url[512], src[512];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "twice.mdf", url, sizeof url);
  clirun_path("twice.bin", src, sizeof src);
  clirun_make_source(src, 8 * MiB, 13);
  cliproxy_stall("PUT", "comp=page", 0);
  start_and_signal(&bg, grace_env("600"), (const char *const[]){"put", src, url, NULL}, SIGINT);
  wait_for_stderr(&bg, "xio: SIGINT: stopping; requests on their way get 600 s to end");
  ASSERT(!clirun_ended(&bg)); /* the write is still on its way, within its grace */
  ASSERT_EQ(kill(bg.pid, SIGINT), 0);
  clirun_finish(&bg, &r, 30);
  EXPECT_EXIT(&r, 130);
  ASSERT_CONTAINS(r.err, "xio: SIGINT again: stopping at once");
  ASSERT_CONTAINS(r.err, "put interrupted by SIGINT");
  XIO_PROXIED(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "INCOMPLETE");
  XIO_PROXIED(&r, "put", "--resume", src, url);
  EXPECT_EXIT(&r, 0);
  XIO_PROXIED(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  clirun_free(&r);
}

/* A grace that is not whole seconds from 0 to 3600 is refused before anything is
 * done, naming the variable. */
TEST(a_bad_stop_grace_is_refused) {
  clirun r = {0};
  char container[64], url[512], src[512];
  clirun_container(container, sizeof container);
  cliproxy_url(container, "grace.mdf", url, sizeof url);
  clirun_path("grace.bin", src, sizeof src);
  clirun_make_source(src, 4 * MiB, 14);
  XIO_ENV(&r, CLIRUN_NO_CREDS, grace_env("2.5"), "put", src, url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "XIO_STOP_GRACE_SECONDS is '2.5': give whole seconds, 0 to 3600");
  XIO_ENV(&r, CLIRUN_NO_CREDS, grace_env("-1"), "get", url, src);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "XIO_STOP_GRACE_SECONDS is '-1'");
  XIO_PROXIED(&r, "stat", url);
  EXPECT_EXIT(&r, 1); /* nothing was created */
  remove(src);
  clirun_free(&r);
}
