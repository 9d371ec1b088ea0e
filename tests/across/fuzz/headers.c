/*
 * headers.c - fuzz target: the response headers the client interprets, on a call
 * that finished with a status, headers and body taken from the input: the retry
 * hints (retry-after-ms, x-ms-retry-after-ms, Retry-After) in the retry delay, the
 * size in the properties of a HEAD (Content-Length), and the judging of the try
 * (a short read against Content-Length, an error body). Input: one byte choosing
 * the status, one the read buffer's length, one how much of it arrived, then header
 * lines "Name: value" (split and trimmed as the transport does) up to an empty line,
 * then the body.
 * Properties: the delay is within [0, max_delay_ms] and equals a valid hint below
 * the cap; the HEAD size is the Content-Length when that is a plain decimal number
 * and otherwise refused; a 2xx with the whole buffer succeeds, anything else fails
 * with a message.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "call_int.h"
#include "engine_int.h"
#include "fuzz.h"

#define URL "http://127.0.0.1:10000/devstoreaccount1/cont/blob"

/* Adds one header line as the transport's header callback does. */
static void add_line(xio__blob_hdrs *h, const char *line, size_t len) {
  const char *colon = memchr(line, ':', len);
  if (!colon) return;
  size_t nl = (size_t)(colon - line), vs = nl + 1, ve = len;
  while (vs < ve && isspace((unsigned char)line[vs]))
    vs++;
  while (ve > vs && isspace((unsigned char)line[ve - 1]))
    ve--;
  if (nl >= 128 || ve - vs >= 1024) return;
  char name[128], value[1024];
  memcpy(name, line, nl);
  name[nl] = '\0';
  memcpy(value, line + vs, ve - vs);
  value[ve - vs] = '\0';
  if (xio__blob_hdrs_add(h, name, value) != XIO_OK) abort();
}

/* Fills the headers from the lines of [p, end) up to an empty line; returns where
 * the body starts. */
static const char *add_lines(xio__blob_hdrs *h, const char *p, const char *end) {
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    size_t len = (size_t)(le - p) - (le > p && le[-1] == '\r');
    if (len == 0) return nl ? nl + 1 : end;
    add_line(h, p, len);
    p = nl ? nl + 1 : end;
  }
  return end;
}

/* A plain decimal uint64 (digits only), or -1 in *ok. */
static uint64_t strict_u64(const char *s, int *ok) {
  char *e = NULL;
  errno = 0;
  unsigned long long v = s && *s && strspn(s, "0123456789") == strlen(s) ? strtoull(s, &e, 10) : 0;
  *ok = e && *e == '\0' && errno == 0;
  return (uint64_t)v;
}

static void check_delay(const xio__blob_hdrs *h) {
  xio_blob_retry_policy p = {.max_retries = 3, .base_delay_ms = 100, .max_delay_ms = 30000};
  uint64_t rng = 1;
  for (int attempt = 1; attempt <= 3; attempt++) {
    int d = xio__blob_retry_delay_ms(&p, attempt, h, &rng);
    FUZZ_CHECK(d >= 0 && d <= p.max_delay_ms);
  }
  int ok;
  uint64_t hint = strict_u64(xio__blob_hdrs_get(h, "retry-after-ms"), &ok);
  if (ok && hint < (uint64_t)p.max_delay_ms)
    FUZZ_CHECK(xio__blob_retry_delay_ms(&p, 1, h, &rng) == (int)hint);
}

static void check_props(xio_blob_call *c) {
  xio_blob_props props;
  xio_error err;
  const char *method = c->method;
  c->method = "HEAD";
  c->finished = 1;
  c->result = XIO_OK;
  xio_err rc = xio_blob_call_props(c, &props, &err);
  int ok;
  uint64_t size = strict_u64(xio__blob_hdrs_get(&c->resp_headers, "Content-Length"), &ok);
  if (xio__blob_hdrs_get(&c->resp_headers, "Content-Length") && !ok)
    FUZZ_CHECK(rc == XIO_EHTTP && err.message[0]);
  else
    FUZZ_CHECK(rc == XIO_OK && props.size == (ok ? size : 0));
  if (rc == XIO_OK) {
    FUZZ_CHECK(props.nmeta <= XIO_BLOB_MAX_META);
    FUZZ_CHECK(memchr(props.etag, 0, sizeof props.etag));
  }
  c->method = method;
  c->finished = 0;
}

static void check_verdict(xio_blob_call *c) {
  xio__blob_verdict v = xio__blob_classify(c);
  int whole = !c->rbuf || c->rbuf_got >= c->rbuf_len;
  if (c->status >= 200 && c->status <= 299 && whole)
    FUZZ_CHECK(v.code == XIO_OK);
  else
    FUZZ_CHECK(v.code != XIO_OK && c->err.message[0] && c->err.code == v.code);
  FUZZ_CHECK(memchr(c->err.request_id, 0, sizeof c->err.request_id));
  FUZZ_CHECK(memchr(c->err.service_code, 0, sizeof c->err.service_code));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int statuses[] = {200, 201, 202, 206, 304, 400, 403, 404,
                                 409, 412, 416, 429, 500, 503, 0,   999};
  static xio_blob_target *target;
  static unsigned char rbuf[256];
  if (size < 3) return 0;
  if (!target && xio_blob_target_new(URL, NULL, &target, NULL) != XIO_OK) abort();
  xio_blob_call *c;
  if (xio__blob_call_new(target, "GetBlob", "GET", NULL, &c, NULL) != XIO_OK) abort();
  c->status = statuses[data[0] % (sizeof statuses / sizeof *statuses)];
  c->rbuf = data[1] ? rbuf : NULL;
  c->rbuf_len = data[1];
  c->rbuf_got = data[2] <= data[1] ? data[2] : data[1];
  const char *p = (const char *)data + 3, *end = (const char *)data + size;
  const char *body = add_lines(&c->resp_headers, p, end);
  c->resp_len = (size_t)(end - body);
  c->resp_body = xio__fuzz_text((const uint8_t *)body, c->resp_len);
  check_delay(&c->resp_headers);
  check_props(c);
  check_verdict(c);
  xio_blob_call_free(c);
  return 0;
}
