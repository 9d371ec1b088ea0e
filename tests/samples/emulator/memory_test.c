/*
 * memory_test.c - `xio emulator` over a life of more writes than its memory holds:
 * Azurite keeps blob data in memory up to --memory and frees what deleted blobs held
 * only when it sweeps its store, so writes must go on past that limit once blobs are
 * deleted (a sweep when a write finds the store full), blobs that exist must keep
 * their bytes through the sweeps, and when the store is full of blobs that exist the
 * write is refused with a hint saying what to do. A small --memory keeps it short.
 * And once idle, the emulator sweeps what a deleted blob held without waiting for a
 * write to need it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "child.h"
#include "emurun.h"
#include "scratch.h"
#include "test.h"
#include "util.h"

#define MIB ((size_t)1 << 20)

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Writes `mib` MiB of pseudo-random bytes from `seed` to `path`. */
static void random_file(const char *path, size_t mib, uint64_t seed) {
  unsigned char *data = malloc(mib * MIB);
  ASSERT(data != NULL);
  test_fill_random(data, mib * MIB, seed);
  FILE *f = fopen(path, "wb");
  ASSERT(f != NULL);
  ASSERT_EQ(fwrite(data, 1, mib * MIB, f), mib * MIB);
  ASSERT_EQ(fclose(f), 0);
  free(data);
}

/* The first `n` bytes of the file at `path`, malloc'd; fails unless it holds exactly
 * `n`. */
static unsigned char *read_exactly(const char *path, size_t n) {
  unsigned char *data = malloc(n + 1);
  ASSERT(data != NULL);
  FILE *f = fopen(path, "rb");
  ASSERT(f != NULL);
  ASSERT_EQ(fread(data, 1, n + 1, f), n);
  ASSERT_EQ(fclose(f), 0);
  return data;
}

/* `xio ARGS...` with the emulator's connection string as its credential. */
#define XIO_AT(r, env, ...) EMU_XIO_ENV((r), (env), __VA_ARGS__)

#define KEPT 3 /* blobs kept throughout, of one name in as many containers */

/* 16 MiB of memory; three 1 MiB blobs kept throughout, and four 6 MiB blobs written
 * and deleted in turn: 27 MiB over the emulator's life. Every write goes in (the
 * third found the store full before: the sweep waited 6 hours), the kept blobs read
 * back whole (the sweep lists blobs two at a time here, so a page ends among the
 * kept ones, which share a name), a blob larger than what is left is refused with
 * the hint, and what it wrote before the refusal does not stay in the way of the
 * next blob. */
TEST(writes_go_on_past_the_memory_limit_once_blobs_are_deleted) {
  const char *dir = emurun_dir();
  char work[512], keep[KEPT][600], back[600], file[600], cs[1024], url[1024];
  test_scratch_dir(work, sizeof work, "xio-memory");
  emurun r = {0};
  /* A sweep frees what was written 200 ms ago or more (10 s by default), so that the
   * blobs deleted just before count in a short test. */
  EMU_XIO_ENV(
      &r,
      ((const char *const[]){"XIO_AZURITE_GC_PROTECT_MS=200", "XIO_AZURITE_GC_PAGE_BLOBS=2", NULL}),
      "emulator", "start", "--dir", dir, "--json", "--memory", "16M");
  EXPECT_STATUS(&r, 0);
  cJSON *s = emurun_json(&r);
  snprintf(cs, sizeof cs, "AZURE_STORAGE_CONNECTION_STRING=%s",
           emurun_str(s, "connection_string", NULL));
  const char *env[] = {cs, NULL};
  const char *ep = emurun_str(s, "blob_endpoint", NULL);

  for (int k = 0; k < KEPT; k++) {
    snprintf(keep[k], sizeof keep[k], "%s/keep%d", work, k);
    random_file(keep[k], 1, (uint64_t)k + 100);
    snprintf(url, sizeof url, "%s/memory-%d/keep", ep, k);
    XIO_AT(&r, env, "put", keep[k], url);
    EXPECT_STATUS(&r, 0);
  }
  snprintf(file, sizeof file, "%s/blob", work);
  for (int i = 0; i < 4; i++) {
    random_file(file, 6, (uint64_t)i + 2);
    snprintf(url, sizeof url, "%s/memory/blob%d", ep, i);
    XIO_AT(&r, env, "put", file, url);
    EXPECT_STATUS(&r, 0);
    XIO_AT(&r, env, "rm", url);
    EXPECT_STATUS(&r, 0);
    sleep_ms(300); /* what the blob held is older than the 200 ms a sweep keeps */
  }
  for (int k = 0; k < KEPT; k++) {
    snprintf(url, sizeof url, "%s/memory-%d/keep", ep, k);
    snprintf(back, sizeof back, "%s/keep%d.back", work, k);
    XIO_AT(&r, env, "get", url, back);
    EXPECT_STATUS(&r, 0);
    unsigned char *want = read_exactly(keep[k], MIB), *got = read_exactly(back, MIB);
    ASSERT_MEM_EQ(got, want, MIB);
    free(want);
    free(got);
  }

  random_file(file, 16, 9); /* more than the 13 MiB left beside the kept blobs */
  snprintf(url, sizeof url, "%s/memory/big", ep);
  XIO_AT(&r, env, "put", file, url);
  EXPECT_STATUS(&r, 1);
  ASSERT_CONTAINS(r.err, "MemoryExtentStoreAtSizeLimit");
  ASSERT_CONTAINS(r.err, "hint: the emulator's memory for blob data is full");
  ASSERT_CONTAINS(r.err, "`xio rm URL`");
  ASSERT_CONTAINS(r.err, "`xio emulator start --memory SIZE`");
  sleep_ms(300);
  random_file(file, 6, 10);
  snprintf(url, sizeof url, "%s/memory/after", ep);
  XIO_AT(&r, env, "put", file, url);
  EXPECT_STATUS(&r, 0);

  EMU_XIO(&r, "emulator", "stop", "--dir", dir);
  EXPECT_STATUS(&r, 0);
  cJSON_Delete(s);
  emurun_free(&r);
}

