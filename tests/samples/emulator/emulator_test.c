/*
 * emulator_test.c - `xio emulator` as a person or a script uses it: start, status
 * and stop with the processes they leave (or do not leave) behind; the official
 * JavaScript SDK working against the printed connection string, through `eval` of
 * the --shell form too; with --faults, the faults that client sees matching the
 * proxy's counts, and the same seed giving the same run; the default state
 * directory; a dead emulator's state cleared; help and bad usage. Azurite runs as
 * the tests' harness runs it: with the preload that holds its garbage-collection
 * sweep (a stall of the emulator every 10 minutes) until the store needs it, seen in
 * its environment and in what Azurite itself logs it will wait between timed sweeps
 * (memory_test.c: the sweeps the store needs).
 * Every test starts its own emulator through the command, on 127.0.0.1.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "emurun.h"
#include "scratch.h"
#include "test.h"
#include "util.h"

/* Faults at rates high enough that the ~50 requests of the client meet every kind
 * but stall (whose 500 ms stays below the client's try timeout: it only delays). */
#define FAULTS "503=15%,500=10%,reset=5%,lost=5%,torn=10%,stall=2%:500ms"

/* `xio emulator start --dir DIR --json EXTRA...`, checked; the parsed output. */
static cJSON *start_json(const char *dir, const char *faults, const char *seed) {
  emurun r = {0};
  if (faults)
    EMU_XIO(&r, "emulator", "start", "--dir", dir, "--json", "--faults", faults, "--seed", seed);
  else
    EMU_XIO(&r, "emulator", "start", "--dir", dir, "--json");
  EXPECT_STATUS(&r, 0);
  cJSON *j = emurun_json(&r);
  emurun_free(&r);
  ASSERT_STR_EQ(emurun_str(j, "action", NULL), "start");
  ASSERT(strncmp(emurun_str(j, "blob_endpoint", NULL), "http://127.0.0.1:", 17) == 0);
  ASSERT(emurun_pid_runs((long)emurun_num(j, "azurite", "pid")));
  return j;
}

static cJSON *status_json(const char *dir, int want) {
  emurun r = {0};
  EMU_XIO(&r, "emulator", "status", "--dir", dir, "--json");
  EXPECT_STATUS(&r, want); /* 3 when none runs, as systemctl status */
  cJSON *j = emurun_json(&r);
  emurun_free(&r);
  return j;
}

static cJSON *stop_json(const char *dir) {
  emurun r = {0};
  EMU_XIO(&r, "emulator", "stop", "--dir", dir, "--json");
  EXPECT_STATUS(&r, 0);
  cJSON *j = emurun_json(&r);
  emurun_free(&r);
  return j;
}

/* A count in the client's JSON ("statuses", "503"), 0 when it never saw it. */
static long client_count(const cJSON *client, const char *group, const char *name) {
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(client, group);
  const cJSON *v = name ? cJSON_GetObjectItemCaseSensitive(g, name) : g;
  return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}

/* The value of NODE_OPTIONS in the environment process `pid` started with (from
 * /proc/PID/environ), "" when it has none. Static buffer. */
static const char *node_options_of(long pid) {
  static char value[4096];
  char path[64], env[65536];
  snprintf(path, sizeof path, "/proc/%ld/environ", pid);
  FILE *f = fopen(path, "r");
  if (!f) FAIL("cannot open %s", path);
  size_t n = fread(env, 1, sizeof env - 1, f);
  fclose(f);
  env[n] = '\0';
  value[0] = '\0';
  for (size_t i = 0; i < n; i += strlen(env + i) + 1)
    if (strncmp(env + i, "NODE_OPTIONS=", 13) == 0)
      snprintf(value, sizeof value, "%s", env + i + 13);
  return value;
}

/* Azurite was started with the harness's preload (gc_interval.js, beside azurite.sh in
 * samples/testers/emulator/azurite). */
static void expect_sweep_preload(long pid) {
  const char *opts = node_options_of(pid);
  ASSERT_CONTAINS(opts, "--require");
  ASSERT_CONTAINS(opts, "samples/testers/emulator/azurite/gc_interval.js");
}

