/*
 * xio/error_int.h - the helpers that fill an xio_error detail record, for the xio
 * libraries and the programs built in this tree (samples, tests); never installed.
 * A program using the installed libraries reads records (<xio/error.h>); only the
 * libraries write them. Part of libxio_auth's shared base (auth/base/error.c).
 */
#ifndef XIO_ERROR_INT_H
#define XIO_ERROR_INT_H

#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Starts a fresh record in `e` (may be NULL): every field is reset, then `code` and
 * the printf-style message are set, and `code` is returned, so a failure site can
 * `return xio_error_set(e, XIO_EINVAL, "...")`. Fill other fields after this call.
 * Callers must never pass secrets in the message.
 */
xio_err xio_error_set(xio_error *e, xio_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#if defined(__clang_analyzer__) && !defined(XIO__ERROR_SET_DEFINITION)
/* The static analyzer sees one file at a time, so it cannot know that the call
 * returns `code`, and follows paths where a failure returned XIO_OK. */
#define xio_error_set(e, code, ...) (xio_error_set((e), (code), __VA_ARGS__), (code))
#endif

/**
 * Starts a fresh record in `e` (may be NULL) for a service answer that carried no
 * message of its own: `code`, the HTTP status, the service code (may be NULL or "")
 * and a message made of them ("the service answered HTTP 404 BlobNotFound"), which
 * xio_error_message_is_status recognizes. Returns `code`. Fill other fields after
 * this call.
 */
xio_err xio_error_set_status(xio_error *e, xio_err code, int status, const char *service_code);

/**
 * Records the failure of system call `call` (errno `errnum`) during `operation` on
 * `path` in `e` (may be NULL): a fresh record with sys_errno, operation, target and
 * the message "CALL failed: <strerror>", and the code the errno maps to (ENOENT ->
 * XIO_ENOTFOUND, EEXIST -> XIO_EEXIST, EACCES and EPERM -> XIO_EPERM, ENOMEM ->
 * XIO_ENOMEM, anything else XIO_EIO), which it returns.
 */
xio_err xio_error_from_errno(xio_error *e, int errnum, const char *operation, const char *call,
                             const char *path);

/** Sets e->reason; `e` may be NULL. Call it after xio_error_set, which clears it. */
void xio_error_set_reason(xio_error *e, xio_reason reason);

/** Sets e->operation (truncated to fit); `e` may be NULL. */
void xio_error_set_operation(xio_error *e, const char *operation);

/** Sets e->target (truncated to fit); `e` may be NULL. Pass only log-safe text. */
void xio_error_set_target(xio_error *e, const char *target);

#ifdef __cplusplus
}
#endif
#endif /* XIO_ERROR_INT_H */
