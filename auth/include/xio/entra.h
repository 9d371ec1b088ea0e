/*
 * xio/entra.h - Entra ID (OAuth) for Azure Storage, the pure part (libxio_auth,
 * beside <xio/auth.h>): access tokens as values, the token callback an engine may
 * bring, the JSON answers of managed identity endpoints and of the Azure CLI, and
 * the user delegation SAS signed with a key obtained by token. Nothing here sends,
 * runs a program, reads a file or starts a thread: the sources that fetch tokens,
 * their chain and the token cache are libxio's (<xio/entra_sources.h>).
 *
 * Tokens are secrets: no error or message made here contains one, and every copy
 * freed here is wiped first.
 */
#ifndef XIO_ENTRA_H
#define XIO_ENTRA_H

#include <time.h>

#include <xio/auth.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The scope and resource of Azure Storage tokens (audience https://storage.azure.com). */
#define XIO_AUTH_STORAGE_SCOPE    "https://storage.azure.com/.default"
#define XIO_AUTH_STORAGE_RESOURCE "https://storage.azure.com/"

/** An access token: the secret text and when it expires (POSIX seconds). */
typedef struct xio_auth_token {
  char *value; /* malloc'd; wiped by xio_auth_token_clear */
  time_t expires_on;
} xio_auth_token;

/** Wipes and frees the token's text and zeroes `t`. `t` may be NULL. */
void xio_auth_token_clear(xio_auth_token *t);

/**
 * A token callback, for engines that bring their own identity library. Fills `out`
 * (value malloc'd, handed over) with a token for `scope`. Runs on the token cache's
 * fetch thread (or the thread that calls xio_entra_fetch), never on an I/O thread;
 * it may block. Return XIO_OK, or an error with a message in `err` (never a secret).
 */
typedef xio_err (*xio_auth_token_fn)(const char *scope, xio_auth_token *out, void *ud,
                                     xio_error *err);

/**
 * Parses a token answer: a managed identity's {"access_token", "expires_on" (seconds,
 * as number or string) or "expires_in"} or the Azure CLI's {"accessToken",
 * "expires_on" (seconds) or "expiresOn" (local time "YYYY-MM-DD HH:MM:SS.ffffff")}.
 * `now` is used with expires_in. Errors: XIO_EPARSE (names the missing field, never
 * quotes the text), XIO_ENOMEM.
 */
xio_err xio_auth_token_parse_json(const char *json, time_t now, xio_auth_token *out,
                                  xio_error *err);

/* ------------------------------------------------- user delegation SAS ---- */

/** A user delegation key (Get User Delegation Key). `value` is the base64 signing
 *  key, a secret. Strings are malloc'd. */
typedef struct xio_auth_udk {
  char *oid;     /* SignedOid -> skoid */
  char *tid;     /* SignedTid -> sktid */
  char *start;   /* SignedStart -> skt (as the service wrote it) */
  char *expiry;  /* SignedExpiry -> ske */
  char *service; /* SignedService -> sks ("b") */
  char *version; /* SignedVersion -> skv */
  char *value;   /* Value: base64 key (wiped on clear) */
} xio_auth_udk;

/** Frees and wipes what `k` owns and zeroes it. `k` may be NULL. */
void xio_auth_udk_clear(xio_auth_udk *k);

/**
 * The string to sign of a user delegation SAS, version 2020-12-06 and later (the
 * service's "Create a user delegation SAS"): sp, st, se, /blob/ACCOUNT/CONTAINER[/BLOB],
 * skoid, sktid, skt, ske, sks, skv, saoid, suoid, scid (empty), sip, spr, sv, sr,
 * snapshot, ses, rscc, rscd, rsce, rscl, rsct, joined by '\n'. `perms` are written
 * letters. Errors: XIO_EINVAL (a missing key field), XIO_ENOMEM.
 */
xio_err xio_auth_udk_string_to_sign(const char *account, const xio_auth_udk *key,
                                    const char *container, const char *blob, const char *perms,
                                    const xio_auth_sas_options *opts, char **out, xio_error *err);

/**
 * Signs a user delegation SAS for a blob (`blob` non-NULL, sr=b) or a container
 * (sr=c) with `key`: no account key involved. `*out` is the token without '?', every
 * value URL-encoded. opts->version: NULL means "2020-12-06" (earlier is refused);
 * opts->identifier must be NULL (a stored policy cannot go with a user delegation).
 * Errors: XIO_EINVAL (as xio_auth_sas_generate_service, a bad key), XIO_ENOMEM.
 */
xio_err xio_auth_sas_generate_user_delegation(const char *account, const xio_auth_udk *key,
                                              const char *container, const char *blob,
                                              const xio_auth_sas_options *opts, char **out,
                                              xio_error *err);

#ifdef __cplusplus
}
#endif
#endif /* XIO_ENTRA_H */