TEST(start_status_stop) {
  const char *dir = emurun_dir();
  cJSON *before = status_json(dir, 3);
  ASSERT(!emurun_bool(before, "running", NULL));
  cJSON *s = start_json(dir, NULL, NULL);
  long az = (long)emurun_num(s, "azurite", "pid");
  expect_sweep_preload(az);
  /* By default the proxy answers as Azure does (profile standard), without faults,
   * and the printed endpoint is its own. */
  ASSERT_STR_EQ(emurun_str(s, "proxy", "profile"), "standard");
  ASSERT_STR_EQ(emurun_str(s, "proxy", "faults"), "");
  char want[256];
  snprintf(want, sizeof want, "%s/devstoreaccount1", emurun_str(s, "proxy", "endpoint"));
  ASSERT_STR_EQ(emurun_str(s, "blob_endpoint", NULL), want);
  snprintf(want, sizeof want, "BlobEndpoint=%s;", emurun_str(s, "blob_endpoint", NULL));
  ASSERT_CONTAINS(emurun_str(s, "connection_string", NULL), want);

  cJSON *st = status_json(dir, 0);
  ASSERT(emurun_bool(st, "running", NULL));
  ASSERT_EQ((long)emurun_num(st, "azurite", "pid"), az);
  ASSERT_STR_EQ(emurun_str(st, "blob_endpoint", NULL), emurun_str(s, "blob_endpoint", NULL));

  emurun r = {0};
  EMU_XIO(&r, "emulator", "status", "--dir", dir);
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "running");
  ASSERT_CONTAINS(r.out, emurun_str(s, "azurite", "endpoint"));
  ASSERT_CONTAINS(r.out, "profile standard");
  EMU_XIO(&r, "emulator", "start", "--dir", dir);
  EXPECT_STATUS(&r, 1);
  ASSERT_CONTAINS(r.err, "already runs from");
  ASSERT(emurun_pid_runs(az));

  EMU_XIO(&r, "emulator", "stop", "--dir", dir);
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "stopped Azurite");
  ASSERT(!emurun_pid_runs(az));
  cJSON *after = status_json(dir, 3);
  ASSERT(!emurun_bool(after, "running", NULL));
  EMU_XIO(&r, "emulator", "stop", "--dir", dir);
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "no emulator runs from");
  emurun_free(&r);
  cJSON_Delete(before);
  cJSON_Delete(s);
  cJSON_Delete(st);
  cJSON_Delete(after);
}

/* --profile none: raw Azurite, no proxy, its own endpoint printed; an unknown
 * profile is refused with the names of those there are. */
TEST(profile_none_is_raw_azurite) {
  const char *dir = emurun_dir();
  emurun r = {0};
  EMU_XIO(&r, "emulator", "start", "--dir", dir, "--profile", "bogus");
  EXPECT_STATUS(&r, 2);
  ASSERT_CONTAINS(r.err, "unknown profile 'bogus'");
  ASSERT_CONTAINS(r.err, "premium-p30");
  EMU_XIO(&r, "emulator", "start", "--dir", dir, "--json", "--profile", "none");
  EXPECT_STATUS(&r, 0);
  cJSON *s = emurun_json(&r);
  ASSERT(cJSON_IsNull(emurun_get(s, "proxy", NULL)));
  char want[256];
  snprintf(want, sizeof want, "%s/devstoreaccount1", emurun_str(s, "azurite", "endpoint"));
  ASSERT_STR_EQ(emurun_str(s, "blob_endpoint", NULL), want);
  cJSON *stop = stop_json(dir);
  ASSERT(!cJSON_GetObjectItemCaseSensitive(stop, "stats"));
  emurun_free(&r);
  cJSON_Delete(s);
  cJSON_Delete(stop);
}

/* Puts a 1 MiB file through the emulator that `s` describes and gets it back with
 * a trace; returns the trace (the caller frees it). */
