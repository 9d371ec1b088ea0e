/*
 * xio/credentials.h - how a context's credentials change while it runs: Entra ID
 * (a token callback, the method to use), credentials replaced for a URL prefix,
 * the events that warn before a SAS in use expires, and user delegation SAS.
 *
 * Resolution, per URL, first match wins: a SAS in the URL; a credential set with
 * xio_ctx_set_credential; the credential file (XIO_CREDENTIALS or the option;
 * prefix -> SAS, key, connection string or an Entra ID method); the connection
 * string (URLs under its blob endpoint); AZURE_STORAGE_ACCOUNT + AZURE_STORAGE_KEY or
 * AZURE_STORAGE_SAS_TOKEN (the account's own URLs: its blob.core.windows.net host, or a loopback
 * emulator whose path starts with the account); then, for https URLs, Entra ID
 * (<xio/entra_sources.h>: the token callback, a managed identity at IDENTITY_ENDPOINT, the Azure
 * CLI, the instance metadata service on Azure VMs; the managed identity requests go out on the
 * context's engine, with its CA file, timeouts, retries and rules for plain http), narrowed to one
 * method by XIO_ENTRA_METHOD or xio_ctx_set_entra_method. When no Entra ID source applies at all
 * (none configured), requests go anonymous. A bearer token goes over https only: a request to an
 * http:// URL that would carry one (an Entra ID method or a token set for an http:// prefix, a user
 * delegation SAS for an http:// URL) fails with XIO_EINSECURE before it is sent, loopback and
 * allow_insecure_remote included.
 *
 * The credential is resolved again for every request: a credential file that
 * changed (checked by size, mode, time and inode, at most every recheck_ms) is
 * re-read (unless others may now read or write it: xio_cred_file_load), a request
 * the service refuses for its credential (401/403, e.g. an expired SAS or a rotated
 * key) is sent once more when reading the file again gives another one, and tokens
 * are refreshed before they expire. Nothing here ever puts a secret in an event, a
 * trace or an error.
 */
#ifndef XIO_CREDENTIALS_H
#define XIO_CREDENTIALS_H

#include <stdint.h>

#include <xio/entra.h>
#include <xio/xio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Credential events. */
#define XIO_CRED_EXPIRING   "xio_credential_expiring"   /* a SAS in use expires soon */
#define XIO_CRED_FILE_ERROR "xio_credential_file_error" /* a changed file did not load */

/** One credential event. Strings are borrowed for the callback; none is secret. */
typedef struct xio_cred_event {
  const char *event;    /* XIO_CRED_EXPIRING, XIO_CRED_FILE_ERROR */
  int64_t timestamp_us; /* microseconds since the epoch (UTC) */
  const char *url;      /* log-safe URL of the request, or NULL */
  const char *source;   /* where the credential came from: "credential file PATH", ... */
  int64_t expires;      /* EXPIRING: the SAS's expiry, POSIX seconds; else 0 */
  const char *message;  /* for people: what happens and what to renew */
} xio_cred_event;

typedef void (*xio_cred_event_fn)(const xio_cred_event *ev, void *ud);

/** How credentials are watched. Start from xio_cred_options_default(), or from the
 *  context's (xio_ctx_get_credential_options). */
typedef struct xio_cred_options {
  int sas_warning_s;          /* warn this long before a SAS in use expires (default 600,
                                 or XIO_SAS_WARNING_SECONDS when the context reads the
                                 environment) */
  int recheck_ms;             /* look at the credential file at most this often
                                 (default 1000; 0: before every request) */
  xio_cred_event_fn on_event; /* may be NULL; runs on any thread, must not block */
  void *on_event_ud;
} xio_cred_options;

/** Default options; cannot fail. */
xio_cred_options xio_cred_options_default(void);

/** Copies the options the context watches its credentials with into `out`. */
void xio_ctx_get_credential_options(xio_ctx *ctx, xio_cred_options *out);

/**
 * Sets how the context watches its credentials. Events also go to the context's
 * trace file as JSON lines. Errors: XIO_EINVAL (negative values).
 */
xio_err xio_ctx_set_credential_options(xio_ctx *ctx, const xio_cred_options *o, xio_error *err);

/**
 * Sets the token callback, the first Entra ID source of the chain (NULL removes it).
 * Tokens it returned before stay cached until they are due, but are not renewed:
 * once the opens and fetches under way end, the old callback is not called again.
 * The callback runs on a thread the token cache starts for its fetch, never on the
 * I/O thread, and may block. Errors: XIO_ENOMEM.
 */
xio_err xio_ctx_set_token_callback(xio_ctx *ctx, xio_auth_token_fn fn, void *ud, xio_error *err);

