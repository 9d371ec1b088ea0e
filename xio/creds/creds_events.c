/*
 * creds_events.c - credential events: the warning that a SAS in use expires soon
 * (once per credential and expiry, as soon as a request uses it within the warning
 * time), and the report of a changed credential file that did not load. Each goes
 * to the event callback and, as a JSON line, to the context's trace file. None
 * carries a secret: URLs lose their query, sources are named, not quoted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "creds_int.h"
#include "ctx_int.h"

static void add_opt(cJSON *o, const char *name, const char *v) {
  if (v)
    cJSON_AddStringToObject(o, name, v);
  else
    cJSON_AddNullToObject(o, name);
}

static void write_line(xio_ctx *ctx, const xio_cred_event *ev) {
  char ts[64], exp[21];
  xio__trace_timestamp(ev->timestamp_us, ts);
  cJSON *o = cJSON_CreateObject();
  if (!o) return;
  cJSON_AddStringToObject(o, "event", ev->event);
  cJSON_AddStringToObject(o, "timestamp", ts);
  add_opt(o, "file_path", ev->url);
  add_opt(o, "source", ev->source);
  add_opt(o, "expires", ev->expires ? xio_auth_format_iso8601((time_t)ev->expires, exp) : NULL);
  add_opt(o, "message", ev->message);
  char *line = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!line) return;
  xio__trace_write_line(ctx, line);
  cJSON_free(line);
}

void xio__creds_emit(xio__credsrc *s, const xio_cred_event *ev) {
  pthread_mutex_lock(&s->mu);
  xio_ctx *ctx = s->ctx;
  xio_cred_event_fn fn = s->watch.on_event;
  void *ud = s->watch.on_event_ud;
  pthread_mutex_unlock(&s->mu);
  if (fn) fn(ev, ud);
  if (ctx && ctx->trace_file) write_line(ctx, ev);
}

/* 1 the first time `label` is seen with `expiry` (remembered; the oldest is
 * forgotten when the list is full); under s->mu. */
static int first_time(xio__credsrc *s, const char *label, time_t expiry) {
  for (int i = 0; i < s->nwarned; i++)
    if (s->warned[i].expiry == expiry && strcmp(s->warned[i].label, label) == 0) return 0;
  if (s->nwarned == XIO__MAX_WARNED) {
    memmove(&s->warned[0], &s->warned[1], sizeof s->warned[0] * (XIO__MAX_WARNED - 1));
    s->nwarned--;
  }
  snprintf(s->warned[s->nwarned].label, sizeof s->warned[0].label, "%s", label);
  s->warned[s->nwarned++].expiry = expiry;
  return 1;
}

void xio__creds_warn_sas(xio__credsrc *s, const char *url, const char *label, time_t expiry) {
  pthread_mutex_lock(&s->mu);
  time_t now = xio_auth_clock_now(&s->clock);
  int warn = expiry - now <= s->watch.sas_warning_s && first_time(s, label, expiry);
  pthread_mutex_unlock(&s->mu);
  if (!warn) return;
  char when[21], msg[512];
  char *safe = xio_auth_url_strip_query(url);
  long left = (long)(expiry - now);
  xio_auth_format_iso8601(expiry, when);
  if (left > 0)
    snprintf(msg, sizeof msg,
             "the SAS from %.160s for %.200s expires at %s (in %ld s): renew it there "
             "(open files pick up the new one)",
             label, safe ? safe : "?", when, left);
  else
    snprintf(msg, sizeof msg, "the SAS from %.160s for %.200s expired at %s: renew it there", label,
             safe ? safe : "?", when);
  xio_cred_event ev = {XIO_CRED_EXPIRING, xio__trace_now_us(), safe, label, (int64_t)expiry, msg};
  xio__creds_emit(s, &ev);
  xio_free(safe);
}

void xio__creds_file_error(xio__credsrc *s, const char *url, const xio_error *e) {
  char msg[640];
  char *safe = url ? xio_auth_url_strip_query(url) : NULL;
  snprintf(msg, sizeof msg,
           "the changed credential file did not load, its earlier entries stay: %s", e->message);
  xio_cred_event ev = {XIO_CRED_FILE_ERROR, xio__trace_now_us(), safe, s->file.path, 0, msg};
  xio__creds_emit(s, &ev);
  xio_free(safe);
}
