/*
 * errors.c - how the VFS reports a failure: an SQLite code for SQLite, and a message
 * naming the problem for people, through sqlite3_log, the VFS's xGetLastError and
 * xio_sqlite_last_error() (thread-local, like errno). Messages come from xio's
 * detail records, which never hold a secret (targets are log-safe URLs).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sq_int.h"

static _Thread_local char last[1024];

int xio__sq_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last, sizeof last, fmt, ap);
  va_end(ap);
  sqlite3_log(code, "xio: %s", last);
  return code;
}

/* A hint for the codes people can act on. */
static const char *hint(xio_err code) {
  switch (code) {
  case XIO_ENOCRED:
  case XIO_EAUTH:
  case XIO_EPERM:
  case XIO_EEXPIRED:
    return " (no valid credential: put a SAS granting rcw in the URL, or set "
           "AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY)";
  case XIO_ELEASELOST:
    return " (another process took the database over: close it; nothing more is read or "
           "written)";
  default: return "";
  }
}

int xio__sq_fail_xio(int code, const char *what, const xio_error *e) {
  char buf[900];
  xio_error_format(e, buf, sizeof buf);
  if (e->code == XIO_ELEASELOST && code != SQLITE_CANTOPEN) code = SQLITE_IOERR_WRITE;
  return xio__sq_fail(code, "%s: %s%s", what, buf, hint(e->code));
}

const char *xio__sq_last_error(void) { return last; }
