/*
 * limits.c - the service limits, enforced by the client before anything is sent:
 * page alignment, the 4 MiB Put Page body, the 8 TiB blob, ranges inside the
 * blob, lease durations and break periods. Azurite accepts some requests that Azure
 * refuses; these checks make both behave as Azure does.
 */
#include <inttypes.h>

#include "limits_int.h"
#include <xio/error_int.h>

xio_err xio__blob_check_size(const char *op, uint64_t size, xio_error *err) {
  if (size % XIO_BLOB_PAGE_SIZE)
    return xio_error_set(err, XIO_EALIGN, "%s: size %" PRIu64 " is not a multiple of 512", op,
                         size);
  if (size > XIO_BLOB_MAX_SIZE)
    return xio_error_set(err, XIO_ELIMIT, "%s: size %" PRIu64 " exceeds the 8 TiB page blob limit",
                         op, size);
  return XIO_OK;
}

xio_err xio__blob_check_pages(const char *op, uint64_t offset, uint64_t len, uint64_t max_len,
                              uint64_t blob_size, xio_error *err) {
  if (len == 0) return xio_error_set(err, XIO_EINVAL, "%s: empty range", op);
  if (offset % XIO_BLOB_PAGE_SIZE || len % XIO_BLOB_PAGE_SIZE)
    return xio_error_set(err, XIO_EALIGN,
                         "%s: range at %" PRIu64 " of %" PRIu64
                         " bytes is not aligned to 512-byte pages",
                         op, offset, len);
  if (max_len && len > max_len)
    return xio_error_set(err, XIO_ELIMIT,
                         "%s: %" PRIu64 " bytes exceeds the %" PRIu64 "-byte limit per request", op,
                         len, max_len);
  if (offset > XIO_BLOB_MAX_SIZE || len > XIO_BLOB_MAX_SIZE - offset)
    return xio_error_set(err, XIO_ELIMIT, "%s: range ends past the 8 TiB page blob limit", op);
  if (blob_size && offset + len > blob_size)
    return xio_error_set(err, XIO_ERANGE,
                         "%s: range [%" PRIu64 ", %" PRIu64 ") ends past the blob's %" PRIu64
                         " bytes",
                         op, offset, offset + len, blob_size);
  return XIO_OK;
}

xio_err xio__blob_check_read(const char *op, uint64_t offset, uint64_t len, xio_error *err) {
  if (len == 0) return xio_error_set(err, XIO_EINVAL, "%s: empty range", op);
  if (offset > XIO_BLOB_MAX_SIZE || len > XIO_BLOB_MAX_SIZE - offset)
    return xio_error_set(err, XIO_ELIMIT, "%s: range ends past the 8 TiB page blob limit", op);
  return XIO_OK;
}

int xio_blob_lease_duration_ok(int duration_s, int infinite_ok) {
  return (infinite_ok && duration_s == -1) ||
         (duration_s >= XIO_BLOB_LEASE_MIN_S && duration_s <= XIO_BLOB_LEASE_MAX_S);
}

int xio_blob_break_period_ok(int period_s, int default_ok) {
  return (default_ok && period_s == -1) || (period_s >= 0 && period_s <= XIO_BLOB_BREAK_MAX_S);
}
