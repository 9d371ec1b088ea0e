/*
 * xio/blob_target.h - targets of the page-blob client (libxio_blob): an addressed
 * container or blob with its credential and its log-safe URL. Targets are immutable
 * after creation and may be shared between threads; calls borrow them.
 */
#ifndef XIO_BLOB_TARGET_H
#define XIO_BLOB_TARGET_H

#include <xio/auth.h>
#include <xio/base.h>
#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xio_blob_target xio_blob_target;

/**
 * Makes a target from a container or blob URL (see xio_auth_url_parse). The
 * credential is `cred` when given (copied); otherwise a SAS in the URL's query;
 * otherwise anonymous. A SAS in the URL is parsed and checked for expiry at each
 * call. Errors: XIO_EPARSE (URL or SAS), XIO_EINSECURE is not raised here (the
 * engine refuses at send time), XIO_ENOMEM.
 */
xio_err xio_blob_target_new(const char *url, const xio_auth_cred *cred, xio_blob_target **out,
                            xio_error *err);

/** A target for blob `name` in the container (or account+container) of `t`,
 *  sharing its credential. Errors: XIO_EINVAL (t has no container), XIO_ENOMEM. */
xio_err xio_blob_target_child(const xio_blob_target *t, const char *name, xio_blob_target **out,
                              xio_error *err);

/** Frees `t` (may be NULL). Calls built on `t` must have finished first. */
void xio_blob_target_free(xio_blob_target *t);

/** Log-safe URL of the target: no query string, never a secret. */
const char *xio_blob_target_safe_url(const xio_blob_target *t);

/** Parsed parts of the target's URL (account, container, blob...). */
const xio_auth_url *xio_blob_target_url(const xio_blob_target *t);

/** The target's credential kind. */
xio_auth_cred_kind xio_blob_target_cred_kind(const xio_blob_target *t);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BLOB_TARGET_H */
