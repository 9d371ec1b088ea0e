/*
 * xio/error.h - the one list of error codes every xio library returns, and the
 * detail record that travels beside a code. Part of libxio_auth's shared base
 * (auth/base/), with <xio/base.h>.
 *
 * Every fallible xio function returns an xio_err. XIO_OK is 0; every failure is a
 * positive code from XIO_ERRNO_MAP. Codes are append-only: a code's number never
 * changes once released. Functions that can fail also take an optional
 * `xio_error *` (may be NULL) which they fill with what went wrong: the operation,
 * the reason, the HTTP status, the service error code, the request ids, the
 * log-safe target, and a message. Nothing in a detail record is ever secret:
 * targets are redacted before they are stored, and messages never quote keys or
 * signatures.
 *
 * A reason (XIO_REASON_MAP) says more than the code where the failure site knows
 * more, as libcurl's codes tell a certificate from a connection failure: which TLS
 * check refused the server, what broke the connection, why a credential was not
 * used. Programs decide what to tell people from the code and the reason; the
 * message is for people to read, never for programs to parse.
 */
#ifndef XIO_ERROR_H
#define XIO_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* XX(name, text). Append only. */
#define XIO_ERRNO_MAP(XX)                                                                          \
  XX(EINVAL, "invalid argument")                                                                   \
  XX(ENOMEM, "out of memory")                                                                      \
  XX(EALIGN, "offset or length is not a multiple of 512 bytes")                                    \
  XX(ERANGE, "range lies outside the file or blob")                                                \
  XX(ELIMIT, "request exceeds a service limit")                                                    \
  XX(EPARSE, "malformed input")                                                                    \
  XX(ENOCRED, "no credential for the target")                                                      \
  XX(EAUTH, "authentication failed")                                                               \
  XX(EPERM, "credential lacks a required permission")                                              \
  XX(EEXPIRED, "credential has expired")                                                           \
  XX(ENOTYET, "credential is not valid yet")                                                       \
  XX(ENOTFOUND, "not found")                                                                       \
  XX(EEXIST, "already exists")                                                                     \
  XX(EBUSY, "in use: leased by another client")                                                    \
  XX(ELEASELOST, "lease lost: writes stopped")                                                     \
  XX(ECONFLICT, "conflicting state on the service")                                                \
  XX(ECHECKSUM, "checksum mismatch")                                                               \
  XX(EHTTP, "unexpected HTTP response")                                                            \
  XX(ETRANSPORT, "network transport error")                                                        \
  XX(ETIMEDOUT, "timed out")                                                                       \
  XX(ETHROTTLED, "service busy: retries exhausted")                                                \
  XX(EIO, "local I/O error")                                                                       \
  XX(EREADONLY, "file is open read-only")                                                          \
  XX(EUNSUPPORTED, "operation not supported by this backend")                                      \
  XX(EINSECURE, "refused: credentials over plain http to a remote host")                           \
  XX(ECANCELED, "canceled")                                                                        \
  XX(ECLOSED, "file or context is closed")                                                         \
  XX(ECHANGED, "file changed since it was opened")

/* XX(name, text): what exactly went wrong, beside the code. Append only. */
#define XIO_REASON_MAP(XX)                                                                         \
  XX(RESOLVE, "the host name could not be resolved")                                               \
  XX(CONNECT, "no connection could be made to the host")                                           \
  XX(CONNECTION_LOST, "the connection broke before the answer was complete")                       \
  XX(TLS_HANDSHAKE, "the TLS handshake failed")                                                    \
  XX(TLS_UNTRUSTED, "the server's certificate is not trusted here")                                \
  XX(TLS_HOSTNAME, "the server's certificate is not for this host name")                           \
  XX(TLS_EXPIRED, "the server's certificate has expired or is not valid yet")                      \
  XX(CA_FILE, "the CA file cannot be used")                                                        \
  XX(HTTP_REMOTE, "plain http to a host that is not loopback")                                     \
  XX(TOKEN_OVER_HTTP, "an Entra ID token would go over plain http")                                \
  XX(CRED_FILE_EXPOSED, "the credential file is open to other users")                              \
  XX(NO_TOKEN_SOURCE, "no Entra ID token source applies here")                                     \
  XX(TOKEN_SOURCES_FAILED, "every Entra ID token source tried failed")                             \
  XX(NO_CREDENTIAL_SENT, "the request went without a credential")                                  \
  XX(CONTAINER_NAME, "the container name breaks Azure's naming rules")                             \
  XX(SPEAKS_HTTP, "the server answered the TLS handshake in plain http")                           \
  XX(SPEAKS_HTTPS, "the server speaks TLS (https), not plain http")

/** Result of every fallible xio call. 0 is success. */
typedef enum xio_err {
  XIO_OK = 0,
#define XIO__ERR_ENUM(name, text) XIO_##name,
  XIO_ERRNO_MAP(XIO__ERR_ENUM)
#undef XIO__ERR_ENUM
      XIO__ERR_COUNT
} xio_err;

