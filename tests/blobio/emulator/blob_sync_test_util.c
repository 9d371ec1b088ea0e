/*
 * blob_sync_test_util.c - synchronous one-line page-blob operations for the tests:
 * build one call, send it with the engine, read its result, free it. Built only on
 * the public API of libxio_blob; programs use calls (or <xio/blob_sync.h>) instead.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "blob_sync_test_util.h"

/* Sends a freshly built call `*c` (or passes on the builder's failure) and frees it.
 * Takes the call's address: the builder fills it while the arguments are evaluated. */
static xio_err run(xio_blob_engine *e, xio_err built, xio_blob_call **c, xio_error *err) {
  if (built != XIO_OK) return built;
  xio_err rc = xio_blob_send(e, *c, err);
  xio_blob_call_free(*c);
  return rc;
}

xio_err xio_blob_list_page(xio_blob_engine *e, const xio_blob_target *t, const char *prefix,
                           const char *marker, int maxresults, xio_blob_list *out, xio_error *err) {
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_list(t, prefix, marker, maxresults, &c, err);
  if (rc != XIO_OK) return rc;
  rc = xio_blob_send(e, c, err);
  if (rc == XIO_OK) rc = xio_blob_call_list_result(c, out, err);
  xio_blob_call_free(c);
  return rc;
}

xio_err xio_blob_create(xio_blob_engine *e, const xio_blob_target *t, uint64_t size,
                        const xio_blob_meta *meta, int nmeta, const xio_blob_cond *cond,
                        xio_error *err) {
  xio_blob_call *c = NULL;
  return run(e, xio_blob_call_create(t, size, meta, nmeta, cond, &c, err), &c, err);
}

xio_err xio_blob_get_properties(xio_blob_engine *e, const xio_blob_target *t,
                                const xio_blob_cond *cond, xio_blob_props *out, xio_error *err) {
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_get_properties(t, cond, &c, err);
  if (rc != XIO_OK) return rc;
  rc = xio_blob_send(e, c, err);
  if (rc == XIO_OK) rc = xio_blob_call_props(c, out, err);
  xio_blob_call_free(c);
  return rc;
}

xio_err xio_blob_resize(xio_blob_engine *e, const xio_blob_target *t, uint64_t size,
                        const xio_blob_cond *cond, xio_error *err) {
  xio_blob_call *c = NULL;
  return run(e, xio_blob_call_resize(t, size, cond, &c, err), &c, err);
}

xio_err xio_blob_put_page(xio_blob_engine *e, const xio_blob_target *t, uint64_t offset,
                          const void *data, size_t len, const xio_blob_cond *cond, xio_error *err) {
  xio_blob_call *c = NULL;
  return run(e, xio_blob_call_put_page(t, offset, data, len, 0, cond, &c, err), &c, err);
}

xio_err xio_blob_clear(xio_blob_engine *e, const xio_blob_target *t, uint64_t offset, uint64_t len,
                       const xio_blob_cond *cond, xio_error *err) {
  xio_blob_call *c = NULL;
  return run(e, xio_blob_call_clear(t, offset, len, 0, cond, &c, err), &c, err);
}

xio_err xio_blob_read(xio_blob_engine *e, const xio_blob_target *t, uint64_t offset, void *buf,
                      size_t len, const xio_blob_cond *cond, xio_error *err) {
  xio_blob_call *c = NULL;
  return run(e, xio_blob_call_read(t, offset, buf, len, cond, &c, err), &c, err);
}

/* Sends with the engine: the default sender of xio_blob_get_ranges. */
static xio_err send_with_engine(void *ud, xio_blob_call *c, xio_error *err) {
  return xio_blob_send(ud, c, err);
}

xio_err xio_blob_get_ranges(xio_blob_engine *e, const xio_blob_target *t, uint64_t offset,
                            uint64_t len, uint64_t segment, xio_ranges *out, xio_error *err) {
  return xio_blob_get_ranges_with(send_with_engine, e, t, offset, len, segment, out, err);
}

xio_err xio_blob_delete(xio_blob_engine *e, const xio_blob_target *t, int include_snapshots,
                        const xio_blob_cond *cond, xio_error *err) {
  xio_blob_call *c = NULL;
  return run(e, xio_blob_call_delete(t, include_snapshots, cond, &c, err), &c, err);
}

xio_err xio_blob_lease(xio_blob_engine *e, const xio_blob_target *t,
                       const xio_blob_lease_args *args, char *lease_id_out, xio_error *err) {
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_lease(t, args, &c, err);
  if (rc != XIO_OK) return rc;
  rc = xio_blob_send(e, c, err);
  int gives_id = args->action == XIO_BLOB_LEASE_ACQUIRE || args->action == XIO_BLOB_LEASE_CHANGE;
  if (rc == XIO_OK && gives_id && lease_id_out) {
    char id[64];
    rc = xio_blob_call_lease_id(c, id, err);
    if (rc == XIO_OK) memcpy(lease_id_out, id, strlen(id) + 1);
  }
  xio_blob_call_free(c);
  return rc;
}

xio_err xio_blob_snapshot(xio_blob_engine *e, const xio_blob_target *t, char snapshot_out[64],
                          xio_error *err) {
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_snapshot(t, NULL, &c, err);
  if (rc != XIO_OK) return rc;
  rc = xio_blob_send(e, c, err);
  if (rc == XIO_OK) rc = xio_blob_call_snapshot_id(c, snapshot_out, err);
  xio_blob_call_free(c);
  return rc;
}

xio_err xio_blob_set_metadata(xio_blob_engine *e, const xio_blob_target *t,
                              const xio_blob_meta *meta, int nmeta, const xio_blob_cond *cond,
                              xio_error *err) {
  xio_blob_call *c = NULL;
  return run(e, xio_blob_call_set_metadata(t, meta, nmeta, cond, &c, err), &c, err);
}
