/*
 * call.c - the life of a call object: allocation with its client request id,
 * request headers and conditions, per-try reset, the release (a secret answer
 * wiped), and the accessors that read a finished call's outcome.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "call_int.h"

xio_err xio__blob_call_new(const xio_blob_target *target, const char *operation, const char *method,
                           const char *query, xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c = xio_calloc(1, sizeof *c);
  if (!c || (query && !(c->query = xio_strdup(query)))) {
    xio_free(c);
    return xio_error_set(err, XIO_ENOMEM, "out of memory building %s", operation);
  }
  c->target = target;
  c->operation = operation;
  c->method = method;
  c->retryable = 1;
  xio_err rc = xio_blob_new_uuid(c->client_request_id, err);
  if (rc != XIO_OK) {
    xio_blob_call_free(c);
    return rc;
  }
  *out = c;
  return XIO_OK;
}

void xio__blob_call_header(xio_blob_call *c, const char *name, const char *value, xio_err *rc) {
  if (*rc == XIO_OK && xio__blob_hdrs_add(&c->headers, name, value) != XIO_OK) *rc = XIO_ENOMEM;
}

void xio__blob_call_cond(xio_blob_call *c, const xio_blob_cond *cond, xio_err *rc) {
  if (!cond) return;
  if (cond->lease_id && *cond->lease_id)
    xio__blob_call_header(c, "x-ms-lease-id", cond->lease_id, rc);
  if (cond->if_match && *cond->if_match) xio__blob_call_header(c, "If-Match", cond->if_match, rc);
  if (cond->if_none_match && *cond->if_none_match)
    xio__blob_call_header(c, "If-None-Match", cond->if_none_match, rc);
}

void xio__blob_call_reset_try(xio_blob_call *c) {
  c->status = 0;
  c->curl_rc = CURLE_OK;
  c->verify_result = 0;
  c->tls_got_http = 0;
  c->peer_ip[0] = '\0';
  c->peer_port = 0;
  c->speaks_tls = 0;
  c->curl_err[0] = '\0';
  xio__blob_hdrs_reset(&c->resp_headers);
  c->resp_len = 0;
  c->rbuf_got = 0;
  c->overflow = 0;
  c->oom = 0;
  c->sends = 0;
  c->body_seen = 0;
  c->rcvlowat = 0;
  c->rcvlowat_fd = -1;
}

void xio_blob_call_free(xio_blob_call *c) {
  if (!c) return;
  xio_free(c->query);
  xio__blob_hdrs_free(&c->headers);
  xio__blob_hdrs_free(&c->resp_headers);
  if (c->secret_body)
    xio_auth_secret_free(c->resp_body, c->resp_cap);
  else
    xio_free(c->resp_body);
  xio_free(c->full_url);
  xio__blob_slist_free(c->slist); /* wiped: it holds the Authorization line */
  xio_auth_cred_clear(&c->auth);
  xio_free(c->owned_body);
  xio_free(c->owned_path);
  xio_blob_target_free(c->owned_target);
  xio_free(c);
}

xio_err xio_blob_call_result(const xio_blob_call *c, xio_error *err) {
  if (err) *err = c->err;
  return c->result;
}

int xio_blob_call_status(const xio_blob_call *c) { return c->status; }

int xio_blob_call_retries(const xio_blob_call *c) { return c->attempt + c->resends; }

int64_t xio_blob_call_duration_us(const xio_blob_call *c) {
  return c->done_us > c->submit_us ? c->done_us - c->submit_us : 0;
}

const char *xio_blob_call_header(const xio_blob_call *c, const char *name) {
  return xio__blob_hdrs_get(&c->resp_headers, name);
}

const char *xio_blob_call_request_id(const xio_blob_call *c) {
  const char *id = xio__blob_hdrs_get(&c->resp_headers, "x-ms-request-id");
  return id ? id : "";
}

const char *xio_blob_call_service_code(const xio_blob_call *c) { return c->err.service_code; }

int xio_blob_call_throttled(const xio_blob_call *c) {
  const char *code = c->err.service_code;
  return (c->status == 503 && strcmp(code, "ServerBusy") == 0) ||
         (c->status == 500 && strcmp(code, "OperationTimedOut") == 0);
}

const char *xio_blob_call_client_request_id(const xio_blob_call *c) { return c->client_request_id; }

const char *xio_blob_call_operation(const xio_blob_call *c) { return c->operation; }

int xio_blob_call_is_storage(const xio_blob_call *c) { return !c->foreign; }

void xio_blob_call_set_tag(xio_blob_call *c, const void *tag) { c->tag = tag; }

void xio_blob_call_set_time_limits(xio_blob_call *c, int deadline_ms, int try_timeout_ms) {
  c->deadline_ms = deadline_ms > 0 ? deadline_ms : 0;
  c->try_timeout_ms = try_timeout_ms > 0 ? try_timeout_ms : 0;
}

const void *xio_blob_call_tag(const xio_blob_call *c) { return c->tag; }

const char *xio_blob_call_safe_url(const xio_blob_call *c) { return c->target->safe_url; }

const xio_auth_cred *xio__blob_call_cred(const xio_blob_call *c) {
  return c->target->source.get ? &c->auth : &c->target->cred;
}

const char *xio__blob_call_path(const xio_blob_call *c) {
  const xio_blob_target *t = c->target;
  return c->service_level ? c->owned_path : c->container_level ? t->cont_path : t->url.path;
}
