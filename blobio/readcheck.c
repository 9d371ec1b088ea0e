/*
 * readcheck.c - reads verified end to end. Azure returns the transactional
 * checksum of a range of at most 4 MiB (XIO_BLOB_MAX_CHECKED_READ) when the Get
 * Blob asks for it: x-ms-range-get-content-crc64: true is answered with
 * x-ms-content-crc64 (CRC-64/NVME, as writes carry it), x-ms-range-get-content-md5:
 * true with Content-MD5. A request may ask for one of them only (both: 400), and
 * only with a range. The engine asks on every read small enough, by its checksum
 * setting (xio_blob_engine_options.checksum), and the body that arrived is checked
 * here before the read succeeds: a body that does not match was corrupted on its
 * way, and is read again like a torn one, within the retry budget; when every try
 * comes back corrupted the read fails with XIO_ECHECKSUM, naming the range.
 *
 * Azurite answers Content-MD5 but refuses x-ms-range-get-content-crc64 (500
 * FeatureNotSupported, its strict mode): such a refusal, or an answer without the
 * CRC-64 asked for, switches the read to MD5 and sends it again at once, and the
 * engine asks later reads for MD5 directly (engine.c). An answer without the MD5
 * asked for is not taken: it is read again like a corrupted one, then fails with
 * XIO_ECHECKSUM. Only a read over 4 MiB (which the file layer sends only with
 * checksums off) goes unverified.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <strings.h>

#include <xio/alloc.h>

#include "readcheck_int.h"

static const char *const ask_header[] = {NULL, "x-ms-range-get-content-crc64",
                                         "x-ms-range-get-content-md5"};
static const char *const answer_header[] = {NULL, "x-ms-content-crc64", "Content-MD5"};

static int is_checkable_read(const xio_blob_call *c) {
  return c->rbuf && c->rbuf_len > 0 && c->rbuf_len <= XIO_BLOB_MAX_CHECKED_READ &&
         strcmp(c->operation, "GetBlob") == 0 && xio__blob_hdrs_get(&c->headers, "x-ms-range");
}

xio_err xio__blob_read_check_ask(xio_blob_call *c, xio_blob_checksum kind, int md5_only) {
  if (c->read_check != XIO__READ_CHECK_NONE || kind == XIO_BLOB_CHECKSUM_NONE ||
      !is_checkable_read(c))
    return XIO_OK;
  int want =
      kind == XIO_BLOB_CHECKSUM_MD5 || md5_only ? XIO__READ_CHECK_MD5 : XIO__READ_CHECK_CRC64;
  xio_err rc = XIO_OK;
  xio__blob_call_header(c, ask_header[want], "true", &rc);
  if (rc == XIO_OK) c->read_check = want;
  return rc;
}

/* The checksum of the body received, as the answer's header spells it. */
static void computed(const xio_blob_call *c, char out[25]) {
  if (c->read_check == XIO__READ_CHECK_CRC64)
    xio_blob_crc64_base64(c->rbuf, c->rbuf_got, out);
  else
    xio_blob_md5_base64(c->rbuf, c->rbuf_got, out);
}

int xio__blob_read_check_verify(xio_blob_call *c, xio__blob_verdict *v) {
  if (c->read_check == XIO__READ_CHECK_NONE) return 0;
  const char *got = xio__blob_hdrs_get(&c->resp_headers, answer_header[c->read_check]);
  const char *range = xio__blob_hdrs_get(&c->headers, "x-ms-range");
  const char *rid = xio__blob_hdrs_get(&c->resp_headers, "x-ms-request-id");
  if (!got) { /* the service did not vouch for the bytes: not taken */
    v->code = XIO_ECHECKSUM;
    v->retry = 1;
    xio_error_set(&c->err, v->code,
                  "the answer to %s carries no %s, which was asked for: the bytes are not "
                  "vouched for (request id %.64s)",
                  range ? range : "the read", answer_header[c->read_check], rid ? rid : "unknown");
    return 1;
  }
  char mine[25];
  computed(c, mine);
  if (strcmp(mine, got) == 0) return 0;
  v->code = XIO_ECHECKSUM;
  v->retry = 1;
  xio_error_set(&c->err, v->code,
                "the body of %s does not match its %s: the service sent %.24s, the bytes "
                "received give %s (request id %.64s)",
                range ? range : "the read", answer_header[c->read_check], got, mine,
                rid ? rid : "unknown");
  return 1;
}

/* Renames the request header that asks for a checksum to ask for `want`. */
static int switch_ask(xio_blob_call *c, int want) {
  for (size_t i = 0; i < c->headers.n; i++) {
    if (strcasecmp(c->headers.v[i].name, ask_header[c->read_check]) != 0) continue;
    char *name = xio_strdup(ask_header[want]);
    if (!name) return 0;
    xio_free(c->headers.v[i].name);
    c->headers.v[i].name = name;
    c->read_check = want;
    return 1;
  }
  return 0;
}

int xio__blob_read_check_fallback(xio_blob_call *c) {
  if (c->read_check != XIO__READ_CHECK_CRC64) return 0;
  if (c->status >= 200 && c->status < 300) /* answered, without the CRC-64 */
    return !xio__blob_hdrs_get(&c->resp_headers, answer_header[c->read_check]) &&
           switch_ask(c, XIO__READ_CHECK_MD5);
  if (c->status != 500 && c->status != 400) return 0;
  const char *code = xio__blob_hdrs_get(&c->resp_headers, "x-ms-error-code");
  return code && strcmp(code, "FeatureNotSupported") == 0 && switch_ask(c, XIO__READ_CHECK_MD5);
}
