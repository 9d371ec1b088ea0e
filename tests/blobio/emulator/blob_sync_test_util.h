/*
 * blob_sync_test_util.h - synchronous one-line page-blob operations for the tests
 * (the library keeps only those programs use, in <xio/blob_sync.h>). Each builds a
 * call, sends it with `e`, waits, and frees it. Errors: those of the builder and of
 * the service, mapped as xio_blob_call_result does, with the detail in `err`. Never
 * call one from a completion callback.
 */
#ifndef XIO_BLOB_SYNC_TEST_UTIL_H
#define XIO_BLOB_SYNC_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <xio/blob.h>

/** Lists one page of blobs into `out` (xio_blob_list_clear). */
xio_err xio_blob_list_page(xio_blob_engine *e, const xio_blob_target *container, const char *prefix,
                           const char *marker, int maxresults, xio_blob_list *out, xio_error *err);

xio_err xio_blob_create(xio_blob_engine *e, const xio_blob_target *blob, uint64_t size,
                        const xio_blob_meta *meta, int nmeta, const xio_blob_cond *cond,
                        xio_error *err);

xio_err xio_blob_get_properties(xio_blob_engine *e, const xio_blob_target *blob,
                                const xio_blob_cond *cond, xio_blob_props *out, xio_error *err);

xio_err xio_blob_resize(xio_blob_engine *e, const xio_blob_target *blob, uint64_t size,
                        const xio_blob_cond *cond, xio_error *err);

xio_err xio_blob_put_page(xio_blob_engine *e, const xio_blob_target *blob, uint64_t offset,
                          const void *data, size_t len, const xio_blob_cond *cond, xio_error *err);

xio_err xio_blob_clear(xio_blob_engine *e, const xio_blob_target *blob, uint64_t offset,
                       uint64_t len, const xio_blob_cond *cond, xio_error *err);

xio_err xio_blob_read(xio_blob_engine *e, const xio_blob_target *blob, uint64_t offset, void *buf,
                      size_t len, const xio_blob_cond *cond, xio_error *err);

/**
 * All page ranges of [offset, offset+len) (len 0: to the end of the blob), following
 * NextMarker, and querying in segments of `segment` bytes (0: 128 GiB) so that a
 * fragmented large blob never needs one huge listing. Appends merged ranges to `out`.
 */
xio_err xio_blob_get_ranges(xio_blob_engine *e, const xio_blob_target *blob, uint64_t offset,
                            uint64_t len, uint64_t segment, xio_ranges *out, xio_error *err);

xio_err xio_blob_delete(xio_blob_engine *e, const xio_blob_target *blob, int include_snapshots,
                        const xio_blob_cond *cond, xio_error *err);

/** Runs a lease action; for acquire and change, the lease id lands in `lease_id_out`
 *  (64 bytes, may be NULL otherwise). */
xio_err xio_blob_lease(xio_blob_engine *e, const xio_blob_target *blob,
                       const xio_blob_lease_args *args, char *lease_id_out, xio_error *err);

xio_err xio_blob_snapshot(xio_blob_engine *e, const xio_blob_target *blob, char snapshot_out[64],
                          xio_error *err);

xio_err xio_blob_set_metadata(xio_blob_engine *e, const xio_blob_target *blob,
                              const xio_blob_meta *meta, int nmeta, const xio_blob_cond *cond,
                              xio_error *err);

#endif
