/*
 * context.c - the run's xio context, made on first use from the global options:
 * --trace (trace_path), --cacert (ca_file), --credentials (credential_file),
 * --allow-exposed-credentials, --allow-insecure-http, --entra (the Entra ID
 * method), the transfer options
 * --checksum and --in-flight, and the environment
 * (AZURE_STORAGE_*, XIO_CREDENTIALS, XIO_ALLOW_EXPOSED_CREDENTIALS, XIO_CA_BUNDLE,
 * XIO_TRACE, IDENTITY_ENDPOINT, XIO_ENTRA_METHOD, XIO_SAS_WARNING_SECONDS), which the
 * library reads itself. A SAS
 * in use that expires within ten minutes (or XIO_SAS_WARNING_SECONDS) gets one warning
 * line on stderr, saying when and where to renew it. Commands that need no storage (help, usage
 * errors, sas) never start one.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <xio/credentials.h>

#include "cli.h"

/* Credential events: a warning line for people (never a secret: the library's
 * messages carry none). */
static void on_credential_event(const xio_cred_event *ev, void *ud) {
  (void)ud;
  fprintf(stderr, "xio: warning: %s\n", ev->message);
}

static xio_err setup(cli *c, xio_error *err) {
  xio_cred_options co;
  xio_ctx_get_credential_options(c->ctx, &co);
  co.on_event = on_credential_event;
  xio_err rc = xio_ctx_set_credential_options(c->ctx, &co, err);
  xio_auth_entra_method m;
  if (rc == XIO_OK && c->entra) {
    if (xio_auth_entra_method_parse(c->entra, &m) != 0 || m == XIO_AUTH_ENTRA_CALLBACK)
      return xio_error_set(err, XIO_EINVAL,
                           "--entra must be managed_identity, azure_cli, imds or default");
    rc = xio_ctx_set_entra_method(c->ctx, m, NULL, err);
  }
  return rc;
}

/* --pacing and --max-rate into `o`. XIO_EINVAL naming the option when bad. */
static xio_err pacing_options(const cli *c, xio_ctx_options *o, xio_error *err) {
  static const char *const modes[] = {"auto", "off", "on"};
  if (c->pacing) {
    size_t i = 0;
    while (i < 3 && strcmp(c->pacing, modes[i]) != 0)
      i++;
    if (i == 3)
      return xio_error_set(err, XIO_EINVAL, "bad --pacing '%s': use auto, on or off", c->pacing);
    o->pacing = (xio_pacing)i;
  }
  uint64_t rate = 0;
  if (c->max_rate && (xio_size_parse(c->max_rate, &rate, err) != XIO_OK || rate == 0))
    return xio_error_set(err, XIO_EINVAL, "bad --max-rate '%s': give bytes per second, e.g. 40MiB",
                         c->max_rate);
  o->max_rate_bps = (double)rate;
  if (c->max_rate && !c->pacing) o->pacing = XIO_PACING_ON; /* a cap asks for pacing */
  return XIO_OK;
}

xio_err cli_context(cli *c, xio_ctx **out, xio_error *err) {
  if (!c->ctx) {
    xio_ctx_options o = xio_ctx_options_default();
    xio_err prc = pacing_options(c, &o, err);
    if (prc != XIO_OK) return prc;
    o.use_environment = 1;
    o.trace_path = c->trace;
    o.ca_file = c->cacert;
    o.credential_file = c->credentials;
    o.allow_insecure_remote = c->allow_insecure;
    o.allow_exposed_credential_file = c->allow_exposed;
    o.checksum = c->checksum;
    if (c->in_flight > o.max_in_flight) o.max_in_flight = c->in_flight;
    xio_err rc = xio_ctx_new(&o, &c->ctx, err);
    if (rc == XIO_OK) rc = setup(c, err);
    if (rc != XIO_OK) {
      xio_ctx_free(c->ctx);
      c->ctx = NULL;
      return rc;
    }
    cli_stop_attach(c->ctx); /* a stop signal cancels its requests */
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
  cli_stop_detach();
  xio_ctx_free(c->ctx);
  c->ctx = NULL;
}