/** The reason of a failure, finer than its code. XIO_REASON_NONE (0) when the
 *  failure site knows nothing more than the code says. */
typedef enum xio_reason {
  XIO_REASON_NONE = 0,
#define XIO__REASON_ENUM(name, text) XIO_REASON_##name,
  XIO_REASON_MAP(XIO__REASON_ENUM)
#undef XIO__REASON_ENUM
      XIO__REASON_COUNT
} xio_reason;

/**
 * What went wrong, beside an xio_err. All fields are NUL-terminated and empty
 * (or 0) when unknown. Fixed-size, so it can live on the caller's stack and be
 * filled without allocation on any path, including out-of-memory.
 */
typedef struct xio_error {
  xio_err code;               /* same as the returned code */
  xio_reason reason;          /* finer than the code, or XIO_REASON_NONE */
  int http_status;            /* 0 when no HTTP response was received */
  int sys_errno;              /* errno of a local I/O failure, else 0 */
  int retries;                /* retries made before giving up */
  char operation[40];         /* e.g. "PutPage", "ParseConnectionString" */
  char service_code[64];      /* x-ms-error-code, e.g. "LeaseIdMissing" */
  char request_id[64];        /* x-ms-request-id of the last try */
  char client_request_id[64]; /* x-ms-client-request-id, same on every try */
  char target[512];           /* log-safe URL or path: never a secret */
  char message[512];          /* human text; never a secret */
} xio_error;

/** Short description of a code ("lease lost: writes stopped"). Never NULL. */
const char *xio_strerror(xio_err code);

/** Name of a code ("XIO_ELEASELOST"). Never NULL; "XIO_E?" for unknown codes. */
const char *xio_err_name(xio_err code);

/** Short description of a reason ("the server's certificate is not for this host
 *  name"); "" for XIO_REASON_NONE and for unknown reasons. Never NULL. */
const char *xio_reason_text(xio_reason reason);

/** Name of a reason ("XIO_REASON_TLS_HOSTNAME"); "XIO_REASON_NONE" for none,
 *  "XIO_REASON_?" for unknown reasons. Never NULL. */
const char *xio_reason_name(xio_reason reason);

/** Resets every field of `e` (may be NULL). */
void xio_error_clear(xio_error *e);

/**
 * Formats `e` on one line for people: "PutPage failed: lease lost: ... (HTTP 412
 * LeaseIdMismatchWithBlobOperation, request 1234) on http://..". Writes at most
 * `size` bytes including the NUL and returns `buf`.
 */
char *xio_error_format(const xio_error *e, char *buf, size_t size);

/**
 * Whether the message of `e` says nothing beyond its HTTP status and service code:
 * 1 when the service's answer carried no message of its own, so the library wrote
 * one from the status and code ("the service answered HTTP 404 BlobNotFound"; words
 * a program appended after those count as nothing more). A program that shows the
 * status and code anyway may show xio_strerror(e->code) in its place. 0 otherwise,
 * and when `e` is NULL. The library knows its own words for the record's status and
 * code, so a program need not match any text; cannot fail.
 */
int xio_error_message_is_status(const xio_error *e);

/* ------------------------------------------------------- writing a record ---- */
/* For engines and programs built on xio that report their own failures in xio's
 * form, so that their callers read one kind of record: the SQLite VFS and the
 * nbdkit plugin do. Each takes `e` NULL (nothing is recorded). */

/**
 * Starts a fresh record in `e`: every field is reset, then `code` and the
 * printf-style message are set, and `code` is returned, so a failure site can
 * `return xio_error_set(e, XIO_EINVAL, "...")`. Fill other fields after this call.
 * Never pass secrets in the message.
 */
xio_err xio_error_set(xio_error *e, xio_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#if defined(__clang_analyzer__) && !defined(XIO__ERROR_SET_DEFINITION)
/* The static analyzer sees one file at a time, so it cannot know that the call
 * returns `code`, and follows paths where a failure returned XIO_OK. */
#define xio_error_set(e, code, ...) (xio_error_set((e), (code), __VA_ARGS__), (code))
#endif

/**
 * Records the failure of system call `call` (errno `errnum`) during `operation` on
 * `path` in `e`: a fresh record with sys_errno, operation, target and the message
 * "CALL failed: <strerror>", and the code the errno maps to (ENOENT ->
 * XIO_ENOTFOUND, EEXIST -> XIO_EEXIST, EACCES and EPERM -> XIO_EPERM, ENOMEM ->
 * XIO_ENOMEM, anything else XIO_EIO), which it returns. Pass only a log-safe path.
 */
xio_err xio_error_from_errno(xio_error *e, int errnum, const char *operation, const char *call,
                             const char *path);

/** Sets e->operation (truncated to fit). Call it after xio_error_set, which clears it. */
void xio_error_set_operation(xio_error *e, const char *operation);

/** Sets e->target (truncated to fit). Pass only log-safe text: never a SAS or key. */
void xio_error_set_target(xio_error *e, const char *target);

#ifdef __cplusplus
}
#endif
#endif /* XIO_ERROR_H */
