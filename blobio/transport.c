/*
 * transport.c - one try of a call on a libcurl easy handle: the full URL with the
 * credential, the headers that change each try (x-ms-date, the Shared Key signature
 * or the bearer token, which goes over https only), the method and borrowed body,
 * and the callbacks that take the response headers and body. Bodies go out straight from the
 * caller's buffer and reads land straight in it: no payload is copied here. A token
 * request (token.c) goes the same way, without the storage headers, with its own
 * connect timeout, never through a proxy, its answer wiped wherever it is moved.
 *
 * libcurl would add a form Content-Type to a PUT with a body, and an
 * "Expect: 100-continue" round trip before large bodies, and would resolve dot
 * segments in the path; all are switched off, so the request signed is exactly the
 * request sent. TLS trust and sessions come from
 * the engine's shared state (tls.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>

#include <xio/alloc.h>

#include "engine_int.h"

#define MAX_RESPONSE_BODY (64u << 20) /* XML and error bodies; reads go to the caller */

/* Stores one response header line; a status line starts a fresh set (after a
 * 100 Continue or a redirect). */
static size_t on_header(char *line, size_t size, size_t n, void *ud) {
  xio_blob_call *c = ud;
  size_t len = size * n;
  if (len >= 5 && strncmp(line, "HTTP/", 5) == 0) {
    xio__blob_hdrs_reset(&c->resp_headers);
    return len;
  }
  const char *colon = memchr(line, ':', len);
  if (!colon) return len;
  char name[128], value[1024];
  size_t nl = (size_t)(colon - line), vs = nl + 1, ve = len;
  while (vs < ve && isspace((unsigned char)line[vs]))
    vs++;
  while (ve > vs && isspace((unsigned char)line[ve - 1]))
    ve--;
  if (nl >= sizeof name || ve - vs >= sizeof value) return len; /* not one we read */
  memcpy(name, line, nl);
  name[nl] = '\0';
  memcpy(value, line + vs, ve - vs);
  value[ve - vs] = '\0';
  if (xio__blob_hdrs_add(&c->resp_headers, name, value) == XIO_OK) return len;
  c->oom = 1;
  return 0;
}

/* A bigger buffer for the response body; a secret one is copied and the old wiped,
 * where realloc could leave a copy behind. NULL for want of memory. */
static char *grow(xio_blob_call *c, size_t cap) {
  if (!c->secret_body) return xio_realloc(c->resp_body, cap);
  char *b = xio_malloc(cap);
  if (b && c->resp_len) memcpy(b, c->resp_body, c->resp_len);
  if (b) xio_auth_secret_free(c->resp_body, c->resp_cap);
  return b;
}

static int append_body(xio_blob_call *c, const char *p, size_t len) {
  if (c->resp_len + len > MAX_RESPONSE_BODY) return 0;
  if (c->resp_len + len > c->resp_cap) {
    size_t cap = c->resp_cap ? c->resp_cap : 4096;
    while (cap < c->resp_len + len)
      cap *= 2;
    char *b = grow(c, cap);
    if (!b) {
      c->oom = 1;
      return 0;
    }
    c->resp_body = b;
    c->resp_cap = cap;
  }
  memcpy(c->resp_body + c->resp_len, p, len);
  c->resp_len += len;
  return 1;
}

/* Successful reads go into the caller's buffer; everything else (XML results, error
 * bodies) into the call's response buffer. */
static size_t on_body(char *p, size_t size, size_t n, void *ud) {
  xio_blob_call *c = ud;
  size_t len = size * n;
  long status = 0;
  curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
  xio__blob_rcvlowat_body(c, len);
  if (c->rbuf && status >= 200 && status <= 299) {
    if (len > c->rbuf_len - c->rbuf_got) {
      c->overflow = 1;
      return 0;
    }
    memcpy((char *)c->rbuf + c->rbuf_got, p, len);
    c->rbuf_got += len;
    return len;
  }
  if (!append_body(c, p, len)) {
    if (!c->oom) c->overflow = 1;
    return 0;
  }
  return len;
}

/* Called by libcurl each time it is about to send this try's request. A second
 * call in one try means libcurl re-sent the request on a new connection after a
 * reused one died without a response: the first copy may have been applied. */
static int on_prereq(void *ud, char *remote_ip, char *local_ip, int remote_port, int local_port) {
  (void)remote_ip, (void)local_ip, (void)remote_port, (void)local_port;
  ((xio_blob_call *)ud)->sends++;
  return CURL_PREREQFUNC_OK;
}

