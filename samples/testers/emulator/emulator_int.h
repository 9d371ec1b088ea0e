/*
 * emulator_int.h - what the files of the emulator library share (xio_emulator.h is its
 * public face): the background processes it starts, finds and stops (proc.c), and the
 * state directory it keeps between calls (state.c), for the start (start.c), the stop
 * and the status (stop.c), the options (options.c) and the endpoints (endpoints.c).
 *
 * In the state directory: state (what runs: "NAME VALUE" lines, replaced through a
 * temporary file and a rename), pid and endpoint (Azurite's, written by azurite.sh),
 * proxy.endpoint and proxy.stats (the proxy's, written by it), and the logs
 * start.log (azurite.sh's), azurite.log (Azurite's) and proxy.log, which are kept
 * when the emulator stops.
 */
#ifndef XIO_EMULATOR_INT_H
#define XIO_EMULATOR_INT_H

#include <stddef.h>
#include <stdint.h>

#include "xio_emulator.h"

#define EMU_STOP_GRACE_MS 10000 /* how long a process has to end on SIGTERM */

/* ------------------------------------------------------------- proc.c ---- */

/**
 * Starts `argv[0]` (a path) with `argv` in the background: in a session of its own,
 * in directory `dir`, stdin from /dev/null, stdout and stderr to `log` (truncated),
 * with this process's environment and the "NAME=value" entries of `env` (NULL-
 * terminated, or NULL) set on top. Fills `out`. Errors: XIO_ENOMEM, XIO_EIO (the log
 * cannot be opened, the process cannot be made or seen in /proc). The caller reaps
 * it if it ends while the caller still runs (emu_reap).
 */
xio_err emu_spawn(const char *const *argv, const char *const *env, const char *dir, const char *log,
                  xio_emulator_proc *out, xio_error *err);

/** Collects `p` if it is a child of this process that has ended (so it does not
 *  linger as a zombie). */
void emu_reap(const xio_emulator_proc *p);

/** Ends `p` and its session's process group: SIGTERM, up to `grace_ms` to exit, then
 *  SIGKILL. Returns 0 once it is gone, -1 if it is still there. A process that is
 *  already gone (or pid 0) is fine. */
int emu_terminate(const xio_emulator_proc *p, int grace_ms);

/** Fills `out` with process `pid` and its start time. 0, or -1 when it does not run. */
int emu_proc_of(long pid, xio_emulator_proc *out);

/** Waits up to `ms` for child `p` to exit: its exit status, or -1 when it was killed
 *  by a signal, or did not end in time (it is then ended with its process group). */
int emu_wait(const xio_emulator_proc *p, int ms);

/** The emulator's starter into `out`: `given` when not NULL, else share/xio/azurite.sh
 *  beside the bin directory this program runs from. Errors: XIO_ENOTFOUND (no
 *  program there: the message says where it looked). */
xio_err emu_find_script(const char *given, char *out, size_t size, xio_error *err);

/** The fault proxy into `out`: `given` when not NULL, else $XIO_FAULTPROXY, else
 *  xio-faultproxy beside this program. Errors: as emu_find_script. */
xio_err emu_find_proxy(const char *given, char *out, size_t size, xio_error *err);

/** Sends one plain HTTP request to `url` ("http://127.0.0.1:PORT") and returns 1 when
 *  an HTTP response comes back within `ms`, else 0. */
int emu_answers(const char *url, int ms);

/** Milliseconds on the monotonic clock. */
int64_t emu_now_ms(void);

/** Sleeps `ms` milliseconds. */
void emu_sleep_ms(int ms);

/* ------------------------------------------------------------ state.c ---- */

/** Makes `dir` (mode 0700, parents too). Errors: XIO_EIO (the errno in sys_errno), the
 *  message naming the directory. */
xio_err emu_mkdir(const char *dir, xio_error *err);

/** `out` = dir/name. Returns 0, or -1 when it does not fit. */
int emu_path(const char *dir, const char *name, char *out, size_t size);

/** Reads dir/state. 1 read, 0 no state there, -1 unreadable (XIO_EIO in `err`). */
int emu_state_read(const char *dir, xio_emulator_state *st, xio_error *err);

/** Writes dir/state atomically. Errors: XIO_EINVAL (the name is too long), XIO_EIO. */
xio_err emu_state_write(const char *dir, const xio_emulator_state *st, xio_error *err);

/** Removes what a run left in `dir` but the logs (state, proxy endpoint and stats). */
void emu_state_remove(const char *dir);

/** Reads the proxy's stats file in `dir` into `out` (out->valid 0 when absent). */
void emu_stats_read(const char *dir, xio_emulator_stats *out);

/** Reads the first line of dir/name into `out`, newline dropped. 0, or -1 when it is
 *  not there or empty. */
int emu_read_line(const char *dir, const char *name, char *out, size_t size);

/** Fills `log` (may be NULL) with the path and last bytes of dir/name; leaves it empty
 *  when the file cannot be read. */
void emu_log_tail(const char *dir, const char *name, xio_emulator_log *log);

#endif /* XIO_EMULATOR_INT_H */
