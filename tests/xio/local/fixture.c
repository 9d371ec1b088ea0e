/*
 * fixture.c - temporary directories, a tracing context and file helpers for the
 * local backend tests (see fixture.h).
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xio/base.h>

#include "scratch.h"
#include "test.h"

static void on_event(const xio_trace_event *ev, void *ud) {
  lt_env *env = ud;
  pthread_mutex_lock(&env->mu);
  if (env->nevents == env->cap) {
    env->cap = env->cap ? env->cap * 2 : 64;
    env->events = realloc(env->events, (size_t)env->cap * sizeof *env->events);
    if (!env->events) abort();
  }
  lt_event *e = &env->events[env->nevents++];
  memset(e, 0, sizeof *e);
  e->type = ev->request_type;
  snprintf(e->path, sizeof e->path, "%s", ev->file_path ? ev->file_path : "");
  snprintf(e->result, sizeof e->result, "%s", ev->result);
  snprintf(e->request_id, sizeof e->request_id, "%s", ev->request_id ? ev->request_id : "?");
  e->offset = ev->offset;
  e->length = ev->length;
  e->http_status = ev->http_status;
  e->duration_us = ev->duration_us;
  pthread_mutex_unlock(&env->mu);
}

void lt_setup_in(lt_env *env, const char *base) {
  memset(env, 0, sizeof *env);
  test_scratch_dir_at(base, env->dir, sizeof env->dir, "xio_local"); /* removed at exit too */
  pthread_mutex_init(&env->mu, NULL);
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.trace = on_event;
  o.trace_ud = env;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &env->ctx, &e), &e);
}

void lt_setup(lt_env *env) { lt_setup_in(env, NULL); }

void lt_teardown(lt_env *env) {
  xio_ctx_free(env->ctx);
  env->ctx = NULL;
  test_remove_tree(env->dir);
  free(env->events);
  env->events = NULL;
  pthread_mutex_destroy(&env->mu);
}

void lt_path(const lt_env *env, const char *name, char *buf, size_t size) {
  int n = snprintf(buf, size, "%s/%s", env->dir, name);
  if (n < 0 || (size_t)n >= size) FAIL("%s/%s does not fit in %zu bytes", env->dir, name, size);
}

xio_file *lt_create(lt_env *env, const char *name, xio_kind kind, uint64_t size, xio_init init) {
  char path[512];
  lt_path(env, name, path, sizeof path);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.kind = kind;
  o.size = size;
  o.init = init;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(env->ctx, path, &o, &f, &e), &e);
  return f;
}

xio_file *lt_open(lt_env *env, const char *name, unsigned flags) {
  char path[512];
  lt_path(env, name, path, sizeof path);
  xio_open_options o = xio_open_options_default();
  o.flags = flags;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(env->ctx, path, &o, &f, &e), &e);
  return f;
}

void lt_reset(lt_env *env) {
  pthread_mutex_lock(&env->mu);
  env->nevents = 0;
  pthread_mutex_unlock(&env->mu);
}

int lt_count(lt_env *env, xio_request_type type) {
  int n = 0;
  pthread_mutex_lock(&env->mu);
  for (int i = 0; i < env->nevents; i++)
    n += env->events[i].type == type;
  pthread_mutex_unlock(&env->mu);
  return n;
}

int lt_total(lt_env *env) {
  pthread_mutex_lock(&env->mu);
  int n = env->nevents;
  pthread_mutex_unlock(&env->mu);
  return n;
}

lt_event lt_get(lt_env *env, int i) {
  pthread_mutex_lock(&env->mu);
  if (i < 0 || i >= env->nevents) {
    pthread_mutex_unlock(&env->mu);
    FAIL("no event %d (have %d)", i, env->nevents);
  }
  lt_event e = env->events[i];
  pthread_mutex_unlock(&env->mu);
  return e;
}

int64_t lt_now_us(void) { return xio_auth_monotonic_us(); }
