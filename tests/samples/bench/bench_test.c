/*
 * bench_test.c - xio-bench works: run with tiny sizes against the test emulator, it
 * exits 0 and writes results.csv with every expected row and column, results.json,
 * results.md and (with gnuplot) the plots; it counts the requests of each operation
 * (a clear growth is one SetFileSize and one ZeroFile); it extrapolates zero-writes
 * past the cap instead of running them; it skips local sizes that would not fit on
 * the disk; behind a throttling front it reports the throttling answers per section
 * (--pacing off: the storm is counted). Times are never asserted: the machines are
 * noisy.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "csv.h"
#include "scratch.h"
#include "test.h"
#include "util.h"

extern char **environ;

static const char *const columns[] = {
    "kind",     "backend",       "op",           "policy", "size_bytes", "size",
    "io_bytes", "depth",         "runs",         "min_s",  "median_s",   "max_s",
    "requests", "request_types", "extrapolated", "status", "mib_s",      "cpu_s_per_gib",
    "iops",     "p50_us",        "p99_us",       "note"};

typedef struct run {
  char dir[512]; /* --out and --local-dir */
  int status;    /* exit status */
  csv table;
} run;

/* Runs xio-bench with `args` (NULL-terminated) plus --endpoint, --out and --local-dir
 * in a fresh directory; its output goes to DIR/stdout.log. */
static void run_bench_at(run *r, const char *endpoint, const char *const *args) {
  memset(r, 0, sizeof *r);
  test_scratch_dir(r->dir, sizeof r->dir, "xio-bench-test");
  const char *argv[64];
  int n = 0;
  argv[n++] = XIO_BENCH_EXE;
  argv[n++] = "--endpoint";
  argv[n++] = endpoint;
  argv[n++] = "--out";
  argv[n++] = r->dir;
  argv[n++] = "--local-dir";
  argv[n++] = r->dir;
  for (int i = 0; args[i] && n < 63; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  char log[600];
  snprintf(log, sizeof log, "%s/stdout.log", r->dir);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  ASSERT_EQ(posix_spawn(&pid, XIO_BENCH_EXE, &fa, NULL, (char **)argv, environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  int st;
  ASSERT(waitpid(pid, &st, 0) == pid);
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  if (r->status != 0) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "tail -n 40 '%s'", log);
    fflush(stdout);
    if (system(cmd) != 0) fprintf(stderr, "(no log)\n");
  }
  char path[600];
  snprintf(path, sizeof path, "%s/results.csv", r->dir);
  if (r->status == 0) ASSERT_EQ(csv_read(path, &r->table), 0);
}

static void run_bench(run *r, const char *const *args) { run_bench_at(r, test_endpoint(), args); }

static void run_free(run *r) {
  csv_free(&r->table);
  test_remove_tree(r->dir);
}

/* The row of kind/backend/op/policy/size (policy "" and size 0 for bulk and random:
 * then `depth` picks). Fails the test when there is none. */
static int find(const run *r, const char *kind, const char *backend, const char *op,
                const char *policy, const char *size, const char *depth) {
  const csv *c = &r->table;
  for (int i = 1; i < c->n; i++)
    if (!strcmp(csv_get(c, i, "kind"), kind) && !strcmp(csv_get(c, i, "backend"), backend) &&
        !strcmp(csv_get(c, i, "op"), op) && !strcmp(csv_get(c, i, "policy"), policy) &&
        (!size || !strcmp(csv_get(c, i, "size_bytes"), size)) &&
        (!depth || !strcmp(csv_get(c, i, "depth"), depth)))
      return i;
  FAIL("no row %s/%s/%s/%s/%s/%s in results.csv", kind, backend, op, policy, size ? size : "*",
       depth ? depth : "*");
}

static int file_size(const run *r, const char *name) {
  char path[600];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", r->dir, name);
  return stat(path, &st) == 0 ? (int)(st.st_size > 0) : -1;
}

static int file_contains(const run *r, const char *name, const char *needle) {
  char path[600], *text = NULL;
  size_t cap = 0;
  snprintf(path, sizeof path, "%s/%s", r->dir, name);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  ssize_t n = getdelim(&text, &cap, '\0', f);
  fclose(f);
  int hit = n > 0 && strstr(text, needle) != NULL;
  free(text);
  return hit;
}

static const char *const growth_ops[][2] = {
    {"create", "none"}, {"create", "zero"}, {"create", "clear"}, {"grow", "none"},
    {"grow", "zero"},   {"grow", "clear"},  {"zero", "zero"},    {"zero", "clear"}};

static void check_columns(const run *r) {
  ASSERT(r->table.n > 1);
  ASSERT_EQ(r->table.rows[0].n, (int)(sizeof columns / sizeof columns[0]));
  for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++)
    ASSERT_STR_EQ(r->table.rows[0].field[i], columns[i]);
  for (int i = 1; i < r->table.n; i++)
    ASSERT_EQ(r->table.rows[i].n, r->table.rows[0].n);
}