/**
 * Narrows Entra ID to one method (XIO_AUTH_ENTRA_DEFAULT: the whole chain) for URLs
 * without another credential; `client_id` (may be NULL) picks a user-assigned
 * managed identity. Asking for MANAGED_IDENTITY or IMDS is what allows the instance
 * metadata service on a machine that is not known to be an Azure VM. Overrides
 * XIO_ENTRA_METHOD. Errors: XIO_EINVAL, XIO_ENOMEM.
 */
xio_err xio_ctx_set_entra_method(xio_ctx *ctx, xio_auth_entra_method method, const char *client_id,
                                 xio_error *err);

/**
 * Replaces (or adds) the credential for URL prefix `prefix` at run time; files
 * already open use it from their next request. It wins over the credential file and
 * the environment. `cred` is copied; NULL removes an earlier one. Errors: XIO_EINVAL
 * (prefix not an http(s) URL), XIO_ENOMEM.
 */
xio_err xio_ctx_set_credential(xio_ctx *ctx, const char *prefix, const xio_auth_cred *cred,
                               xio_error *err);

/* Flags of xio_cred_file_load. */
#define XIO_CRED_FILE_ALLOW_EXPOSED 0x1 /* load a file others may read or write */
#define XIO_CRED_FILE_ENVIRONMENT   0x2 /* XIO_ALLOW_EXPOSED_CREDENTIALS=1 allows it too */

/**
 * Reads the credential file `path` whole (at most 16 MiB of JSON, see
 * xio_auth_credstore_load_json) into a new store `*out` (the caller frees it with
 * xio_auth_credstore_free), as a context loads its credential file. Like ssh with
 * its key files, it refuses a file that group or others may write, whatever it
 * holds (they could change what signs requests and where they go), and one they may
 * read that holds a secret (a SAS, a key, a connection string; entries that only
 * name an Entra ID method are none), unless `flags` has XIO_CRED_FILE_ALLOW_EXPOSED,
 * or XIO_CRED_FILE_ENVIRONMENT and XIO_ALLOW_EXPOSED_CREDENTIALS is 1. The mode is
 * that of the file opened, so a file replaced meanwhile is judged by what is read.
 * The detail record's operation is "LoadCredentials" and its target `path`.
 * Errors: XIO_EPERM (the message names the file, its mode and `chmod 600 PATH`),
 * XIO_EIO (cannot open or read it, or larger than 16 MiB), XIO_EPARSE (names the
 * entry, never a secret), XIO_EINVAL (a NULL argument, or
 * XIO_ALLOW_EXPOSED_CREDENTIALS neither 0 nor 1), XIO_ENOMEM.
 */
xio_err xio_cred_file_load(const char *path, unsigned flags, xio_auth_credstore **out,
                           xio_error *err);

/**
 * Makes a user delegation SAS for the blob or container `url`: gets an Entra ID
 * token (the URL's Entra ID method, or the context's), asks the service for a user
 * delegation key valid for the SAS's lifetime (Get User Delegation Key) and signs
 * with it. `*token` is the malloc'd SAS without '?' (a secret: wipe it). No account
 * key is used. Errors: XIO_EINVAL (options, a URL without a container), those of
 * xio_entra_fetch, storage errors of the key request, XIO_ENOMEM.
 */
xio_err xio_ctx_user_delegation_sas(xio_ctx *ctx, const char *url, const xio_auth_sas_options *o,
                                    char **token, xio_error *err);

/**
 * Makes a service SAS for the blob `url` names (sr=b) or, when it names no blob, its
 * container (sr=c), signed with the account's own key found where a person's program
 * finds it, the first that serves the URL: the credential file `cred_file` (may be
 * NULL; read as xio_cred_file_load reads it with `file_flags`: an entry with account
 * and key, or a connection string), AZURE_STORAGE_CONNECTION_STRING, then
 * AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY (for the account's own URLs only).
 * `*token` is the malloc'd SAS without '?' (a secret: wipe it with
 * xio_auth_secret_free). No request. Errors: XIO_EINVAL (a URL without a container),
 * XIO_ENOCRED (no key serves the URL: the message names the account and endpoint),
 * XIO_EPARSE (the URL; a key that is not base64), the file's errors, those of
 * xio_auth_sas_generate_service, XIO_ENOMEM.
 */
xio_err xio_service_sas(const char *url, const char *cred_file, unsigned file_flags,
                        const xio_auth_sas_options *o, char **token, xio_error *err);

#ifdef __cplusplus
}
#endif
#endif /* XIO_CREDENTIALS_H */
