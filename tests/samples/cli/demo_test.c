/*
 * demo_test.c - the create-database demo, run through `xio demo` in a reduced size
 * on the emulator and on local files: its table's request counts (not its timings)
 * show the instant way's promise, and the grown log reads back as zeros.
 */
#include <string.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB (1024.0 * 1024)

/* The JSON row `i` of a demo run. */
static const cJSON *row(const cJSON *o, int i) {
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(o, "rows");
  ASSERT(cJSON_IsArray(rows) && cJSON_GetArraySize(rows) == 3);
  return cJSON_GetArrayItem(rows, i);
}

static void check_counts(const cJSON *o) {
  /* Create the data file: classic = create + one 4 MiB zero write per 4 MiB. */
  ASSERT_EQ(clirun_num(row(o, 0), "classic_requests"), 1 + 16 / 4);
  ASSERT_EQ(clirun_num(row(o, 0), "instant_requests"), 1);
  /* Create the log file: instant = create + one clear. */
  ASSERT_EQ(clirun_num(row(o, 1), "classic_requests"), 1 + 8 / 4);
  ASSERT_EQ(clirun_num(row(o, 1), "instant_requests"), 2);
  /* Grow the log: two requests whatever the size; the classic way is estimated. */
  ASSERT_EQ(clirun_num(row(o, 2), "instant_requests"), 2);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row(o, 2), "classic_estimated")));
  ASSERT(!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row(o, 0), "classic_estimated")));
  ASSERT_EQ(clirun_num(o, "growth_set_file_size"), 1);
  ASSERT_EQ(clirun_num(o, "growth_zero_file"), 1);
  ASSERT_EQ(clirun_num(o, "samples"), 18);
  ASSERT_EQ(clirun_num(o, "samples_zero"), 18);
}

TEST(demo_on_the_emulator) {
  clirun r = {0};
  XIO(&r, "--json", "demo", "--endpoint", test_endpoint(), "--data-size", "16M", "--log-size",
      "8M");
  EXPECT_EXIT(&r, 0);
  cJSON *o = clirun_json(&r);
  check_counts(o);
  ASSERT_EQ(clirun_num(o, "grow_to"), 1024.0 * 1024 * MiB);
  ASSERT_CONTAINS(clirun_str(o, "backend"), "page blob");
  cJSON_Delete(o);
  /* The table for people names the operations and marks the estimate. */
  XIO(&r, "demo", "--endpoint", test_endpoint(), "--data-size", "8M", "--log-size", "4M",
      "--grow-to", "1G");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "create data file");
  ASSERT_CONTAINS(r.out, "grow log file to");
  ASSERT_CONTAINS(r.out, "* not run: estimated");
  ASSERT_CONTAINS(r.out, "\"request_type\":\"XIOTypeZeroFile\"");
  ASSERT_CONTAINS(r.out, "18 of 18 samples");
  clirun_free(&r);
}

TEST(demo_on_local_files) {
  clirun r = {0};
  XIO(&r, "--json", "demo", "--local", clirun_dir(), "--data-size", "16M", "--log-size", "8M",
      "--grow-to", "256M");
  EXPECT_EXIT(&r, 0);
  cJSON *o = clirun_json(&r);
  check_counts(o);
  ASSERT_CONTAINS(clirun_str(o, "backend"), "local");
  cJSON_Delete(o);
  clirun_free(&r);
}

TEST(demo_needs_somewhere_to_run) {
  clirun r = {0};
  XIO(&r, "demo");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "make demo");
  XIO(&r, "demo", "--local", clirun_dir(), "--grow-to", "4M");
  EXPECT_EXIT(&r, 2);
  XIO(&r, "demo", "--local", clirun_dir(), "--data-size", "lots");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "lots");
  clirun_free(&r);
}