static char *round_trip_trace(const cJSON *s) {
  char dir[512], src[600], dst[600], trace[600], url[512], cs[1024];
  test_scratch_dir(dir, sizeof dir, "emu-read");
  snprintf(src, sizeof src, "%s/a.bin", dir);
  snprintf(dst, sizeof dst, "%s/b.bin", dir);
  snprintf(trace, sizeof trace, "%s/trace.json", dir);
  static char data[1 << 20];
  test_fill_random(data, sizeof data, 41);
  FILE *f = fopen(src, "wb");
  ASSERT(f != NULL);
  ASSERT_EQ(fwrite(data, 1, sizeof data, f), sizeof data);
  ASSERT_EQ(fclose(f), 0);
  snprintf(url, sizeof url, "%s/readcheck/a.bin", emurun_str(s, "blob_endpoint", NULL));
  snprintf(cs, sizeof cs, "AZURE_STORAGE_CONNECTION_STRING=%s",
           emurun_str(s, "connection_string", NULL));
  const char *env[] = {cs, NULL};
  emurun r = {0};
  EMU_XIO_ENV(&r, env, "put", src, url);
  EXPECT_STATUS(&r, 0);
  EMU_XIO_ENV(&r, env, "get", "--trace", trace, url, dst);
  EXPECT_STATUS(&r, 0);
  emurun_free(&r);
  char *back = test_read_file(dst);
  ASSERT(memcmp(back, data, sizeof data) == 0);
  free(back);
  return test_read_file(trace);
}

/* Reads ask for their range's CRC-64. Behind the front Azurite runs loose, so the
 * front answers it as Azure does and no try is refused; raw Azurite (profile none)
 * refuses the header once (500 FeatureNotSupported) and the client turns to MD5. */
TEST(reads_get_their_crc64_behind_the_front_only) {
  const char *dir = emurun_dir();
  cJSON *s = start_json(dir, NULL, NULL);
  char *trace = round_trip_trace(s);
  ASSERT_CONTAINS(trace, "xio_send_complete");
  ASSERT(strstr(trace, "xio_failed_request") == NULL);
  free(trace);
  cJSON_Delete(stop_json(dir));
  cJSON_Delete(s);

  emurun r = {0};
  EMU_XIO(&r, "emulator", "start", "--dir", dir, "--json", "--profile", "none");
  EXPECT_STATUS(&r, 0);
  s = emurun_json(&r);
  trace = round_trip_trace(s);
  const char *failed = strstr(trace, "xio_failed_request");
  ASSERT(failed != NULL);
  ASSERT_CONTAINS(failed, "FeatureNotSupported");
  ASSERT(strstr(failed + 1, "xio_failed_request") == NULL);
  free(trace);
  cJSON_Delete(stop_json(dir));
  cJSON_Delete(s);
  emurun_free(&r);
}

/* The SDK lists a fragmented blob's page ranges through the default front as it
 * does from Azure: by pages of maxresults, following markers shaped like Azure's,
 * and whole; every range once, in order. */
TEST(js_sdk_lists_page_ranges_in_pages) {
  const char *dir = emurun_dir();
  char script[2048], np[1024];
  snprintf(script, sizeof script,
           "set -e; eval \"$('%s' emulator start --dir '%s' --shell)\"; exec node '%s' 250 100",
           XIO_CLI_PATH, dir, XIO_EMU_PAGES_JS);
  snprintf(np, sizeof np, "NODE_PATH=%s", XIO_NODE_MODULES);
  emurun r = {0};
  emurun_v(&r, (const char *const[]){np, NULL},
           (const char *const[]){"/bin/sh", "-c", script, NULL});
  EXPECT_STATUS(&r, 0);
  cJSON *out = emurun_json(&r);
  ASSERT(emurun_bool(out, "ok", NULL));
  ASSERT_EQ(emurun_num(out, "pages", NULL), 3);
  ASSERT_EQ(emurun_num(out, "paged", NULL), 250);
  ASSERT_EQ(emurun_num(out, "whole", NULL), 250);
  ASSERT(emurun_bool(out, "in_order", NULL));
  const cJSON *markers = emurun_get(out, "markers", NULL);
  ASSERT_EQ(cJSON_GetArraySize(markers), 2);
  for (int i = 0; i < 2; i++)
    ASSERT(strncmp(cJSON_GetArrayItem(markers, i)->valuestring, "2!", 2) == 0);
  cJSON *stop = stop_json(dir);
  ASSERT_EQ(emurun_num(stop, "stats", "paged"), 3);
  ASSERT_EQ(emurun_num(stop, "stats", "throttled"), 0);
  emurun_free(&r);
  cJSON_Delete(out);
  cJSON_Delete(stop);
}