static void check_growth_rows(const run *r, const char *backend) {
  const char *sizes[2] = {"1048576", "4194304"};
  for (int s = 0; s < 2; s++)
    for (size_t k = 0; k < sizeof growth_ops / sizeof growth_ops[0]; k++) {
      int i = find(r, "growth", backend, growth_ops[k][0], growth_ops[k][1], sizes[s], NULL);
      ASSERT_STR_EQ(csv_get(&r->table, i, "status"), "ok");
      ASSERT_STR_EQ(csv_get(&r->table, i, "runs"), "1");
      ASSERT_STR_EQ(csv_get(&r->table, i, "extrapolated"), "0");
      ASSERT(strtod(csv_get(&r->table, i, "median_s"), NULL) > 0);
    }
  /* The headline: a clear growth is one resize and one clear, whatever the size. */
  for (int s = 0; s < 2; s++) {
    int i = find(r, "growth", backend, "grow", "clear", sizes[s], NULL);
    ASSERT_STR_EQ(csv_get(&r->table, i, "requests"), "2");
    ASSERT_STR_EQ(csv_get(&r->table, i, "request_types"), "XIOTypeZeroFile:1 XIOTypeSetFileSize:1");
    i = find(r, "growth", backend, "grow", "none", sizes[s], NULL);
    ASSERT_STR_EQ(csv_get(&r->table, i, "request_types"), "XIOTypeSetFileSize:1");
    i = find(r, "growth", backend, "zero", "clear", sizes[s], NULL);
    ASSERT_STR_EQ(csv_get(&r->table, i, "request_types"), "XIOTypeZeroFile:1");
  }
  int i = find(r, "growth", backend, "create", "clear", "4194304", NULL);
  ASSERT_STR_EQ(csv_get(&r->table, i, "request_types"), "XIOTypeCreateFile:1 XIOTypeZeroFile:1");
}

static void check_io_rows(const run *r) {
  const char *depths[4] = {"1", "4", "16", "64"};
  for (int d = 0; d < 4; d++) {
    int w = find(r, "bulk", "pageblob", "write", "", NULL, depths[d]);
    int rd = find(r, "bulk", "pageblob", "read", "", NULL, depths[d]);
    ASSERT_STR_EQ(csv_get(&r->table, w, "status"), "ok");
    ASSERT_STR_EQ(csv_get(&r->table, rd, "status"), "ok");
    ASSERT_STR_EQ(csv_get(&r->table, w, "request_types"),
                  "XIOTypeWriteFile:4"); /* 16 MiB / 4 MiB */
    ASSERT_STR_EQ(csv_get(&r->table, rd, "request_types"), "XIOTypeReadFile:4");
    ASSERT(strtod(csv_get(&r->table, w, "mib_s"), NULL) > 0);
  }
  const char *ops[2] = {"randread", "randwrite"}, *qd[2] = {"1", "32"};
  for (int o = 0; o < 2; o++)
    for (int d = 0; d < 2; d++) {
      int i = find(r, "random", "pageblob", ops[o], "", NULL, qd[d]);
      ASSERT_STR_EQ(csv_get(&r->table, i, "status"), "ok");
      ASSERT(strtod(csv_get(&r->table, i, "iops"), NULL) > 0);
      ASSERT(strtod(csv_get(&r->table, i, "p99_us"), NULL) >=
             strtod(csv_get(&r->table, i, "p50_us"), NULL));
    }
}

