/*
 * trace.c - the completion hook every storage request passes, and the trace events it
 * emits: xio_send_complete, one per storage request, and xio_failed_request, one per
 * try of a page-blob request that failed and was sent again; formatted as JSON lines
 * with cJSON (the fields of xio_trace_event by name; see xio_trace_event_json in
 * xio.h), delivered to the context's callback and trace file; and the per-file
 * request counters that go with them (throttling answers among them). The trace
 * file's lines, their timestamps and their clock are made here for every event,
 * the credential events of creds_events.c included.
 *
 * Nothing here sends. The context's engine hands every call it completes to
 * xio__trace_call_done, tagged with what it is for (send.c) or not: a call somebody
 * sent without saying is traced by its operation and URL, so no request of the
 * engine goes untraced; its per-try hook gives each try to xio__trace_try_done. The
 * local backend hands each of its requests to xio__request_done itself. Request
 * types become their names only here, where the JSON line is written.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include <xio/alloc.h>

#include "ctx_int.h"

static const char *const request_type_names[XIO_REQ_COUNT] = {
#define XIO__REQ_NAME(e, name) name,
    XIO_REQUEST_TYPE_MAP(XIO__REQ_NAME)
#undef XIO__REQ_NAME
};

const char *xio_request_type_name(xio_request_type t) {
  return (unsigned)t < XIO_REQ_COUNT ? request_type_names[t] : "?";
}

void xio__trace_timestamp(int64_t us, char out[64]) {
  time_t s = (time_t)(us / 1000000);
  struct tm tm;
  gmtime_r(&s, &tm);
  snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(us % 1000000));
}

/* Each adder below clears *ok when cJSON could not allocate the member, so that a
 * line short of a field is never written. */
static void add_string(cJSON *o, const char *name, const char *v, int *ok) {
  if (!cJSON_AddStringToObject(o, name, v)) *ok = 0;
}

static void add_number(cJSON *o, const char *name, double v, int *ok) {
  if (!cJSON_AddNumberToObject(o, name, v)) *ok = 0;
}

static void add_string_or_null(cJSON *o, const char *name, const char *v, int *ok) {
  if (v && *v)
    add_string(o, name, v, ok);
  else if (!cJSON_AddNullToObject(o, name))
    *ok = 0;
}

char *xio_trace_event_json(const xio_trace_event *ev) {
  char ts[64];
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  int ok = 1;
  xio__trace_timestamp(ev->timestamp_us, ts);
  add_string(o, "event", ev->event, &ok);
  add_string(o, "timestamp", ts, &ok);
  add_string(o, "file_path", ev->file_path ? ev->file_path : "", &ok);
  add_string(o, "request_type", xio_request_type_name(ev->request_type), &ok);
  add_number(o, "offset", (double)ev->offset, &ok);
  add_number(o, "length", (double)ev->length, &ok);
  add_number(o, "http_status", ev->http_status, &ok);
  add_string_or_null(o, "error_code", ev->error_code, &ok);
  add_string(o, "request_id", ev->request_id ? ev->request_id : "", &ok);
  add_string(o, "client_request_id", ev->client_request_id ? ev->client_request_id : "", &ok);
  add_number(o, "duration_us", (double)ev->duration_us, &ok);
  add_number(o, "retries", ev->retries, &ok);
  add_string(o, "result", ev->result, &ok);
  char *s = ok ? cJSON_PrintUnformatted(o) : NULL;
  cJSON_Delete(o);
  /* cJSON's memory is the program's choice of allocator (cJSON_InitHooks); what is
   * handed out is xio's. */
  char *line = xio_strdup(s);
  cJSON_free(s);
  return line;
}

int64_t xio__trace_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int xio__outcome_expected(const xio__req *r, const xio__outcome *o) {
  if (!r->expect_missing || o->result != XIO_ENOTFOUND) return 0;
  return !*r->expect_missing || (o->error_code && strcmp(o->error_code, r->expect_missing) == 0);
}

static void count(xio_file *f, const xio__req *r, const xio__outcome *o) {
  uint64_t us = o->duration_us > 0 ? (uint64_t)o->duration_us : 0;
  atomic_fetch_add(&f->stats.requests, 1);
  atomic_fetch_add(&f->stats.retries, (uint64_t)o->retries);
  if (o->result != XIO_OK && !xio__outcome_expected(r, o)) atomic_fetch_add(&f->stats.failures, 1);
  switch (r->type) {
  case XIO_REQ_READ:
    atomic_fetch_add(&f->stats.read_requests, 1);
    atomic_fetch_add(&f->stats.stall_read_us, us);
    break;
  case XIO_REQ_WRITE:
    atomic_fetch_add(&f->stats.write_requests, 1);
    atomic_fetch_add(&f->stats.stall_write_us, us);
    break;
  case XIO_REQ_ZERO:
    atomic_fetch_add(&f->stats.zero_requests, 1);
    atomic_fetch_add(&f->stats.stall_write_us, us);
    break;
  default: atomic_fetch_add(&f->stats.stall_other_us, us); break;
  }
}

void xio__trace_write_line(xio_ctx *ctx, const char *line) {
  pthread_mutex_lock(&ctx->trace_mu);
  fputs(line, ctx->trace_file);
  fputc('\n', ctx->trace_file);
  fflush(ctx->trace_file);
  pthread_mutex_unlock(&ctx->trace_mu);
}