/* The SDK against the connection string a shell gets from eval of --shell. */
TEST(js_sdk_through_shell_eval) {
  const char *dir = emurun_dir();
  char script[2048], np[1024];
  snprintf(script, sizeof script,
           "set -e; eval \"$('%s' emulator start --dir '%s' --shell)\"; "
           "exec node '%s' 8",
           XIO_CLI_PATH, dir, XIO_EMU_CLIENT_JS);
  snprintf(np, sizeof np, "NODE_PATH=%s", XIO_NODE_MODULES);
  emurun r = {0};
  emurun_v(&r, (const char *const[]){np, NULL},
           (const char *const[]){"/bin/sh", "-c", script, NULL});
  EXPECT_STATUS(&r, 0);
  cJSON *client = emurun_json(&r);
  ASSERT(emurun_bool(client, "ok", NULL));
  /* No faults, and nothing the standard profile refuses: every try succeeded at once. */
  ASSERT_EQ(client_count(client, "errors", NULL), 0);
  ASSERT_EQ(client_count(client, "statuses", "503"), 0);
  ASSERT_EQ(client_count(client, "app_retries", NULL), 0);
  ASSERT(client_count(client, "statuses", "201") >= 10); /* container, blob, 8 pages */
  cJSON *st = status_json(dir, 0);
  ASSERT(emurun_bool(st, "running", NULL));
  long az = (long)emurun_num(st, "azurite", "pid");
  cJSON *stop = stop_json(dir);
  ASSERT(emurun_bool(stop, "was_running", NULL));
  ASSERT(emurun_num(stop, "stats", "requests") >= 10); /* the SDK went through the front */
  ASSERT_EQ(emurun_num(stop, "stats", "throttled"), 0);
  ASSERT_EQ(emurun_num(stop, "stats", "refused"), 0);
  ASSERT(!emurun_pid_runs(az));
  emurun_free(&r);
  cJSON_Delete(client);
  cJSON_Delete(st);
  cJSON_Delete(stop);
}

/* What a shell gets from eval of --shell is enough for xio-demo: it finds the
 * emulator through XIO_BLOB_ENDPOINT (also given as --endpoint, account path and
 * all), and leaves no blob behind in its one container. */
TEST(demo_runs_on_the_shell_eval_alone) {
  const char *dir = emurun_dir();
  char script[4096];
  snprintf(script, sizeof script,
           "set -e; eval \"$('%s' emulator start --dir '%s' --shell)\"; "
           "test -n \"$XIO_BLOB_ENDPOINT\"; "
           "'%s' --data-size 1M --log-size 1M --grow-to 16M >/dev/null; "
           "'%s' --endpoint \"$XIO_BLOB_ENDPOINT\" --data-size 1M --log-size 1M "
           "--grow-to 16M >/dev/null; "
           "'%s' --json ls \"$XIO_BLOB_ENDPOINT/xio-demo\"",
           XIO_CLI_PATH, dir, XIO_DEMO_PATH, XIO_DEMO_PATH, XIO_CLI_PATH);
  emurun r = {0};
  emurun_v(&r, (const char *const[]){"XIO_DEMO_ENDPOINT=", "XIO_TEST_BLOB_ENDPOINT=", NULL},
           (const char *const[]){"/bin/sh", "-c", script, NULL});
  EXPECT_STATUS(&r, 0);
  cJSON *ls = emurun_json(&r);
  ASSERT_EQ(emurun_num(ls, "blobs", NULL), 0); /* every run's blobs deleted */
  cJSON_Delete(ls);
  cJSON_Delete(stop_json(dir));
  emurun_free(&r);
}

