/*
 * start.c - starting an emulator: the state directory made and cleared of an
 * emulator that has ended; Azurite started through the one program that starts it
 * for the tests, the benchmarks and `xio emulator` (azurite.sh) and checked to
 * answer; then, unless the profile is "none" with no faults, the proxy in front of
 * it, started and waited for until it listens. The state file is written as each
 * process comes, so that a stop finds whatever runs even when a start goes wrong
 * halfway, and a start that fails ends what it started.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator_int.h"

#define AZURITE_START_MS  60000 /* Azurite's first start on a slow machine */
#define AZURITE_ANSWER_MS 5000  /* then, for its first answer */
#define PROXY_START_MS    10000

/* One start: its options made whole, where it keeps things, and where the end of a
 * log goes when a program does not come up. */
typedef struct start_job {
  xio_emulator_options o;
  char dir[XIO_EMULATOR_PATH_MAX];
  char faults[256]; /* the spec as the proxy takes it, "" for none */
  xio_emulator_log *log;
} start_job;

static xio_err too_long(xio_error *err) {
  return xio_error_set(err, XIO_EINVAL, "the state directory's name is too long");
}

/* The options (NULL: the defaults) checked, and the directory made absolute. */
static xio_err job_init(start_job *j, const xio_emulator_options *opts, xio_emulator_log *log,
                        xio_error *err) {
  memset(j, 0, sizeof *j);
  j->o = opts ? *opts : xio_emulator_options_default();
  j->log = log;
  if (!j->o.profile) j->o.profile = "standard";
  xio_err rc = xio_emulator_dir(j->o.dir, j->dir, sizeof j->dir, err);
  if (rc == XIO_OK) rc = xio_emulator_profile_check(j->o.profile, err);
  if (rc == XIO_OK && j->o.faults)
    rc = xio_emulator_faults_check(j->o.faults, j->faults, sizeof j->faults, err);
  if (rc == XIO_OK && j->o.memory_mib == 0)
    rc = xio_error_set(err, XIO_EINVAL, "memory_mib is 0: give the emulator at least 1 MiB");
  return rc;
}

/* Refuses to start over a running emulator (XIO_EEXIST, `*running` describing it);
 * clears what an ended one left (a proxy whose Azurite has ended is stopped). */
static xio_err check_free(const start_job *j, xio_emulator_state *running, xio_error *err) {
  xio_emulator_state old;
  int r = emu_state_read(j->dir, &old, err);
  if (r < 0) return XIO_EIO;
  if (r > 0 && xio_emulator_alive(&old.azurite)) {
    *running = old;
    return xio_error_set(err, XIO_EEXIST,
                         "an emulator already runs from %s (Azurite pid %ld at %s)", j->dir,
                         old.azurite.pid, xio_emulator_front_url(&old));
  }
  if (r > 0 && emu_terminate(&old.proxy, EMU_STOP_GRACE_MS) != 0)
    return xio_error_set(err, XIO_ETIMEDOUT,
                         "the proxy left by a dead emulator (pid %ld) would not end",
                         old.proxy.pid);
  emu_state_remove(j->dir);
  return XIO_OK;
}

/* Notes the Azurite the starter left running (DIR/pid) in `st` and the state file,
 * so that a stop finds it even when the start goes wrong afterwards. */
static void note_azurite(const start_job *j, xio_emulator_state *st) {
  char line[32];
  if (emu_read_line(j->dir, "pid", line, sizeof line) != 0) return;
  if (emu_proc_of(strtol(line, NULL, 10), &st->azurite) == 0) emu_state_write(j->dir, st, NULL);
}

/* The starter's environment beyond the caller's: Azurite's memory, and its sweep
 * when idle unless the environment says otherwise. `memory` and `idle` hold them. */
static void azurite_env(const start_job *j, char *memory, char *idle, size_t size,
                        const char *env[3]) {
  snprintf(memory, size, "XIO_AZURITE_MEMORY_MB=%llu", (unsigned long long)j->o.memory_mib);
  snprintf(idle, size, "XIO_AZURITE_GC_IDLE_MS=%d", j->o.idle_sweep_ms);
  env[0] = memory;
  env[1] = getenv("XIO_AZURITE_GC_IDLE_MS") || j->o.idle_sweep_ms <= 0 ? NULL : idle;
  env[2] = NULL;
}

/* Starts Azurite through azurite.sh (start DIR: in memory, at most memory_mib of
 * blob data, on a free loopback port, with the preload that holds its
 * garbage-collection sweep, which stops the emulator answering for seconds to
 * minutes, until the store needs it or it is idle), then checks that it answers.
 * When it does not, the message gives the starter's exit status and the log's end
 * its own words. */
