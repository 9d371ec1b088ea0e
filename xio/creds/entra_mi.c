/*
 * entra_mi.c - managed identity tokens: the endpoint that App Service, Container
 * Apps and similar hosts name in IDENTITY_ENDPOINT (api-version 2019-08-01, the
 * secret IDENTITY_HEADER sent as X-IDENTITY-HEADER), and the Azure instance metadata
 * service (api-version 2018-02-01, "Metadata: true"). Each request is a call on the
 * context's engine (xio_blob_call_token), so it goes out as every request does:
 * the same trust store and CA file, timeouts and retries, and no plain http to a
 * host that is not loopback (the metadata service's link-local address excepted).
 * The whole fetch, retries included, is bounded by the options' timeout. The
 * metadata service is probed first, one try with a one-second connect, so that a
 * machine without it does not hold up the first request for long; only an answer
 * a retry may mend (408, 429, 5xx) makes it ask again, with retries.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob_call.h>
#include <xio/url_int.h>

#include "entra_int.h"

#define IMDS_CONNECT_MS 1000

static char *encode(const char *s) {
  char *out = NULL;
  return xio_auth_pct_encode(s, NULL, &out, NULL) == XIO_OK ? out : NULL;
}

/* endpoint?api-version=V&resource=R[&client_id=C] (malloc'd). */
static char *token_url(const char *endpoint, const char *version, const char *resource,
                       const char *client_id) {
  char *r = encode(resource), *c = client_id ? encode(client_id) : NULL;
  size_t n = strlen(endpoint) + strlen(version) + (r ? strlen(r) : 0) + (c ? strlen(c) : 0) + 64;
  char *url = r && (c || !client_id) ? xio_malloc(n) : NULL;
  if (url)
    snprintf(url, n, "%s%sapi-version=%s&resource=%s%s%s", endpoint,
             strchr(endpoint, '?') ? "&" : "?", version, r, c ? "&client_id=" : "", c ? c : "");
  xio_free(r);
  xio_free(c);
  return url;
}

/* What one request to the endpoint gave: XIO_OK with the token, or why not. */
static xio_err judge(xio_err rc, const xio_error *e, xio_auth_token *out, char why[XIO__WHY_SIZE]) {
  if (rc == XIO_OK) return XIO_OK;
  xio_auth_token_clear(out);
  if (rc == XIO_ENOMEM) return XIO_ENOMEM;
  if (rc == XIO_EINSECURE || rc == XIO_EPARSE)
    snprintf(why, XIO__WHY_SIZE, "%.150s", e->message);
  else if (e->http_status)
    snprintf(why, XIO__WHY_SIZE, "the endpoint answered HTTP %d", e->http_status);
  else
    snprintf(why, XIO__WHY_SIZE, "no answer (%.140s)", e->message);
  return XIO_EAUTH;
}

/* Sends one token request on the engine; `probe`: one try with a short connect.
 * *status gets the endpoint's HTTP status (0: no answer). */
static xio_err ask(const xio__entra_env *env, const char *url, int imds, int probe,
                   xio_auth_token *out, int *status, char why[XIO__WHY_SIZE]) {
  xio_blob_token_request r = {
      .url = url,
      .header_name = imds ? "Metadata" : "X-IDENTITY-HEADER",
      .header_value = imds                   ? "true"
                      : env->identity_header ? env->identity_header
                                             : "",
      .metadata_service = imds,
      .probe = probe,
      .connect_timeout_ms = probe ? IMDS_CONNECT_MS : 0,
      .deadline_ms = env->timeout_ms > 0 ? env->timeout_ms : 10000,
  };
  xio_blob_call *c = NULL;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio_blob_call_token(&r, &c, &e);
  if (rc == XIO_OK) rc = xio_blob_send(env->engine, c, &e);
  if (rc == XIO_OK) rc = xio_blob_call_token_result(c, env->now, out, &e);
  *status = e.http_status;
  xio_blob_call_free(c);
  return judge(rc, &e, out, why);
}

/* An answer a retry may mend. */
static int worth_retrying(int status) { return status == 408 || status == 429 || status >= 500; }

xio_err xio__entra_managed_identity(const xio__entra_env *env, int imds, const char *resource,
                                    xio_auth_token *out, char why[XIO__WHY_SIZE]) {
  const char *endpoint = imds ? env->imds_endpoint : env->identity_endpoint;
  memset(out, 0, sizeof *out);
  if (!endpoint || !*endpoint) {
    snprintf(why, XIO__WHY_SIZE, "IDENTITY_ENDPOINT is not set");
    return XIO_ENOCRED;
  }
  char *url = token_url(endpoint, imds ? "2018-02-01" : "2019-08-01", resource, env->client_id);
  if (!url) return XIO_ENOMEM;
  int status = 0;
  xio_err rc = ask(env, url, imds, imds, out, &status, why);
  if (imds && rc == XIO_EAUTH && worth_retrying(status))
    rc = ask(env, url, imds, 0, out, &status, why);
  xio_free(url);
  return rc;
}
