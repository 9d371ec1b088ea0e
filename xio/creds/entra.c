/*
 * entra.c - the Entra ID chain: which token sources apply, in which order, and the
 * report of everything tried when none gives a token. Order as the SDKs' default
 * credential: the callback, a managed identity endpoint named by the environment,
 * the Azure CLI, and last the instance metadata service, which only an Azure VM (by
 * its DMI chassis asset tag) or an explicit request for a managed identity ever
 * contacts. Also the sources' default options and the look at the DMI file.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entra_int.h"
#include <xio/error_int.h>

xio_entra_options xio_entra_options_default(void) {
  xio_entra_options o;
  memset(&o, 0, sizeof o);
  o.timeout_ms = 10000;
  o.use_environment = 1;
  return o;
}

int xio_entra_is_azure_vm(const char *dmi_path) {
  char tag[128];
  FILE *f = fopen(dmi_path ? dmi_path : XIO_ENTRA_DMI_ASSET_TAG, "r");
  if (!f) return 0;
  size_t n = fread(tag, 1, sizeof tag - 1, f);
  fclose(f);
  tag[n] = '\0';
  while (n > 0 && (tag[n - 1] == '\n' || tag[n - 1] == ' ' || tag[n - 1] == '\r'))
    tag[--n] = '\0';
  return strcmp(tag, XIO_ENTRA_AZURE_ASSET_TAG) == 0;
}

static const char *pick(const char *given, int use_env, const char *var) {
  if (given) return given;
  const char *v = use_env ? getenv(var) : NULL;
  return v && *v ? v : NULL;
}

void xio__entra_env_read(xio_blob_engine *engine, const xio_entra_options *o, const char *client_id,
                         xio__entra_env *env) {
  int ue = o->use_environment;
  memset(env, 0, sizeof *env);
  env->engine = engine;
  env->callback = o->callback;
  env->callback_ud = o->callback_ud;
  env->identity_endpoint = pick(o->identity_endpoint, ue, "IDENTITY_ENDPOINT");
  env->identity_header = pick(o->identity_header, ue, "IDENTITY_HEADER");
  env->client_id = client_id ? client_id : pick(o->client_id, ue, "AZURE_CLIENT_ID");
  env->az = pick(o->az, 0, NULL);
  env->imds_endpoint = pick(o->imds_endpoint, ue, "XIO_IMDS_ENDPOINT");
  if (!env->imds_endpoint) env->imds_endpoint = XIO_ENTRA_IMDS_ENDPOINT;
  env->dmi = pick(o->dmi_asset_tag, ue, "XIO_DMI_ASSET_TAG_FILE");
  env->timeout_ms = o->timeout_ms;
  env->now = xio_auth_clock_now(&o->clock);
}

char *xio__entra_resource(const char *scope) {
  const char *suffix = ".default";
  size_t n = strlen(scope), s = strlen(suffix);
  if (n > s && strcmp(scope + n - s, suffix) == 0) n -= s;
  return xio_strndup(scope, n);
}

static xio_err from_callback(const xio__entra_env *env, const char *scope, xio_auth_token *out,
                             char why[XIO__WHY_SIZE]) {
  if (!env->callback) {
    snprintf(why, XIO__WHY_SIZE, "none is set");
    return XIO_ENOCRED;
  }
  xio_error e;
  xio_error_clear(&e);
  memset(out, 0, sizeof *out);
  xio_err rc = env->callback(scope, out, env->callback_ud, &e);
  if (rc == XIO_OK && out->value && *out->value && out->expires_on > env->now) return XIO_OK;
  xio_auth_token_clear(out);
  snprintf(why, XIO__WHY_SIZE, "%.150s",
           rc != XIO_OK ? (e.message[0] ? e.message : xio_strerror(rc))
                        : "it gave no token, or one already expired");
  return XIO_EAUTH;
}

/* Runs one source; a token that is already expired counts as a failure. */
static xio_err run(xio_auth_entra_method m, const xio__entra_env *env, const char *scope,
                   const char *resource, xio_auth_token *out, char why[XIO__WHY_SIZE]) {
  xio_err rc;
  switch (m) {
  case XIO_AUTH_ENTRA_CALLBACK: return from_callback(env, scope, out, why);
  case XIO_AUTH_ENTRA_MANAGED_IDENTITY:
    rc = xio__entra_managed_identity(env, 0, resource, out, why);
    break;
  case XIO_AUTH_ENTRA_AZURE_CLI: rc = xio__entra_azure_cli(env, resource, out, why); break;
  case XIO_AUTH_ENTRA_IMDS: rc = xio__entra_managed_identity(env, 1, resource, out, why); break;
  default: snprintf(why, XIO__WHY_SIZE, "unknown method"); return XIO_EINVAL;
  }
  if (rc == XIO_OK && out->expires_on <= env->now) {
    xio_auth_token_clear(out);
    snprintf(why, XIO__WHY_SIZE, "the token it gave has already expired");
    rc = XIO_EAUTH;
  }
  return rc;
}