static xio_err start_azurite(const start_job *j, xio_emulator_state *st, xio_error *err) {
  char script[4096], log[4200], memory[64], idle[64];
  const char *env[3];
  xio_emulator_proc runner;
  xio_err rc = emu_find_script(j->o.azurite_sh, script, sizeof script, err);
  if (rc != XIO_OK) return rc;
  if (emu_path(j->dir, "start.log", log, sizeof log) != 0) return too_long(err);
  /* --skipApiVersionCheck: newer SDKs send service versions this Azurite predates.
   * --loose behind the front: Azurite ignores x-ms-range-get-content-crc64 (strict,
   * it answers 500 FeatureNotSupported), which the front answers as Azure does. */
  int raw = strcmp(j->o.profile, "none") == 0;
  const char *argv[] = {script, "start", j->dir, "--skipApiVersionCheck", raw ? NULL : "--loose",
                        NULL};
  azurite_env(j, memory, idle, sizeof memory, env);
  rc = emu_spawn(argv, env, j->dir, log, &runner, err);
  if (rc != XIO_OK) return rc;
  int status = emu_wait(&runner, AZURITE_START_MS);
  note_azurite(j, st);
  if (status == 0 &&
      emu_read_line(j->dir, "endpoint", st->azurite_url, sizeof st->azurite_url) == 0 &&
      emu_answers(st->azurite_url, AZURITE_ANSWER_MS))
    return XIO_OK;
  emu_log_tail(j->dir, "start.log", j->log);
  return xio_error_set(err, XIO_EIO, "Azurite did not start (%s start %s, exit %d)", script, j->dir,
                       status);
}

/* Waits until the proxy has written its endpoint into st->proxy_url: 0, or -1 when it
 * ended first or did not within PROXY_START_MS. */
static int wait_for_proxy(const start_job *j, xio_emulator_state *st) {
  for (int64_t end = emu_now_ms() + PROXY_START_MS; emu_now_ms() < end;) {
    if (emu_read_line(j->dir, "proxy.endpoint", st->proxy_url, sizeof st->proxy_url) == 0) return 0;
    emu_reap(&st->proxy);
    if (!xio_emulator_alive(&st->proxy)) break;
    emu_sleep_ms(20);
  }
  return -1;
}

/* Starts the fault proxy in front of Azurite with the profile and the faults, and
 * waits until it listens. */
static xio_err start_proxy(const start_job *j, xio_emulator_state *st, xio_error *err) {
  char bin[4096], log[4200], stats[4200], epfile[4200], seed[32];
  xio_err rc = emu_find_proxy(j->o.faultproxy, bin, sizeof bin, err);
  if (rc != XIO_OK) return rc;
  snprintf(st->faults, sizeof st->faults, "%s", j->faults);
  snprintf(st->profile, sizeof st->profile, "%s", j->o.profile);
  st->seed = j->o.faults ? j->o.seed : 0;
  snprintf(seed, sizeof seed, "%llu", st->seed);
  if (emu_path(j->dir, "proxy.log", log, sizeof log) != 0 ||
      emu_path(j->dir, "proxy.stats", stats, sizeof stats) != 0 ||
      emu_path(j->dir, "proxy.endpoint", epfile, sizeof epfile) != 0)
    return too_long(err);
  const char *argv[16] = {bin,    "--upstream", st->azurite_url, "--seed",
                          seed,   "--stats",    stats,           "--endpoint-file",
                          epfile, "--profile",  st->profile};
  if (st->faults[0]) { /* the faults, when any, on top */
    argv[11] = "--faults";
    argv[12] = st->faults;
  }
  rc = emu_spawn(argv, NULL, j->dir, log, &st->proxy, err);
  if (rc != XIO_OK) return rc;
  emu_state_write(j->dir, st, NULL);
  if (wait_for_proxy(j, st) == 0) return XIO_OK;
  emu_log_tail(j->dir, "proxy.log", j->log);
  return xio_error_set(err, XIO_EIO, "the fault proxy (%s) did not start", bin);
}

/* Azurite, the proxy when there is one, the state file; on failure ends what it
 * started and clears the directory's state. */
static xio_err bring_up(const start_job *j, xio_emulator_state *st, xio_error *err) {
  int proxy = j->o.faults || strcmp(j->o.profile, "none") != 0;
  xio_err rc = start_azurite(j, st, err);
  if (rc == XIO_OK && proxy) rc = start_proxy(j, st, err);
  if (rc == XIO_OK) rc = emu_state_write(j->dir, st, err);
  if (rc == XIO_OK) return XIO_OK;
  emu_terminate(&st->proxy, EMU_STOP_GRACE_MS);
  emu_terminate(&st->azurite, EMU_STOP_GRACE_MS);
  emu_state_remove(j->dir);
  return rc;
}

xio_err xio_emulator_start(const xio_emulator_options *opts, xio_emulator_state *out,
                           xio_emulator_log *log, xio_error *err) {
  start_job j;
  xio_emulator_state st;
  memset(&st, 0, sizeof st);
  if (log) memset(log, 0, sizeof *log);
  xio_err rc = job_init(&j, opts, log, err);
  if (rc == XIO_OK) rc = emu_mkdir(j.dir, err);
  if (rc == XIO_OK) rc = check_free(&j, &st, err);
  if (rc == XIO_OK) rc = bring_up(&j, &st, err);
  if (rc != XIO_OK) xio_error_set_operation(err, "StartEmulator");
  if (rc != XIO_OK && rc != XIO_EEXIST) memset(&st, 0, sizeof st);
  if (out) *out = st;
  return rc;
}
