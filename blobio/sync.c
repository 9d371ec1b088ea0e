/*
 * sync.c - the synchronous operations programs use (<xio/blob_sync.h>): creating a
 * container (also where a call that makes a blob finds its container missing), and
 * all page ranges of a blob through a caller's sender. Each builds its calls, sends
 * them, reads the result and frees them; the file layer uses calls directly so that
 * many can be in flight.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "call_int.h"

#define DEFAULT_SEGMENT (128ull << 30)

/* Sends a freshly built call `*c` (or passes on the builder's failure) and frees it.
 * Takes the call's address: the builder fills it while the arguments are evaluated. */
static xio_err run(xio_blob_engine *e, xio_err built, xio_blob_call **c, xio_error *err) {
  if (built != XIO_OK) return built;
  xio_err rc = xio_blob_send(e, *c, err);
  xio_blob_call_free(*c);
  return rc;
}

xio_err xio_blob_create_container(xio_blob_engine *e, const xio_blob_target *t, int if_missing,
                                  xio_error *err) {
  xio_blob_call *c = NULL;
  xio_err rc = run(e, xio_blob_call_create_container(t, &c, err), &c, err);
  if (rc == XIO_EEXIST && if_missing) {
    xio_error_clear(err);
    return XIO_OK;
  }
  return rc;
}

xio_err xio_blob_send_in_container(xio_blob_engine *e, xio_blob_call *c, xio_error *err) {
  xio_err rc = xio_blob_send(e, c, err);
  if (rc != XIO_ENOTFOUND || strcmp(xio_blob_call_service_code(c), "ContainerNotFound") != 0)
    return rc;
  xio_error_clear(err);
  rc = xio_blob_create_container(e, c->target, 1, err);
  return rc == XIO_OK ? xio_blob_send(e, c, err) : rc;
}

/* One segment [off, off+len), following NextMarker until the service is done; a
 * diff against `prev` when it is not NULL (clear ranges to `cleared`). */
static xio_err ranges_segment(xio_blob_send_fn send, void *ud, const xio_blob_target *t,
                              const char *prev, uint64_t off, uint64_t len, xio_ranges *out,
                              xio_ranges *cleared, xio_error *err) {
  char *marker = NULL;
  xio_err rc;
  do {
    xio_blob_call *c = NULL;
    char *next = NULL;
    rc = prev ? xio_blob_call_page_ranges_diff(t, off, len, prev, marker, &c, err)
              : xio_blob_call_page_ranges(t, off, len, marker, &c, err);
    if (rc == XIO_OK) rc = send(ud, c, err);
    if (rc == XIO_OK)
      rc = prev ? xio_blob_call_ranges_diff(c, out, cleared, &next, err)
                : xio_blob_call_ranges(c, out, &next, err);
    xio_blob_call_free(c);
    xio_free(marker);
    marker = next;
  } while (rc == XIO_OK && marker);
  xio_free(marker);
  return rc;
}

/* The blob's size, for a query "to the end". */
static xio_err blob_size(xio_blob_send_fn send, void *ud, const xio_blob_target *t, uint64_t *size,
                         xio_error *err) {
  xio_blob_call *c = NULL;
  xio_blob_props p;
  xio_err rc = xio_blob_call_get_properties(t, NULL, &c, err);
  if (rc == XIO_OK) rc = send(ud, c, err);
  if (rc == XIO_OK) rc = xio_blob_call_props(c, &p, err);
  xio_blob_call_free(c);
  if (rc == XIO_OK) *size = p.size;
  return rc;
}

/* All ranges of [offset, offset+len), or of the diff against `prev`. */
static xio_err get_ranges(xio_blob_send_fn send, void *ud, const xio_blob_target *t,
                          const char *prev, uint64_t offset, uint64_t len, uint64_t segment,
                          xio_ranges *out, xio_ranges *cleared, xio_error *err) {
  if (len == 0) {
    uint64_t size = 0;
    xio_err rc = blob_size(send, ud, t, &size, err);
    if (rc != XIO_OK) return rc;
    if (size <= offset) return XIO_OK;
    len = size - offset;
  }
  if (segment == 0) segment = DEFAULT_SEGMENT;
  segment -= segment % XIO_BLOB_PAGE_SIZE;
  if (segment == 0) return xio_error_set(err, XIO_EINVAL, "segment smaller than a page");
  for (uint64_t done = 0; done < len;) {
    uint64_t n = len - done < segment ? len - done : segment;
    xio_err rc = ranges_segment(send, ud, t, prev, offset + done, n, out, cleared, err);
    if (rc != XIO_OK) return rc;
    done += n;
  }
  return XIO_OK;
}

xio_err xio_blob_get_ranges_with(xio_blob_send_fn send, void *ud, const xio_blob_target *t,
                                 uint64_t offset, uint64_t len, uint64_t segment, xio_ranges *out,
                                 xio_error *err) {
  return get_ranges(send, ud, t, NULL, offset, len, segment, out, NULL, err);
}

xio_err xio_blob_get_ranges_diff_with(xio_blob_send_fn send, void *ud, const xio_blob_target *t,
                                      const char *prevsnapshot, uint64_t offset, uint64_t len,
                                      uint64_t segment, xio_ranges *written, xio_ranges *cleared,
                                      xio_error *err) {
  if (!prevsnapshot || !prevsnapshot[0])
    return xio_error_set(err, XIO_EINVAL, "GetPageRanges: no previous snapshot id");
  return get_ranges(send, ud, t, prevsnapshot, offset, len, segment, written, cleared, err);
}
