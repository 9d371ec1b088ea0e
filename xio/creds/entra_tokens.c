/*
 * entra_tokens.c - Entra ID tokens of one method, cached per scope and refreshed
 * ahead of their expiry, so that a request never waits for a fetch while the
 * current token is still good.
 *
 * A token is due for refresh min(5 minutes, half its life) before it expires: an
 * hour-long token is renewed 5 minutes ahead, a 4-second one after 2 seconds. A
 * timer on the engine's I/O thread fires when a token that requests took falls due,
 * and a request that finds one due first (the cache's clock may jump) asks for the
 * refresh as well; either way requests go on with the old token meanwhile. A failed
 * fetch is tried again after a pause (1 s, doubling up to 30 s), by the timer and by
 * later requests, while the old token lasts; once it has expired, requests get the
 * error of the last fetch, which names the method and why it failed, and the first
 * request after the pause asks again. In the default chain the first method that
 * gives a token is kept for every refresh after it. A token no request took since
 * it came is not renewed ahead (the next request asks), so the cache of an idle
 * context goes quiet, and so does one the credentials retired when its token
 * callback was replaced (xio__entra_tokens_retire).
 *
 * Threads. The timer only decides: a fetch blocks (the Azure CLI runs as a child
 * process; a managed identity request goes out on this same engine and waits for
 * its I/O thread, which would wait for ever if it ran there), so the timer hands
 * the fetches to a fetch thread it starts, which runs every fetch asked for and
 * ends when none is left. No thread sleeps until a deadline, and between refreshes
 * the cache has no thread at all. A thread per burst of fetches rather than a job
 * on the context's worker pool: the cache is made with an engine only (it is public
 * and serves engines without a context), those workers run the local backend's
 * system calls, which a 10-second CLI run must not hold up, and they stop before
 * the token caches do. Each fetch thread joins the one before it as it starts, so
 * the I/O thread never waits for a thread; xio_entra_tokens_free disarms the timer
 * and then joins the last one, after the fetch it runs. Fetches send their managed
 * identity requests on the engine the cache was made with.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "entra_int.h"
#include <xio/error_int.h>

#define MAX_SCOPES   4
#define MAX_MARGIN_S 300
#define MAX_PAUSE_S  30
#define MAX_SLEEP_S  3600 /* the timer looks at least hourly, however far an expiry */

typedef struct slot {
  char *scope;
  xio_auth_token tok; /* current; value NULL when none */
  time_t got_at;
  int taken;      /* the current token was handed to a request */
  int fetching;   /* asked for (the timer starts a fetch thread), or being fetched */
  unsigned gen;   /* fetches finished */
  xio_error last; /* the last fetch's failure (code XIO_OK when it worked) */
  int failures;   /* in a row */
  time_t retry_at;
} slot;

struct xio_entra_tokens {
  pthread_mutex_t mu;
  pthread_cond_t done;     /* a fetch ended, or the cache stops */
  xio_blob_engine *engine; /* borrowed: runs the timer, sends the managed identity requests */
  xio_blob_timer timer;    /* starts the fetches, on the engine's I/O thread */
  int64_t timer_at;        /* the moment it is armed for (monotonic), INT64_MAX: none */
  pthread_t fetcher;       /* the last fetch thread started */
  int fetcher_joinable;    /* `fetcher` is yet to be joined */
  int fetcher_running;     /* it has not left its loop: it takes what is asked for */
  pthread_t prev;          /* the one before it, for it to join as it starts */
  int prev_joinable;
  int stopping, retired;
  xio_entra_options opts; /* strings below are owned copies */
  char *own[7];
  xio_auth_entra_method method, sticky;
  char *client_id;
  slot slots[MAX_SCOPES];
  int nslots;
  unsigned fetches;
};