static const char *label(xio_auth_entra_method m) {
  switch (m) {
  case XIO_AUTH_ENTRA_CALLBACK: return "token callback";
  case XIO_AUTH_ENTRA_MANAGED_IDENTITY: return "managed identity (IDENTITY_ENDPOINT)";
  case XIO_AUTH_ENTRA_AZURE_CLI: return "Azure CLI";
  case XIO_AUTH_ENTRA_IMDS: return "instance metadata service";
  default: return "?";
  }
}

/* Appends "LABEL: WHY" to the report. */
static void note(char *report, size_t size, xio_auth_entra_method m, const char *why) {
  size_t n = strlen(report);
  if (n < size) snprintf(report + n, size - n, "%s%s: %s", n ? "; " : "", label(m), why);
}

/* The sources `method` stands for, in order; returns how many. */
static int plan(xio_auth_entra_method method, const xio__entra_env *env,
                xio_auth_entra_method out[4]) {
  if (method == XIO_AUTH_ENTRA_MANAGED_IDENTITY) {
    /* Asked for explicitly: the environment's endpoint, else the metadata service. */
    out[0] = env->identity_endpoint ? XIO_AUTH_ENTRA_MANAGED_IDENTITY : XIO_AUTH_ENTRA_IMDS;
    return 1;
  }
  if (method != XIO_AUTH_ENTRA_DEFAULT) {
    out[0] = method;
    return 1;
  }
  out[0] = XIO_AUTH_ENTRA_CALLBACK;
  out[1] = XIO_AUTH_ENTRA_MANAGED_IDENTITY;
  out[2] = XIO_AUTH_ENTRA_AZURE_CLI;
  out[3] = XIO_AUTH_ENTRA_IMDS;
  return xio_entra_is_azure_vm(env->dmi) ? 4 : 3;
}

static xio_err chain(const xio__entra_env *env, xio_auth_entra_method method, const char *scope,
                     xio_auth_token *out, xio_auth_entra_method *used, char *report, size_t size) {
  xio_auth_entra_method steps[4];
  int n = plan(method, env, steps);
  char *resource = xio__entra_resource(scope);
  if (!resource) return XIO_ENOMEM;
  xio_err rc = XIO_ENOCRED;
  int tried = 0;
  for (int i = 0; i < n; i++) {
    char why[XIO__WHY_SIZE] = "";
    rc = run(steps[i], env, scope, resource, out, why);
    if (rc == XIO_OK || rc == XIO_ENOMEM) {
      if (used) *used = steps[i];
      break;
    }
    tried |= rc != XIO_ENOCRED;
    note(report, size, steps[i], why);
  }
  if (rc != XIO_OK && rc != XIO_ENOMEM && method == XIO_AUTH_ENTRA_DEFAULT && n == 3)
    note(report, size, XIO_AUTH_ENTRA_IMDS,
         "not asked: this machine is not an Azure VM (ask for managed_identity to use it)");
  xio_free(resource);
  return rc == XIO_OK || rc == XIO_ENOMEM ? rc : tried ? XIO_EAUTH : XIO_ENOCRED;
}

xio_err xio_entra_fetch(xio_blob_engine *engine, const xio_entra_options *opts,
                        xio_auth_entra_method method, const char *client_id, const char *scope,
                        xio_auth_token *out, xio_auth_entra_method *used, xio_error *err) {
  char report[sizeof err->message] = "";
  xio__entra_env env;
  if (!engine || !opts || !out) return xio_error_set(err, XIO_EINVAL, "missing argument");
  memset(out, 0, sizeof *out);
  xio__entra_env_read(engine, opts, client_id, &env);
  xio_err rc =
      chain(&env, method, scope ? scope : XIO_AUTH_STORAGE_SCOPE, out, used, report, sizeof report);
  if (rc == XIO_ENOMEM) return xio_error_set(err, rc, "out of memory getting a token");
  if (rc != XIO_OK) {
    xio_error_set(err, rc, "no Entra ID token (%s): %s", xio_auth_entra_method_name(method),
                  report);
    xio_error_set_reason(err, rc == XIO_ENOCRED ? XIO_REASON_NO_TOKEN_SOURCE
                                                : XIO_REASON_TOKEN_SOURCES_FAILED);
    xio_error_set_operation(err, "GetToken");
  }
  return rc;
}
