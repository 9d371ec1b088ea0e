/*
 * bench_target_test.c - xio-bench --target against Azurite addressed like any
 * account: only a connection string in the environment, no emulator option and no
 * emulator endpoint variable. A reduced growth section runs there, says which
 * account, endpoint and tier it measured, and leaves the container as it found it;
 * SIGTERM mid-run deletes what the run had made too.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xio/xio.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

extern char **environ;

/* The environment of the run: ours without emulator or credential variables, plus
 * the dev account's connection string and a trace file. */
static char **bench_env(const char *trace) {
  static char conn[1200], tr[400];
  size_t n = 0;
  while (environ[n])
    n++;
  char **env = calloc(n + 3, sizeof *env);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "XIO_TEST_BLOB_ENDPOINT=", 23) != 0 &&
        strncmp(environ[i], "AZURE_STORAGE_", 14) != 0 && strncmp(environ[i], "XIO_", 4) != 0)
      env[k++] = environ[i];
  snprintf(conn, sizeof conn, "AZURE_STORAGE_CONNECTION_STRING=%s", test_dev_connection_string());
  snprintf(tr, sizeof tr, "XIO_TRACE=%s", trace);
  env[k++] = conn;
  env[k++] = tr;
  return env;
}

static pid_t spawn_bench(const char *const *args, const char *log, const char *trace) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  char **env = bench_env(trace);
  pid_t pid;
  ASSERT_EQ(posix_spawn(&pid, XIO_BENCH_EXE, &fa, NULL, (char *const *)args, env), 0);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  return pid;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  ASSERT(f != NULL);
  char *buf = calloc(1, 1 << 20);
  size_t n = fread(buf, 1, (1 << 20) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static int count_entry(const xio_list_entry *e, void *ud) {
  (void)e;
  ++*(int *)ud;
  return 0;
}

/* Blobs in `cont` whose names start with `prefix`. */
static int blobs_in(const char *cont, const char *prefix) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = test_dev_connection_string();
  xio_ctx *ctx = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  xio_list_options lo = xio_list_options_default();
  lo.prefix = prefix;
  int n = 0;
  ASSERT_OK(xio_list(ctx, cont, &lo, count_entry, &n, &e), &e);
  xio_ctx_free(ctx);
  return n;
}

/* A container holding one blob of its own, which the benchmark must leave alone. */
static void container_with_keeper(char *cont, size_t size) {
  char name[64], keep[512];
  clirun_container(name, sizeof name);
  clirun_url(name, NULL, cont, size);
  clirun_url(name, "keep.mdf", keep, sizeof keep);
  clirun r = {0};
  XIO(&r, "create", keep, "--size", "4K");
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

TEST(bench_target_with_connection_string_leaves_container_empty) {
  char cont[512], log[256], trace[256], out[256];
  container_with_keeper(cont, sizeof cont);
  clirun_path("bench-target.log", log, sizeof log);
  clirun_path("bench-target.trace", trace, sizeof trace);
  clirun_path("bench-target-out", out, sizeof out);
  const char *args[] = {XIO_BENCH_EXE, "--target",   cont,      "--backends", "pageblob",
                        "--sections",  "growth",     "--sizes", "1M,4M",      "--runs",
                        "1",           "--zero-cap", "1M",      "--no-plots", "--out",
                        out,           NULL};
  pid_t pid = spawn_bench(args, log, trace);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  char *text = slurp(log);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) FAIL("xio-bench failed:\n%s", text);
  ASSERT_CONTAINS(text, "account devstoreaccount1 at ");
  ASSERT_CONTAINS(text, test_endpoint());
  ASSERT_CONTAINS(text, "blob tier");
  ASSERT_CONTAINS(text, "page blob on the target account");
  ASSERT_NOT_CONTAINS(text, "Azurite, an in-memory emulator"); /* it measured an account */
  free(text);
  /* It measured there: creates, growths and zeroings went to the container. */
  char *t = slurp(trace);
  ASSERT_CONTAINS(t, "\"XIOTypeZeroFile\"");
  ASSERT_CONTAINS(t, "\"XIOTypeSetFileSize\"");
  ASSERT_CONTAINS(t, cont);
  free(t);
  char csvpath[300];
  snprintf(csvpath, sizeof csvpath, "%s/results.csv", out);
  char *csv = slurp(csvpath);
  ASSERT_CONTAINS(csv, "growth,pageblob,create,clear,");
  ASSERT_CONTAINS(csv, "growth,pageblob,zero,zero,");
  free(csv);
  ASSERT_EQ(blobs_in(cont, "xio-bench-"), 0);
  ASSERT_EQ(blobs_in(cont, NULL), 1); /* only keep.mdf */
}

TEST(bench_target_cleans_up_on_sigterm) {
  char cont[512], log[256], trace[256];
  container_with_keeper(cont, sizeof cont);
  clirun_path("bench-sigterm.log", log, sizeof log);
  clirun_path("bench-sigterm.trace", trace, sizeof trace);
  /* Zero-writes of 64 MiB take seconds each: the run is still going when stopped. */
  const char *args[] = {XIO_BENCH_EXE, "--target",   cont,  "--backends", "pageblob", "--sections",
                        "growth",      "--sizes",    "64M", "--runs",     "3",        "--zero-runs",
                        "3",           "--zero-cap", "64M", "--no-plots", NULL};
  pid_t pid = spawn_bench(args, log, trace);
  int seen = 0, st = 0, exited = 0;
  for (int i = 0; i < 2000 && !seen && !exited; i++) {
    seen = blobs_in(cont, "xio-bench-") > 0;
    exited = !seen && waitpid(pid, &st, WNOHANG) == pid;
    struct timespec ts = {0, 10 * 1000 * 1000};
    if (!seen) nanosleep(&ts, NULL);
  }
  if (exited) FAIL("xio-bench ended before it made a blob:\n%s", slurp(log));
  ASSERT(seen);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  char *text = slurp(log);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 128 + SIGTERM)
    FAIL("xio-bench did not exit 143 after SIGTERM (status 0x%x):\n%s", st, text);
  ASSERT_CONTAINS(text, "terminated: deleting what this run made");
  ASSERT_CONTAINS(text, "deleted ");
  free(text);
  ASSERT_EQ(blobs_in(cont, "xio-bench-"), 0);
  ASSERT_EQ(blobs_in(cont, NULL), 1);
}
