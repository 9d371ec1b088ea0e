/*
 * ctx_state.c - what the parts of the file layer ask of the context they hold: its
 * process, its REST engine, its options, its buffer of zeros, whether the caller is
 * on its I/O thread, its open files. The context's life (ctx.c) is the composition
 * root above every part; these answers are below them all.
 *
 * A context belongs to the process that made it: a child forked from that process
 * has none of its threads, so every call that would reach them checks the process
 * first (xio__ctx_check_process) and fails at once instead of waiting for ever.
 */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "ctx_int.h"

xio_err xio__ctx_check_process(const xio_ctx *ctx, xio_error *err) {
  if (getpid() == ctx->pid) return XIO_OK;
  return xio_error_set(err, XIO_EINVAL,
                       "this xio context was made by process %ld, which then forked this one: "
                       "a child process cannot use its parent's contexts and files (their I/O "
                       "threads, connections and leases stay with the parent); make its own "
                       "context with xio_ctx_new",
                       (long)ctx->pid);
}

xio_blob_engine *xio__ctx_engine(xio_ctx *ctx) { return ctx->engine; }

const xio_ctx_options *xio__ctx_options(const xio_ctx *ctx) { return &ctx->opts; }

const void *xio__ctx_zeros(const xio_ctx *ctx) { return ctx->zeros; }

size_t xio__ctx_zeros_len(const xio_ctx *ctx) {
  (void)ctx;
  return XIO__CTX_ZEROS_LEN;
}

int xio__ctx_on_io_thread(xio_ctx *ctx) {
  return xio_blob_engine_on_io_thread(ctx->engine) || xio__workers_is_worker(&ctx->workers);
}

xio__tracked *xio__ctx_open_files(xio_ctx *ctx) { return &ctx->open_files; }
