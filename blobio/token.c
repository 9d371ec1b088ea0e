/*
 * token.c - the request for an Entra ID token from a managed identity endpoint or
 * the instance metadata service, and the token read from its answer. It is a call
 * like any other: sent by the engine through its transport, so it has the engine's
 * trust store and CA file, timeouts, retries and the refusal of plain http to a
 * host that is not loopback (the metadata service's link-local address excepted:
 * it never leaves the machine). It is not a storage request: it carries neither
 * x-ms-date nor x-ms-version nor a credential, and never goes through a proxy. Its
 * header may be a secret (X-IDENTITY-HEADER) and its answer is one: both are wiped
 * when the call is freed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>
#include <xio/entra.h>

#include "call_int.h"

/* Room made for the answer at once, so that a token answer (a few KiB) is never
 * moved, and copied, while it arrives. */
#define ANSWER_RESERVE (16u << 10)

static xio_err check(const xio_blob_token_request *r, xio_error *err) {
  if (!r || !r->url || !r->header_name || !*r->header_name || !r->header_value)
    return xio_error_set(err, XIO_EINVAL, "GetToken: missing argument");
  if (r->connect_timeout_ms < 0 || r->deadline_ms < 0)
    return xio_error_set(err, XIO_EINVAL, "GetToken: negative timeout");
  return XIO_OK;
}

xio_err xio_blob_call_token(const xio_blob_token_request *r, xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_err rc = check(r, err);
  xio_blob_target *t = NULL;
  xio_blob_call *c = NULL;
  if (rc == XIO_OK) rc = xio__blob_target_endpoint(r->url, &t, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "GetToken", "GET", NULL, &c, err);
  if (rc != XIO_OK) {
    xio_blob_target_free(t);
    xio_error_set_operation(err, "GetToken");
    return rc;
  }
  c->owned_target = t;
  c->foreign = c->no_proxy = c->secret_body = 1;
  c->link_local_ok = r->metadata_service;
  c->retryable = !r->probe;
  c->connect_timeout_ms = r->connect_timeout_ms;
  c->deadline_ms = r->deadline_ms;
  xio__blob_call_header(c, r->header_name, r->header_value, &rc);
  if (rc == XIO_OK && !(c->resp_body = xio_malloc(ANSWER_RESERVE))) rc = XIO_ENOMEM;
  if (rc != XIO_OK) {
    xio_blob_call_free(c);
    return xio_error_set(err, rc, "out of memory building GetToken");
  }
  c->resp_cap = ANSWER_RESERVE;
  *out = c;
  return XIO_OK;
}

xio_err xio_blob_call_token_result(const xio_blob_call *c, time_t now, xio_auth_token *out,
                                   xio_error *err) {
  memset(out, 0, sizeof *out);
  if (c->result != XIO_OK) return xio_blob_call_result(c, err);
  char *text = xio_malloc(c->resp_len + 1);
  if (!text) return xio_error_set(err, XIO_ENOMEM, "out of memory reading the token");
  if (c->resp_len) memcpy(text, c->resp_body, c->resp_len);
  text[c->resp_len] = '\0';
  xio_err rc = xio_auth_token_parse_json(text, now, out, err);
  xio_auth_secret_free(text, c->resp_len + 1);
  if (rc != XIO_OK) {
    xio_error_set_operation(err, "GetToken");
    xio_error_set_target(err, c->target->safe_url);
  }
  return rc;
}
