/*
 * demo_test.c - the create-database demo, run as the xio-demo program in a reduced
 * size on the emulator and on local files: its table's request counts (not its
 * timings) show the instant way's promise, and the grown log reads back as zeros;
 * the classic zero-writes show their progress; without anywhere to run or with bad
 * sizes it is bad usage (exit 2).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "child.h"
#include "scratch.h"
#include "test.h"
#include "util.h"

#ifndef XIO_DEMO_PATH
#error "XIO_DEMO_PATH must name the xio-demo program"
#endif

#define MiB (1024.0 * 1024)

/* One run of xio-demo: its exit status and outputs. */
typedef struct run {
  int status;
  char *out, *err;
} run;

/* The emulator's variables, left out of a run that must find none. */
static const char *const no_endpoint[] = {
    "XIO_DEMO_ENDPOINT=", "XIO_BLOB_ENDPOINT=", "XIO_TEST_BLOB_ENDPOINT=", NULL};

/* Runs xio-demo with `args` (NULL-terminated), with the test's environment less the
 * entries `drop` names (may be NULL). */
static void demo_v(run *r, const char *const *drop, const char *const *args) {
  const char *argv[16];
  size_t k = 0;
  argv[k++] = "xio-demo";
  for (size_t i = 0; args[i]; i++) {
    if (k + 1 == sizeof argv / sizeof *argv) FAIL("too many arguments");
    argv[k++] = args[i];
  }
  argv[k] = NULL;
  char **env = test_env(drop, NULL);
  free(r->out);
  free(r->err);
  r->status = test_spawn(XIO_DEMO_PATH, argv, env, &r->out, &r->err);
  free(env);
}

#define DEMO(r, ...)         demo_v((r), NULL, (const char *const[]){__VA_ARGS__, NULL})
#define DEMO_NOWHERE(r, ...) demo_v((r), no_endpoint, (const char *const[]){__VA_ARGS__, NULL})
#define EXPECT_STATUS(r, want)                                                                     \
  do {                                                                                             \
    if ((r)->status != (want))                                                                     \
      FAIL("exit status %d, wanted %d\n--- stdout:\n%s--- stderr:\n%s", (r)->status, (want),       \
           (r)->out, (r)->err);                                                                    \
  } while (0)

static void run_free(run *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}

static cJSON *json_of(const run *r) {
  cJSON *j = cJSON_Parse(r->out);
  if (!j) FAIL("stdout is not JSON:\n%s", r->out);
  return j;
}

static double num(const cJSON *o, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsNumber(v)) FAIL("no number \"%s\" in the JSON", name);
  return v->valuedouble;
}

static const char *str(const cJSON *o, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsString(v)) FAIL("no string \"%s\" in the JSON", name);
  return v->valuestring;
}

/* The JSON row `i` of a demo run. */
static const cJSON *row(const cJSON *o, int i) {
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(o, "rows");
  ASSERT(cJSON_IsArray(rows) && cJSON_GetArraySize(rows) == 3);
  return cJSON_GetArrayItem(rows, i);
}

static void check_counts(const cJSON *o) {
  /* Create the data file: classic = create + one 4 MiB zero write per 4 MiB. */
  ASSERT_EQ(num(row(o, 0), "classic_requests"), 1 + 16 / 4);
  ASSERT_EQ(num(row(o, 0), "instant_requests"), 1);
  /* Create the log file: instant = create + one clear. */
  ASSERT_EQ(num(row(o, 1), "classic_requests"), 1 + 8 / 4);
  ASSERT_EQ(num(row(o, 1), "instant_requests"), 2);
  /* Grow the log: two requests whatever the size; the classic way is estimated. */
  ASSERT_EQ(num(row(o, 2), "instant_requests"), 2);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row(o, 2), "classic_estimated")));
  ASSERT(!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row(o, 0), "classic_estimated")));
  ASSERT_EQ(num(o, "growth_set_file_size"), 1);
  ASSERT_EQ(num(o, "growth_zero_file"), 1);
  ASSERT_EQ(num(o, "samples"), 18);
  ASSERT_EQ(num(o, "samples_zero"), 18);
}

