/*
 * classify.c - what a finished try means: success, a failure worth retrying (a
 * transport error, a torn body, throttling, a checksum the service rejected), or a
 * final failure, mapped from libcurl's result, the HTTP status and the service
 * error code to one xio_err, with the detail record filled for people. A transport
 * failure also gets its reason from libcurl's code and, for a refused certificate,
 * OpenSSL's verify result: which check refused the server. A request that went
 * without a credential and was refused as unauthenticated is XIO_ENOCRED (nothing
 * was wrong with a credential: there was none), and any failure of such a request
 * carries the reason NO_CREDENTIAL_SENT.
 *
 * Some transport failures are final at once, as no retry can mend them: TLS to a
 * server that answered in plain http, plain http to one that speaks TLS (the
 * engine asks probe.c when a connection closed without a word), and a host name
 * that does not resolve, for an origin the engine has never had an answer from.
 * Each has a reason of its own and a message that says what to use instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/x509_vfy.h>

#include "engine_int.h"
#include "readcheck_int.h"
#include "xml_int.h"

typedef struct code_map {
  const char *service_code;
  xio_err code;
} code_map;

static const code_map service_codes[] = {
    {"BlobNotFound", XIO_ENOTFOUND},
    {"ContainerNotFound", XIO_ENOTFOUND},
    {"ResourceNotFound", XIO_ENOTFOUND},
    {"BlobAlreadyExists", XIO_EEXIST},
    {"ContainerAlreadyExists", XIO_EEXIST},
    {"LeaseAlreadyPresent", XIO_EBUSY},
    {"LeaseIdMissing", XIO_EBUSY},
    {"LeaseIsBreakingAndCannotBeAcquired", XIO_EBUSY},
    {"Md5Mismatch", XIO_ECHECKSUM},
    {"Crc64Mismatch", XIO_ECHECKSUM},
    {"AuthenticationFailed", XIO_EAUTH},
    {"AuthorizationFailure", XIO_EAUTH},
    {"InvalidAuthenticationInfo", XIO_EAUTH},
    {"NoAuthenticationInformation", XIO_EAUTH},
    {"AuthorizationPermissionMismatch", XIO_EPERM},
    {"AuthorizationResourceTypeMismatch", XIO_EPERM},
    {"AuthorizationServiceMismatch", XIO_EPERM},
    {"AuthorizationProtocolMismatch", XIO_EPERM},
    {"AuthorizationSourceIPMismatch", XIO_EPERM},
    {"RequestBodyTooLarge", XIO_ELIMIT},
    {"InvalidPageRange", XIO_ERANGE},
    {"InvalidRange", XIO_ERANGE},
    {"ServerBusy", XIO_ETHROTTLED},
    {"OperationTimedOut", XIO_ETIMEDOUT},
    {"PreviousSnapshotNotFound", XIO_ENOTFOUND}, /* 409, but it names a missing snapshot */
    {"APINotImplemented", XIO_EUNSUPPORTED},
};

static xio_err from_status(int status) {
  switch (status) {
  case 400: return XIO_EINVAL;
  case 401:
  case 403: return XIO_EAUTH;
  case 404: return XIO_ENOTFOUND;
  case 408:
  case 504: return XIO_ETIMEDOUT;
  case 409:
  case 412: return XIO_ECONFLICT;
  case 413: return XIO_ELIMIT;
  case 416: return XIO_ERANGE;
  case 429:
  case 503: return XIO_ETHROTTLED;
  default: return XIO_EHTTP;
  }
}

/* A lease error on a request that carried our lease id means we lost the lease. */
static int lost_our_lease(const xio_blob_call *c, const char *code) {
  return xio__blob_hdrs_get(&c->headers, "x-ms-lease-id") && strncmp(code, "Lease", 5) == 0 &&
         strcmp(code, "LeaseAlreadyPresent") != 0 &&
         strcmp(code, "LeaseIsBreakingAndCannotBeAcquired") != 0;
}

static xio_err map_service(const xio_blob_call *c, int status, const char *code) {
  if (*code && lost_our_lease(c, code)) return XIO_ELEASELOST;
  for (size_t i = 0; i < sizeof service_codes / sizeof *service_codes; i++)
    if (strcmp(code, service_codes[i].service_code) == 0) return service_codes[i].code;
  return from_status(status);
}

static int retryable_status(int status, xio_err code) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504 || code == XIO_ECHECKSUM;
}

static int retryable_curl(CURLcode rc) {
  switch (rc) {
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_CONNECT:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_PARTIAL_FILE:
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM: return 1;
  default: return 0;
  }
}

