/*
 * trace.c - xio_send_complete events: one per storage request, formatted as JSON
 * lines with cJSON (the fields of xio_trace_event by name; see xio_trace_event_json
 * in xio.h), delivered to the context's callback and trace file; and the per-file
 * request counters that go with them. Request types become their names only here,
 * where the JSON line is written.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "ctx_int.h"

static const char *const request_type_names[XIO_REQ_COUNT] = {
#define XIO__REQ_NAME(e, name) name,
    XIO_REQUEST_TYPE_MAP(XIO__REQ_NAME)
#undef XIO__REQ_NAME
};

const char *xio_request_type_name(xio_request_type t) {
  return (unsigned)t < XIO_REQ_COUNT ? request_type_names[t] : "?";
}

static void format_timestamp(int64_t us, char out[64]) {
  time_t s = (time_t)(us / 1000000);
  struct tm tm;
  gmtime_r(&s, &tm);
  snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(us % 1000000));
}

static void add_string_or_null(cJSON *o, const char *name, const char *v) {
  if (v && *v)
    cJSON_AddStringToObject(o, name, v);
  else
    cJSON_AddNullToObject(o, name);
}

char *xio_trace_event_json(const xio_trace_event *ev) {
  char ts[64];
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  format_timestamp(ev->timestamp_us, ts);
  cJSON_AddStringToObject(o, "event", ev->event);
  cJSON_AddStringToObject(o, "timestamp", ts);
  cJSON_AddStringToObject(o, "file_path", ev->file_path ? ev->file_path : "");
  cJSON_AddStringToObject(o, "request_type", xio_request_type_name(ev->request_type));
  cJSON_AddNumberToObject(o, "offset", (double)ev->offset);
  cJSON_AddNumberToObject(o, "length", (double)ev->length);
  cJSON_AddNumberToObject(o, "http_status", ev->http_status);
  add_string_or_null(o, "error_code", ev->error_code);
  cJSON_AddStringToObject(o, "request_id", ev->request_id ? ev->request_id : "");
  cJSON_AddStringToObject(o, "client_request_id",
                          ev->client_request_id ? ev->client_request_id : "");
  cJSON_AddNumberToObject(o, "duration_us", (double)ev->duration_us);
  cJSON_AddNumberToObject(o, "retries", ev->retries);
  cJSON_AddStringToObject(o, "result", ev->result);
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}

static int64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void count(xio_file *f, const xio__request_report *r) {
  uint64_t us = r->duration_us > 0 ? (uint64_t)r->duration_us : 0;
  atomic_fetch_add(&f->stats.requests, 1);
  atomic_fetch_add(&f->stats.retries, (uint64_t)r->retries);
  if (r->result != XIO_OK) atomic_fetch_add(&f->stats.failures, 1);
  switch (r->request_type) {
  case XIO_REQ_READ: atomic_fetch_add(&f->stats.stall_read_us, us); break;
  case XIO_REQ_WRITE:
  case XIO_REQ_ZERO: atomic_fetch_add(&f->stats.stall_write_us, us); break;
  default: atomic_fetch_add(&f->stats.stall_other_us, us); break;
  }
}

static void write_line(xio_ctx *ctx, const xio_trace_event *ev) {
  char *line = xio_trace_event_json(ev);
  if (!line) return;
  pthread_mutex_lock(&ctx->trace_mu);
  fputs(line, ctx->trace_file);
  fputc('\n', ctx->trace_file);
  fflush(ctx->trace_file);
  pthread_mutex_unlock(&ctx->trace_mu);
  cJSON_free(line);
}

void xio__trace_request(xio_ctx *ctx, xio_file *f, const char *path, const xio__request_report *r) {
  if (f) count(f, r);
  if (!ctx->opts.trace && !ctx->trace_file) return;
  xio_trace_event ev = {"xio_send_complete",
                        wall_us(),
                        f ? f->path : path,
                        r->request_type,
                        r->offset,
                        r->length,
                        r->http_status,
                        r->error_code,
                        r->request_id ? r->request_id : "",
                        r->client_request_id ? r->client_request_id : "",
                        r->duration_us,
                        r->retries,
                        r->result == XIO_OK ? "ok" : xio_err_name(r->result)};
  if (ctx->opts.trace) ctx->opts.trace(&ev, ctx->opts.trace_ud);
  if (ctx->trace_file) write_line(ctx, &ev);
}

void xio__report_from_call(xio__request_report *r, const xio_blob_call *c,
                           xio_request_type request_type, uint64_t offset, uint64_t length) {
  memset(r, 0, sizeof *r);
  r->request_type = request_type;
  r->offset = offset;
  r->length = length;
  r->result = xio_blob_call_result(c, NULL);
  r->http_status = xio_blob_call_status(c);
  r->error_code = xio_blob_call_service_code(c);
  r->request_id = xio_blob_call_request_id(c);
  r->client_request_id = xio_blob_call_client_request_id(c);
  r->duration_us = xio_blob_call_duration_us(c);
  r->retries = xio_blob_call_retries(c);
}

xio_err xio__send_traced(xio_ctx *ctx, xio_file *f, const char *path, xio_blob_call *c,
                         xio_request_type request_type, uint64_t offset, uint64_t length,
                         xio_error *err) {
  xio_err rc = xio_blob_send(xio__ctx_engine(ctx), c, err);
  xio__request_report r;
  xio__report_from_call(&r, c, request_type, offset, length);
  xio__trace_request(ctx, f, path, &r);
  return rc;
}

xio_err xio__trace_open(xio_ctx *ctx, xio_error *err) {
  const char *path = ctx->opts.trace_path;
  if (!path && ctx->opts.use_environment) path = getenv("XIO_TRACE");
  if (!path || !*path) return XIO_OK;
  if (strcmp(path, "-") == 0 || strcmp(path, "stderr") == 0) {
    ctx->trace_file = stderr;
    return XIO_OK;
  }
  ctx->trace_file = fopen(path, "a");
  if (!ctx->trace_file) return xio_error_set(err, XIO_EIO, "cannot open the trace file %s", path);
  ctx->trace_file_owned = 1;
  return XIO_OK;
}

void xio__trace_close(xio_ctx *ctx) {
  if (ctx->trace_file_owned) fclose(ctx->trace_file);
  ctx->trace_file = NULL;
}
