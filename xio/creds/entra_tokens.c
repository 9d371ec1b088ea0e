/*
 * entra_tokens.c - Entra ID tokens of one method, cached per scope and refreshed on
 * a thread of their own, so that a request never waits for a fetch while the
 * current token is still good.
 *
 * A token is due for refresh min(5 minutes, half its life) before it expires: an
 * hour-long token is renewed 5 minutes ahead, a 4-second one after 2 seconds. The
 * first request that finds it due asks the thread for a new one and goes on with the
 * old. A failed fetch is tried again by later requests after a pause (1 s, doubling
 * up to 30 s) while the old token lasts; once it has expired, requests get the error
 * of the last fetch, which names the method and why it failed. In the default chain
 * the first method that gives a token is kept for every refresh after it. Fetches
 * send their managed identity requests on the engine the cache was made with.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "entra_int.h"
#include <xio/error_int.h>

#define MAX_SCOPES   4
#define MAX_MARGIN_S 300
#define MAX_PAUSE_S  30

typedef struct slot {
  char *scope;
  xio_auth_token tok; /* current; value NULL when none */
  time_t got_at;
  int fetching;   /* asked of the thread, or running */
  unsigned gen;   /* fetches finished */
  xio_error last; /* the last fetch's failure (code XIO_OK when it worked) */
  int failures;   /* in a row */
  time_t retry_at;
} slot;

struct xio_entra_tokens {
  pthread_mutex_t mu;
  pthread_cond_t wake; /* the thread waits for work */
  pthread_cond_t done; /* waiters wait for a fetch */
  pthread_t thread;
  int started, stopping;
  xio_blob_engine *engine; /* borrowed: sends the managed identity requests */
  xio_entra_options opts;  /* strings below are owned copies */
  char *own[7];
  xio_auth_entra_method method, sticky;
  char *client_id;
  slot slots[MAX_SCOPES];
  int nslots;
  unsigned fetches;
};

static int copy_opt(const char **field, char **own) {
  if (!*field) return 1;
  if (!(*own = xio_strdup(*field))) return 0;
  *field = *own;
  return 1;
}

static int copy_options(xio_entra_tokens *t, const xio_entra_options *o) {
  t->opts = *o;
  const char **f[7] = {&t->opts.identity_endpoint,
                       &t->opts.identity_header,
                       &t->opts.client_id,
                       &t->opts.az,
                       &t->opts.imds_endpoint,
                       &t->opts.dmi_asset_tag,
                       NULL};
  for (int i = 0; f[i]; i++)
    if (!copy_opt(f[i], &t->own[i])) return 0;
  return 1;
}

xio_err xio_entra_tokens_new(xio_blob_engine *engine, const xio_entra_options *opts,
                             xio_auth_entra_method method, const char *client_id,
                             xio_entra_tokens **out, xio_error *err) {
  *out = NULL;
  if (!engine) return xio_error_set(err, XIO_EINVAL, "no engine for the token cache");
  xio_entra_tokens *t = xio_calloc(1, sizeof *t);
  if (!t) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  pthread_mutex_init(&t->mu, NULL);
  pthread_cond_init(&t->wake, NULL);
  pthread_cond_init(&t->done, NULL);
  t->engine = engine;
  t->method = t->sticky = method;
  xio_entra_options d = xio_entra_options_default();
  if (!copy_options(t, opts ? opts : &d) ||
      (client_id && !(t->client_id = xio_strdup(client_id)))) {
    xio_entra_tokens_free(t);
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  }
  *out = t;
  return XIO_OK;
}

void xio_entra_tokens_free(xio_entra_tokens *t) {
  if (!t) return;
  pthread_mutex_lock(&t->mu);
  t->stopping = 1;
  pthread_cond_broadcast(&t->wake);
  pthread_cond_broadcast(&t->done);
  int started = t->started;
  pthread_mutex_unlock(&t->mu);
  if (started) pthread_join(t->thread, NULL);
  for (int i = 0; i < t->nslots; i++) {
    xio_free(t->slots[i].scope);
    xio_auth_token_clear(&t->slots[i].tok);
  }
  for (int i = 0; i < 7; i++)
    xio_free(t->own[i]);
  xio_free(t->client_id);
  pthread_cond_destroy(&t->wake);
  pthread_cond_destroy(&t->done);
  pthread_mutex_destroy(&t->mu);
  xio_free(t);
}

unsigned xio_entra_tokens_fetches(xio_entra_tokens *t) {
  pthread_mutex_lock(&t->mu);
  unsigned n = t->fetches;
  pthread_mutex_unlock(&t->mu);
  return n;
}

/* ------------------------------------------------------------- thread ---- */

static slot *next_job(xio_entra_tokens *t) {
  for (int i = 0; i < t->nslots; i++)
    if (t->slots[i].fetching) return &t->slots[i];
  return NULL;
}

/* Records the outcome of a fetch in `s`; under the lock. */
static void settle(xio_entra_tokens *t, slot *s, xio_err rc, xio_auth_token *tok,
                   xio_auth_entra_method used, const xio_error *e) {
  time_t now = xio_auth_clock_now(&t->opts.clock);
  t->fetches++;
  if (rc == XIO_OK) {
    xio_auth_token_clear(&s->tok);
    s->tok = *tok;
    memset(tok, 0, sizeof *tok);
    s->got_at = now;
    s->failures = 0;
    s->retry_at = 0;
    xio_error_clear(&s->last);
    if (t->method == XIO_AUTH_ENTRA_DEFAULT) t->sticky = used;
  } else {
    s->last = *e;
    s->failures++;
    int pause = s->failures >= 6 ? MAX_PAUSE_S : 1 << (s->failures - 1);
    s->retry_at = now + (pause > MAX_PAUSE_S ? MAX_PAUSE_S : pause);
  }
  s->fetching = 0;
  s->gen++;
  pthread_cond_broadcast(&t->done);
}

