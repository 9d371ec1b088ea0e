/*
 * xio/entra_sources.h - where Entra ID (OAuth) tokens for Azure Storage come from
 * (part of libxio): the sources that make them (a callback, a managed identity
 * endpoint, the Azure CLI, the instance metadata service), the default chain that
 * tries them in order, and a per-scope token cache refreshed in the background.
 * Tokens as values, their JSON answers and the user delegation SAS are pure and
 * live in libxio_auth (<xio/entra.h>).
 *
 * These do I/O, each where the other I/O of its kind lives: the managed identity
 * and metadata service requests go out through a page-blob engine
 * (<xio/blob_engine.h>, xio_blob_call_token), with its trust store and CA file,
 * timeouts, retries and its refusal of plain http to hosts that are not loopback;
 * the Azure CLI runs as a child process; the DMI file is read to tell an Azure VM;
 * the cache's refreshes are timed by a timer on its engine's I/O thread and run on
 * a fetch thread that exists only while a fetch is wanted.
 *
 * The chain, as the official SDKs' default credential runs it minus what needs a
 * browser: the token callback; a managed identity at IDENTITY_ENDPOINT with
 * IDENTITY_HEADER (App Service, Container Apps; AZURE_CLIENT_ID picks a
 * user-assigned identity); `az account get-access-token`; the instance metadata
 * service, only on a machine whose DMI chassis asset tag says it is an Azure VM, or
 * when the method is asked for explicitly. No other path contacts 169.254.169.254.
 *
 * Tokens are secrets: no error, trace or message made here contains one, and every
 * copy freed here is wiped first.
 */
#ifndef XIO_ENTRA_SOURCES_H
#define XIO_ENTRA_SOURCES_H

#include <xio/blob_engine.h>
#include <xio/entra.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The instance metadata service's token endpoint and the DMI file that tells an
 *  Azure VM (its chassis asset tag is XIO_ENTRA_AZURE_ASSET_TAG). */
#define XIO_ENTRA_IMDS_ENDPOINT   "http://169.254.169.254/metadata/identity/oauth2/token"
#define XIO_ENTRA_DMI_ASSET_TAG   "/sys/class/dmi/id/chassis_asset_tag"
#define XIO_ENTRA_AZURE_ASSET_TAG "7783-7084-3265-9085-8269-3286-77"

/** Where the Entra ID sources look. Start from xio_entra_options_default(). */
typedef struct xio_entra_options {
  xio_auth_token_fn callback; /* NULL: no callback in the chain */
  void *callback_ud;
  const char *identity_endpoint; /* NULL: IDENTITY_ENDPOINT (use_environment) */
  const char *identity_header;   /* NULL: IDENTITY_HEADER */
  const char *client_id;         /* user-assigned identity; NULL: AZURE_CLIENT_ID */
  const char *az;                /* the Azure CLI program; NULL: "az" on PATH */
  const char *imds_endpoint;     /* NULL: XIO_IMDS_ENDPOINT, else XIO_ENTRA_IMDS_ENDPOINT */
  const char *dmi_asset_tag;     /* NULL: XIO_DMI_ASSET_TAG_FILE, else XIO_ENTRA_DMI_ASSET_TAG */
  int timeout_ms;                /* per fetch, retries included (default 10000; the
                                    metadata service's probe gets a one-second connect) */
  int use_environment;           /* read the variables above (default 1) */
  xio_auth_clock clock;          /* token expiry checks; zeroed: system clock */
} xio_entra_options;

/** Default options; cannot fail. */
xio_entra_options xio_entra_options_default(void);

/**
 * 1 when the instance metadata service may be asked in the default chain: the file
 * `dmi_path` (NULL: XIO_ENTRA_DMI_ASSET_TAG) holds Azure's chassis asset tag.
 */
int xio_entra_is_azure_vm(const char *dmi_path);

/**
 * Gets one token for `scope` with `method` (DEFAULT: the chain, first success
 * wins; *used gets the method that gave it, may be NULL). Blocks (an HTTP request
 * on `engine`, or running the CLI), each source bounded by opts->timeout_ms.
 * `engine` (borrowed) sends the managed identity and metadata service requests; it
 * must not be called on that engine's I/O thread. `client_id` (may be NULL)
 * overrides the options' for a managed identity. Errors: XIO_EINVAL (no engine or
 * options), XIO_EAUTH (reason XIO_REASON_TOKEN_SOURCES_FAILED) with a message
 * listing every source tried and why it failed, XIO_ENOCRED (reason
 * XIO_REASON_NO_TOKEN_SOURCE, the same message) when no source applies at all (none
 * configured, no CLI installed), XIO_ENOMEM.
 */
xio_err xio_entra_fetch(xio_blob_engine *engine, const xio_entra_options *opts,
                        xio_auth_entra_method method, const char *client_id, const char *scope,
                        xio_auth_token *out, xio_auth_entra_method *used, xio_error *err);

/* ---------------------------------------------------------- token cache ---- */

/**
 * Tokens of one Entra ID method, cached per scope. A token is refreshed ahead of its
 * expiry by min(5 minutes, half its life), while requests go on with the current
 * one; a failed refresh is retried (after 1 s, doubling up to 30 s) as long as the
 * current token is valid; only when it has expired and no new one came do requests
 * fail. A token some request took is refreshed when it falls due even if no request
 * comes then; one nobody took is refreshed when a request next asks.
 *
 * Threads: a timer on the engine's I/O thread (xio_blob_engine_timer_set) decides
 * when to fetch; the fetches themselves, which block, run on a thread the cache
 * starts for them, which ends once no fetch is wanted, so between refreshes the
 * cache has no thread. The token callback and the Azure CLI run there. Thread-safe.
 */
typedef struct xio_entra_tokens xio_entra_tokens;

/** Creates a cache for `method` (client_id may be NULL) whose timer runs on
 *  `engine` and whose fetches send on it (borrowed: it must outlive the cache).
 *  `opts` and its strings are copied. Errors: XIO_EINVAL (no engine), XIO_ENOMEM. */
xio_err xio_entra_tokens_new(xio_blob_engine *engine, const xio_entra_options *opts,
                             xio_auth_entra_method method, const char *client_id,
                             xio_entra_tokens **out, xio_error *err);

/** Disarms the cache's timer, waits for the fetch under way (if any) to end, and
 *  wipes every token. Not on the engine's I/O thread. `t` may be NULL. */
void xio_entra_tokens_free(xio_entra_tokens *t);

/** Returns a valid token for `scope` (copied into `out`), fetching one and waiting
 *  for it when none is valid. Not on the engine's I/O thread. Errors: those of
 *  xio_entra_fetch. */
xio_err xio_entra_tokens_get(xio_entra_tokens *t, const char *scope, xio_auth_token *out,
                             xio_error *err);

/**
 * Never blocks on a fetch: copies the current token into `out` and XIO_OK (asking for
 * a refresh in the background when it is due); or, when no valid token is at hand,
 * asks for a fetch and returns XIO_OK with out->value NULL (ask again shortly); or
 * the error of the last fetch when it failed and nothing valid is left. Any thread,
 * the engine's I/O thread included. `stale`
 * (may be NULL) is a token the service refused: when it is the current one, it is
 * dropped first.
 */
xio_err xio_entra_tokens_peek(xio_entra_tokens *t, const char *scope, const char *stale,
                              xio_auth_token *out, xio_error *err);

/** Fetches made so far (successful or not), for tests and statistics. */
unsigned xio_entra_tokens_fetches(xio_entra_tokens *t);

#ifdef __cplusplus
}
#endif
#endif /* XIO_ENTRA_SOURCES_H */
