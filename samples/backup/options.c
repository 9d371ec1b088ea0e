/*
 * options.c - how a backup run and a restore into a target go (xio_backup_options,
 * xio_backup_restore_options) and how the library speaks and is stopped: never on
 * a terminal of its own, only through the caller's say callback, one formatted line
 * per note, and when the caller's stop callback says so.
 */
#include <stdarg.h>
#include <stdio.h>

#include "backup_int.h"

xio_backup_options xio_backup_options_default(void) {
  xio_backup_options o = {NULL, 0, 0, NULL, NULL, NULL, 0};
  return o;
}

void bk_say(const xio_backup_options *o, xio_backup_note note, const char *fmt, ...) {
  if (!o || !o->say) return;
  char line[12288]; /* room for two paths of 4 KiB and the words around them */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  o->say(o->ud, note, line);
}

xio_backup_restore_options xio_backup_restore_options_default(void) {
  xio_backup_restore_options o = {0, 0, 0, NULL, NULL, NULL, 0};
  return o;
}

xio_err bk_check_stop(xio_backup_stop_fn stop, void *ud, xio_error *err) {
  if (!stop || !stop(ud)) return XIO_OK;
  xio_error_set(err, XIO_ECANCELED, "the restore was stopped");
  xio_error_set_operation(err, "Restore");
  return XIO_ECANCELED;
}
