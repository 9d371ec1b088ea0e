/*
 * xio_emulator.h - the storage emulator for any client, as a library: Azurite (the
 * version xio's tests pin) in memory on a free loopback port, behind the proxy that
 * makes it answer as Azure does (xio-faultproxy and its fidelity profiles) and
 * injects faults on top; started, asked about and stopped from a state directory, so
 * that a later call, in this process or another, finds what an earlier one started.
 * The library behind `xio emulator start|stop|status`, for any program that wants an
 * emulator of its own without the command line: a test harness, an engine's tests, a
 * benchmark. docs/emulator.md describes the emulator itself.
 *
 * A start leaves two programs running in the background, each in a session of its
 * own so that it outlives the caller: Azurite, started by the one program that starts
 * it for everyone (azurite.sh, installed in share/xio: in memory, on a free port of
 * 127.0.0.1, its garbage-collection sweep held until the store needs it) and, unless
 * the profile is "none" with no faults, xio-faultproxy in front of it. The state
 * directory says which processes they are (pid and start time, so that a reused pid
 * is not taken for them), where they listen and what the proxy counted so far, and
 * holds each program's log. Nothing in it is a secret: the development account's
 * well-known key appears only in the connection string xio_emulator_connection_string
 * writes for the caller.
 *
 * The library prints nothing. Errors are xio_err codes with their detail in an
 * xio_error (<xio/error.h>), operation StartEmulator, StopEmulator or
 * EmulatorStatus; when a program a start ran did not come up, the end of its log comes
 * back in an xio_emulator_log. Messages name the options as `xio emulator` spells them
 * (--dir, --faults, --profile), which is how people meet them. The calls for one state
 * directory are made one at a time (by one process, or by several in turn). Linux
 * only: processes are told apart through /proc.
 */
#ifndef XIO_EMULATOR_H
#define XIO_EMULATOR_H

#include <stddef.h>
#include <stdint.h>

#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The longest state directory's name, with its NUL. */
#define XIO_EMULATOR_PATH_MAX 4096
/** The kinds of random fault the proxy injects and counts (xio_emulator_fault_name). */
#define XIO_EMULATOR_FAULT_KINDS 6
/** The blob data Azurite may hold by default, in MiB (6 GiB). */
#define XIO_EMULATOR_MEMORY_MIB_DEFAULT 6144
/** How long Azurite is idle before it sweeps its store, by default (a minute). */
#define XIO_EMULATOR_IDLE_SWEEP_MS_DEFAULT 60000

/** A background process: its pid and its start time in clock ticks after boot
 *  (/proc/PID/stat), 0 and 0 for none. */
typedef struct xio_emulator_proc {
  long pid;
  unsigned long long start;
} xio_emulator_proc;

/** What runs from one state directory (plain values: nothing to free). */
typedef struct xio_emulator_state {
  xio_emulator_proc azurite;
  xio_emulator_proc proxy; /**< pid 0 without a proxy (profile "none", no faults) */
  char azurite_url[64];    /**< "http://127.0.0.1:PORT" */
  char proxy_url[64];      /**< the proxy's, "" without one */
  char faults[256];        /**< the fault spec as the proxy took it, "" without faults */
  char profile[32];        /**< the proxy's fidelity profile ("standard", ...), "" without */
  unsigned long long seed; /**< the proxy's seed: the options' with faults, else 0 */
} xio_emulator_state;

/** The proxy's counts: requests seen, each kind of fault injected (indexed as
 *  xio_emulator_fault_name), and the fidelity front's own answers. */
typedef struct xio_emulator_stats {
  int valid; /**< 0: the proxy has written no counts (none runs, or not yet) */
  unsigned long long requests;
  unsigned long long injected[XIO_EMULATOR_FAULT_KINDS];
  unsigned long long throttled; /**< 503 ServerBusy answers over the profile's targets */
  unsigned long long refused;   /**< requests refused for Azure's limits */
  unsigned long long paged;     /**< Get Page Ranges answers cut into pages */
  unsigned long long diffs;     /**< Get Page Ranges diffs answered by the front */
} xio_emulator_stats;

