/*
 * xio/error_int.h - what only the xio libraries write in an xio_error detail
 * record: its reason, which classifies the libraries' own failures, and the
 * message of a service answer that carried none; never installed. What an engine
 * writes (code, message, operation, target) is public in <xio/error.h>. Part of libxio_auth's
 * shared base (auth/base/error.c).
 */
#ifndef XIO_ERROR_INT_H
#define XIO_ERROR_INT_H

#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Starts a fresh record in `e` (may be NULL) for a service answer that carried no
 * message of its own: `code`, the HTTP status, the service code (may be NULL or "")
 * and a message made of them ("the service answered HTTP 404 BlobNotFound"), which
 * xio_error_message_is_status recognizes. Returns `code`. Fill other fields after
 * this call.
 */
xio_err xio_error_set_status(xio_error *e, xio_err code, int status, const char *service_code);

/** Sets e->reason; `e` may be NULL. Call it after xio_error_set, which clears it. */
void xio_error_set_reason(xio_error *e, xio_reason reason);

#ifdef __cplusplus
}
#endif
#endif /* XIO_ERROR_INT_H */