/* The number of times `needle` occurs in `text`. */
static int occurrences(const char *text, const char *needle) {
  int n = 0;
  for (const char *at = text; (at = strstr(at, needle)) != NULL; at += strlen(needle))
    n++;
  return n;
}

/* Idle half a second after a blob was written and deleted, the emulator sweeps and
 * frees the blob's extents: seen in Azurite's own debug log (an XIO_AZURITE wrapper
 * adds --debug), where its collector counts the sweeps it finished and the extents
 * it freed. The sweep at start frees nothing; the bound only catches a sweep that
 * never comes. */
TEST(an_idle_emulator_sweeps_what_deleted_blobs_held) {
  const char *dir = emurun_dir();
  char debug[600], az[700], cs[1024], file[600], url[1024];
  emurun_debug_azurite("xio-idle", az, sizeof az, debug, sizeof debug);
  emurun r = {0};
  EMU_XIO_ENV(&r,
              ((const char *const[]){az, "XIO_AZURITE_GC_IDLE_MS=500",
                                     "XIO_AZURITE_GC_PROTECT_MS=200", NULL}),
              "emulator", "start", "--dir", dir, "--json");
  EXPECT_STATUS(&r, 0);
  cJSON *s = emurun_json(&r);
  snprintf(cs, sizeof cs, "AZURE_STORAGE_CONNECTION_STRING=%s",
           emurun_str(s, "connection_string", NULL));
  const char *env[] = {cs, NULL};
  test_scratch_file(file, sizeof file, "xio-idle-blob");
  random_file(file, 1, 1);
  snprintf(url, sizeof url, "%s/idle/blob", emurun_str(s, "blob_endpoint", NULL));
  XIO_AT(&r, env, "put", file, url);
  EXPECT_STATUS(&r, 0);
  XIO_AT(&r, env, "rm", url);
  EXPECT_STATUS(&r, 0);
  char *log = NULL;
  for (int i = 0; i < 600; i++) { /* a minute at most */
    free(log);
    log = test_read_file(debug);
    if (occurrences(log, "Mark and sweep finished") >= 2) break;
    sleep_ms(100);
  }
  if (occurrences(log, "Mark and sweep finished") < 2)
    FAIL("the idle emulator never swept after the start:\n%s", log);
  ASSERT_CONTAINS(log, "markSweep() Deleted unreferenced");
  free(log);
  EMU_XIO(&r, "emulator", "stop", "--dir", dir);
  EXPECT_STATUS(&r, 0);
  cJSON_Delete(s);
  emurun_free(&r);
}

/* --memory takes whole MiB, at least one; anything else is bad usage, named, with
 * nothing started. */
TEST(memory_must_be_whole_mib) {
  const char *dir = emurun_dir();
  static const char *const bad[] = {"100K", "1.5G", "lots", "0"};
  emurun r = {0};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    EMU_XIO(&r, "emulator", "start", "--dir", dir, "--memory", bad[i]);
    EXPECT_STATUS(&r, 2);
    ASSERT_CONTAINS(r.err, "--memory");
    ASSERT_CONTAINS(r.err, bad[i]);
  }
  EMU_XIO(&r, "emulator", "status", "--dir", dir);
  EXPECT_STATUS(&r, 3); /* none runs: started by none of the refused starts */
  ASSERT_CONTAINS(r.out, "no emulator runs from");
  emurun_free(&r);
}