/* Runs the SDK client through an emulator started with FAULTS and `seed`; checks
 * what it saw against the proxy's counts; returns the stop output's stats. */
static cJSON *faulty_run(const char *seed, cJSON **client_out) {
  const char *dir = emurun_dir();
  cJSON *s = start_json(dir, FAULTS, seed);
  long az = (long)emurun_num(s, "azurite", "pid"), px = (long)emurun_num(s, "proxy", "pid");
  ASSERT(emurun_pid_runs(px));
  ASSERT_EQ((long)emurun_num(s, "proxy", "seed"), atol(seed));
  char want[256];
  snprintf(want, sizeof want, "%s/devstoreaccount1", emurun_str(s, "proxy", "endpoint"));
  ASSERT_STR_EQ(emurun_str(s, "blob_endpoint", NULL), want);

  cJSON *client = emurun_js_client(emurun_str(s, "connection_string", NULL), 12);
  cJSON *st = status_json(dir, 0);
  const cJSON *so_far = emurun_get(st, "stats", NULL);
  cJSON *stop = stop_json(dir);
  cJSON *stats = cJSON_Duplicate(emurun_get(stop, "stats", NULL), 1);
  ASSERT(!emurun_pid_runs(az));
  ASSERT(!emurun_pid_runs(px));

  /* Every try of the client reached the proxy, and nothing else did. */
  ASSERT_EQ(emurun_num(stats, "requests", NULL), client_count(client, "tries", NULL));
  ASSERT_EQ(emurun_num(so_far, "requests", NULL), emurun_num(stats, "requests", NULL));
  /* The injected statuses are the ones the client saw. */
  ASSERT_EQ(emurun_num(stats, "503", NULL), client_count(client, "statuses", "503"));
  ASSERT_EQ(emurun_num(stats, "500", NULL), client_count(client, "statuses", "500"));
  /* Resets before the request and lost responses both end in a reset connection. */
  ASSERT_EQ(emurun_num(stats, "reset", NULL) + emurun_num(stats, "lost", NULL),
            client_count(client, "failures", "ECONNRESET"));
  /* A torn body fails the SDK's call, and the client runs the operation again. */
  ASSERT_EQ(emurun_num(stats, "torn", NULL), client_count(client, "app_retries", NULL));
  double injected = 0;
  const char *kinds[] = {"503", "500", "reset", "lost", "torn", "stall"};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    injected += emurun_num(stats, kinds[i], NULL);
  ASSERT(injected > 0);
  ASSERT(emurun_num(stats, "503", NULL) > 0);
  cJSON_Delete(s);
  cJSON_Delete(st);
  cJSON_Delete(stop);
  *client_out = client;
  return stats;
}

TEST(js_sdk_sees_injected_faults) {
  cJSON *client;
  cJSON *stats = faulty_run("7", &client);
  cJSON_Delete(client);
  cJSON_Delete(stats);
}

TEST(same_seed_same_faults) {
  cJSON *c1, *c2, *c3;
  cJSON *s1 = faulty_run("11", &c1), *s2 = faulty_run("11", &c2), *s3 = faulty_run("12", &c3);
  char *a = cJSON_PrintUnformatted(s1), *b = cJSON_PrintUnformatted(s2);
  char *c = cJSON_PrintUnformatted(s3);
  ASSERT_STR_EQ(a, b);
  ASSERT(strcmp(a, c) != 0); /* another seed, other faults */
  ASSERT_EQ(client_count(c1, "tries", NULL), client_count(c2, "tries", NULL));
  free(a);
  free(b);
  free(c);
  cJSON_Delete(s1);
  cJSON_Delete(s2);
  cJSON_Delete(s3);
  cJSON_Delete(c1);
  cJSON_Delete(c2);
  cJSON_Delete(c3);
}