static void on_timer(void *ud);

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
  pthread_cond_init(&t->done, NULL);
  t->engine = engine;
  t->timer.fn = on_timer;
  t->timer.ud = t;
  t->timer_at = INT64_MAX;
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
  t->stopping = 1; /* from here on nothing arms the timer or starts a thread */
  pthread_cond_broadcast(&t->done);
  pthread_mutex_unlock(&t->mu);
  /* Not under the lock: the timer's function takes it, and this waits for it. */
  xio_blob_engine_timer_cancel(t->engine, &t->timer);
  pthread_mutex_lock(&t->mu);
  int joinable = t->fetcher_joinable;
  pthread_t fetcher = t->fetcher;
  t->fetcher_joinable = 0;
  pthread_mutex_unlock(&t->mu);
  if (joinable) pthread_join(fetcher, NULL); /* it joined the one before it */
  for (int i = 0; i < t->nslots; i++) {
    xio_free(t->slots[i].scope);
    xio_auth_token_clear(&t->slots[i].tok);
  }
  for (int i = 0; i < 7; i++)
    xio_free(t->own[i]);
  xio_free(t->client_id);
  pthread_cond_destroy(&t->done);
  pthread_mutex_destroy(&t->mu);
  xio_free(t);
}

void xio__entra_tokens_retire(xio_entra_tokens *t) {
  pthread_mutex_lock(&t->mu);
  t->retired = 1;
  pthread_mutex_unlock(&t->mu);
}

unsigned xio_entra_tokens_fetches(xio_entra_tokens *t) {
  pthread_mutex_lock(&t->mu);
  unsigned n = t->fetches;
  pthread_mutex_unlock(&t->mu);
  return n;
}

/* ------------------------------------------------------------- timing ---- */

static int valid(const slot *s, time_t now) { return s->tok.value && now < s->tok.expires_on; }

/* When the current token falls due: min(5 minutes, half its life) before it expires. */
static time_t due_at(const slot *s) {
  time_t life = s->tok.expires_on - s->got_at, margin = life / 2;
  if (margin > MAX_MARGIN_S) margin = MAX_MARGIN_S;
  return s->tok.expires_on - margin;
}

/* 1 when a refresh of the valid token of `s` may be asked for now: due, not asked
 * yet, and past the pause after a failure. */
static int refresh_now(const slot *s, time_t now) {
  return now >= due_at(s) && !s->fetching && now >= s->retry_at;
}

/* Under the lock: arms the timer for the earliest moment it has work: at once when a
 * fetch is asked for and no fetch thread takes it; else when a token a request took
 * falls due (or its pause ends) before it expires. A moment later than the one armed
 * leaves the timer as it is: it finds nothing to do then and arms itself anew. */
static void schedule(xio_entra_tokens *t, time_t now) {
  if (t->stopping) return;
  int64_t mono = xio_auth_monotonic_us(), at = INT64_MAX;
  for (int i = 0; i < t->nslots; i++) {
    const slot *s = &t->slots[i];
    if (s->fetching) {
      if (!t->fetcher_running) at = mono;
      continue;
    }
    if (t->retired || !s->taken || !s->tok.value) continue;
    time_t when = due_at(s) > s->retry_at ? due_at(s) : s->retry_at;
    if (when >= s->tok.expires_on) continue; /* expired by then: left to the requests */
    time_t left = when - now < 0 ? 0 : when - now > MAX_SLEEP_S ? MAX_SLEEP_S : when - now;
    int64_t moment = mono + (int64_t)left * 1000000;
    if (moment < at) at = moment;
  }
  if (at < t->timer_at) {
    t->timer_at = at;
    xio_blob_engine_timer_set(t->engine, &t->timer, at);
  }
}

/* Under the lock: asks for a fetch for `s`, which the timer hands to a fetch thread. */
static void ask(xio_entra_tokens *t, slot *s, time_t now) {
  s->fetching = 1;
  schedule(t, now);
}

/* ------------------------------------------------------- fetch thread ---- */

static slot *next_job(xio_entra_tokens *t) {
  for (int i = 0; i < t->nslots; i++)
    if (t->slots[i].fetching) return &t->slots[i];
  return NULL;
}

