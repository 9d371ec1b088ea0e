/*
 * emulator.h - what the files of `xio emulator` share: the command itself
 * (emulator.c), the background processes it starts, finds and stops
 * (emulator_proc.c), and the state it keeps in its directory between runs
 * (emulator_state.c).
 *
 * `xio emulator start` leaves two programs running in the background, each in a
 * session of its own so that it outlives the command: Azurite, started by the one
 * program that starts it for everyone (azurite.sh, installed in share/xio: in
 * memory, on a free loopback port, its garbage-collection sweep held until the
 * store needs it) and, with --faults, xio-faultproxy in front of it. The state
 * directory says which processes they are (pid and start time, so that a reused pid
 * is not taken for them), where they listen and what the proxy counted so far.
 */
#ifndef XIO_CLI_EMULATOR_H
#define XIO_CLI_EMULATOR_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "faultproxy.h"

extern const cli_command cli_cmd_emulator;

/** A background process: its pid and its start time in clock ticks after boot
 *  (/proc/PID/stat), 0 and 0 for none. */
typedef struct cli_emu_proc {
  long pid;
  unsigned long long start;
} cli_emu_proc;

/** What runs from one state directory. */
typedef struct cli_emu_state {
  cli_emu_proc azurite;
  cli_emu_proc proxy;      /* pid 0 with --profile none and no --faults */
  char azurite_url[64];    /* "http://127.0.0.1:PORT" */
  char proxy_url[64];      /* "" without a proxy */
  char faults[256];        /* the spec as the proxy took it, "" without */
  char profile[32];        /* the proxy's fidelity profile ("standard", ...) */
  unsigned long long seed; /* the proxy's seed */
} cli_emu_state;

/** The proxy's counts: requests seen and each fault kind applied, indexed by
 *  faultproxy_rule. */
typedef struct cli_emu_stats {
  int valid; /* the stats file was there and read */
  unsigned long long requests;
  unsigned long long injected[FAULTPROXY_NRULES];
  unsigned long long throttled, refused, paged, diffs; /* the fidelity front's answers */
} cli_emu_stats;

/* --------------------------------------------------- emulator_proc.c ---- */

/**
 * Starts `argv[0]` (a path) with `argv` in the background: in a session of its own,
 * in directory `dir`, stdin from /dev/null, stdout and stderr to `log` (truncated),
 * with this process's environment and the "NAME=value" entries of `env` (NULL-
 * terminated, or NULL) set on top. Fills `out`. Returns 0, or -1 with the reason in
 * `err`. The caller reaps it if it ends while the caller still runs (cli_emu_reap).
 */
int cli_emu_spawn(const char *const *argv, const char *const *env, const char *dir, const char *log,
                  cli_emu_proc *out, char *err, size_t errsize);

/** 1 when the process `p` names still runs (the same pid with the same start time,
 *  not a zombie), else 0. */
int cli_emu_alive(const cli_emu_proc *p);

/** Collects `p` if it is a child of this process that has ended (so it does not
 *  linger as a zombie). */
void cli_emu_reap(const cli_emu_proc *p);

/** Ends `p` and its session's process group: SIGTERM, up to `grace_ms` to exit,
 *  then SIGKILL. Returns 0 once it is gone, -1 if it is still there. A process
 *  that is already gone is fine. */
int cli_emu_terminate(const cli_emu_proc *p, int grace_ms);

/**
 * Finds the emulator's starter, azurite.sh (the one program that starts Azurite, for
 * the tests and the benchmarks too), where xio installs it: share/xio beside the bin
 * directory this program runs from (the build tree has a link there). Nothing of the
 * source tree is compiled in. Returns 0 with the path in `out`, or -1 with where it
 * looked in `err`.
 */
int cli_emu_find_script(char *out, size_t size, char *err, size_t errsize);

/** Fills `out` with process `pid` and its start time. 0, or -1 when it does not run. */
int cli_emu_proc_of(long pid, cli_emu_proc *out);

/** Waits up to `ms` for child `p` to exit: its exit status, or -1 when it was killed
 *  by a signal, or did not end in time (it is then ended with its process group). */
int cli_emu_wait(const cli_emu_proc *p, int ms);

/** Finds xio-faultproxy: $XIO_FAULTPROXY, else next to this program. As above. */
int cli_emu_find_proxy(char *out, size_t size, char *err, size_t errsize);

/** Sends one plain HTTP request to `url` ("http://127.0.0.1:PORT") and returns 1
 *  when an HTTP response comes back within `ms`, else 0. */
int cli_emu_answers(const char *url, int ms);

/** Milliseconds on the monotonic clock. */
int64_t cli_emu_now_ms(void);

/** Sleeps `ms` milliseconds. */
void cli_emu_sleep_ms(int ms);

/* -------------------------------------------------- emulator_state.c ---- */

/** The state directory: `dir` if given, else $XDG_RUNTIME_DIR/xio-emulator, else
 *  /tmp/xio-emulator-UID. Made absolute. Returns 0, or -1 with a message. */
int cli_emu_dir(const char *dir, char *out, size_t size, char *err, size_t errsize);

/** Makes `dir` (mode 0700, parents too). 0, or -1 with a message. */
int cli_emu_mkdir(const char *dir, char *err, size_t errsize);

/** `out` = dir/name. Returns 0, or -1 when it does not fit. */
int cli_emu_path(const char *dir, const char *name, char *out, size_t size);

/** Reads dir/state. 1 read, 0 no state there, -1 unreadable (message in err). */
int cli_emu_state_read(const char *dir, cli_emu_state *st, char *err, size_t errsize);

/** Writes dir/state atomically. 0, or -1 with a message. */
int cli_emu_state_write(const char *dir, const cli_emu_state *st, char *err, size_t errsize);

/** Removes what a run left in `dir` but the logs (state, proxy endpoint and stats). */
void cli_emu_state_remove(const char *dir);

/** Reads the proxy's stats file in `dir` into `out` (out->valid 0 when absent). */
void cli_emu_stats_read(const char *dir, cli_emu_stats *out);

/** Reads the first line of dir/name into `out`, newline dropped. 0, or -1. */
int cli_emu_read_line(const char *dir, const char *name, char *out, size_t size);

#endif /* XIO_CLI_EMULATOR_H */
