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
 * A credential that may change while a target lives (a rotated SAS or key, an
 * Entra ID token that is refreshed): the engine asks it before every try.
 * `get` brings `cred` up to date: on entry it holds the credential of the call's
 * previous try (zeroed before the first); on return (XIO_OK) the one for this try
 * (SHARED_KEY, SAS, BEARER or NONE), left untouched when it is still current, else
 * replaced (the new one is made before the old is released, so a replaced string
 * never keeps its address). `refused` is 1 when the service refused `cred` (401/403
 * AuthenticationFailed) or the client found it expired: the source then reads its
 * origin again; a request is sent again once after a refusal when that gives another
 * credential (or a token is on its way). Setting *wait_ms > 0
 * (with XIO_OK) means "not ready, ask again in that many ms" (a token being
 * fetched). `get` runs on the engine's I/O thread: it must not block for long. An
 * error fails the request with its detail. `retain`/`release` count the targets
 * sharing `ud` (release of the last one frees it); both may be NULL. `for_url` (may
 * be NULL: children share `ud`) makes the `ud` of a child target for `url`
 * (xio_blob_target_child), retained once, or NULL on out-of-memory.
 */
typedef struct xio_blob_cred_source {
  xio_err (*get)(void *ud, int refused, xio_auth_cred *cred, int *wait_ms, xio_error *err);
  void (*retain)(void *ud);
  void (*release)(void *ud);
  void *(*for_url)(void *ud, const char *url);
  void *ud;
} xio_blob_cred_source;

/**
 * Makes a target from a container or blob URL (virtual-host or path
 * style; no dot segments; no query parameters but a SAS's and snapshot). The
 * credential is `cred` when given (copied); otherwise a SAS in the URL's query;
 * otherwise anonymous. A SAS in the URL is parsed and checked for expiry at each
 * call. Errors: XIO_EPARSE (URL or SAS), XIO_EINSECURE is not raised here (the
 * engine refuses at send time), XIO_ENOMEM.
 */
xio_err xio_blob_target_new(const char *url, const xio_auth_cred *cred, xio_blob_target **out,
                            xio_error *err);

/**
 * Makes a target whose credential comes from `src` at each try (see
 * xio_blob_cred_source); a SAS in the URL's query is not used. `src` is copied and
 * retained. Errors: XIO_EPARSE (URL), XIO_EINVAL (no get function), XIO_ENOMEM.
 */
xio_err xio_blob_target_new_source(const char *url, const xio_blob_cred_source *src,
                                   xio_blob_target **out, xio_error *err);

/** A target for blob `name` in the container (or account+container) of `t`,
 *  sharing its credential. Errors: XIO_EINVAL (t has no container), XIO_ENOMEM. */
xio_err xio_blob_target_child(const xio_blob_target *t, const char *name, xio_blob_target **out,
                              xio_error *err);

/** Frees `t` (may be NULL). Calls built on `t` must have finished first. */
void xio_blob_target_free(xio_blob_target *t);

/** Log-safe URL of the target: no query string, never a secret. */
const char *xio_blob_target_safe_url(const xio_blob_target *t);

/** A blob service URL taken apart: its fields are declared in <xio/url_int.h>, for
 *  the libraries and programs of the xio source tree; opaque to others. */
typedef struct xio_auth_url xio_auth_url;

/** Parsed parts of the target's URL (account, container, blob...), owned by `t`. */
const xio_auth_url *xio_blob_target_url(const xio_blob_target *t);

/** The target's credential kind (NONE for a target with a credential source). */
xio_auth_cred_kind xio_blob_target_cred_kind(const xio_blob_target *t);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BLOB_TARGET_H */
