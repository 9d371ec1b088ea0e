/*
 * emulator.c - the page-blob backend's server: Azurite, an in-memory emulator on
 * loopback. Three things about it matter to a benchmark:
 *   - where it listens (--endpoint, --endpoint-file, XIO_BLOB_ENDPOINT as `xio emulator
 *     start --shell` exports it, XIO_TEST_BLOB_ENDPOINT);
 *   - how much we may upload: Azurite keeps every page in memory up to a limit
 *     (6 GiB in samples/testers/emulator/azurite/azurite.sh), and a deleted blob's
 *     pages are freed only by its garbage collection, which runs every 10 minutes;
 *     so uploads add up across measurements even though every blob is deleted after
 *     its measurement;
 *   - how to start afresh: an optional shell command (e.g. "azurite.sh start DIR")
 *     restarts it empty, after which the endpoint (a new port) is read again.
 */
#define _POSIX_C_SOURCE 200809L
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

/* Reads the first line of `path` into `out`. Returns 0 or -1. */
static int read_line(const char *path, char *out, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int ok = fgets(out, (int)n, f) != NULL;
  fclose(f);
  if (!ok) return -1;
  out[strcspn(out, "\r\n")] = '\0';
  return out[0] ? 0 : -1;
}

static int find_endpoint(bench_emulator *em) {
  const char *shell = getenv("XIO_BLOB_ENDPOINT"), *test = getenv("XIO_TEST_BLOB_ENDPOINT");
  em->endpoint[0] = '\0';
  if (em->endpoint_opt && *em->endpoint_opt)
    snprintf(em->endpoint, sizeof em->endpoint, "%s", em->endpoint_opt);
  else if (em->endpoint_file)
    read_line(em->endpoint_file, em->endpoint, sizeof em->endpoint);
  else if (shell && *shell)
    snprintf(em->endpoint, sizeof em->endpoint, "%s", shell);
  else if (test)
    snprintf(em->endpoint, sizeof em->endpoint, "%s", test);
  return samples_bare_endpoint(em->endpoint) ? 0 : -1;
}

int bench_emulator_init(bench_emulator *em, const bench_config *c) {
  memset(em, 0, sizeof *em);
  em->endpoint_opt = c->endpoint;
  em->endpoint_file = c->endpoint_file;
  em->reset_cmd = c->emulator_reset;
  em->budget = c->emulator_budget;
  return find_endpoint(em);
}

/* Runs the reset command with /bin/sh and waits. Returns its exit status or -1. */
static int run_reset(const char *cmd) {
  char *argv[] = {"sh", "-c", (char *)cmd, NULL};
  pid_t pid;
  fflush(stdout);
  fflush(stderr);
  if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0) return -1;
  int st;
  while (waitpid(pid, &st, 0) < 0)
    ;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int restart(bench_emulator *em, char *why, size_t n) {
  char used[32], budget[32];
  printf("emulator: %s uploaded of a %s budget; restarting Azurite to free the pages of "
         "deleted blobs (its GC runs only every 10 minutes)\n",
         samples_fmt_size(em->used, used, sizeof used),
         samples_fmt_size(em->budget, budget, sizeof budget));
  double t0 = samples_now();
  int rc = run_reset(em->reset_cmd);
  em->reset_seconds += samples_now() - t0;
  if (rc != 0 || find_endpoint(em) != 0) {
    snprintf(why, n, "emulator restart failed (exit %d)", rc);
    return -1;
  }
  em->used = 0;
  em->generation++;
  em->resets++;
  return 0;
}

int bench_emulator_reserve(bench_emulator *em, uint64_t bytes, char *why, size_t n) {
  char a[32], b[32];
  if (em->budget && bytes > em->budget) {
    snprintf(why, n, "needs %s of emulator memory; budget %s (--emulator-budget)",
             samples_fmt_size(bytes, a, sizeof a), samples_fmt_size(em->budget, b, sizeof b));
    return 0;
  }
  if (em->budget && em->used + bytes > em->budget) {
    if (!em->reset_cmd) {
      snprintf(why, n,
               "emulator memory budget spent (%s of %s; Azurite frees deleted blobs "
               "only in its 10-minute GC; give --emulator-reset)",
               samples_fmt_size(em->used, a, sizeof a), samples_fmt_size(em->budget, b, sizeof b));
      return 0;
    }
    if (restart(em, why, n) != 0) return 0;
  }
  em->used += bytes;
  em->total_uploaded += bytes;
  return 1;
}
