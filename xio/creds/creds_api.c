/*
 * creds_api.c - what the API changes in a running context's credentials (the
 * watch options, the token callback, the Entra ID method, a credential replaced for
 * a URL prefix), and the user delegation SAS: a token, then Get User Delegation
 * Key, then a SAS signed with that key.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "creds_int.h"
#include "ctx_int.h"
#include "entra_int.h"

void xio_ctx_get_credential_options(xio_ctx *ctx, xio_cred_options *out) {
  xio__credsrc *s = ctx->creds.src;
  pthread_mutex_lock(&s->mu);
  *out = s->watch;
  pthread_mutex_unlock(&s->mu);
}

xio_err xio_ctx_set_credential_options(xio_ctx *ctx, const xio_cred_options *o, xio_error *err) {
  if (!ctx || !o) return xio_error_set(err, XIO_EINVAL, "missing argument");
  if (o->sas_warning_s < 0 || o->recheck_ms < 0)
    return xio_error_set(err, XIO_EINVAL, "sas_warning_s and recheck_ms must not be negative");
  xio__credsrc *s = ctx->creds.src;
  pthread_mutex_lock(&s->mu);
  s->watch = *o;
  s->nwarned = 0;
  pthread_mutex_unlock(&s->mu);
  return XIO_OK;
}

/* Retires the token caches that would use the callback (under s->mu): new ones
 * are made with the new options; the old stay alive until the end, as a request
 * may be using one right now, but they no longer renew tokens ahead on their own,
 * which would call the old callback. */
static void retire_callback_users(xio__credsrc *s) {
  for (int i = 0; i < s->ncaches; i++)
    if (!s->caches[i].retired && (s->caches[i].method == XIO_AUTH_ENTRA_DEFAULT ||
                                  s->caches[i].method == XIO_AUTH_ENTRA_CALLBACK)) {
      s->caches[i].retired = 1;
      xio__entra_tokens_retire(s->caches[i].tokens);
    }
}

xio_err xio_ctx_set_token_callback(xio_ctx *ctx, xio_auth_token_fn fn, void *ud, xio_error *err) {
  if (!ctx) return xio_error_set(err, XIO_EINVAL, "missing argument");
  xio__credsrc *s = ctx->creds.src;
  pthread_mutex_lock(&s->mu);
  s->entra.callback = fn;
  s->entra.callback_ud = ud;
  retire_callback_users(s);
  s->gen++;
  pthread_mutex_unlock(&s->mu);
  return XIO_OK;
}

xio_err xio_ctx_set_entra_method(xio_ctx *ctx, xio_auth_entra_method method, const char *client_id,
                                 xio_error *err) {
  if (!ctx || (unsigned)method > XIO_AUTH_ENTRA_IMDS)
    return xio_error_set(err, XIO_EINVAL, "unknown Entra ID method");
  char *id = client_id ? xio_strdup(client_id) : NULL;
  if (client_id && !id) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio__credsrc *s = ctx->creds.src;
  pthread_mutex_lock(&s->mu);
  xio_free(s->client_id);
  s->client_id = id;
  s->method = method;
  s->gen++;
  pthread_mutex_unlock(&s->mu);
  return XIO_OK;
}

xio_err xio_ctx_set_credential(xio_ctx *ctx, const char *prefix, const xio_auth_cred *cred,
                               xio_error *err) {
  if (!ctx || !prefix) return xio_error_set(err, XIO_EINVAL, "missing argument");
  xio__credsrc *s = ctx->creds.src;
  xio_err rc = XIO_OK;
  pthread_mutex_lock(&s->mu);
  if (!s->api && cred && !(s->api = xio_auth_credstore_new()))
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (rc == XIO_OK && cred) rc = xio_auth_credstore_add(s->api, prefix, cred, err);
  if (rc == XIO_OK && !cred && s->api) rc = xio_auth_credstore_remove(s->api, prefix, err);
  s->gen++;
  pthread_mutex_unlock(&s->mu);
  if (rc != XIO_OK) xio_error_set_operation(err, "SetCredential");
  return rc;
}

/* ------------------------------------------------- user delegation SAS ---- */

static xio_err get_key(xio_ctx *ctx, const char *url, time_t start, time_t expiry,
                       xio_auth_udk *key, xio_error *err) {
  xio__req r = {XIO_REQ_USER_DELEGATION_KEY, NULL, 0, 0, NULL, NULL};
  xio_blob_target *t = NULL;
  xio_blob_call *c = NULL;
  xio_err rc = xio__creds_target(ctx, url, 1, &t, err);
  if (rc == XIO_OK) rc = xio_blob_call_user_delegation_key(t, start, expiry, &c, err);
  if (rc == XIO_OK) rc = xio__send(ctx, c, &r, err);
  if (rc == XIO_OK) rc = xio_blob_call_udk(c, key, err);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
  return rc;
}

static xio_err make_udk_sas(xio_ctx *ctx, const char *url, const xio_auth_sas_options *o,
                            char **token, xio_error *err) {
  xio_auth_url u;
  xio_err rc = xio_auth_url_parse(url, &u, err);
  if (rc != XIO_OK) return rc;
  if (!u.container) rc = xio_error_set(err, XIO_EINVAL, "the URL names no container");
  if (rc == XIO_OK && (!o->expiry || (o->start && o->start >= o->expiry)))
    rc = xio_error_set(err, XIO_EINVAL, "a SAS needs an expiry after its start");
  xio_auth_udk key;
  memset(&key, 0, sizeof key);
  time_t now = xio_auth_clock_now(&ctx->opts.clock);
  if (rc == XIO_OK) rc = get_key(ctx, url, o->start ? o->start : now, o->expiry, &key, err);
  if (rc == XIO_OK)
    rc = xio_auth_sas_generate_user_delegation(u.account, &key, u.container, u.blob, o, token, err);
  xio_auth_udk_clear(&key);
  xio_auth_url_clear(&u);
  return rc;
}

xio_err xio_ctx_user_delegation_sas(xio_ctx *ctx, const char *url, const xio_auth_sas_options *o,
                                    char **token, xio_error *err) {
  if (!ctx || !url || !o || !token) return xio_error_set(err, XIO_EINVAL, "missing argument");
  *token = NULL;
  xio_err rc = make_udk_sas(ctx, url, o, token, err);
  if (rc != XIO_OK) xio_error_set_operation(err, "UserDelegationSas");
  return rc;
}