/** How an emulator is started. */
typedef struct xio_emulator_options {
  /** The state directory: made when missing (mode 0700, parents too); relative names
   *  are taken from the current directory. NULL (default): $XIO_EMULATOR_DIR when
   *  set, else the session's own, $XDG_RUNTIME_DIR/xio-emulator/session-SID, else
   *  /tmp/xio-emulator-UID/session-SID, SID the session id (getsid: each terminal's
   *  shell has its own), see xio_emulator_dir. */
  const char *dir;
  /** How Azure-like the answers are: "standard" (default), "premium-p10" ..
   *  "premium-p80", "unthrottled" (no throttling targets), "none" (raw Azurite, no
   *  proxy unless there are faults). */
  const char *profile;
  /** Faults on top, a spec such as "503=10%,reset=2%,stall=1%:3000ms" (see
   *  xio_emulator_faults_check). NULL (default): none. */
  const char *faults;
  /** Which requests get which fault: the same seed and the same requests give the same
   *  faults. Used only with faults. Default 1. */
  unsigned long long seed;
  /** The blob data Azurite may hold, in MiB (at least 1); when blobs that exist fill it,
   *  writes are refused (409 MemoryExtentStoreAtSizeLimit). Default
   *  XIO_EMULATOR_MEMORY_MIB_DEFAULT. */
  uint64_t memory_mib;
  /** Azurite sweeps its store after this long without requests, unless the
   *  environment's XIO_AZURITE_GC_IDLE_MS says otherwise; 0: only when that variable
   *  asks. Default XIO_EMULATOR_IDLE_SWEEP_MS_DEFAULT. */
  int idle_sweep_ms;
  /** The program that starts Azurite. NULL (default): share/xio/azurite.sh where xio
   *  installs it, beside the bin directory of the running program (the build tree has
   *  a link there for build/samples/). */
  const char *azurite_sh;
  /** The fault proxy program. NULL (default): $XIO_FAULTPROXY, else xio-faultproxy
   *  beside the running program. */
  const char *faultproxy;
} xio_emulator_options;

/** The defaults documented above. Cannot fail. */
xio_emulator_options xio_emulator_options_default(void);

/** The end of the log of a program a start ran that did not come up: what it said of
 *  why. */
typedef struct xio_emulator_log {
  char path[XIO_EMULATOR_PATH_MAX + 64]; /**< the log file, "" when there is none to show */
  char tail[1500];                       /**< its last bytes, "" when it is empty */
} xio_emulator_log;

/* ----------------------------------------------------------------- options ---- */

/**
 * The state directory `dir` names (NULL: the default, see
 * xio_emulator_options.dir), absolute and without a trailing '/', into `out` of `size`
 * bytes. Errors: XIO_EINVAL ("--dir: empty directory name"; the name does not fit in
 * `size` less 64 bytes, room kept for the files in it), XIO_EIO (the current directory
 * cannot be told).
 */
xio_err xio_emulator_dir(const char *dir, char *out, size_t size, xio_error *err);

/** Checks a profile's name (see xio_emulator_options.profile). Errors: XIO_EINVAL, the
 *  message naming the profiles there are. */
xio_err xio_emulator_profile_check(const char *name, xio_error *err);

/**
 * Checks a fault spec: comma-separated KIND=RATE% items, KIND one of those
 * xio_emulator_fault_name gives (503, 500, reset, lost, torn, stall), RATE a
 * percentage of at most four decimals; 503 and stall take ":DURATION" (the retry hint,
 * default 1000ms; the hold, default 3000ms). Writes the spec as the proxy will take it
 * ("503=10%:1000ms,reset=2%") into `out` of `size` bytes (`out` may be NULL). Errors:
 * XIO_EINVAL, the message naming what is wrong (an unknown kind, a rate over 100% or
 * rates that add up to more, a kind given twice, a malformed rate or duration).
 */
xio_err xio_emulator_faults_check(const char *spec, char *out, size_t size, xio_error *err);

/** The name of fault kind `kind` (0 .. XIO_EMULATOR_FAULT_KINDS - 1) as a spec and the
 *  proxy's counts write it: "503", "500", "reset", "lost", "torn", "stall"; "?" for
 *  any other. Never NULL. */