static void write_event(xio_ctx *ctx, const xio_trace_event *ev) {
  char *line = xio_trace_event_json(ev);
  if (!line) return;
  xio__trace_write_line(ctx, line);
  xio_free(line);
}

static void emit(xio_ctx *ctx, const xio_trace_event *ev) {
  if (ctx->opts.trace) ctx->opts.trace(ev, ctx->opts.trace_ud);
  if (ctx->trace_file) write_event(ctx, ev);
}

void xio__request_done(xio_ctx *ctx, const xio__req *r, const xio__outcome *o) {
  if (r->file) count(r->file, r, o);
  if (!ctx->opts.trace && !ctx->trace_file) return;
  xio_trace_event ev = {
      "xio_send_complete",
      xio__trace_now_us(),
      r->file ? r->file->path : o->path,
      r->type,
      r->offset,
      r->length,
      o->http_status,
      o->error_code,
      o->request_id ? o->request_id : "",
      o->client_request_id ? o->client_request_id : "",
      o->duration_us,
      o->retries,
      o->result == XIO_OK || xio__outcome_expected(r, o) ? "ok" : xio_err_name(o->result)};
  emit(ctx, &ev);
}

/* The request type of a call sent without a tag, by its operation; XIO_REQ_COUNT (traced
 * as "?") for an operation not listed here. */
static xio_request_type type_of_operation(const char *op) {
  static const struct {
    const char *operation;
    xio_request_type type;
  } types[] = {
      {"CreateContainer", XIO_REQ_CREATE},
      {"CreatePageBlob", XIO_REQ_CREATE},
      {"GetBlobProperties", XIO_REQ_GET_SIZE},
      {"ResizeBlob", XIO_REQ_SET_SIZE},
      {"SetBlobMetadata", XIO_REQ_SET_SIZE},
      {"PutPage", XIO_REQ_WRITE},
      {"ClearPages", XIO_REQ_ZERO},
      {"GetBlob", XIO_REQ_READ},
      {"GetPageRanges", XIO_REQ_RANGES},
      {"DeleteBlob", XIO_REQ_DELETE},
      {"DeleteSnapshot", XIO_REQ_DELETE},
      {"LeaseBlob", XIO_REQ_LEASE},
      {"SnapshotBlob", XIO_REQ_SNAPSHOT},
      {"ListBlobs", XIO_REQ_LIST},
      {"CopyBlob", XIO_REQ_COPY},
      {"AbortCopyBlob", XIO_REQ_COPY},
      {"GetUserDelegationKey", XIO_REQ_USER_DELEGATION_KEY},
  };
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (strcmp(op, types[i].operation) == 0) return types[i].type;
  return XIO_REQ_COUNT;
}

/* What `c` is for: its tag, else what its operation says (on no file, whole). */
static xio__req req_of(const xio_blob_call *c) {
  const xio__req *tag = xio_blob_call_tag(c);
  if (tag) return *tag;
  xio__req r;
  memset(&r, 0, sizeof r);
  r.type = type_of_operation(xio_blob_call_operation(c));
  return r;
}

/* A token request (a managed identity's, the metadata service's) goes through the
 * engine like every other, but reaches no storage: it is no xio_send_complete (the
 * trace's requests are storage requests, as SQL Server's are), and what went wrong
 * with it comes back in the credential error that follows. */
static int reaches_storage(const xio_blob_call *c) { return xio_blob_call_is_storage(c); }

void xio__trace_call_done(const xio_blob_call *c, void *ud) {
  if (!reaches_storage(c)) return;
  xio__req r = req_of(c);
  xio__outcome o = {.path = xio_blob_call_safe_url(c),
                    .http_status = xio_blob_call_status(c),
                    .error_code = xio_blob_call_service_code(c),
                    .request_id = xio_blob_call_request_id(c),
                    .client_request_id = xio_blob_call_client_request_id(c),
                    .duration_us = xio_blob_call_duration_us(c),
                    .retries = xio_blob_call_retries(c),
                    .result = r.judge ? r.judge(c, &r) : xio_blob_call_result(c, NULL)};
  xio__request_done(ud, &r, &o);
}

void xio__trace_try_done(const xio_blob_try_info *t, void *ud) {
  xio_ctx *ctx = ud;
  if (!reaches_storage(t->call)) return;
  xio__req r = req_of(t->call);
  if (r.file && xio_blob_call_throttled(t->call)) atomic_fetch_add(&r.file->stats.throttled, 1);
  /* The last try of a request is told by its xio_send_complete. */
  if (!t->will_retry || (!ctx->opts.trace && !ctx->trace_file)) return;
  xio_trace_event ev = {"xio_failed_request",
                        xio__trace_now_us(),
                        r.file ? r.file->path : t->safe_url,
                        r.type,
                        r.offset,
                        r.length,
                        t->http_status,
                        xio_blob_call_service_code(t->call),
                        xio_blob_call_request_id(t->call),
                        xio_blob_call_client_request_id(t->call),
                        t->duration_us,
                        t->attempt,
                        t->result == XIO_OK ? "ok" : xio_err_name(t->result)};
  emit(ctx, &ev);
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
