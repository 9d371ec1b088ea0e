/*
 * context.c - the run's xio context, made on first use from the global options:
 * --trace (trace_path), --cacert (ca_file), --credentials (credential_file),
 * --allow-insecure-http, and the environment (AZURE_STORAGE_*, XIO_CREDENTIALS,
 * XIO_CA_BUNDLE, XIO_TRACE), which the library reads itself. Commands that need no
 * storage (help, usage errors, sas) never start one.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>

#include "cli.h"

xio_err cli_context(cli *c, xio_ctx **out, xio_error *err) {
  if (!c->ctx) {
    xio_ctx_options o = xio_ctx_options_default();
    o.use_environment = 1;
    o.trace_path = c->trace;
    o.ca_file = c->cacert;
    o.credential_file = c->credentials;
    o.allow_insecure_remote = c->allow_insecure;
    xio_err rc = xio_ctx_new(&o, &c->ctx, err);
    if (rc != XIO_OK) return rc;
  }
  *out = c->ctx;
  return XIO_OK;
}

xio_err cli_open(cli *c, const char *target, const xio_open_options *o, xio_file **out,
                 xio_error *err) {
  xio_ctx *ctx;
  *out = NULL;
  xio_err rc = cli_context(c, &ctx, err);
  return rc == XIO_OK ? xio_file_open(ctx, target, o, out, err) : rc;
}

void cli_context_free(cli *c) {
  xio_ctx_free(c->ctx);
  c->ctx = NULL;
}