TEST(tiny_run_writes_every_row) {
  run r;
  const char *args[] = {"--sizes",          "1M,4M", "--runs", "1", "--bulk-size", "16M",
                        "--random-seconds", "0.2",   NULL};
  run_bench(&r, args);
  ASSERT_EQ(r.status, 0);
  check_columns(&r);
  ASSERT_EQ(r.table.n - 1, 2 * 16 + 8 + 4); /* growth both backends, bulk, random */
  check_growth_rows(&r, "pageblob");
  check_growth_rows(&r, "local");
  check_io_rows(&r);
  ASSERT_EQ(file_size(&r, "results.json"), 1);
  ASSERT(file_contains(&r, "results.json", "\"request_types\""));
  ASSERT(file_contains(&r, "results.md", "not Azure"));
  ASSERT(file_contains(&r, "results.md", "| size | none | zero | clear |"));
  /* Plots when gnuplot is there, else a note that says why not. */
  if (file_contains(&r, "results.md", "gnuplot is not installed")) {
    ASSERT_EQ(file_size(&r, "growth-grow.png"), -1);
  } else {
    ASSERT_EQ(file_size(&r, "growth-grow.png"), 1);
    ASSERT_EQ(file_size(&r, "growth-zero.svg"), 1);
    ASSERT_EQ(file_size(&r, "bulk.png"), 1);
  }
  run_free(&r);
}

TEST(zero_writes_past_the_cap_are_extrapolated) {
  run r;
  /* A cap of one whole zero-write request (4 MiB), so the scaled request count is exact. */
  const char *args[] = {"--sizes", "4M,32M",     "--zero-cap", "4M",         "--runs",
                        "1",       "--sections", "growth",     "--no-plots", NULL};
  run_bench(&r, args);
  ASSERT_EQ(r.status, 0);
  const char *backends[2] = {"pageblob", "local"};
  for (int b = 0; b < 2; b++) {
    int cap = find(&r, "growth", backends[b], "grow", "zero", "4194304", NULL);
    int big = find(&r, "growth", backends[b], "grow", "zero", "33554432", NULL);
    ASSERT_STR_EQ(csv_get(&r.table, cap, "extrapolated"), "0");
    ASSERT_STR_EQ(csv_get(&r.table, big, "extrapolated"), "1");
    ASSERT_STR_EQ(csv_get(&r.table, big, "status"), "ok");
    /* Scaled, not measured: 8 x the cap's time (arithmetic, not a timing claim). */
    double t1 = strtod(csv_get(&r.table, cap, "median_s"), NULL);
    double t8 = strtod(csv_get(&r.table, big, "median_s"), NULL);
    ASSERT(t8 > 7.999 * t1 && t8 < 8.001 * t1);
    ASSERT_STR_EQ(csv_get(&r.table, cap, "request_types"),
                  "XIOTypeZeroFile:1 XIOTypeSetFileSize:1");
    ASSERT_STR_EQ(csv_get(&r.table, big, "request_types"),
                  "XIOTypeZeroFile:8 XIOTypeSetFileSize:1");
    /* Clear at 32 MiB is measured, still two requests. */
    int clear = find(&r, "growth", backends[b], "grow", "clear", "33554432", NULL);
    ASSERT_STR_EQ(csv_get(&r.table, clear, "extrapolated"), "0");
    ASSERT_STR_EQ(csv_get(&r.table, clear, "requests"), "2");
  }
  ASSERT(file_contains(&r, "results.md", "extrapolated: not run"));
  run_free(&r);
}

TEST(local_sizes_that_do_not_fit_are_skipped) {
  run r;
  const char *args[] = {"--sizes",    "1M",     "--runs",        "1",  "--backends", "local",
                        "--sections", "growth", "--disk-margin", "7T", "--no-plots", NULL};
  run_bench(&r, args);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(r.table.n - 1, 8);
  int clear = find(&r, "growth", "local", "grow", "clear", "1048576", NULL);
  ASSERT_STR_EQ(csv_get(&r.table, clear, "status"), "skipped");
  ASSERT_CONTAINS(csv_get(&r.table, clear, "note"), "needs 1.00 MiB free");
  int none = find(&r, "growth", "local", "grow", "none", "1048576", NULL);
  ASSERT_STR_EQ(csv_get(&r.table, none, "status"), "ok"); /* sparse: needs no space */
  run_free(&r);
}

