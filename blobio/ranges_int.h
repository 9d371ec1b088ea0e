/*
 * ranges_int.h - internal helpers of the page-range list (ranges.c) beyond
 * the public xio_blob_ranges_add. Internal to libxio_blob.
 */
#ifndef XIO_BLOB_RANGES_INT_H
#define XIO_BLOB_RANGES_INT_H

#include <stddef.h>

#include <xio/blob.h>

/**
 * Makes room for `extra` more ranges in `r`, so that the next `extra` calls of
 * xio_blob_ranges_add cannot fail with XIO_ENOMEM (an add grows the list by at
 * most one). Lets a parser validate a whole body first and then apply it without
 * leaving a half-applied list behind. Errors: XIO_ENOMEM, XIO_EINVAL (r NULL).
 */
xio_err xio__blob_ranges_reserve(xio_blob_ranges *r, size_t extra);

#endif
