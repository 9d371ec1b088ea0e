/*
 * delete_test.c - deleting a file that may be gone already (xio_file_delete_if_exists,
 * which the VFS's xDelete of a journal or WAL uses): its 404 is the answer the caller
 * expects, so the trace shows it with its status and service code but result "ok",
 * and the call succeeds saying nothing was deleted; a plain xio_file_delete of the
 * same missing file still fails and is traced as the failure it is. Told by the
 * trace callback, on a page blob and on a local file. Likewise the VFS's look for a
 * journal or WAL that does not exist (an open with XIO_OPEN_MISSING_OK).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xio/xio.h>

#include "scratch.h"
#include "sqfix.h"
#include "test.h"

#define MAX_EVENTS 16

/* The delete requests a context traced. */
typedef struct seen {
  pthread_mutex_t mu;
  int n;
  struct {
    int status;
    char code[64], result[32];
  } ev[MAX_EVENTS];
} seen;

static void on_trace(const xio_trace_event *ev, void *ud) {
  seen *s = ud;
  if (strcmp(ev->event, "xio_send_complete") != 0 || ev->request_type != XIO_REQ_DELETE) return;
  pthread_mutex_lock(&s->mu);
  if (s->n < MAX_EVENTS) {
    s->ev[s->n].status = ev->http_status;
    snprintf(s->ev[s->n].code, sizeof s->ev[s->n].code, "%s", ev->error_code ? ev->error_code : "");
    snprintf(s->ev[s->n].result, sizeof s->ev[s->n].result, "%s", ev->result);
  }
  s->n++;
  pthread_mutex_unlock(&s->mu);
}

static xio_ctx *traced_ctx(seen *s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->mu, NULL);
  xio_ctx_options o = xio_ctx_options_default();
  o.trace = on_trace;
  o.trace_ud = s;
  xio_ctx *ctx = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  return ctx;
}

/* Makes a small file at `target`. */
static void make_file(xio_ctx *ctx, const char *target) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE;
  o.size = 4096;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(ctx, target, &o, &f, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
}

/* The sequence on `target` (missing at first): delete if exists (nothing there),
 * create, delete if exists (deleted), plain delete (fails). `missing_status`: the
 * status a missing file is traced with (404, or 0 for a local file). */
static void delete_sequence(const char *target, int missing_status) {
  seen s;
  xio_ctx *ctx = traced_ctx(&s);
  xio_error e;
  int deleted = -1;
  ASSERT_OK(xio_file_delete_if_exists(ctx, target, &deleted, &e), &e);
  ASSERT_EQ(deleted, 0);
  make_file(ctx, target);
  ASSERT_OK(xio_file_delete_if_exists(ctx, target, &deleted, &e), &e);
  ASSERT_EQ(deleted, 1);
  ASSERT_ERR(xio_file_delete(ctx, target, &e), XIO_ENOTFOUND, &e);
  pthread_mutex_lock(&s.mu);
  ASSERT_EQ(s.n, 3); /* one request each, nothing looked up first */
  ASSERT_EQ(s.ev[0].status, missing_status);
  ASSERT_STR_EQ(s.ev[0].result, "ok");                 /* expected and handled: no failure */
  if (missing_status) ASSERT(s.ev[0].code[0] != '\0'); /* the service's code is kept */
  ASSERT_STR_EQ(s.ev[1].result, "ok");
  ASSERT_EQ(s.ev[2].status, missing_status);
  ASSERT_STR_EQ(s.ev[2].result, "XIO_ENOTFOUND"); /* not expected there: a failure */
  pthread_mutex_unlock(&s.mu);
  ASSERT_EQ(xio_ctx_free(ctx), XIO_OK);
  pthread_mutex_destroy(&s.mu);
}

TEST(delete_if_exists_traces_a_missing_blob_as_expected) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512];
  sqfix_url(&fx, "gone.sqlite-wal", url, sizeof url);
  delete_sequence(url, 404);
}

TEST(delete_if_exists_traces_a_missing_local_file_as_expected) {
  char dir[512], path[600];
  test_scratch_dir(dir, sizeof dir, "xio-delete");
  snprintf(path, sizeof path, "%s/gone.dat", dir);
  delete_sequence(path, 0);
}

/* A WAL-mode database from its creation to its close: the VFS asks whether a journal
 * and a WAL exist (opens with XIO_OPEN_MISSING_OK, answered 404), and its last
 * connection deletes the WAL. Those 404s were expected: nothing in the whole trace is
 * a failure. */
TEST(wal_deleted_at_close_leaves_no_failure_in_the_trace) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512];
  sqfix_url(&fx, "walclose.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1)");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  ASSERT(sqfix_count(&fx, "XIOTypeDeleteFile", "walclose.sqlite-wal") >= 1);
  FILE *f = fopen(fx.trace, "r");
  ASSERT(f != NULL);
  char line[4096];
  long failed = 0, missing = 0;
  while (fgets(line, sizeof line, f)) {
    missing += strstr(line, "\"http_status\":404") != NULL;
    if (strstr(line, "\"result\":\"ok\"") == NULL) {
      printf("not ok: %s", line);
      failed++;
    }
  }
  fclose(f);
  ASSERT(missing >= 2); /* the journal and the WAL were looked for before they existed */
  ASSERT_EQ(failed, 0);
}
