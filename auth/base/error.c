/*
 * error.c - names and texts of the xio error codes and reasons, and the helpers that
 * fill and format an xio_error detail record.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#define _POSIX_C_SOURCE           200809L
#define XIO__ERROR_SET_DEFINITION /* not the analyzer's stand-in of error.h */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <xio/error_int.h>

const char *xio_strerror(xio_err code) {
  switch (code) {
  case XIO_OK: return "success";
#define XIO__ERR_TEXT(name, text)                                                                  \
  case XIO_##name: return text;
    XIO_ERRNO_MAP(XIO__ERR_TEXT)
#undef XIO__ERR_TEXT
  default: return "unknown error";
  }
}

const char *xio_err_name(xio_err code) {
  switch (code) {
  case XIO_OK: return "XIO_OK";
#define XIO__ERR_NAME(name, text)                                                                  \
  case XIO_##name: return "XIO_" #name;
    XIO_ERRNO_MAP(XIO__ERR_NAME)
#undef XIO__ERR_NAME
  default: return "XIO_E?";
  }
}

const char *xio_reason_text(xio_reason reason) {
  switch (reason) {
#define XIO__REASON_TEXT(name, text)                                                               \
  case XIO_REASON_##name: return text;
    XIO_REASON_MAP(XIO__REASON_TEXT)
#undef XIO__REASON_TEXT
  default: return "";
  }
}

const char *xio_reason_name(xio_reason reason) {
  switch (reason) {
  case XIO_REASON_NONE: return "XIO_REASON_NONE";
#define XIO__REASON_NAME(name, text)                                                               \
  case XIO_REASON_##name: return "XIO_REASON_" #name;
    XIO_REASON_MAP(XIO__REASON_NAME)
#undef XIO__REASON_NAME
  default: return "XIO_REASON_?";
  }
}

void xio_error_clear(xio_error *e) {
  if (e) memset(e, 0, sizeof *e);
}

xio_err xio_error_set(xio_error *e, xio_err code, const char *fmt, ...) {
  if (!e) return code;
  memset(e, 0, sizeof *e);
  e->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->message, sizeof e->message, fmt, ap);
  va_end(ap);
  return code;
}

/* The words for a service answer that carried no message of its own: "the service
 * answered HTTP 404 BlobNotFound" (the code left out when there is none). */
static void status_words(char *buf, size_t size, int status, const char *service_code) {
  snprintf(buf, size, "the service answered HTTP %d%s%s", status, service_code[0] ? " " : "",
           service_code);
}

xio_err xio_error_set_status(xio_error *e, xio_err code, int status, const char *service_code) {
  if (!e) return code;
  const char *sc = service_code ? service_code : "";
  memset(e, 0, sizeof *e);
  e->code = code;
  e->http_status = status;
  snprintf(e->service_code, sizeof e->service_code, "%s", sc);
  status_words(e->message, sizeof e->message, status, e->service_code);
  return code;
}

int xio_error_message_is_status(const xio_error *e) {
  if (!e) return 0;
  char words[sizeof e->message];
  status_words(words, sizeof words, e->http_status, e->service_code);
  return strncmp(e->message, words, strlen(words)) == 0;
}

static void copy_field(char *dst, size_t size, const char *src) {
  snprintf(dst, size, "%s", src ? src : "");
}

void xio_error_set_reason(xio_error *e, xio_reason reason) {
  if (e) e->reason = reason;
}

void xio_error_set_operation(xio_error *e, const char *operation) {
  if (e) copy_field(e->operation, sizeof e->operation, operation);
}

void xio_error_set_target(xio_error *e, const char *target) {
  if (e) copy_field(e->target, sizeof e->target, target);
}

static xio_err errno_code(int errnum) {
  switch (errnum) {
  case ENOENT: return XIO_ENOTFOUND;
  case EEXIST: return XIO_EEXIST;
  case EACCES:
  case EPERM: return XIO_EPERM;
  case ENOMEM: return XIO_ENOMEM;
  default: return XIO_EIO;
  }
}

xio_err xio_error_from_errno(xio_error *e, int errnum, const char *operation, const char *call,
                             const char *path) {
  char text[128];
  if (strerror_r(errnum, text, sizeof text) != 0) snprintf(text, sizeof text, "errno %d", errnum);
  xio_err code = xio_error_set(e, errno_code(errnum), "%s failed: %s", call, text);
  if (e) e->sys_errno = errnum;
  xio_error_set_operation(e, operation);
  xio_error_set_target(e, path);
  return code;
}

/* Appends printf output at *pos without overrunning `size`. */
static void append(char *buf, size_t size, size_t *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t size, size_t *pos, const char *fmt, ...) {
  if (*pos >= size) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *pos, size - *pos, fmt, ap);
  va_end(ap);
  if (n > 0) *pos += (size_t)n;
}

char *xio_error_format(const xio_error *e, char *buf, size_t size) {
  size_t pos = 0;
  if (!buf || size == 0) return buf;
  buf[0] = '\0';
  if (!e) return buf;
  if (e->operation[0]) append(buf, size, &pos, "%s failed: ", e->operation);
  append(buf, size, &pos, "%s", xio_strerror(e->code));
  if (e->message[0]) append(buf, size, &pos, ": %s", e->message);
  if (e->http_status || e->service_code[0] || e->request_id[0]) {
    append(buf, size, &pos, " (");
    const char *sep = "";
    if (e->http_status) append(buf, size, &pos, "HTTP %d", e->http_status), sep = " ";
    if (e->service_code[0]) append(buf, size, &pos, "%s%s", sep, e->service_code), sep = ", ";
    if (e->request_id[0]) append(buf, size, &pos, "%srequest id %s", sep, e->request_id);
    append(buf, size, &pos, ")");
  }
  if (e->sys_errno) append(buf, size, &pos, " [errno %d]", e->sys_errno);
  if (e->target[0]) append(buf, size, &pos, " on %s", e->target);
  return buf;
}
