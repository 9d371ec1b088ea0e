/*
 * xio/entra.h - Entra ID (OAuth) for Azure Storage, the part of libxio_auth that
 * talks to the outside world: access tokens, the sources that make them (a callback,
 * a managed identity endpoint, the Azure CLI, the instance metadata service), the
 * default chain that tries them in order, a per-scope token cache refreshed in the
 * background, and the user delegation SAS signed with a key obtained by token.
 *
 * The chain, as the official SDKs' default credential runs it minus what needs a
 * browser: the token callback; a managed identity at IDENTITY_ENDPOINT with
 * IDENTITY_HEADER (App Service, Container Apps; AZURE_CLIENT_ID picks a
 * user-assigned identity); `az account get-access-token`; the instance metadata
 * service, only on a machine whose DMI chassis asset tag says it is an Azure VM, or
 * when the method is asked for explicitly. No other path contacts 169.254.169.254.
 *
 * Tokens are secrets: no error, trace or message this library makes contains one,
 * and every copy it frees is wiped first.
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

/** The instance metadata service's token endpoint and the DMI file that tells an
 *  Azure VM (its chassis asset tag is XIO_AUTH_AZURE_ASSET_TAG). */
#define XIO_AUTH_IMDS_ENDPOINT   "http://169.254.169.254/metadata/identity/oauth2/token"
#define XIO_AUTH_DMI_ASSET_TAG   "/sys/class/dmi/id/chassis_asset_tag"
#define XIO_AUTH_AZURE_ASSET_TAG "7783-7084-3265-9085-8269-3286-77"

/** An access token: the secret text and when it expires (POSIX seconds). */
typedef struct xio_auth_token {
  char *value; /* malloc'd; wiped by xio_auth_token_clear */
  time_t expires_on;
} xio_auth_token;

/** Wipes and frees the token's text and zeroes `t`. `t` may be NULL. */
void xio_auth_token_clear(xio_auth_token *t);

/**
 * A token callback, for engines that bring their own identity library. Fills `out`
 * (value malloc'd, handed over) with a token for `scope`. Runs on a background
 * thread of the token cache (or the thread opening a file), never on an I/O thread;
 * it may block. Return XIO_OK, or an error with a message in `err` (never a secret).
 */
typedef xio_err (*xio_auth_token_fn)(const char *scope, xio_auth_token *out, void *ud,
                                     xio_error *err);

/** Where the Entra ID sources look. Start from xio_auth_entra_options_default(). */
typedef struct xio_auth_entra_options {
  xio_auth_token_fn callback; /* NULL: no callback in the chain */
  void *callback_ud;
  const char *identity_endpoint; /* NULL: IDENTITY_ENDPOINT (use_environment) */
  const char *identity_header;   /* NULL: IDENTITY_HEADER */
  const char *client_id;         /* user-assigned identity; NULL: AZURE_CLIENT_ID */
  const char *az;                /* the Azure CLI program; NULL: "az" on PATH */
  const char *imds_endpoint;     /* NULL: XIO_IMDS_ENDPOINT, else XIO_AUTH_IMDS_ENDPOINT */
  const char *dmi_asset_tag;     /* NULL: XIO_DMI_ASSET_TAG_FILE, else XIO_AUTH_DMI_ASSET_TAG */
  int timeout_ms;                /* per fetch (default 10000; the metadata probe's
                                    connection gets at most 1000) */
  int use_environment;           /* read the variables above (default 1) */
  xio_auth_clock clock;          /* token expiry checks; zeroed: system clock */
} xio_auth_entra_options;

/** Default options; cannot fail. */
xio_auth_entra_options xio_auth_entra_options_default(void);

/**
 * 1 when the instance metadata service may be asked in the default chain: the file
 * `dmi_path` (NULL: XIO_AUTH_DMI_ASSET_TAG) holds Azure's chassis asset tag.
 */
int xio_auth_is_azure_vm(const char *dmi_path);

/**
 * Parses a token answer: a managed identity's {"access_token", "expires_on" (seconds,
 * as number or string) or "expires_in"} or the Azure CLI's {"accessToken",
 * "expires_on" (seconds) or "expiresOn" (local time "YYYY-MM-DD HH:MM:SS.ffffff")}.
 * `now` is used with expires_in. Errors: XIO_EPARSE (names the missing field, never
 * quotes the text), XIO_ENOMEM.
 */
xio_err xio_auth_token_parse_json(const char *json, time_t now, xio_auth_token *out,
                                  xio_error *err);

/**
 * Gets one token for `scope` with `method` (DEFAULT: the chain, first success
 * wins; *used gets the method that gave it, may be NULL). Blocks (an HTTP request,
 * or running the CLI), each source bounded by opts->timeout_ms. `client_id` (may be
 * NULL) overrides the options' for a managed identity. Errors: XIO_EAUTH with a
 * message listing every source tried and why it failed, XIO_ENOCRED (the same
 * message) when no source applies at all (none configured, no CLI installed),
 * XIO_ENOMEM.
 */
xio_err xio_auth_entra_fetch(const xio_auth_entra_options *opts, xio_auth_entra_method method,
                             const char *client_id, const char *scope, xio_auth_token *out,
                             xio_auth_entra_method *used, xio_error *err);

/* ---------------------------------------------------------- token cache ---- */

/**
 * Tokens of one Entra ID method, cached per scope. A token is refreshed ahead of its
 * expiry by min(5 minutes, half its life) on a background thread, while requests go
 * on with the current one; a failed refresh is retried (after 1 s, doubling up to
 * 30 s) as long as the current token is valid; only when it has expired and no new
 * one came do requests fail. Thread-safe.
 */
typedef struct xio_auth_tokens xio_auth_tokens;

/** Creates a cache for `method` (client_id may be NULL). `opts` and its strings are
 *  copied. Errors: XIO_ENOMEM. */
xio_err xio_auth_tokens_new(const xio_auth_entra_options *opts, xio_auth_entra_method method,
                            const char *client_id, xio_auth_tokens **out, xio_error *err);

/** Stops the refresh thread and wipes every token. `t` may be NULL. */
void xio_auth_tokens_free(xio_auth_tokens *t);

/** Returns a valid token for `scope` (copied into `out`), fetching one and waiting
 *  for it when none is valid. Errors: those of xio_auth_entra_fetch. */
xio_err xio_auth_tokens_get(xio_auth_tokens *t, const char *scope, xio_auth_token *out,
                            xio_error *err);

/**
 * Never blocks on a fetch: copies the current token into `out` and XIO_OK (asking for
 * a refresh in the background when it is due); or, when no valid token is at hand,
 * starts a fetch and returns XIO_OK with out->value NULL (ask again shortly); or
 * the error of the last fetch when it failed and nothing valid is left. `stale`
 * (may be NULL) is a token the service refused: when it is the current one, it is
 * dropped first.
 */
xio_err xio_auth_tokens_peek(xio_auth_tokens *t, const char *scope, const char *stale,
                             xio_auth_token *out, xio_error *err);

/** Fetches made so far (successful or not), for tests and statistics. */
unsigned xio_auth_tokens_fetches(xio_auth_tokens *t);

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