/* Which check refused the server's certificate, from OpenSSL's verify result. */
static xio_reason certificate_reason(long verify_result) {
  switch (verify_result) {
  case X509_V_ERR_HOSTNAME_MISMATCH:
  case X509_V_ERR_IP_ADDRESS_MISMATCH: return XIO_REASON_TLS_HOSTNAME;
  case X509_V_ERR_CERT_HAS_EXPIRED:
  case X509_V_ERR_CERT_NOT_YET_VALID: return XIO_REASON_TLS_EXPIRED;
  default: return XIO_REASON_TLS_UNTRUSTED;
  }
}

/* The reason of a transport failure, by libcurl's code. */
static xio_reason transport_reason(CURLcode rc, long verify_result) {
  switch (rc) {
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY: return XIO_REASON_RESOLVE;
  case CURLE_COULDNT_CONNECT: return XIO_REASON_CONNECT;
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_PARTIAL_FILE: return XIO_REASON_CONNECTION_LOST;
  case CURLE_SSL_CONNECT_ERROR: return XIO_REASON_TLS_HANDSHAKE;
  case CURLE_SSL_CACERT_BADFILE: return XIO_REASON_CA_FILE;
  case CURLE_PEER_FAILED_VERIFICATION: return certificate_reason(verify_result);
  default: return XIO_REASON_NONE;
  }
}

/* Common fields of the detail record for the try that just finished. */
static void fill_detail(xio_blob_call *c, xio_err code) {
  xio_error *e = &c->err;
  const char *rid = xio__blob_hdrs_get(&c->resp_headers, "x-ms-request-id");
  e->code = code;
  e->http_status = c->status;
  e->retries = c->attempt;
  xio_error_set_operation(e, c->operation);
  xio_error_set_target(e, c->target->safe_url);
  snprintf(e->request_id, sizeof e->request_id, "%s", rid ? rid : "");
  snprintf(e->client_request_id, sizeof e->client_request_id, "%s", c->client_request_id);
}

int xio__blob_probe_wanted(const xio_blob_call *c) {
  int silent = c->curl_rc == CURLE_GOT_NOTHING || c->curl_rc == CURLE_RECV_ERROR ||
               c->curl_rc == CURLE_SEND_ERROR;
  return silent && c->peer_ip[0] && c->attempt == 0 && !c->origin_heard && !c->oom;
}

/* The failures that no retry mends: the server speaks the other protocol (http to
 * a TLS port, TLS to a plain-http one), or the host name of an origin that never
 * answered does not resolve (a wrong account name, not a resolver's bad moment:
 * a name that resolved before is retried). Their reason, else XIO_REASON_NONE. */
static xio_reason permanent_reason(const xio_blob_call *c) {
  if (c->curl_rc == CURLE_SSL_CONNECT_ERROR && c->tls_got_http) return XIO_REASON_SPEAKS_HTTP;
  if (c->speaks_tls) return XIO_REASON_SPEAKS_HTTPS;
  if (c->curl_rc == CURLE_COULDNT_RESOLVE_HOST && !c->origin_heard) return XIO_REASON_RESOLVE;
  return XIO_REASON_NONE;
}

/* The message of a failure of permanent_reason. */
static void permanent_message(xio_blob_call *c, xio_err code, xio_reason reason) {
  if (reason == XIO_REASON_SPEAKS_HTTP)
    xio_error_set(&c->err, code,
                  "the server answered the TLS handshake in plain http: this endpoint speaks "
                  "http, not https");
  else if (reason == XIO_REASON_SPEAKS_HTTPS)
    xio_error_set(&c->err, code,
                  "the server closed the connection without an answer, and it answers TLS: "
                  "this endpoint speaks https, not http");
  else
    xio_error_set(&c->err, code, "the host name %s does not resolve", c->target->url.host);
}

static xio__blob_verdict transport_failure(xio_blob_call *c) {
  xio__blob_verdict v = {XIO_ETRANSPORT, retryable_curl(c->curl_rc)};
  if (c->curl_rc == CURLE_OPERATION_TIMEDOUT) v.code = XIO_ETIMEDOUT;
  if (c->curl_rc == CURLE_OUT_OF_MEMORY || c->oom) v.code = XIO_ENOMEM, v.retry = 0;
  if (c->curl_rc == CURLE_WRITE_ERROR && c->overflow) v.code = XIO_EHTTP, v.retry = 0;
  const char *what = c->curl_err[0] ? c->curl_err : curl_easy_strerror(c->curl_rc);
  xio_reason reason = transport_reason(c->curl_rc, c->verify_result);
  xio_reason permanent = c->overflow || c->oom ? XIO_REASON_NONE : permanent_reason(c);
  if (permanent) v.retry = 0, reason = permanent;
  if (c->overflow)
    xio_error_set(&c->err, v.code, "response body larger than the %zu bytes asked for",
                  c->rbuf ? c->rbuf_len : (size_t)0);
  else if (c->oom)
    xio_error_set(&c->err, v.code, "out of memory during the request");
  else if (permanent)
    permanent_message(c, v.code, reason);
  else if (reason == XIO_REASON_TLS_HOSTNAME) /* OpenSSL's words do not name the host */
    xio_error_set(&c->err, v.code, "%s (the certificate is not for the host name %s)", what,
                  c->target->url.host);
  else
    xio_error_set(&c->err, v.code, "%s", what);
  if (!c->overflow && !c->oom) xio_error_set_reason(&c->err, reason);
  fill_detail(c, v.code);
  return v;
}