/* "a&b&c" of the non-empty parts. malloc'd; NULL on ENOMEM. */
static char *join_query(const char *a, const char *b, const char *c) {
  const char *parts[3] = {a, b, c};
  size_t n = 1;
  for (int i = 0; i < 3; i++)
    n += parts[i] ? strlen(parts[i]) + 1 : 0;
  char *q = xio_malloc(n), *w = q;
  if (!q) return NULL;
  *w = '\0';
  for (int i = 0; i < 3; i++) {
    if (!parts[i] || !*parts[i]) continue;
    w += snprintf(w, n - (size_t)(w - q), "%s%s", w == q ? "" : "&", parts[i]);
  }
  return q;
}

/* The signed part of the query (what Shared Key covers) and the sent query. */
static xio_err make_url(xio_blob_call *c, char **signed_query, xio_error *err) {
  const xio_blob_target *t = c->target;
  const xio_auth_cred *cred = xio__blob_call_cred(c);
  const char *sas = cred->kind == XIO_AUTH_CRED_SAS ? cred->sas : NULL;
  const char *path = xio__blob_call_path(c);
  const char *extra = c->container_level || c->service_level ? NULL : t->extra_query;
  *signed_query = join_query(c->query, extra, NULL);
  char *q = join_query(c->query, extra, sas);
  size_t n = strlen(t->origin) + strlen(path) + (q ? strlen(q) : 0) + 2;
  xio_free(c->full_url);
  c->full_url = q && *signed_query ? xio_malloc(n) : NULL;
  if (c->full_url) snprintf(c->full_url, n, "%s%s%s%s", t->origin, path, *q ? "?" : "", q);
  xio_free(q);
  if (!c->full_url) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

/* Appends "name: value" to the header list. The line is assembled on the stack and
 * wiped there after libcurl has copied it, since one of them is the Authorization
 * header, whose signature could be replayed by anyone who reads the stack. */
static void add_line(struct curl_slist **l, const char *name, const char *value, int *ok) {
  char line[2048];
  if (!*ok) return;
  snprintf(line, sizeof line, "%s: %s", name, value);
  struct curl_slist *n = curl_slist_append(*l, line);
  OPENSSL_cleanse(line, sizeof line);
  if (!n)
    *ok = 0;
  else
    *l = n;
}

/* Appends "Authorization: Bearer TOKEN". Tokens can be long (a few KiB), so the
 * line is built on the heap and wiped there. */
static void add_bearer(struct curl_slist **l, const char *token, int *ok) {
  size_t n = strlen(token) + 32;
  char *line = xio_malloc(n);
  struct curl_slist *r = NULL;
  if (line) {
    snprintf(line, n, "Authorization: Bearer %s", token);
    r = curl_slist_append(*l, line);
    xio_auth_secret_free(line, n);
  }
  if (!r)
    *ok = 0;
  else
    *l = r;
}

/* Signs with Shared Key: every header sent, exactly as sent. */
static xio_err sign(xio_blob_call *c, const char *query, const char *date,
                    const char *content_length, char **auth, xio_error *err) {
  size_t n = c->headers.n + 4;
  xio_auth_header *h = xio_calloc(n, sizeof *h);
  if (!h) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < c->headers.n; i++)
    h[k++] = (xio_auth_header){c->headers.v[i].name, c->headers.v[i].value};
  h[k++] = (xio_auth_header){"x-ms-date", date};
  h[k++] = (xio_auth_header){"x-ms-version", XIO_AUTH_API_VERSION};
  h[k++] = (xio_auth_header){"x-ms-client-request-id", c->client_request_id};
  if (content_length) h[k++] = (xio_auth_header){"Content-Length", content_length};
  const xio_auth_cred *cred = xio__blob_call_cred(c);
  xio_auth_request req = {c->method, xio__blob_call_path(c), query && *query ? query : NULL, h, k};
  xio_err rc =
      xio_auth_sharedkey_authorization(cred->account, cred->key, cred->key_len, &req, auth, err);
  xio_free(h);
  return rc;
}

/* A bearer token goes over https only, to every host, loopback included (the
 * official SDKs refuse it too): every request signed with a token passes here,
 * whatever gave it the token (an Entra ID method named for an http prefix, a token
 * set as a credential, a user delegation key request). Errors: XIO_EINSECURE. */
static xio_err bearer_allowed(const xio_blob_call *c, xio_error *err) {
  if (strcmp(c->target->url.scheme, "https") == 0) return XIO_OK;
  xio_error_set(err, XIO_EINSECURE,
                "refused to send an Entra ID token over plain http to %s: tokens go "
                "only over https (use the https:// URL, or a key or SAS)",
                c->target->safe_url);
  xio_error_set_reason(err, XIO_REASON_TOKEN_OVER_HTTP);
  return XIO_EINSECURE;
}

