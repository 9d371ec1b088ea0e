/*
 * buildfix.c - what the request-building tests share (see buildfix.h).
 */
#include "buildfix.h"

#include "test.h"

xio_blob_target *buildfix_target(const char *url) {
  xio_blob_target *t = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_target_new(url, NULL, &t, &e), &e);
  return t;
}

const char *buildfix_hdr(const xio_blob_call *c, const char *name) {
  return xio__blob_hdrs_get(&c->headers, name);
}