TEST(bad_usage_exits_2) {
  run r;
  const char *args[] = {"--sizes", "1X", NULL};
  run_bench(&r, args);
  ASSERT_EQ(r.status, 2);
  run_free(&r);
}

/* The append section: every case on both backends written to append.csv, counted
 * as the design guarantees them whatever the machine's speed (counts only, never
 * times). No case reads anything back. Held records and writes aligned by hand are
 * sent by the flush alone, as one run each: exactly the fewest requests of the
 * backend's largest (a 4 MiB Put Page; 8 MiB on a local file) that carry a flush's
 * bytes. Naive records wait in the write queue, combined into runs of up to 4 MiB,
 * for the default 2 ms window, which a loaded machine may let pass between any two of
 * them: at least the fewest 4 MiB runs and at most one request per record
 * (xio_append asserts the fewest with a window no scheduler reaches). */
static unsigned long long num(const csv *a, int i, const char *column) {
  return strtoull(csv_get(a, i, column), NULL, 10);
}

/* The fewest requests of `largest` bytes that carry the bytes of one flush of row i. */
static unsigned long long fewest_per_flush(const csv *a, int i, unsigned long long largest) {
  unsigned long long bytes = num(a, i, "record") * num(a, i, "flush_every");
  return (bytes + largest - 1) / largest;
}

TEST(append_section_counts_requests_per_flush) {
  run r;
  const char *args[] = {"--sections", "append", "--append-records", "200", "--no-plots", NULL};
  run_bench(&r, args);
  ASSERT_EQ(r.status, 0);
  char path[700];
  snprintf(path, sizeof path, "%s/append.csv", r.dir);
  csv a;
  ASSERT_EQ(csv_read(path, &a), 0);
  ASSERT_EQ(a.n - 1, 2 * 3 * 3 * 3); /* backends x record sizes x flush intervals x modes */
  int modes[3] = {0, 0, 0};
  for (int i = 1; i < a.n; i++) {
    ASSERT_STR_EQ(csv_get(&a, i, "status"), "ok");
    ASSERT_STR_EQ(csv_get(&a, i, "read_requests"), "0");
    const char *mode = csv_get(&a, i, "mode");
    unsigned long long writes = num(&a, i, "write_requests"), records = num(&a, i, "records");
    unsigned long long mib = 1024 * 1024, flushes = num(&a, i, "flushes");
    unsigned long long fewest = flushes * fewest_per_flush(&a, i, 4 * mib);
    unsigned long long largest =
        strcmp(csv_get(&a, i, "backend"), "local") == 0 ? 8 * mib : 4 * mib;
    ASSERT_EQ(records, 200);
    ASSERT_EQ(flushes, (records + num(&a, i, "flush_every") - 1) / num(&a, i, "flush_every"));
    if (strcmp(mode, "naive") == 0) {
      if (writes < fewest || writes > records)
        FAIL("row %d (naive): %llu write requests, outside [%llu, %llu]", i, writes, fewest,
             records);
      modes[0]++;
    } else {
      unsigned long long want = flushes * fewest_per_flush(&a, i, largest);
      if (writes != want) FAIL("row %d (%s): %llu write requests, not %llu", i, mode, writes, want);
      modes[strcmp(mode, "held") == 0 ? 1 : 2]++;
    }
  }
  for (int m = 0; m < 3; m++)
    ASSERT_EQ(modes[m], 2 * 3 * 3);
  ASSERT(file_contains(&r, "append.md", "| backend | record | flush every | mode |"));
  csv_free(&a);
  run_free(&r);
}

/* Starts xio-faultproxy in front of the test emulator with the standard profile
 * scaled by `scale`, its endpoint written to DIR/front.endpoint; returns its pid. */