TEST(stop_prints_fault_counts) {
  const char *dir = emurun_dir();
  cJSON *s = start_json(dir, "503=100%:5ms", "1");
  emurun r = {0};
  /* Every request gets a 503: the SDK retries and gives up. */
  char cs[1024], np[1024];
  snprintf(cs, sizeof cs, "AZURE_STORAGE_CONNECTION_STRING=%s",
           emurun_str(s, "connection_string", NULL));
  snprintf(np, sizeof np, "NODE_PATH=%s", XIO_NODE_MODULES);
  emurun_v(&r, (const char *const[]){cs, np, NULL},
           (const char *const[]){"/usr/bin/env", "node", XIO_EMU_CLIENT_JS, "1", NULL});
  EXPECT_STATUS(&r, 1);
  cJSON *client = emurun_json(&r);
  long tries = client_count(client, "tries", NULL);
  ASSERT(tries > 1);
  ASSERT_EQ(client_count(client, "statuses", "503"), tries);
  EMU_XIO(&r, "emulator", "status", "--dir", dir);
  EXPECT_STATUS(&r, 0);
  char want[128];
  snprintf(want, sizeof want, "%ld request%s; faults injected: 503 %ld, 500 0,", tries,
           tries == 1 ? "" : "s", tries);
  ASSERT_CONTAINS(r.out, want);
  EMU_XIO(&r, "emulator", "stop", "--dir", dir);
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "and the fault proxy");
  ASSERT_CONTAINS(r.out, want);
  ASSERT(!emurun_pid_runs((long)emurun_num(s, "proxy", "pid")));
  emurun_free(&r);
  cJSON_Delete(client);
  cJSON_Delete(s);
}

/* `xio ARGS...` in a session of its own, as from another terminal (setsid -w waits
 * and passes the exit status on), with the environment extras `env`. */
#define OTHER_SHELL(r, env, ...)                                                                   \
  emurun_v((r), (env),                                                                             \
           (const char *const[]){"/usr/bin/setsid", "-w", XIO_CLI_PATH, __VA_ARGS__, NULL})

/* Without --dir the state goes to this shell's own directory (its session's) under
 * $XDG_RUNTIME_DIR/xio-emulator: another terminal neither sees nor stops it, unless
 * XIO_EMULATOR_DIR names it. */
TEST(default_state_dir) {
  char xdg[256], env[300], want[300], shared[600];
  snprintf(xdg, sizeof xdg, "%s", emurun_dir());
  ASSERT_EQ(mkdir(xdg, 0700), 0);
  snprintf(env, sizeof env, "XDG_RUNTIME_DIR=%s", xdg);
  snprintf(want, sizeof want, "%s/xio-emulator/session-%ld", xdg, (long)getsid(0));
  const char *const extra[] = {env, NULL};
  emurun r = {0};
  EMU_XIO_ENV(&r, extra, "emulator", "start", "--json");
  EXPECT_STATUS(&r, 0);
  cJSON *s = emurun_json(&r);
  ASSERT_STR_EQ(emurun_str(s, "dir", NULL), want);
  long az = (long)emurun_num(s, "azurite", "pid");
  EMU_XIO_ENV(&r, extra, "emulator", "status");
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, want);
  ASSERT_CONTAINS(r.out, "running");
  /* Another terminal: a directory of its own, where nothing runs; it is told where
   * this one's emulator runs. */
  char other[400];
  snprintf(other, sizeof other, "another shell's emulator runs from %s:", want);
  OTHER_SHELL(&r, extra, "emulator", "status");
  EXPECT_STATUS(&r, 3);
  ASSERT_CONTAINS(r.out, "no emulator runs from");
  ASSERT_CONTAINS(r.out, other);
  OTHER_SHELL(&r, extra, "emulator", "stop");
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "no emulator runs from");
  ASSERT_CONTAINS(r.out, other);
  ASSERT(emurun_pid_runs(az));
  /* Unless told where to look. */
  snprintf(shared, sizeof shared, "XIO_EMULATOR_DIR=%s", want);
  const char *const told[] = {env, shared, NULL};
  OTHER_SHELL(&r, told, "emulator", "status");
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, want);
  EMU_XIO_ENV(&r, extra, "emulator", "stop");
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "stopped Azurite");
  ASSERT(!emurun_pid_runs(az));
  EMU_XIO_ENV(&r, extra, "emulator", "status");
  EXPECT_STATUS(&r, 3);
  emurun_free(&r);
  cJSON_Delete(s);
}