TEST(demo_on_the_emulator) {
  run r = {0};
  DEMO(&r, "--json", "--endpoint", test_endpoint(), "--data-size", "16M", "--log-size", "8M");
  EXPECT_STATUS(&r, 0);
  cJSON *o = json_of(&r);
  check_counts(o);
  ASSERT_EQ(num(o, "grow_to"), 1024.0 * 1024 * MiB);
  ASSERT_CONTAINS(str(o, "backend"), "page blob");
  cJSON_Delete(o);
  /* The table for people names the operations and marks the estimate; the
   * emulator comes from the environment (XIO_TEST_BLOB_ENDPOINT) when no option
   * names one. */
  DEMO(&r, "--data-size", "8M", "--log-size", "4M", "--grow-to", "1G");
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "create data file");
  ASSERT_CONTAINS(r.out, "grow log file to");
  ASSERT_CONTAINS(r.out, "* not run: estimated");
  ASSERT_CONTAINS(r.out, "\"request_type\":\"XIOTypeZeroFile\"");
  ASSERT_CONTAINS(r.out, "18 of 18 samples");
  run_free(&r);
}

TEST(demo_on_local_files) {
  char dir[512];
  test_scratch_dir(dir, sizeof dir, "xio-demo");
  run r = {0};
  DEMO_NOWHERE(&r, "--json", "--local", dir, "--data-size", "16M", "--log-size", "8M", "--grow-to",
               "256M");
  EXPECT_STATUS(&r, 0);
  cJSON *o = json_of(&r);
  check_counts(o);
  ASSERT_CONTAINS(str(o, "backend"), "local");
  cJSON_Delete(o);
  run_free(&r);
}

/* The classic zero-writes show a progress line on stderr, as put and get do: on a
 * terminal, or anywhere with --progress (a line a second and the last state);
 * never with --json, nor on a pipe unless asked. The step's line comes whole. */
TEST(demo_shows_the_progress_of_the_zero_writes) {
  run r = {0};
  DEMO(&r, "--progress", "--data-size", "16M", "--log-size", "8M", "--grow-to", "1G");
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.err, "classic_data.mdf [########################] 100%");
  ASSERT_CONTAINS(r.err, "classic_log.ldf [########################] 100%");
  ASSERT_CONTAINS(r.err, " MiB/s  ETA 0:00");
  ASSERT(strstr(r.err, "instant_") == NULL); /* no zeros written: nothing to show */
  ASSERT_CONTAINS(r.out, "creating classic_data.mdf (16.0 MiB, init zero) ... ");
  ASSERT_CONTAINS(r.out, "creating instant_log.ldf (8.00 MiB, init clear) ... ");
  DEMO(&r, "--data-size", "8M", "--log-size", "4M", "--grow-to", "1G");
  EXPECT_STATUS(&r, 0);
  ASSERT(strstr(r.err, "MiB/s") == NULL); /* stderr is no terminal here */
  DEMO(&r, "--json", "--progress", "--data-size", "8M", "--log-size", "4M", "--grow-to", "1G");
  EXPECT_STATUS(&r, 0);
  ASSERT(strstr(r.err, "MiB/s") == NULL);
  run_free(&r);
}

TEST(demo_needs_somewhere_to_run) {
  char dir[512];
  test_scratch_dir(dir, sizeof dir, "xio-demo");
  run r = {0};
  DEMO_NOWHERE(&r, "--data-size", "1M");
  EXPECT_STATUS(&r, 2);
  ASSERT_CONTAINS(r.err, "make demo");
  DEMO_NOWHERE(&r, "--local", dir, "--grow-to", "4M");
  EXPECT_STATUS(&r, 2);
  ASSERT_CONTAINS(r.err, "--grow-to");
  DEMO_NOWHERE(&r, "--local", dir, "--data-size", "lots");
  EXPECT_STATUS(&r, 2);
  ASSERT_CONTAINS(r.err, "lots");
  DEMO_NOWHERE(&r, "--local", dir, "--frob");
  EXPECT_STATUS(&r, 2);
  ASSERT_CONTAINS(r.err, "unknown option --frob");
  DEMO_NOWHERE(&r, "--help");
  EXPECT_STATUS(&r, 0);
  ASSERT_CONTAINS(r.out, "usage: xio-demo");
  run_free(&r);
}
