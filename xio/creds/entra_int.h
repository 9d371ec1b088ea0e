/*
 * entra_int.h - the Entra ID token sources of libxio, shared by the chain
 * (entra.c), its sources (entra_mi.c, entra_cli.c) and the cache (entra_tokens.c):
 * the settings they run with once the options and the environment are read, one
 * function per source, and the cache's word for the credentials (creds_api.c). Each source answers
 * XIO_OK with a token, XIO_ENOCRED when it does not apply here (nothing configured), or XIO_EAUTH
 * when it was tried and failed; `why` (never a secret) says what happened. Internal.
 */
#ifndef XIO_ENTRA_INT_H
#define XIO_ENTRA_INT_H

#include <xio/alloc.h>
#include <xio/entra_sources.h>

#define XIO__WHY_SIZE 160

/* The settings of one fetch; strings borrowed from the options or the environment. */
typedef struct xio__entra_env {
  xio_blob_engine *engine; /* sends the managed identity requests */
  xio_auth_token_fn callback;
  void *callback_ud;
  const char *identity_endpoint; /* NULL: none */
  const char *identity_header;
  const char *client_id; /* NULL: the system-assigned identity */
  const char *az;
  const char *imds_endpoint;
  const char *dmi;
  int timeout_ms;
  time_t now;
} xio__entra_env;

/* Fills `env` from `o` and (when o->use_environment) the environment. */
void xio__entra_env_read(xio_blob_engine *engine, const xio_entra_options *o, const char *client_id,
                         xio__entra_env *env);

/* "https://storage.azure.com/" for "https://storage.azure.com/.default" (malloc'd). */
char *xio__entra_resource(const char *scope);

/* GET a managed identity token through env->engine: from env->identity_endpoint (App
 * Service protocol, api-version 2019-08-01, X-IDENTITY-HEADER, retried), or with
 * `imds` from the instance metadata service (api-version 2018-02-01, Metadata: true:
 * a one-try probe with a one-second connect, then, when it got an answer worth
 * another try, the request again with retries). */
xio_err xio__entra_managed_identity(const xio__entra_env *env, int imds, const char *resource,
                                    xio_auth_token *out, char why[XIO__WHY_SIZE]);

/* Runs `az account get-access-token --resource RESOURCE --output json`. */
xio_err xio__entra_azure_cli(const xio__entra_env *env, const char *resource, xio_auth_token *out,
                             char why[XIO__WHY_SIZE]);

/* Stops renewing the tokens of `t` ahead of their expiry (its timer asks for no
 * more refreshes): the credentials hand it out no more, as its options (the token
 * callback) were replaced. A request that has it already is still served. Any
 * thread; never waits for a fetch. */
void xio__entra_tokens_retire(xio_entra_tokens *t);

#endif