/* An emulator that died leaves state that status reports and start replaces. */
TEST(dead_emulator_is_noticed) {
  const char *dir = emurun_dir();
  cJSON *s = start_json(dir, NULL, NULL);
  long az = (long)emurun_num(s, "azurite", "pid");
  ASSERT_EQ(kill((pid_t)-az, SIGKILL), 0);
  for (int i = 0; i < 200 && emurun_pid_runs(az); i++)
    usleep(10000);
  ASSERT(!emurun_pid_runs(az));
  cJSON *st = status_json(dir, 3);
  ASSERT(!emurun_bool(st, "running", NULL));
  ASSERT(!emurun_bool(st, "azurite", "running"));
  emurun r = {0};
  EMU_XIO(&r, "emulator", "status", "--dir", dir);
  EXPECT_STATUS(&r, 3);
  ASSERT_CONTAINS(r.out, "gone");
  ASSERT_CONTAINS(r.out, "cleans up");
  cJSON *again = start_json(dir, NULL, NULL);
  ASSERT_NE((long)emurun_num(again, "azurite", "pid"), az);
  cJSON *stop = stop_json(dir);
  ASSERT(!emurun_pid_runs((long)emurun_num(again, "azurite", "pid")));
  emurun_free(&r);
  cJSON_Delete(s);
  cJSON_Delete(st);
  cJSON_Delete(again);
  cJSON_Delete(stop);
}

TEST(azurite_missing) {
  const char *dir = emurun_dir();
  emurun r = {0};
  EMU_XIO_ENV(&r, ((const char *const[]){"XIO_AZURITE=/nonexistent/azurite-blob", NULL}),
              "emulator", "start", "--dir", dir);
  EXPECT_STATUS(&r, 1);
  ASSERT_CONTAINS(r.err, "XIO_AZURITE names /nonexistent/azurite-blob");
  ASSERT_CONTAINS(r.err, "scripts/install-deps.sh");
  EMU_XIO(&r, "emulator", "status", "--dir", dir);
  EXPECT_STATUS(&r, 3);
  ASSERT_CONTAINS(r.out, "no emulator runs");
  emurun_free(&r);
}

TEST(help_for_each_action) {
  emurun r = {0};
  const char *actions[] = {"start", "stop", "status"};
  for (size_t i = 0; i < 3; i++) {
    char want[64];
    snprintf(want, sizeof want, "usage: xio emulator %s", actions[i]);
    EMU_XIO(&r, "emulator", actions[i], "--help");
    EXPECT_STATUS(&r, 0);
    ASSERT_CONTAINS(r.out, want);
    ASSERT_STR_EQ(r.err, "");
  }
  EMU_XIO(&r, "emulator", "start", "-h");
  ASSERT_CONTAINS(r.out, "--faults SPEC");
  ASSERT_CONTAINS(r.out, "stall=R%");
  EMU_XIO(&r, "emulator", "--help");
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "emulator stop [--dir DIR]");
  ASSERT_CONTAINS(r.out, "eval");
  EMU_XIO(&r, "--help");
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "emulator");
  emurun_free(&r);
}