static void *refresher(void *arg) {
  xio_entra_tokens *t = arg;
  pthread_mutex_lock(&t->mu);
  for (;;) {
    slot *s;
    while (!t->stopping && !(s = next_job(t)))
      pthread_cond_wait(&t->wake, &t->mu);
    if (t->stopping) break;
    char *scope = xio_strdup(s->scope);
    xio_auth_entra_method method = t->sticky;
    pthread_mutex_unlock(&t->mu);
    xio_auth_token tok;
    xio_auth_entra_method used = method;
    xio_error e;
    xio_error_clear(&e);
    xio_err rc =
        scope ? xio_entra_fetch(t->engine, &t->opts, method, t->client_id, scope, &tok, &used, &e)
              : xio_error_set(&e, XIO_ENOMEM, "out of memory");
    xio_free(scope);
    pthread_mutex_lock(&t->mu);
    settle(t, s, rc, &tok, used, &e);
    xio_auth_token_clear(&tok);
  }
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

/* Asks the thread for a fetch for `s` (starting the thread the first time); under
 * the lock. Errors: XIO_ENOMEM (no thread). */
static xio_err ask(xio_entra_tokens *t, slot *s) {
  if (!t->started) {
    if (pthread_create(&t->thread, NULL, refresher, t) != 0) return XIO_ENOMEM;
    t->started = 1;
  }
  s->fetching = 1;
  pthread_cond_signal(&t->wake);
  return XIO_OK;
}

/* ------------------------------------------------------------ lookups ---- */

static slot *find_slot(xio_entra_tokens *t, const char *scope) {
  for (int i = 0; i < t->nslots; i++)
    if (strcmp(t->slots[i].scope, scope) == 0) return &t->slots[i];
  if (t->nslots == MAX_SCOPES) return NULL;
  slot *s = &t->slots[t->nslots];
  memset(s, 0, sizeof *s);
  if (!(s->scope = xio_strdup(scope))) return NULL;
  t->nslots++;
  return s;
}

static int valid(const slot *s, time_t now) { return s->tok.value && now < s->tok.expires_on; }

static int due(const slot *s, time_t now) {
  time_t life = s->tok.expires_on - s->got_at, margin = life / 2;
  if (margin > MAX_MARGIN_S) margin = MAX_MARGIN_S;
  return now >= s->tok.expires_on - margin;
}

static xio_err give(const slot *s, xio_auth_token *out, xio_error *err) {
  if (!(out->value = xio_strdup(s->tok.value)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  out->expires_on = s->tok.expires_on;
  return XIO_OK;
}

/* With a valid token: hands it out, asking for a refresh when due. */
static xio_err give_valid(xio_entra_tokens *t, slot *s, time_t now, xio_auth_token *out,
                          xio_error *err) {
  if (due(s, now) && !s->fetching && now >= s->retry_at) ask(t, s);
  return give(s, out, err);
}

static xio_err last_failure(const slot *s, xio_error *err) {
  if (err) *err = s->last;
  return s->last.code != XIO_OK ? s->last.code : XIO_EAUTH;
}

xio_err xio_entra_tokens_peek(xio_entra_tokens *t, const char *scope, const char *stale,
                              xio_auth_token *out, xio_error *err) {
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&t->mu);
  time_t now = xio_auth_clock_now(&t->opts.clock);
  slot *s = find_slot(t, scope ? scope : XIO_AUTH_STORAGE_SCOPE);
  xio_err rc = XIO_OK;
  if (!s)
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  else if (stale && s->tok.value && strcmp(stale, s->tok.value) == 0)
    xio_auth_token_clear(&s->tok); /* the service refused it */
  if (rc == XIO_OK && valid(s, now))
    rc = give_valid(t, s, now, out, err);
  else if (rc == XIO_OK && !s->fetching && s->gen && s->last.code != XIO_OK && now < s->retry_at)
    rc = last_failure(s, err);
  else if (rc == XIO_OK && !s->fetching && ask(t, s) != XIO_OK)
    rc = xio_error_set(err, XIO_ENOMEM, "cannot start the token refresh thread");
  pthread_mutex_unlock(&t->mu);
  return rc;
}

xio_err xio_entra_tokens_get(xio_entra_tokens *t, const char *scope, xio_auth_token *out,
                             xio_error *err) {
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&t->mu);
  time_t now = xio_auth_clock_now(&t->opts.clock);
  slot *s = find_slot(t, scope ? scope : XIO_AUTH_STORAGE_SCOPE);
  xio_err rc = XIO_OK;
  if (!s) {
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  } else if (valid(s, now)) {
    rc = give_valid(t, s, now, out, err);
  } else {
    unsigned gen = s->gen;
    if (!s->fetching && ask(t, s) != XIO_OK)
      rc = xio_error_set(err, XIO_ENOMEM, "cannot start the token refresh thread");
    while (rc == XIO_OK && s->gen == gen && !t->stopping)
      pthread_cond_wait(&t->done, &t->mu);
    now = xio_auth_clock_now(&t->opts.clock);
    if (rc == XIO_OK) rc = valid(s, now) ? give(s, out, err) : last_failure(s, err);
  }
  pthread_mutex_unlock(&t->mu);
  return rc;
}
