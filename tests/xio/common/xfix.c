/*
 * xfix.c - fixtures for the file-layer tests (see xfix.h).
 */
#define _GNU_SOURCE
#include "xfix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"
#include "test.h"
#include "util.h"

static void record(const xio_trace_event *ev, void *ud) {
  xfix_trace *t = ud;
  char *line = xio_trace_event_json(ev);
  pthread_mutex_lock(&t->mu);
  if (t->n < XFIX_MAX_EVENTS) {
    xfix_event *e = &t->ev[t->n++];
    snprintf(e->event, sizeof e->event, "%s", ev->event);
    e->type = ev->request_type;
    snprintf(e->path, sizeof e->path, "%s", ev->file_path);
    snprintf(e->result, sizeof e->result, "%s", ev->result);
    snprintf(e->error_code, sizeof e->error_code, "%s", ev->error_code ? ev->error_code : "");
    e->offset = ev->offset;
    e->length = ev->length;
    e->http_status = ev->http_status;
    e->retries = ev->retries;
    snprintf(e->request_id, sizeof e->request_id, "%s", ev->request_id);
    snprintf(e->client_request_id, sizeof e->client_request_id, "%s", ev->client_request_id);
  }
  if (line) {
    size_t n = strlen(line);
    char *j = realloc(t->json, t->json_len + n + 2);
    if (j) {
      memcpy(j + t->json_len, line, n);
      j[t->json_len + n] = '\n';
      j[t->json_len + n + 1] = '\0';
      t->json = j;
      t->json_len += n + 1;
    }
    free(line);
  }
  pthread_mutex_unlock(&t->mu);
}

/* A context on the local backend (endpoint NULL) or on the dev account at `endpoint`. */
static void setup(xfix *fx, const char *endpoint, const xio_ctx_options *opts) {
  xio_error e;
  char conn[1024];
  int local = endpoint == NULL;
  memset(fx, 0, sizeof *fx);
  pthread_mutex_init(&fx->trace.mu, NULL);
  fx->trace.ev = calloc(XFIX_MAX_EVENTS, sizeof *fx->trace.ev);
  ASSERT(fx->trace.ev != NULL);
  fx->local = local;
  xio_ctx_options o = opts ? *opts : xio_ctx_options_default();
  o.use_environment = 0;
  o.trace = record;
  o.trace_ud = &fx->trace;
  if (!local) {
    test_dev_connection_string_at(endpoint, conn, sizeof conn);
    o.connection_string = conn;
  }
  ASSERT_OK(xio_ctx_new(&o, &fx->ctx, &e), &e);
  if (local) {
    test_scratch_dir(fx->base, sizeof fx->base, "xio-test");
  } else {
    char name[64];
    test_unique_name(name, sizeof name, "xio");
    snprintf(fx->base, sizeof fx->base, "%s/devstoreaccount1/%s", endpoint, name);
  }
}

void xfix_setup(xfix *fx, int local, const xio_ctx_options *opts) {
  setup(fx, local ? NULL : test_endpoint(), opts);
}

void xfix_setup_at(xfix *fx, const char *endpoint, const xio_ctx_options *opts) {
  setup(fx, endpoint, opts);
}

void xfix_teardown(xfix *fx) {
  xio_ctx_free(fx->ctx);
  if (fx->local) test_remove_tree(fx->base);
  free(fx->trace.json);
  free(fx->trace.ev);
  pthread_mutex_destroy(&fx->trace.mu);
  memset(fx, 0, sizeof *fx);
}

void xfix_target(const xfix *fx, const char *name, char *out, size_t size) {
  snprintf(out, size, "%s/%s", fx->base, name);
}

xio_file *xfix_open_url(xfix *fx, const char *url, unsigned flags, xio_kind kind, uint64_t size) {
  xio_error e;
  xio_open_options o = xio_open_options_default();
  o.flags = flags;
  o.kind = kind;
  o.size = size;
  xio_file *f = NULL;
  ASSERT_OK(xio_file_open(fx->ctx, url, &o, &f, &e), &e);
  return f;
}

xio_file *xfix_open(xfix *fx, const char *name, unsigned flags, xio_kind kind, uint64_t size) {
  char url[1024];
  xfix_target(fx, name, url, sizeof url);
  return xfix_open_url(fx, url, flags, kind, size);
}

void xfix_trace_reset(xfix *fx) {
  pthread_mutex_lock(&fx->trace.mu);
  fx->trace.n = 0;
  free(fx->trace.json);
  fx->trace.json = NULL;
  fx->trace.json_len = 0;
  pthread_mutex_unlock(&fx->trace.mu);
}

int xfix_count(xfix *fx, xio_request_type type) {
  int n = 0;
  pthread_mutex_lock(&fx->trace.mu);
  for (int i = 0; i < fx->trace.n; i++)
    n += fx->trace.ev[i].type == type && strcmp(fx->trace.ev[i].event, "xio_send_complete") == 0;
  pthread_mutex_unlock(&fx->trace.mu);
  return n;
}

int xfix_count_event(xfix *fx, const char *event) {
  int n = 0;
  pthread_mutex_lock(&fx->trace.mu);
  for (int i = 0; i < fx->trace.n; i++)
    n += strcmp(fx->trace.ev[i].event, event) == 0;
  pthread_mutex_unlock(&fx->trace.mu);
  return n;
}
