/*
 * send.c - how the file layer sends its page-blob requests: each call carries, as its
 * tag, what it is for (an xio__req: its request type, its file, its range) and goes to
 * the context's engine. Tracing and the file's counters are not done here: the
 * engine hands every call it completes to its completion hook (trace.c), tagged or
 * not, so that a request cannot go out untraced.
 */
#include <string.h>

#include "ctx_int.h"

xio_err xio__send(xio_ctx *ctx, xio_blob_call *c, const xio__req *r, xio_error *err) {
  xio_blob_call_set_tag(c, r);
  return xio_blob_send(xio__ctx_engine(ctx), c, err);
}

xio_err xio__send_in_container(xio_ctx *ctx, xio_blob_call *c, const xio__req *r, xio_error *err) {
  /* Its first try may find the container missing: expected, as it is created then
   * and the call sent again (lives until the call completes: this waits for it). */
  xio__req tag = *r;
  if (!tag.expect_missing) tag.expect_missing = "ContainerNotFound";
  xio_blob_call_set_tag(c, &tag);
  return xio_blob_send_in_container(xio__ctx_engine(ctx), c, err);
}

void xio__submit(xio_ctx *ctx, xio_blob_call *c, const xio__req *r, xio_blob_done_fn done,
                 void *ud) {
  xio_blob_call_set_tag(c, r);
  xio_blob_submit(xio__ctx_engine(ctx), c, done, ud);
}
