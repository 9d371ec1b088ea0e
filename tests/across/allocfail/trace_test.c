/*
 * trace_test.c - allocation failure in the trace sink: an event formatted as a JSON
 * line, and a context writing xio_send_complete lines to a trace file while a local
 * file is created, written, read, grown and closed. Every allocation point is failed
 * in turn. A line is written whole or not at all: each line in the file must parse
 * and carry every field, and a run that succeeded wrote as many lines as a clean run.
 */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/alloc.h>
#include <xio/xio.h>
#include <xio/error_int.h>

#include "failalloc.h"
#include "scratch.h"
#include "test.h"

static const char *const fields[] = {
    "event",       "timestamp",   "file_path",  "request_type", "offset",
    "length",      "http_status", "error_code", "request_id",   "client_request_id",
    "duration_us", "retries",     "result"};
#define NFIELDS (sizeof fields / sizeof *fields)

typedef struct tr {
  char dir[512];
  char trace[600];
  char file[600];
  char *want_line; /* the event's line, from a run without failures */
  int clean_lines; /* lines a run without failures writes (-1: not known yet) */
} tr;

static const xio_trace_event event = {"xio_send_complete",
                                      1764558001123456,
                                      "http://127.0.0.1:10000/devstoreaccount1/db/x.ldf",
                                      XIO_REQ_ZERO,
                                      8388608,
                                      1090519040,
                                      201,
                                      NULL,
                                      "rid-1",
                                      "crid-1",
                                      5123,
                                      0,
                                      "ok"};

static void tr_reset(void *ud) {
  tr *t = ud;
  unlink(t->trace);
  unlink(t->file);
}

/* Creates, writes, reads, grows and closes a local file in a context tracing to a
 * file. */
static xio_err local_life(tr *t, xio_error *err) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.trace_path = t->trace;
  o.local_threads = 2;
  xio_ctx *ctx = NULL;
  xio_err rc = xio_ctx_new(&o, &ctx, err);
  if (rc != XIO_OK) return rc;
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE;
  oo.kind = XIO_KIND_LOG;
  oo.size = 8192;
  xio_file *f = NULL;
  rc = xio_file_open(ctx, t->file, &oo, &f, err);
  if (rc == XIO_OK) {
    char buf[4096];
    memset(buf, 0x5A, sizeof buf);
    rc = xio_file_write(f, 4096, buf, sizeof buf, err);
    if (rc == XIO_OK) rc = xio_file_read(f, 0, buf, sizeof buf, NULL, err);
    if (rc == XIO_OK) rc = xio_file_set_size(f, 1 << 20, XIO_INIT_CLEAR, err);
    xio_error cerr;
    xio_error_clear(&cerr);
    xio_err crc = xio_file_close(f, &cerr);
    if (rc == XIO_OK && crc != XIO_OK) rc = crc, *err = cerr;
  }
  xio_ctx_free(ctx);
  return rc;
}

static xio_err tr_op(void *ud, xio_error *err) {
  tr *t = ud;
  char *line = xio_trace_event_json(&event);
  if (!line) return xio_error_set(err, XIO_ENOMEM, "out of memory formatting the event");
  int same = !t->want_line || strcmp(line, t->want_line) == 0;
  if (!t->want_line) {
    af_thread_counting(0);
    t->want_line = strdup(line);
    af_thread_counting(1);
  }
  xio_free(line);
  if (!same) return xio_error_set(err, XIO_EIO, "the event's line came out different");
  return local_life(t, err);
}

/* Checks every line of the trace file; returns how many there are. */
static int check_lines(const tr *t) {
  FILE *fp = fopen(t->trace, "r");
  if (!fp) return 0;
  char line[4096];
  int n = 0;
  while (fgets(line, sizeof line, fp)) {
    n++;
    cJSON *o = cJSON_Parse(line);
    if (!o) FAIL("trace line %d is not JSON: %s", n, line);
    for (size_t i = 0; i < NFIELDS; i++)
      if (!cJSON_GetObjectItemCaseSensitive(o, fields[i]))
        FAIL("trace line %d lacks \"%s\": %s", n, fields[i], line);
    cJSON_Delete(o);
  }
  fclose(fp);
  return n;
}

static void tr_check(void *ud, xio_err rc, int injected) {
  tr *t = ud;
  int n = check_lines(t);
  if (rc != XIO_OK) return;
  if (t->clean_lines < 0 && !injected) t->clean_lines = n;
  if (n < 3) FAIL("a run that succeeded wrote %d trace lines", n);
  if (t->clean_lines >= 0 && !injected && n != t->clean_lines)
    FAIL("a run without failures wrote %d trace lines, the first %d", n, t->clean_lines);
}

TEST(trace_sink) {
  af_install();
  tr t;
  memset(&t, 0, sizeof t);
  t.clean_lines = -1;
  test_scratch_dir(t.dir, sizeof t.dir, "xio-allocfail");
  snprintf(t.trace, sizeof t.trace, "%s/trace.jsonl", t.dir);
  snprintf(t.file, sizeof t.file, "%s/x.ldf", t.dir);
  af_scenario s = {.name = "trace_sink",
                   .op = tr_op,
                   .reset = tr_reset,
                   .check = tr_check,
                   .ud = &t,
                   .budget = 100000,
                   .min_points = 50};
  af_report r = af_run(&s);
  ASSERT_EQ(r.stride, 1);
  tr_reset(&t);
  test_remove_tree(t.dir);
  free(t.want_line);
}
