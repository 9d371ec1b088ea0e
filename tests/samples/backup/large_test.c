/*
 * large_test.c - what an incremental backup saves: a 1 GiB blob, all of it data,
 * backed up in full, then 1% of it (five runs of 2 MiB) rewritten and backed up
 * again. The incremental run must read about 1% of the bytes of the full one and
 * a small fraction of its requests, counted in the trace and in --json. The
 * figures are printed for docs/backups.md. Labelled no-asan: uploading the 1 GiB
 * to Azurite dominates its time (60 s and more on two busy cores; the backups
 * themselves take about a third of that).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bkfix.h"
#include "test.h"
#include "util.h"

#define SIZE  (1024 * MiB)
#define CHUNK (64 * MiB)
#define RUNS  5
#define RUN   (2 * MiB)

typedef struct counts {
  uint64_t bytes, reads, requests;
} counts;

static counts run_backup(const char *url, const char *dir, int base) {
  clirun r = {0};
  XIO(&r, "--json", "backup", url, dir);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_EQ(cJSON_IsTrue(cJSON_GetObjectItem(j, "base")), base);
  counts c;
  int reads = 0;
  c.bytes = clirun_trace_sum(&r, "XIOTypeReadFile", &reads);
  c.reads = (uint64_t)reads;
  c.requests = (uint64_t)clirun_trace_events(&r, "xio_send_complete");
  ASSERT_EQ((uint64_t)clirun_num(j, "bytes_read"), c.bytes);
  ASSERT_EQ((uint64_t)clirun_num(j, "read_requests"), c.reads);
  cJSON_Delete(j);
  clirun_free(&r);
  return c;
}

TEST(incremental_backup_of_1gib_reads_about_1_percent) {
  char url[512], dir[512];
  bkfix_url("large", url, sizeof url);
  clirun_path("bk-large", dir, sizeof dir);
  xio_file *f = bkfix_open(url, SIZE);
  for (uint64_t off = 0; off < SIZE; off += CHUNK)
    bkfix_write(f, off, CHUNK, 300 + off / CHUNK);
  xio_error e;
  ASSERT_OK(xio_file_wait(f, &e), &e);
  counts full = run_backup(url, dir, 1);
  ASSERT_EQ(full.bytes, SIZE);

  for (int i = 0; i < RUNS; i++)
    bkfix_write(f, (uint64_t)(i * 200 + 37) * MiB, RUN, 400 + (uint64_t)i);
  ASSERT_OK(xio_file_wait(f, &e), &e);
  counts inc = run_backup(url, dir, 0);
  ASSERT_EQ(inc.bytes, RUNS * RUN); /* 10 MiB: 0.98% */
  ASSERT_EQ(inc.reads, RUNS);
  ASSERT(inc.bytes * 100 <= full.bytes * 11 / 10);
  ASSERT(inc.requests * 100 <= full.requests * 10);
  printf("full: %llu bytes, %llu reads, %llu requests; incremental: %llu bytes (%.2f%%), "
         "%llu reads, %llu requests (%.2f%%)\n",
         (unsigned long long)full.bytes, (unsigned long long)full.reads,
         (unsigned long long)full.requests, (unsigned long long)inc.bytes,
         100.0 * (double)inc.bytes / (double)full.bytes, (unsigned long long)inc.reads,
         (unsigned long long)inc.requests, 100.0 * (double)inc.requests / (double)full.requests);
  xio_file_close(f, NULL);
}
