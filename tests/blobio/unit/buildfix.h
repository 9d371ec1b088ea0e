/*
 * buildfix.h - what the request-building tests share: a target from a URL and the
 * headers of a built call.
 */
#ifndef XIO_TEST_BUILDFIX_H
#define XIO_TEST_BUILDFIX_H

#include "call_int.h"

/** The target of `url` (no credential); fails the test when it is refused. Free it
 *  with xio_blob_target_free. */
xio_blob_target *buildfix_target(const char *url);

/** The value of header `name` of the built call `c`, or NULL when it has none. */
const char *buildfix_hdr(const xio_blob_call *c, const char *name);

#endif
