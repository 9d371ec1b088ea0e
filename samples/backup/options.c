/*
 * options.c - how a backup run goes (xio_backup_options) and how the library
 * speaks: never on a terminal of its own, only through the caller's say callback,
 * one formatted line per note.
 */
#include <stdarg.h>
#include <stdio.h>

#include "backup_int.h"

xio_backup_options xio_backup_options_default(void) {
  xio_backup_options o = {NULL, 0, 0, NULL, NULL, NULL};
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
