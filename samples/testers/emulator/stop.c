/*
 * stop.c - stopping an emulator and saying what runs: both read the state directory
 * a start left. A stop ends the proxy first (it writes its final counts as it stops),
 * reads those counts, then ends Azurite at once (it keeps everything in memory, so
 * nothing is lost; its own close on SIGTERM takes 1.7 s), and clears the state but
 * the logs. A status changes nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "emulator_int.h"

xio_err xio_emulator_stop(const char *dir, xio_emulator_stopped *out, xio_error *err) {
  xio_emulator_stopped s;
  char path[XIO_EMULATOR_PATH_MAX];
  memset(&s, 0, sizeof s);
  xio_err rc = xio_emulator_dir(dir, path, sizeof path, err);
  int r = rc == XIO_OK ? emu_state_read(path, &s.state, err) : 0;
  if (r < 0) rc = XIO_EIO;
  if (rc == XIO_OK && r > 0) {
    s.found = 1;
    int proxy_rc = emu_terminate(&s.state.proxy, EMU_STOP_GRACE_MS);
    emu_stats_read(path, &s.stats);
    int azurite_rc = emu_terminate(&s.state.azurite, 0);
    if (proxy_rc != 0 || azurite_rc != 0)
      rc = xio_error_set(err, XIO_ETIMEDOUT, "pid %ld would not end, even after SIGKILL",
                         proxy_rc != 0 ? s.state.proxy.pid : s.state.azurite.pid);
    else
      emu_state_remove(path);
  }
  if (rc != XIO_OK) xio_error_set_operation(err, "StopEmulator");
  if (out) *out = s;
  return rc;
}

xio_err xio_emulator_status_read(const char *dir, xio_emulator_status *out, xio_error *err) {
  xio_emulator_status s;
  char path[XIO_EMULATOR_PATH_MAX];
  memset(&s, 0, sizeof s);
  xio_err rc = xio_emulator_dir(dir, path, sizeof path, err);
  int r = rc == XIO_OK ? emu_state_read(path, &s.state, err) : 0;
  if (r < 0) rc = XIO_EIO;
  if (rc == XIO_OK) {
    s.found = r > 0;
    s.azurite_running = s.found && xio_emulator_alive(&s.state.azurite);
    s.proxy_running = s.found && xio_emulator_alive(&s.state.proxy);
    s.running = s.azurite_running && (!s.state.proxy.pid || s.proxy_running);
    emu_stats_read(path, &s.stats);
  }
  if (rc != XIO_OK) xio_error_set_operation(err, "EmulatorStatus");
  if (out) *out = s;
  return rc;
}