/* Records the outcome of a fetch in `s` and wakes its waiters; under the lock. */
static void settle(xio_entra_tokens *t, slot *s, xio_err rc, xio_auth_token *tok,
                   xio_auth_entra_method used, const xio_error *e) {
  time_t now = xio_auth_clock_now(&t->opts.clock);
  if (rc == XIO_OK) {
    xio_auth_token_clear(&s->tok);
    s->tok = *tok;
    memset(tok, 0, sizeof *tok);
    s->got_at = now;
    s->taken = 0;
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
  schedule(t, now); /* a failed refresh of a token still valid: again after the pause */
}

/* A fetch thread: joins the one before it, then runs the fetches asked for, one at a
 * time and without the lock, until none is left or the cache stops. */
static void *fetch_thread(void *arg) {
  xio_entra_tokens *t = arg;
  pthread_mutex_lock(&t->mu);
  int joinable = t->prev_joinable;
  pthread_t prev = t->prev;
  t->prev_joinable = 0;
  pthread_mutex_unlock(&t->mu);
  if (joinable) pthread_join(prev, NULL); /* it has left its loop: it is ending */
  pthread_mutex_lock(&t->mu);
  slot *s;
  while (!t->stopping && (s = next_job(t)) != NULL) {
    char *scope = xio_strdup(s->scope);
    xio_auth_entra_method method = t->sticky;
    pthread_mutex_unlock(&t->mu);
    xio_auth_token tok = {NULL, 0};
    xio_auth_entra_method used = method;
    xio_error e;
    xio_error_clear(&e);
    xio_err rc =
        scope ? xio_entra_fetch(t->engine, &t->opts, method, t->client_id, scope, &tok, &used, &e)
              : xio_error_set(&e, XIO_ENOMEM, "out of memory");
    xio_free(scope);
    pthread_mutex_lock(&t->mu);
    t->fetches++;
    settle(t, s, rc, &tok, used, &e);
    xio_auth_token_clear(&tok);
  }
  t->fetcher_running = 0;
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

/* Under the lock, on the I/O thread: starts a fetch thread for what is asked for.
 * When none starts, every fetch asked for fails, naming the method. */
static void start_fetcher(xio_entra_tokens *t) {
  pthread_t th;
  t->prev = t->fetcher;
  t->prev_joinable = t->fetcher_joinable;
  if (pthread_create(&th, NULL, fetch_thread, t) == 0) {
    t->fetcher = th;
    t->fetcher_joinable = t->fetcher_running = 1;
    return;
  }
  t->prev_joinable = 0; /* still t->fetcher, for the next one or for free */
  xio_error e;
  xio_error_set(&e, XIO_ENOMEM, "Entra ID (%s): cannot start a thread to fetch a token",
                xio_auth_entra_method_name(t->sticky));
  for (slot *s; (s = next_job(t)) != NULL;)
    settle(t, s, XIO_ENOMEM, &(xio_auth_token){NULL, 0}, t->sticky, &e);
}

/* The timer (I/O thread): asks for the refreshes that are due and hands what is
 * asked for to a fetch thread; then arms itself for what comes next. Never blocks. */
static void on_timer(void *ud) {
  xio_entra_tokens *t = ud;
  pthread_mutex_lock(&t->mu);
  t->timer_at = INT64_MAX; /* the engine disarmed it to run this */
  time_t now = xio_auth_clock_now(&t->opts.clock);
  for (int i = 0; i < t->nslots && !t->stopping && !t->retired; i++) {
    slot *s = &t->slots[i];
    if (s->taken && valid(s, now) && refresh_now(s, now)) s->fetching = 1;
  }
  if (!t->stopping && !t->fetcher_running && next_job(t)) start_fetcher(t);
  schedule(t, now);
  pthread_mutex_unlock(&t->mu);
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

/* Copies the current token of `s` into `out`; the first time, the timer is armed
 * for its refresh. */
static xio_err give(xio_entra_tokens *t, slot *s, time_t now, xio_auth_token *out, xio_error *err) {
  if (!(out->value = xio_strdup(s->tok.value)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  out->expires_on = s->tok.expires_on;
  if (!s->taken) {
    s->taken = 1;
    schedule(t, now);
  }
  return XIO_OK;
}

/* With a valid token: hands it out, asking for a refresh when it is due and the
 * timer has not asked yet. */
static xio_err give_valid(xio_entra_tokens *t, slot *s, time_t now, xio_auth_token *out,
                          xio_error *err) {
  if (refresh_now(s, now)) ask(t, s, now);
  return give(t, s, now, out, err);
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
  else if (rc == XIO_OK && !s->fetching)
    ask(t, s, now);
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
    if (!s->fetching) ask(t, s, now);
    while (s->gen == gen && !t->stopping)
      pthread_cond_wait(&t->done, &t->mu);
    now = xio_auth_clock_now(&t->opts.clock);
    rc = valid(s, now) ? give(t, s, now, out, err) : last_failure(s, err);
  }
  pthread_mutex_unlock(&t->mu);
  return rc;
}
