/*
 * creds.c - which credential signs a request to a given URL, asked again before
 * every request. In order: a SAS in the URL itself (fixed for the target's life); a
 * credential set through the API; the credential file's longest matching prefix
 * (SQL Server's CREATE CREDENTIAL named by container URL), re-read when it changes;
 * the connection string; AZURE_STORAGE_ACCOUNT/AZURE_STORAGE_KEY;
 * AZURE_STORAGE_SAS_TOKEN; then, for https URLs, Entra ID tokens from the context's
 * method (the default chain unless narrowed), or anonymous when no Entra ID source
 * applies at all. Account-wide credentials apply only to URLs of their own account,
 * matched by endpoint and never by the name alone, so a key or token is never sent
 * to another account's host or to one that only looks like it.
 *
 * Targets get their credential from the context's source (xio_blob_cred_source),
 * which runs on the engine's I/O thread: it never waits for a token (the cache's
 * fetches run off the I/O thread) and only stats the credential file, at most every
 * recheck_ms, unless a refused request makes it read the file again.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>
#include <xio/auth.h>

#include "creds_int.h"
#include "ctx_int.h"

#define TOKEN_WAIT_MS 20

xio_cred_options xio_cred_options_default(void) {
  xio_cred_options o;
  memset(&o, 0, sizeof o);
  o.sas_warning_s = 600;
  o.recheck_ms = 1000;
  return o;
}

/* ------------------------------------------------------------- loading ---- */