/* A 2xx read that delivered fewer bytes than asked: torn (retry) or past the end. */
static xio__blob_verdict short_read(xio_blob_call *c) {
  const char *cl = xio__blob_hdrs_get(&c->resp_headers, "Content-Length");
  unsigned long long announced = cl ? strtoull(cl, NULL, 10) : 0;
  xio__blob_verdict v = {XIO_ETRANSPORT, 1};
  if (cl && announced == c->rbuf_got) v.code = XIO_ERANGE, v.retry = 0;
  if (v.retry) {
    xio_error_set(&c->err, v.code, "torn response: body ended after %zu of %zu bytes", c->rbuf_got,
                  c->rbuf_len);
    xio_error_set_reason(&c->err, XIO_REASON_CONNECTION_LOST);
  } else {
    xio_error_set(&c->err, v.code, "read past the end of the blob: %zu of %zu bytes exist",
                  c->rbuf_got, c->rbuf_len);
  }
  fill_detail(c, v.code);
  return v;
}

static xio__blob_verdict service_failure(xio_blob_call *c) {
  char code[64] = "", msg[400] = "";
  const char *hdr = xio__blob_hdrs_get(&c->resp_headers, "x-ms-error-code");
  if (c->resp_len)
    xio__blob_xml_error(c->resp_body, c->resp_len, code, sizeof code, msg, sizeof msg);
  if (!code[0] && hdr) snprintf(code, sizeof code, "%s", hdr);
  xio__blob_verdict v = {map_service(c, c->status, code), 0};
  v.retry = retryable_status(c->status, v.code);
  int anonymous = xio__blob_call_cred(c)->kind == XIO_AUTH_CRED_NONE;
  if (anonymous && v.code == XIO_EAUTH) v.code = XIO_ENOCRED;
  if (v.code == XIO_ENOCRED)
    xio_error_set(&c->err, v.code,
                  "no credential applies to this URL, so the request went without one and the "
                  "service refused it");
  else if (msg[0])
    xio_error_set(&c->err, v.code, "%s", msg);
  else
    xio_error_set_status(&c->err, v.code, c->status, code);
  if (anonymous) xio_error_set_reason(&c->err, XIO_REASON_NO_CREDENTIAL_SENT);
  fill_detail(c, v.code);
  snprintf(c->err.service_code, sizeof c->err.service_code, "%s", code);
  return v;
}

/* A retried release meeting no lease of ours (Azure: LeaseNotPresent..., Azurite:
 * LeaseIdMismatch... once the blob is available): an earlier try released it. */
static int released_earlier(const xio_blob_call *c) {
  const char *code = xio__blob_hdrs_get(&c->resp_headers, "x-ms-error-code");
  return c->unleased_ok_on_retry && c->status == 409 && code &&
         (strcmp(code, "LeaseNotPresentWithLeaseOperation") == 0 ||
          strcmp(code, "LeaseIdMismatchWithLeaseOperation") == 0);
}

xio__blob_verdict xio__blob_classify(xio_blob_call *c) {
  xio__blob_verdict ok = {XIO_OK, 0};
  /* Memory ran short during a failed try: whatever else went wrong (libcurl may even
   * have sent the request without its query), report out-of-memory. */
  if (c->curl_rc != CURLE_OK || (c->oom && (c->status < 200 || c->status > 299)))
    return transport_failure(c);
  /* A retry, the engine's or one libcurl made by itself within this try. */
  int resent = c->attempt > 0 || c->sends > 1;
  if (resent && ((c->status == 404 && c->missing_ok_on_retry) || released_earlier(c))) {
    xio_error_clear(&c->err);
    fill_detail(c, XIO_OK);
    return ok; /* an earlier try whose response was lost did the work */
  }
  if (c->status < 200 || c->status > 299) return service_failure(c);
  if (c->rbuf && c->rbuf_got < c->rbuf_len) return short_read(c);
  xio__blob_verdict corrupted;
  if (xio__blob_read_check_verify(c, &corrupted)) {
    fill_detail(c, corrupted.code);
    return corrupted;
  }
  xio_error_clear(&c->err);
  fill_detail(c, XIO_OK);
  return ok;
}

void xio__blob_fail_early(xio_blob_call *c, xio_err code, const xio_error *detail) {
  xio_error_clear(&c->err);
  fill_detail(c, code);
  snprintf(c->err.message, sizeof c->err.message, "%s", detail ? detail->message : "");
  c->err.reason = detail ? detail->reason : XIO_REASON_NONE;
}
