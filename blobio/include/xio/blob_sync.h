/*
 * xio/blob_sync.h - synchronous operations of the page-blob client (libxio_blob)
 * that programs use: each builds its calls, sends them, reads the result and frees
 * them. They must not be called from a completion callback.
 */
#ifndef XIO_BLOB_SYNC_H
#define XIO_BLOB_SYNC_H

#include <stdint.h>

#include <xio/blob_call.h>
#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------- synchronous operations ---- */

/** Creates the container (Create Container, sent with `e`, waited for); `if_missing`
 *  makes an existing one a success. Errors: XIO_EINVAL (`container` names no
 *  container), XIO_EEXIST (exists and not `if_missing`), XIO_ENOMEM, and the service's
 *  and transport's errors as xio_blob_call_result maps them, detail in `err`. */
xio_err xio_blob_create_container(xio_blob_engine *e, const xio_blob_target *container,
                                  int if_missing, xio_error *err);

/** Sends `c`, a call that makes a blob (Create Page Blob, Copy Blob), with `e` and
 *  waits for it; when the service answers that the blob's container does not exist
 *  (ContainerNotFound), creates the container as xio_blob_create_container does (one
 *  made meanwhile is fine) and sends `c` once more. Returns the last result, detail in
 *  `err`. Errors: those of xio_blob_send and xio_blob_create_container. */
xio_err xio_blob_send_in_container(xio_blob_engine *e, xio_blob_call *c, xio_error *err);

/** Sends one call synchronously and returns its result (xio_blob_send's shape), so
 *  that a caller can route the calls of a multi-call operation its own way (the file
 *  layer sends through it to say what each request is for). */
typedef xio_err (*xio_blob_send_fn)(void *ud, xio_blob_call *c, xio_error *err);

/**
 * All page ranges of [offset, offset+len) of `blob` (len 0: to the end of the blob,
 * found with one Get Blob Properties), each call sent by `send(ud, call, err)`,
 * following NextMarker, and querying in segments of `segment` bytes (0: 128 GiB) so
 * that a fragmented large blob never needs one huge listing. Appends merged ranges to
 * `out` (owned by the caller: xio_ranges_clear). Errors: XIO_EINVAL (a segment
 * smaller than a page, bad arguments as xio_blob_call_page_ranges says), XIO_ENOMEM,
 * and whatever `send` returns.
 */
xio_err xio_blob_get_ranges_with(xio_blob_send_fn send, void *ud, const xio_blob_target *blob,
                                 uint64_t offset, uint64_t len, uint64_t segment, xio_ranges *out,
                                 xio_error *err);

/**
 * The diff of [offset, offset+len) of `blob` (the blob or a later snapshot of it)
 * against snapshot `prevsnapshot`, queried as xio_blob_get_ranges_with queries (len 0:
 * to the end, segments, NextMarker): pages written since appended to `written`, pages
 * cleared since to `cleared` (NULL: dropped), each merged and owned by the caller.
 * Errors: XIO_EINVAL (no or an empty `prevsnapshot`, as xio_blob_get_ranges_with),
 * XIO_ENOMEM, and whatever `send` returns (XIO_ENOTFOUND for an unknown snapshot,
 * XIO_ECONFLICT for 409 PreviousSnapshotNotFound or BlobOverwritten: the service
 * code tells them apart).
 */
xio_err xio_blob_get_ranges_diff_with(xio_blob_send_fn send, void *ud, const xio_blob_target *blob,
                                      const char *prevsnapshot, uint64_t offset, uint64_t len,
                                      uint64_t segment, xio_ranges *written, xio_ranges *cleared,
                                      xio_error *err);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BLOB_SYNC_H */