static xio_err build_headers(xio_blob_call *c, const char *query, time_t now, xio_error *err) {
  char date[30], length[32];
  const char *content_length = NULL;
  const xio_auth_cred *cred = xio__blob_call_cred(c);
  if (cred->kind == XIO_AUTH_CRED_BEARER) {
    xio_err rc = bearer_allowed(c, err);
    if (rc != XIO_OK) return rc;
  }
  xio_auth_format_rfc1123(now, date);
  if (strcmp(c->method, "PUT") == 0 || strcmp(c->method, "POST") == 0) {
    snprintf(length, sizeof length, "%zu", c->body_len);
    content_length = length;
  }
  int ok = 1;
  struct curl_slist *l = NULL;
  for (size_t i = 0; i < c->headers.n; i++)
    add_line(&l, c->headers.v[i].name, c->headers.v[i].value, &ok);
  if (!c->foreign) { /* a token request is no storage request */
    add_line(&l, "x-ms-date", date, &ok);
    add_line(&l, "x-ms-version", XIO_AUTH_API_VERSION, &ok);
  }
  add_line(&l, "x-ms-client-request-id", c->client_request_id, &ok);
  /* Headers libcurl would add on its own, removed (a Content-Type the call sets stays). */
  static const char *const unset[] = {"Content-Type:", "Expect:", "Accept:"};
  int has_type = xio__blob_hdrs_get(&c->headers, "Content-Type") != NULL;
  for (size_t i = has_type ? 1 : 0; ok && i < sizeof unset / sizeof *unset; i++) {
    struct curl_slist *n = curl_slist_append(l, unset[i]);
    if (n)
      l = n; /* on NULL the list is still whole: freed below */
    else
      ok = 0;
  }
  if (ok && cred->kind == XIO_AUTH_CRED_SHARED_KEY) {
    char *auth = NULL;
    xio_err rc = sign(c, query, date, content_length, &auth, err);
    if (rc != XIO_OK) {
      xio__blob_slist_free(l);
      return rc;
    }
    add_line(&l, "Authorization", auth, &ok);
    xio_auth_secret_free(auth, strlen(auth));
  } else if (ok && cred->kind == XIO_AUTH_CRED_BEARER && cred->token) {
    add_bearer(&l, cred->token, &ok);
  }
  c->slist = l;
  if (!ok) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

/* Sets an option, keeping the first failure in `bad` (options that copy a string,
 * such as the URL, fail when memory runs out). */
#define SET(easy, opt, val)                                                                        \
  do {                                                                                             \
    CURLcode r_ = curl_easy_setopt((easy), (opt), (val));                                          \
    if (bad == CURLE_OK) bad = r_;                                                                 \
  } while (0)

static CURLcode set_method(xio_blob_call *c, CURL *easy) {
  CURLcode bad = CURLE_OK;
  if (strcmp(c->method, "HEAD") == 0) {
    SET(easy, CURLOPT_NOBODY, 1L);
  } else if (strcmp(c->method, "PUT") == 0) {
    SET(easy, CURLOPT_CUSTOMREQUEST, "PUT");
    SET(easy, CURLOPT_POSTFIELDS, c->body ? (const char *)c->body : "");
    SET(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body_len);
  } else if (strcmp(c->method, "POST") == 0) {
    SET(easy, CURLOPT_POSTFIELDS, c->body ? (const char *)c->body : "");
    SET(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body_len);
  } else if (strcmp(c->method, "DELETE") == 0) {
    SET(easy, CURLOPT_CUSTOMREQUEST, "DELETE");
  } else {
    SET(easy, CURLOPT_HTTPGET, 1L);
  }
  return bad;
}

static CURLcode set_transfer(xio_blob_call *c, CURL *easy, const xio_blob_engine_options *o,
                             xio__blob_tls *tls, xio__blob_socks *socks, long timeout_ms) {
  CURLcode bad = CURLE_OK;
  SET(easy, CURLOPT_URL, c->full_url);
  /* libcurl would resolve "a/../b" in the path: the path signed must be the path sent. */
  SET(easy, CURLOPT_PATH_AS_IS, 1L);
  SET(easy, CURLOPT_PRIVATE, c);
  SET(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  SET(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
  SET(easy, CURLOPT_NOSIGNAL, 1L);
  SET(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  SET(easy, CURLOPT_TCP_NODELAY, 1L);
  SET(easy, CURLOPT_HTTPHEADER, c->slist);
  SET(easy, CURLOPT_HEADERFUNCTION, on_header);
  SET(easy, CURLOPT_HEADERDATA, c);
  SET(easy, CURLOPT_WRITEFUNCTION, on_body);
  SET(easy, CURLOPT_WRITEDATA, c);
  SET(easy, CURLOPT_ERRORBUFFER, c->curl_err);
  SET(easy, CURLOPT_PREREQFUNCTION, on_prereq);
  SET(easy, CURLOPT_PREREQDATA, c);
  SET(easy, CURLOPT_CONNECTTIMEOUT_MS,
      (long)(c->connect_timeout_ms ? c->connect_timeout_ms : o->connect_timeout_ms));
  if (c->no_proxy) SET(easy, CURLOPT_NOPROXY, "*");
  SET(easy, CURLOPT_TIMEOUT_MS, timeout_ms);
  /* Not SET: libcurl 7.88 refuses a new receive buffer size while it still holds the
   * buffer of a try that failed to resolve the host, which would turn the retry of
   * a "could not resolve host" into "bad argument". The size is the same every try,
   * so the buffer it holds already has it. */
  (void)curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 512L * 1024);
  /* libcurl copies a body into this buffer on its way to the socket. Small enough
   * to stay in the core's cache between that copy and the kernel's, which makes
   * both copies cheaper than with a large buffer, and each connection holds less
   * (measured: docs/benchmarks/design.md#upload-buffer). */
  SET(easy, CURLOPT_UPLOAD_BUFFERSIZE, 128L * 1024);
  /* libcurl silently sends a request again on a fresh connection when a reused one
   * dies before any response byte: harmless for idempotent calls, wrong for a call
   * that must go out once (its first copy may have been applied). */
  if (!c->retryable) SET(easy, CURLOPT_FRESH_CONNECT, 1L);
  if (bad == CURLE_OK && tls) bad = xio__blob_tls_set_options(tls, easy);
  /* Plain HTTP reads wait in the kernel for whole batches (rcvlowat.c). */
  c->socks = socks && strcmp(c->target->url.scheme, "http") == 0 ? socks : NULL;
  if (bad == CURLE_OK && c->socks) bad = xio__blob_socks_attach(c->socks, easy);
  return bad;
}

xio_err xio__blob_try_prepare(xio_blob_call *c, CURL *easy, const xio_blob_engine_options *opts,
                              xio__blob_tls *tls, xio__blob_socks *socks, time_t now,
                              long timeout_ms, xio_error *err) {
  char *query = NULL;
  xio__blob_call_reset_try(c);
  c->easy = easy;
  xio_err rc = make_url(c, &query, err);
  if (rc == XIO_OK) rc = build_headers(c, query, now, err);
  xio_free(query);
  if (rc != XIO_OK) return rc;
  curl_easy_reset(easy);
  CURLcode bad = set_transfer(c, easy, opts, tls, socks, timeout_ms);
  if (bad == CURLE_OK) bad = set_method(c, easy);
  if (bad == CURLE_OUT_OF_MEMORY) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (bad != CURLE_OK)
    return xio_error_set(err, XIO_ETRANSPORT, "libcurl refused an option: %s",
                         curl_easy_strerror(bad));
  return XIO_OK;
}

void xio__blob_try_finished(xio_blob_call *c, CURLcode rc) {
  long status = 0;
  curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
  c->status = (int)status;
  c->curl_rc = rc;
  /* Which check refused the server's certificate, for the error's reason. */
  if (rc == CURLE_PEER_FAILED_VERIFICATION)
    curl_easy_getinfo(c->easy, CURLINFO_SSL_VERIFYRESULT, &c->verify_result);
  /* Where a plain-http try that got not one byte back went, for a look at what
   * that port speaks (probe.c). */
  long got = 0;
  char *ip = NULL;
  if (rc != CURLE_OK && strcasecmp(c->target->url.scheme, "http") == 0 &&
      curl_easy_getinfo(c->easy, CURLINFO_HEADER_SIZE, &got) == CURLE_OK && got == 0 &&
      curl_easy_getinfo(c->easy, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip &&
      curl_easy_getinfo(c->easy, CURLINFO_PRIMARY_PORT, &c->peer_port) == CURLE_OK)
    snprintf(c->peer_ip, sizeof c->peer_ip, "%s", ip);
  xio__blob_rcvlowat_end(c);
  if (c->sends > 1) c->resends += c->sends - 1;
  xio__blob_slist_free(c->slist); /* wiped: it holds the Authorization line */
  c->slist = NULL;
}
