/*
 * results.c - reading what a finished call returned: blob properties and metadata
 * from response headers, page ranges and blob listings from XML bodies, lease ids
 * and snapshot names. Each reader refuses a call that has not succeeded.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "call_int.h"
#include "xml_int.h"

static xio_err need_success(const xio_blob_call *c, const char *what, xio_error *err) {
  if (!c->finished || c->result != XIO_OK)
    return xio_error_set(err, XIO_EINVAL, "no %s: the %s call did not succeed", what, c->operation);
  return XIO_OK;
}

static void copy_header(const xio_blob_call *c, const char *name, char *dst, size_t size) {
  const char *v = xio__blob_hdrs_get(&c->resp_headers, name);
  snprintf(dst, size, "%s", v ? v : "");
}

static void read_meta(const xio_blob_call *c, xio_blob_props *p) {
  const size_t plen = strlen("x-ms-meta-");
  for (size_t i = 0; i < c->resp_headers.n && p->nmeta < XIO_BLOB_MAX_META; i++) {
    const xio__blob_hdr *h = &c->resp_headers.v[i];
    if (strncasecmp(h->name, "x-ms-meta-", plen) != 0) continue;
    xio_blob_meta *m = &p->meta[p->nmeta++];
    snprintf(m->name, sizeof m->name, "%s", h->name + plen);
    snprintf(m->value, sizeof m->value, "%s", h->value);
  }
}

/* The size in header `name` (value `v`, NULL: absent, size 0), which must be a plain
 * decimal number: a sign or junk would otherwise read as a wrong size (strtoull
 * takes "-1" as 2^64-1). Errors: XIO_EHTTP. */
static xio_err size_value(const xio_blob_call *c, const char *name, const char *v, uint64_t *out,
                          xio_error *err) {
  char *end = NULL;
  *out = 0;
  if (!v) return XIO_OK;
  errno = 0;
  if (v[0] >= '0' && v[0] <= '9') *out = strtoull(v, &end, 10);
  if (!end || *end != '\0' || errno == ERANGE)
    return xio_error_set(err, XIO_EHTTP, "%s: the response's %s \"%.40s\" is not a size",
                         c->operation, name, v);
  return XIO_OK;
}

xio_err xio_blob_call_props(const xio_blob_call *c, xio_blob_props *p, xio_error *err) {
  memset(p, 0, sizeof *p);
  xio_err rc = need_success(c, "properties", err);
  if (rc != XIO_OK) return rc;
  /* HEAD answers the blob's size; create and resize echo nothing, so take the size
   * they asked for. */
  const char *name = strcmp(c->method, "HEAD") == 0 ? "Content-Length" : "x-ms-blob-content-length";
  const char *size = strcmp(c->method, "HEAD") == 0 ? xio__blob_hdrs_get(&c->resp_headers, name)
                                                    : xio__blob_hdrs_get(&c->headers, name);
  if ((rc = size_value(c, name, size, &p->size, err)) != XIO_OK) return rc;
  copy_header(c, "ETag", p->etag, sizeof p->etag);
  copy_header(c, "Last-Modified", p->last_modified, sizeof p->last_modified);
  copy_header(c, "x-ms-blob-type", p->blob_type, sizeof p->blob_type);
  copy_header(c, "x-ms-lease-state", p->lease_state, sizeof p->lease_state);
  copy_header(c, "x-ms-lease-status", p->lease_status, sizeof p->lease_status);
  copy_header(c, "x-ms-lease-duration", p->lease_duration, sizeof p->lease_duration);
  copy_header(c, "x-ms-access-tier", p->access_tier, sizeof p->access_tier);
  const char *seq = xio__blob_hdrs_get(&c->resp_headers, "x-ms-blob-sequence-number");
  p->sequence_number = seq ? strtoll(seq, NULL, 10) : 0;
  read_meta(c, p);
  return XIO_OK;
}

xio_err xio_blob_call_ranges(const xio_blob_call *c, xio_ranges *out, char **next_marker,
                             xio_error *err) {
  *next_marker = NULL;
  xio_err rc = need_success(c, "page ranges", err);
  if (rc != XIO_OK) return rc;
  return xio__blob_xml_page_list(c->resp_body, c->resp_len, out, NULL, next_marker, err);
}

xio_err xio_blob_call_ranges_diff(const xio_blob_call *c, xio_ranges *written, xio_ranges *cleared,
                                  char **next_marker, xio_error *err) {
  *next_marker = NULL;
  xio_err rc = need_success(c, "page ranges", err);
  if (rc != XIO_OK) return rc;
  return xio__blob_xml_page_list(c->resp_body, c->resp_len, written, cleared, next_marker, err);
}

xio_err xio_blob_call_list_result(const xio_blob_call *c, xio_blob_list *out, xio_error *err) {
  xio_err rc = need_success(c, "blob list", err);
  if (rc != XIO_OK) return rc;
  return xio__blob_xml_blob_list(c->resp_body, c->resp_len, out, err);
}

xio_err xio_blob_call_container_list_result(const xio_blob_call *c, xio_blob_container_list *out,
                                            xio_error *err) {
  xio_err rc = need_success(c, "container list", err);
  if (rc != XIO_OK) return rc;
  return xio__blob_xml_container_list(c->resp_body, c->resp_len, out, err);
}

static xio_err header_value(const xio_blob_call *c, const char *name, const char *what,
                            char out[64], xio_error *err) {
  out[0] = '\0';
  xio_err rc = need_success(c, what, err);
  if (rc != XIO_OK) return rc;
  const char *v = xio__blob_hdrs_get(&c->resp_headers, name);
  if (!v || !*v || strlen(v) >= 64)
    return xio_error_set(err, XIO_EHTTP, "%s: the response carries no usable %s", c->operation,
                         name);
  snprintf(out, 64, "%s", v);
  return XIO_OK;
}

xio_err xio_blob_call_lease_id(const xio_blob_call *c, char out[64], xio_error *err) {
  return header_value(c, "x-ms-lease-id", "lease id", out, err);
}

xio_err xio_blob_call_snapshot_id(const xio_blob_call *c, char out[64], xio_error *err) {
  return header_value(c, "x-ms-snapshot", "snapshot", out, err);
}

/* Parses "COPIED/TOTAL" of x-ms-copy-progress; leaves both 0 when malformed. */
static void copy_progress(const char *v, uint64_t *copied, uint64_t *total) {
  char *end;
  if (!v) return;
  unsigned long long a = strtoull(v, &end, 10);
  if (end == v || *end != '/') return;
  const char *t = end + 1;
  unsigned long long b = strtoull(t, &end, 10);
  if (end == t || *end != '\0' || a > b) return;
  *copied = a;
  *total = b;
}

xio_err xio_blob_call_copy_state(const xio_blob_call *c, xio_blob_copy_state *out, xio_error *err) {
  memset(out, 0, sizeof *out);
  xio_err rc = need_success(c, "copy state", err);
  if (rc != XIO_OK) return rc;
  copy_header(c, "x-ms-copy-id", out->id, sizeof out->id);
  copy_header(c, "x-ms-copy-status", out->status, sizeof out->status);
  copy_header(c, "x-ms-copy-status-description", out->description, sizeof out->description);
  copy_progress(xio__blob_hdrs_get(&c->resp_headers, "x-ms-copy-progress"), &out->copied,
                &out->total);
  return XIO_OK;
}
