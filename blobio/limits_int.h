/*
 * limits_int.h - client-side checks of the page blob service limits (limits.c).
 * Each returns XIO_OK or fills `err` naming the operation, the values and the limit.
 */
#ifndef XIO_BLOB_LIMITS_INT_H
#define XIO_BLOB_LIMITS_INT_H

#include <stdint.h>

#include <xio/blob.h>

/** A blob size: multiple of 512 (XIO_EALIGN), at most 8 TiB (XIO_ELIMIT). */
xio_err xio__blob_check_size(const char *op, uint64_t size, xio_error *err);

/** A page range: non-empty (XIO_EINVAL), aligned (XIO_EALIGN), at most `max_len` bytes
 *  when non-zero (XIO_ELIMIT), inside 8 TiB (XIO_ELIMIT), inside `blob_size` when
 *  non-zero (XIO_ERANGE). */
xio_err xio__blob_check_pages(const char *op, uint64_t offset, uint64_t len, uint64_t max_len,
                              uint64_t blob_size, xio_error *err);

/** A read range: non-empty (XIO_EINVAL), inside 8 TiB (XIO_ELIMIT). */
xio_err xio__blob_check_read(const char *op, uint64_t offset, uint64_t len, xio_error *err);

#endif