const char *xio_emulator_fault_name(int kind);

/* ------------------------------------------------------------ start, stop ---- */

/**
 * Starts an emulator as `opts` (NULL: the defaults) asks, and waits until it answers:
 * Azurite, then the proxy in front of it, which then is where clients connect
 * (xio_emulator_front_url). `*out` gets what runs. A directory whose emulator has
 * ended is cleared first (a proxy it left running is stopped).
 *
 * Errors (operation StartEmulator): XIO_EEXIST (an emulator already runs from the
 * directory: `*out` then describes it, and nothing is changed), XIO_EINVAL (a bad
 * option: the profile, the faults, the directory's name, memory_mib 0), XIO_ENOTFOUND
 * (azurite.sh or the fault proxy is not where it was looked for: the message says
 * where, and how to get it there), XIO_EIO (the directory cannot be made or its files
 * written; Azurite or the proxy did not come up: the message says which, and `*log`,
 * when given, gets the end of that program's log, which says why, e.g. that Azurite
 * is not installed and where it was looked for), XIO_ETIMEDOUT (the proxy of an
 * ended emulator would not stop), XIO_ENOMEM. On any failure but XIO_EEXIST nothing
 * is left running and `*out` is zeroed. `log` may be NULL.
 */
xio_err xio_emulator_start(const xio_emulator_options *opts, xio_emulator_state *out,
                           xio_emulator_log *log, xio_error *err);

/** What a stop found and did. */
typedef struct xio_emulator_stopped {
  int found;                /**< 1: the directory held an emulator (running or not) */
  xio_emulator_state state; /**< what it held (zeroed when nothing) */
  xio_emulator_stats stats; /**< the proxy's final counts (valid 0: none) */
} xio_emulator_stopped;

/**
 * Stops the emulator started from directory `dir` (NULL: the default), the
 * proxy first (it writes its final counts as it stops), then Azurite, with everything
 * each started, and clears what they left in the directory but their logs. Nothing
 * there is fine (`out->found` 0). `out` may be NULL. Errors (operation StopEmulator):
 * XIO_EINVAL (the directory's name), XIO_EIO (its state cannot be read),
 * XIO_ETIMEDOUT (a process would not end, even after SIGKILL: the message names its
 * pid; the state is kept so that a later stop tries again).
 */
xio_err xio_emulator_stop(const char *dir, xio_emulator_stopped *out, xio_error *err);

/** What runs from a state directory. */
typedef struct xio_emulator_status {
  int found;                /**< 1: the directory holds an emulator's state */
  int running;              /**< Azurite runs, and the proxy too when there is one */
  int azurite_running;      /**< Azurite's process still runs */
  int proxy_running;        /**< the proxy's process still runs (0 without one) */
  xio_emulator_state state; /**< what the directory says runs (zeroed when nothing) */
  xio_emulator_stats stats; /**< the proxy's counts so far (valid 0: none) */
} xio_emulator_status;

/** Reads what runs from directory `dir` (NULL: the default) into `*out`,
 *  changing nothing. Errors (operation EmulatorStatus): XIO_EINVAL (the directory's
 *  name), XIO_EIO (its state cannot be read). */
xio_err xio_emulator_status_read(const char *dir, xio_emulator_status *out, xio_error *err);

/** 1 when the process `p` names still runs (the same pid with the same start time, not
 *  a zombie), else 0 (also for pid 0). */
int xio_emulator_alive(const xio_emulator_proc *p);

/* ------------------------------------------------------------ for clients ---- */

/** Where clients connect: the proxy's URL when there is one, else Azurite's. Points
 *  into `st`. */
const char *xio_emulator_front_url(const xio_emulator_state *st);

/** The development account's blob endpoint on the front,
 *  "http://127.0.0.1:PORT/devstoreaccount1", into `out` (cut to `size`). */
void xio_emulator_blob_endpoint(const xio_emulator_state *st, char *out, size_t size);

/** The development account's connection string for the front (it carries the
 *  account's well-known key, which is the point of it), into `out` (cut to `size`;
 *  512 bytes are enough). */
void xio_emulator_connection_string(const xio_emulator_state *st, char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* XIO_EMULATOR_H */