static xio_err load_env(xio__credsrc *c, xio_error *err) {
  const char *acct = getenv("AZURE_STORAGE_ACCOUNT"), *key = getenv("AZURE_STORAGE_KEY");
  const char *sas = getenv("AZURE_STORAGE_SAS_TOKEN"), *method = getenv("XIO_ENTRA_METHOD");
  const char *warn = getenv("XIO_SAS_WARNING_SECONDS");
  if (acct && *acct && !(c->env_account = xio_strdup(acct)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (acct && *acct && key && *key) {
    xio_err rc = xio_auth_base64_decode(key, &c->env_key, &c->env_key_len, err);
    if (rc == XIO_ENOMEM) return rc;
    if (rc != XIO_OK)
      return xio_error_set(err, XIO_EPARSE, "AZURE_STORAGE_KEY is not valid base64");
  }
  if (sas && *sas && !(c->env_sas = xio_strdup(sas[0] == '?' ? sas + 1 : sas)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (warn && *warn) {
    char *end = NULL;
    long v = strtol(warn, &end, 10);
    if (*end || v < 0 || v > 365L * 86400)
      return xio_error_set(err, XIO_EINVAL, "XIO_SAS_WARNING_SECONDS must be 0..31536000");
    c->watch.sas_warning_s = (int)v;
  }
  if (method && *method && xio_auth_entra_method_parse(method, &c->method) != 0)
    return xio_error_set(err, XIO_EINVAL,
                         "XIO_ENTRA_METHOD must be one of default, callback, managed_identity, "
                         "azure_cli, imds");
  return XIO_OK;
}

static xio_err setup(xio__credsrc *c, const xio_ctx_options *o, xio_error *err) {
  const char *file = o->credential_file, *conn = o->connection_string;
  c->conn_label = conn ? "the connection string option" : "AZURE_STORAGE_CONNECTION_STRING";
  if (o->use_environment) {
    if (!file) file = getenv("XIO_CREDENTIALS");
    if (!conn) conn = getenv("AZURE_STORAGE_CONNECTION_STRING");
  }
  xio_err rc = XIO_OK;
  if (file && *file) {
    unsigned flags = (o->allow_exposed_credential_file ? XIO_CRED_FILE_ALLOW_EXPOSED : 0) |
                     (o->use_environment ? XIO_CRED_FILE_ENVIRONMENT : 0);
    c->has_file = 1; /* freed with the source, loaded or not */
    rc = xio__credfile_open(&c->file, file, flags, err);
  }
  if (rc == XIO_OK && conn && *conn) rc = xio_auth_connstr_parse(conn, &c->conn, err);
  if (rc == XIO_OK && o->use_environment) rc = load_env(c, err);
  return rc;
}

xio_err xio__creds_load(xio__creds *c, const xio_ctx_options *o, xio_error *err) {
  xio__credsrc *s = xio_calloc(1, sizeof *s);
  if (!s) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  pthread_mutex_init(&s->mu, NULL);
  s->refs = 1;
  s->clock = o->clock;
  s->use_environment = o->use_environment;
  s->watch = xio_cred_options_default();
  s->entra = xio_entra_options_default();
  s->entra.use_environment = o->use_environment;
  s->entra.clock = o->clock;
  c->src = s;
  return setup(s, o, err);
}

/* Frees `n` token caches (each after the fetch it runs, if any). */
static void free_caches(xio__token_cache *caches, int n) {
  for (int i = 0; i < n; i++) {
    xio_entra_tokens_free(caches[i].tokens);
    xio_free(caches[i].client_id);
  }
}

static void credsrc_free(xio__credsrc *s) {
  free_caches(s->caches, s->ncaches);
  if (s->has_file) xio__credfile_free(&s->file);
  xio_auth_credstore_free(s->api);
  xio_auth_account_clear(&s->conn);
  xio_free(s->env_account);
  xio_auth_secret_free(s->env_key, s->env_key_len);
  if (s->env_sas) xio_auth_secret_free(s->env_sas, strlen(s->env_sas));
  xio_free(s->client_id);
  pthread_mutex_destroy(&s->mu);
  xio_free(s);
}

static void credsrc_release(xio__credsrc *s) {
  pthread_mutex_lock(&s->mu);
  int last = --s->refs == 0;
  pthread_mutex_unlock(&s->mu);
  if (last) credsrc_free(s);
}

void xio__creds_free(xio__creds *c) {
  if (!c->src) return;
  pthread_mutex_lock(&c->src->mu);
  c->src->ctx = NULL; /* targets still alive must not reach the trace file */
  c->src->watch.on_event = NULL;
  pthread_mutex_unlock(&c->src->mu);
  credsrc_release(c->src);
  c->src = NULL;
}

void xio__creds_set_engine(xio__creds *c, xio_blob_engine *engine) {
  pthread_mutex_lock(&c->src->mu);
  c->src->engine = engine;
  pthread_mutex_unlock(&c->src->mu);
}

void xio__creds_stop_tokens(xio__creds *c) {
  xio__credsrc *s = c->src;
  xio__token_cache caches[XIO__MAX_TOKEN_CACHES];
  if (!s) return;
  /* Taken out under the lock (the engine's I/O thread asks the caches only under
   * it), stopped after it: a cache's fetch thread may wait for the I/O thread to
   * finish its fetch, and the I/O thread for the lock. */
  pthread_mutex_lock(&s->mu);
  int n = s->ncaches;
  memcpy(caches, s->caches, (size_t)n * sizeof *caches);
  s->ncaches = 0;
  s->engine = NULL;
  pthread_mutex_unlock(&s->mu);
  free_caches(caches, n);
}

xio_err xio__creds_tokens(xio__credsrc *s, xio_auth_entra_method method, const char *client_id,
                          xio_entra_tokens **out, xio_error *err) {
  *out = NULL;
  if (!s->engine) return xio_error_set(err, XIO_ECLOSED, "the context is closed: no token");
  for (int i = 0; i < s->ncaches; i++) {
    xio__token_cache *tc = &s->caches[i];
    if (!tc->retired && tc->method == method &&
        (tc->client_id ? client_id && strcmp(tc->client_id, client_id) == 0 : !client_id)) {
      *out = tc->tokens;
      return XIO_OK;
    }
  }
  if (s->ncaches == XIO__MAX_TOKEN_CACHES)
    return xio_error_set(err, XIO_ENOMEM, "every token cache is taken");
  xio__token_cache *tc = &s->caches[s->ncaches];
  memset(tc, 0, sizeof *tc);
  if (client_id && !(tc->client_id = xio_strdup(client_id)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory for a token cache");
  xio_err rc = xio_entra_tokens_new(s->engine, &s->entra, method, client_id, &tc->tokens, err);
  if (rc != XIO_OK) {
    xio_free(tc->client_id);
    return rc;
  }
  tc->method = method;
  s->ncaches++;
  *out = tc->tokens;
  return XIO_OK;
}

/* ---------------------------------------------------------- resolution ---- */

/* What a URL resolves to: a credential (SAS, key, NONE, or ENTRA to be turned into a
 * token) and where it came from, for messages. */
typedef struct resolved {
  xio_auth_cred cred; /* owned */
  char label[160];
  int implicit; /* ENTRA because nothing else applied (anonymous if no source does) */
} resolved;

static xio_err from_store(const xio_auth_credstore *st, const char *url, const char *label,
                          resolved *r, int *found, xio_error *err) {
  xio_err rc = xio_auth_credstore_lookup(st, url, &r->cred, NULL);
  if (rc == XIO_ENOCRED) return XIO_OK;
  if (rc != XIO_OK) return xio_error_set(err, rc, "credential lookup failed");
  snprintf(r->label, sizeof r->label, "%s", label);
  *found = 1;
  return XIO_OK;
}

/* The environment's and connection string's credential for `url`, borrowed. The
 * connection string's serves the URLs under its blob endpoint (explicit, or derived
 * from the account name and suffix); AZURE_STORAGE_ACCOUNT's key or SAS only the
 * account's own URLs (`env_own`: xio_auth_url_of_account), never a host that merely
 * begins with the account's name. */
static xio_auth_cred from_environment(const xio__credsrc *c, const char *url, int env_own,
                                      const char **label) {
  xio_auth_cred t = {.kind = XIO_AUTH_CRED_NONE};
  if (xio_auth_account_serves(&c->conn, url)) {
    *label = c->conn_label;
    if (c->conn.key)
      return (xio_auth_cred){.kind = XIO_AUTH_CRED_SHARED_KEY,
                             .account = c->conn.name,
                             .key = c->conn.key,
                             .key_len = c->conn.key_len};
    if (c->conn.sas) return (xio_auth_cred){.kind = XIO_AUTH_CRED_SAS, .sas = c->conn.sas};
  }
  *label = "AZURE_STORAGE_KEY";
  if (env_own && c->env_key)
    return (xio_auth_cred){.kind = XIO_AUTH_CRED_SHARED_KEY,
                           .account = c->env_account,
                           .key = c->env_key,
                           .key_len = c->env_key_len};
  *label = "AZURE_STORAGE_SAS_TOKEN";
  if (c->env_sas && (env_own || !c->env_account))
    return (xio_auth_cred){.kind = XIO_AUTH_CRED_SAS, .sas = c->env_sas};
  return t;
}

/* Resolves `url` (under c->mu); `env_own`: the URL is AZURE_STORAGE_ACCOUNT's own.
 * `entra_only`: an Entra ID method whatever else applies (the user delegation key
 * needs a token). */
static xio_err resolve(xio__credsrc *c, const char *url, int env_own, int https, int entra_only,
                       resolved *r, xio_error *err) {
  int found = 0;
  xio_err rc = XIO_OK;
  memset(r, 0, sizeof *r);
  if (c->api) rc = from_store(c->api, url, "the credential set through the API", r, &found, err);
  if (rc == XIO_OK && !found && c->has_file) {
    char label[160];
    snprintf(label, sizeof label, "the credential file %.130s", c->file.path);
    rc = from_store(c->file.store, url, label, r, &found, err);
  }
  if (rc != XIO_OK) return rc;
  if (found && (!entra_only || r->cred.kind == XIO_AUTH_CRED_ENTRA)) return XIO_OK;
  xio_auth_cred_clear(&r->cred);
  const char *label = "";
  xio_auth_cred env = {.kind = XIO_AUTH_CRED_NONE};
  if (!entra_only) env = from_environment(c, url, env_own, &label);
  if (env.kind == XIO_AUTH_CRED_NONE && env_own && !https && !entra_only)
    return xio_error_set(err, XIO_ENOCRED,
                         "AZURE_STORAGE_ACCOUNT names this URL's account, but neither "
                         "AZURE_STORAGE_KEY nor AZURE_STORAGE_SAS_TOKEN is set: set one (or "
                         "unset AZURE_STORAGE_ACCOUNT to send without a credential)");
  if (env.kind == XIO_AUTH_CRED_NONE && (https || entra_only)) {
    env =
        (xio_auth_cred){.kind = XIO_AUTH_CRED_ENTRA, .entra = c->method, .client_id = c->client_id};
    label = "Entra ID";
    r->implicit = !entra_only;
  }
  snprintf(r->label, sizeof r->label, "%s", label);
  if (xio_auth_cred_copy(&r->cred, &env) != XIO_OK)
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

/* ---------------------------------------------------- the targets' source ---- */

/* What a target's credential source knows: the context's source and its URL, and
 * the URL's resolution as of the source's generation `gen` (under src->mu), so that
 * a request only copies it while nothing changed. */
typedef struct credref {
  atomic_int refs;
  xio__credsrc *src;
  char *url;   /* in the same allocation */
  int env_own; /* the URL is AZURE_STORAGE_ACCOUNT's own (xio_auth_url_of_account) */
  int https;
  int entra_only;
  int cached;
  unsigned gen;
  resolved res;
  time_t sas_expiry; /* of res.cred when it is a SAS, else 0 */
} credref;

static void ref_retain(void *ud) { atomic_fetch_add(&((credref *)ud)->refs, 1); }

static void ref_release(void *ud) {
  credref *r = ud;
  if (atomic_fetch_sub(&r->refs, 1) != 1) return;
  credsrc_release(r->src);
  xio_auth_cred_clear(&r->res.cred);
  xio_free(r);
}

/* A reference for `url`, whose parts `u` are already parsed. NULL on out-of-memory. */
static credref *ref_new(xio__credsrc *s, const char *url, const xio_auth_url *u, int entra_only) {
  size_t nu = strlen(url) + 1;
  credref *r = xio_calloc(1, sizeof *r + nu);
  if (!r) return NULL;
  r->url = memcpy((char *)(r + 1), url, nu);
  r->env_own = xio_auth_url_of_account(u, s->env_account);
  r->https = strcmp(u->scheme, "https") == 0;
  atomic_init(&r->refs, 1);
  r->entra_only = entra_only;
  pthread_mutex_lock(&s->mu);
  s->refs++;
  pthread_mutex_unlock(&s->mu);
  r->src = s;
  return r;
}

static void *ref_for_url(void *ud, const char *url) {
  credref *r = ud, *child = NULL;
  xio_auth_url u;
  if (xio_auth_url_parse(url, &u, NULL) != XIO_OK) return NULL;
  child = ref_new(r->src, url, &u, r->entra_only);
  xio_auth_url_clear(&u);
  return child;
}

/* Under s->mu: re-reads a changed credential file (forced after a refusal). */
static void refresh_file(credref *r, int force) {
  xio__credsrc *s = r->src;
  if (!s->has_file) return;
  xio_error e;
  xio_error_clear(&e);
  int rc = xio__credfile_refresh(&s->file, s->watch.recheck_ms, force, &e);
  if (rc > 0) s->gen++;
  if (rc < 0) {
    pthread_mutex_unlock(&s->mu);
    xio__creds_file_error(s, r->url, &e);
    pthread_mutex_lock(&s->mu);
  }
}

/* Resolves r->url again when the source changed since the last time (under s->mu). */
static xio_err refresh_resolution(credref *r, int force, xio_error *err) {
  xio__credsrc *s = r->src;
  if (!r->cached || r->gen != s->gen || force) {
    resolved fresh;
    xio_err rc = resolve(s, r->url, r->env_own, r->https, r->entra_only, &fresh, err);
    if (rc != XIO_OK) return rc;
    xio_auth_cred_clear(&r->res.cred);
    r->res = fresh;
    r->gen = s->gen;
    r->cached = 1;
    xio_auth_sas sas;
    r->sas_expiry = fresh.cred.kind == XIO_AUTH_CRED_SAS &&
                            xio_auth_sas_parse(fresh.cred.sas, &sas, NULL) == XIO_OK
                        ? sas.expiry
                        : 0;
  }
  return XIO_OK;
}

/* 1 when `a` and `b` are the same credential (SAS, key or none). */
static int same_cred(const xio_auth_cred *a, const xio_auth_cred *b) {
  if (a->kind != b->kind) return 0;
  switch (a->kind) {
  case XIO_AUTH_CRED_NONE: return 1;
  case XIO_AUTH_CRED_SAS: return a->sas && b->sas && strcmp(a->sas, b->sas) == 0;
  case XIO_AUTH_CRED_SHARED_KEY:
    return a->account && b->account && strcmp(a->account, b->account) == 0 &&
           a->key_len == b->key_len && memcmp(a->key, b->key, a->key_len) == 0;
  default: return 0;
  }
}

/* Makes *cred `fresh` unless it already is: the new copy is made before the old is
 * released (see xio_blob_cred_source). */
static xio_err update(xio_auth_cred *cred, const xio_auth_cred *fresh, xio_error *err) {
  if (same_cred(cred, fresh)) return XIO_OK;
  xio_auth_cred copy;
  if (xio_auth_cred_copy(&copy, fresh) != XIO_OK)
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_auth_cred_clear(cred);
  *cred = copy;
  return XIO_OK;
}

/* Brings *cred to the current bearer token of the ENTRA resolution `res` without
 * waiting (under s->mu). *wait_ms > 0: the token is on its way. An implicit chain
 * with no source that applies gives NONE (anonymous). */
static xio_err to_token(xio__credsrc *s, const resolved *res, int refused, xio_auth_cred *cred,
                        int *wait_ms, xio_error *err) {
  xio_entra_tokens *t = NULL;
  xio_err rc = xio__creds_tokens(s, res->cred.entra, res->cred.client_id, &t, err);
  if (rc != XIO_OK) return rc;
  xio_auth_token tok;
  const char *stale = refused && cred->kind == XIO_AUTH_CRED_BEARER ? cred->token : NULL;
  rc = xio_entra_tokens_peek(t, XIO_AUTH_STORAGE_SCOPE, stale, &tok, err);
  if (rc == XIO_ENOCRED && res->implicit) /* nothing configured: anonymous */
    return update(cred, &(xio_auth_cred){.kind = XIO_AUTH_CRED_NONE}, err);
  if (rc != XIO_OK) return rc;
  if (!tok.value) {
    *wait_ms = TOKEN_WAIT_MS;
    return XIO_OK;
  }
  if (cred->kind == XIO_AUTH_CRED_BEARER && cred->token && strcmp(cred->token, tok.value) == 0) {
    xio_auth_token_clear(&tok); /* the same token as the last try's */
    return XIO_OK;
  }
  xio_auth_cred_clear(cred);
  cred->kind = XIO_AUTH_CRED_BEARER;
  cred->token = tok.value;
  return XIO_OK;
}

static xio_err source_get(void *ud, int refused, xio_auth_cred *cred, int *wait_ms,
                          xio_error *err) {
  credref *r = ud;
  xio__credsrc *s = r->src;
  char label[sizeof r->res.label];
  int force = refused && cred->kind != XIO_AUTH_CRED_BEARER;
  pthread_mutex_lock(&s->mu);
  refresh_file(r, force);
  xio_err rc = refresh_resolution(r, force, err);
  time_t expiry = r->sas_expiry;
  snprintf(label, sizeof label, "%s", r->res.label);
  if (rc == XIO_OK && r->res.cred.kind == XIO_AUTH_CRED_ENTRA)
    rc = to_token(s, &r->res, refused, cred, wait_ms, err);
  else if (rc == XIO_OK)
    rc = update(cred, &r->res.cred, err);
  pthread_mutex_unlock(&s->mu);
  if (rc == XIO_OK && expiry) xio__creds_warn_sas(s, r->url, label, expiry);
  return rc;
}

/* On the caller's thread, before the target is made: gets the token an Entra ID
 * resolution needs (waiting for it), so that a failure shows when the file is opened
 * and the first requests need not wait; and warns about a SAS expiring soon. */
static xio_err warm_up(credref *r, xio_error *err) {
  xio__credsrc *s = r->src;
  char label[sizeof r->res.label];
  pthread_mutex_lock(&s->mu);
  refresh_file(r, 0);
  xio_err rc = refresh_resolution(r, 0, err);
  const xio_auth_cred *c = &r->res.cred;
  int entra = rc == XIO_OK && c->kind == XIO_AUTH_CRED_ENTRA, implicit = r->res.implicit;
  xio_entra_tokens *t = NULL;
  if (entra) rc = xio__creds_tokens(s, c->entra, c->client_id, &t, err);
  time_t expiry = r->sas_expiry;
  snprintf(label, sizeof label, "%s", r->res.label);
  pthread_mutex_unlock(&s->mu);
  if (t) {
    xio_auth_token tok;
    rc = xio_entra_tokens_get(t, XIO_AUTH_STORAGE_SCOPE, &tok, err);
    xio_auth_token_clear(&tok);
    if (rc == XIO_ENOCRED && implicit) rc = XIO_OK;
  }
  if (rc == XIO_OK && expiry) xio__creds_warn_sas(s, r->url, label, expiry);
  return rc;
}

/* The context's source, told which context it serves (for the trace file). */
static xio__credsrc *attach(xio_ctx *ctx) {
  xio__credsrc *s = ctx->creds.src;
  pthread_mutex_lock(&s->mu);
  s->ctx = ctx;
  pthread_mutex_unlock(&s->mu);
  return s;
}

/* The target for `url` (parsed into `u`) with the context's source. */
static xio_err source_target(xio_ctx *ctx, const char *url, const xio_auth_url *u, int entra_only,
                             xio_blob_target **out, xio_error *err) {
  xio__credsrc *s = attach(ctx);
  credref *r = ref_new(s, url, u, entra_only);
  if (!r) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = warm_up(r, err);
  if (rc == XIO_OK) {
    xio_blob_cred_source src = {source_get, ref_retain, ref_release, ref_for_url, r};
    rc = xio_blob_target_new_source(url, &src, out, err);
  }
  if (rc != XIO_OK) {
    char *safe = xio_auth_url_strip_query(url);
    if (!err || !err->target[0]) xio_error_set_target(err, safe ? safe : "");
    xio_free(safe);
  }
  ref_release(r);
  return rc;
}

xio_err xio__creds_target(xio_ctx *ctx, const char *url, int entra_only, xio_blob_target **out,
                          xio_error *err) {
  xio_auth_url u;
  *out = NULL;
  xio_err rc = xio_auth_url_parse(url, &u, err);
  if (rc == XIO_OK) rc = source_target(ctx, url, &u, entra_only, out, err);
  xio_auth_url_clear(&u);
  return rc;
}

xio_err xio__ctx_blob_target(xio_ctx *ctx, const char *url, xio_blob_target **out, xio_error *err) {
  xio_auth_url u;
  *out = NULL;
  /* Every request of a context starts here: none from a forked child (ctx.c). */
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = xio_auth_url_parse(url, &u, err);
  if (rc != XIO_OK) return rc;
  /* A SAS in the URL wins: the target takes it from there. */
  int url_sas = u.query && (strstr(u.query, "sig=") != NULL);
  if (!url_sas) rc = source_target(ctx, url, &u, 0, out, err);
  xio_auth_url_clear(&u);
  if (!url_sas) return rc;
  rc = xio_blob_target_new(url, NULL, out, err);
  if (rc == XIO_OK) {
    const char *q = strchr(url, '?');
    xio_auth_sas sas;
    if (xio_auth_sas_parse(q + 1, &sas, NULL) == XIO_OK && sas.expiry)
      xio__creds_warn_sas(attach(ctx), url, "the URL", sas.expiry);
  }
  return rc;
}