/* Bad usage exits 2 naming what is wrong, and starts nothing. */
TEST(bad_usage) {
  const char *dir = emurun_dir();
  static const struct {
    const char *args[4];
    const char *says;
  } cases[] = {
      {{"--faults", "bogus=1%"}, "unknown fault kind 'bogus'"},
      {{"--faults", "503=150%"}, "rate 150% of fault '503' is over 100%"},
      {{"--faults", "503=60%,500=50%"}, "add up to 110%, over 100%"},
      {{"--faults", "reset=5"}, "rate '5' of fault 'reset' is not a percentage"},
      {{"--faults", "torn=5%:100ms"}, "fault 'torn' takes no duration"},
      {{"--faults", "stall=1%:soon"}, "duration 'soon' of fault 'stall'"},
      {{"--faults", "lost=1%,lost=2%"}, "fault kind 'lost' is given twice"},
      {{"--faults", "503=1%", "--seed", "x"}, "--seed: 'x' is not a whole number"},
      {{"--seed", "3"}, "--seed needs --faults"},
      {{"--shell", "--json"}, "--shell and --json exclude each other"},
      {{"--frob"}, "unknown option --frob"},
      {{"extra"}, "unexpected argument 'extra'"},
  };
  emurun r = {0};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *argv[12] = {XIO_CLI_PATH, "emulator", "start", "--dir", dir};
    size_t k = 5;
    for (size_t a = 0; a < 4 && cases[i].args[a]; a++)
      argv[k++] = cases[i].args[a];
    emurun_v(&r, NULL, argv);
    EXPECT_STATUS(&r, 2);
    ASSERT_CONTAINS(r.err, cases[i].says);
    ASSERT_CONTAINS(r.err, "usage: xio emulator");
  }
  EMU_XIO(&r, "emulator");
  EXPECT_STATUS(&r, 2);
  ASSERT_CONTAINS(r.err, "missing what to do");
  EMU_XIO(&r, "emulator", "restart");
  EXPECT_STATUS(&r, 2);
  ASSERT_CONTAINS(r.err, "unknown action 'restart'");
  EMU_XIO(&r, "emulator", "stop", "--faults", "503=1%");
  EXPECT_STATUS(&r, 2);
  ASSERT_CONTAINS(r.err, "unknown option --faults");
  /* Nothing was started: no state was written. */
  char state[256];
  snprintf(state, sizeof state, "%s/state", dir);
  ASSERT(access(state, F_OK) != 0);
  emurun_free(&r);
}

/* Azurite sweeps its store every 10 minutes by default, and a sweep stops it
 * answering for up to minutes on a loaded machine: the emulator runs it with the
 * preload the tests' harness uses, so that it sleeps 6 hours between timed sweeps
 * (it sweeps sooner only when its store needs it). Seen in its environment, and in
 * Azurite's own debug log (an XIO_AZURITE wrapper adds --debug), where the garbage
 * collector says how long it sleeps after the sweep it makes at start. */
TEST(azurite_sleeps_6_hours_between_timed_sweeps) {
  const char *dir = emurun_dir();
  char debug[600], env[700];
  emurun_debug_azurite("xio-gc", env, sizeof env, debug, sizeof debug);

  emurun r = {0};
  EMU_XIO_ENV(&r, ((const char *const[]){env, NULL}), "emulator", "start", "--dir", dir, "--json");
  EXPECT_STATUS(&r, 0);
  cJSON *s = emurun_json(&r);
  long az = (long)emurun_num(s, "azurite", "pid");
  expect_sweep_preload(az);
  /* The first sweep runs at start; then the collector says how long it sleeps. */
  const char *said = NULL;
  char *log = NULL;
  for (int i = 0; i < 600 && !said; i++) { /* a minute at most: it comes at start */
    free(log);
    log = test_read_file(debug);
    said = strstr(log, "markSweepLoop() Sleep for ");
    if (!said) {
      struct timespec tick = {0, 100 * 1000 * 1000};
      nanosleep(&tick, NULL);
    }
  }
  if (!said) FAIL("Azurite's debug log never said how long its collector sleeps:\n%s", log);
  long ms = strtol(said + strlen("markSweepLoop() Sleep for "), NULL, 10);
  ASSERT_EQ(ms, 6L * 3600 * 1000);
  free(log);
  cJSON_Delete(stop_json(dir));
  ASSERT(!emurun_pid_runs(az));
  cJSON_Delete(s);
  emurun_free(&r);
}
