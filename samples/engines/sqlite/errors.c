/*
 * errors.c - how the VFS reports a failure: an SQLite code for SQLite, and a message
 * naming the problem for people, through sqlite3_log (in pieces that SQLite does not
 * cut, what to do first), the VFS's xGetLastError and xio_sqlite_last_error()
 * (thread-local, like errno). Messages come from xio's
 * detail records, which never hold a secret (targets are log-safe URLs).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sq_int.h"

static _Thread_local char last[1024];

/* SQLite formats a log message into a buffer of about 200 characters and cuts what
 * is longer, so a long message goes out in pieces that fit, each cut at a space. */
#define LOG_PIECE 180

static void log_in_pieces(int code, const char *msg) {
  size_t n = strlen(msg), at = 0;
  while (at < n) {
    size_t len = n - at;
    if (len > LOG_PIECE) {
      len = LOG_PIECE;
      while (len > LOG_PIECE / 2 && msg[at + len] != ' ')
        len--;
    }
    sqlite3_log(code, "xio: %s%.*s", at ? "... " : "", (int)len, msg + at);
    at += len;
    while (msg[at] == ' ')
      at++;
  }
}

void xsq_log(int code, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  log_in_pieces(code, msg);
}

int xsq_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last, sizeof last, fmt, ap);
  va_end(ap);
  log_in_pieces(code, last);
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

int xsq_fail_xio(int code, const char *what, const xio_error *e) {
  char buf[900];
  xio_error_format(e, buf, sizeof buf);
  if (e->code == XIO_ELEASELOST && code != SQLITE_CANTOPEN) code = SQLITE_IOERR_WRITE;
  /* The hint before the detail record: what to do is read first, the request ids after. */
  return xsq_fail(code, "%s: %s%s: %s", what, xio_strerror(e->code), hint(e->code), buf);
}

const char *xsq_last_error(void) { return last; }