static pid_t start_front(const char *dir, const char *scale, char *endpoint, size_t n) {
  char file[600];
  snprintf(file, sizeof file, "%s/front.endpoint", dir);
  const char *argv[] = {
      XIO_FAULTPROXY_EXE, "--upstream", test_endpoint(),   "--profile", "standard",
      "--scale",          scale,        "--endpoint-file", file,        NULL};
  pid_t pid;
  ASSERT_EQ(posix_spawn(&pid, XIO_FAULTPROXY_EXE, NULL, NULL, (char **)argv, environ), 0);
  for (int i = 0; i < 200; i++) {
    FILE *f = fopen(file, "r");
    int got = f && fgets(endpoint, (int)n, f) != NULL;
    if (f) fclose(f);
    if (got && strchr(endpoint, '\n')) {
      endpoint[strcspn(endpoint, "\n")] = '\0';
      return pid;
    }
    nanosleep(&(struct timespec){0, 25000000}, NULL);
  }
  kill(pid, SIGTERM);
  FAIL("xio-faultproxy wrote no endpoint");
}

/* results.json's throttling.SECTION.FIELD, or -1. */
static double throttling_count(const run *r, const char *section, const char *field) {
  char path[600], *text = NULL;
  size_t cap = 0;
  snprintf(path, sizeof path, "%s/results.json", r->dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  ssize_t n = getdelim(&text, &cap, '\0', f);
  fclose(f);
  cJSON *root = n > 0 ? cJSON_Parse(text) : NULL;
  free(text);
  cJSON *s = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "throttling"), section);
  cJSON *v = cJSON_GetObjectItem(s, field);
  double out = cJSON_IsNumber(v) ? v->valuedouble : -1;
  cJSON_Delete(root);
  return out;
}

/* Behind a front that allows 5 requests/s per blob, unpaced 8 KiB random writes
 * (only: --random-kinds write) at depth 8 are refused: the random section's row and the per-section
 * table count the 503 answers (and the retries they caused) in results.json, results.md and on the
 * terminal, with the pacing named. */
TEST(throttling_answers_are_counted_per_section) {
  char dir[512], ep[256];
  test_scratch_dir(dir, sizeof dir, "xio-bench-front");
  pid_t front = start_front(dir, "0.01", ep, sizeof ep);
  run r;
  const char *args[] = {"--sections",      "random", "--random-file",    "1M",
                        "--random-depths", "8",      "--random-seconds", "0.5",
                        "--pacing",        "off",    "--no-plots",       "--random-kinds",
                        "write",           NULL};
  run_bench_at(&r, ep, args);
  kill(front, SIGTERM);
  waitpid(front, NULL, 0);
  ASSERT(r.status == 0 || r.status == 1); /* 1: a request ran out of retries */
  ASSERT(throttling_count(&r, "random", "throttled") > 0);
  ASSERT(throttling_count(&r, "random", "retries") > 0);
  ASSERT(throttling_count(&r, "random", "requests") > 0);
  ASSERT_EQ(throttling_count(&r, "growth", "requests"), -1); /* not run */
  ASSERT(file_contains(&r, "results.json", "randwrite"));    /* --random-kinds write */
  ASSERT(!file_contains(&r, "results.json", "randread"));
  ASSERT(file_contains(&r, "results.md",
                       "Throttling answers on page blobs, per section (pacing off)"));
  ASSERT(file_contains(&r, "results.md", "| random |"));
  ASSERT(file_contains(&r, "stdout.log", "throttling answers on page blobs, per section"));
  ASSERT(file_contains(&r, "results.json", "\"pacing\": \"off\"") ||
         file_contains(&r, "results.json", "\"pacing\":\t\"off\""));
  run_free(&r);
  test_remove_tree(dir);
}

/* Bad --pacing and --max-rate values are refused with exit 2. */
TEST(bad_pacing_options_exit_2) {
  const char *bad[][2] = {{"--pacing", "fast"}, {"--max-rate", "0"}, {"--max-rate", "lots"}};
  for (int i = 0; i < 3; i++) {
    run r;
    const char *args[] = {bad[i][0], bad[i][1], NULL};
    run_bench(&r, args);
    ASSERT_EQ(r.status, 2);
    ASSERT(file_contains(&r, "stdout.log", bad[i][0]));
    run_free(&r);
  }
}
