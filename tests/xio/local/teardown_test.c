/*
 * teardown_test.c - the context's teardown contract and where completions run:
 * xio_ctx_free from a completion callback returns (refused) instead of waiting for
 * the thread it runs on, a context freed with files open closes them, and a
 * request whose bookkeeping cannot be allocated still completes on a worker
 * thread, never on the thread that submitted it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xio/xio.h>

#include "fixture.h"
#include "test.h"

#define KiB 1024u
#define MiB (1024u * KiB)

/* What a completion callback saw; waited for with a liveness guard only. */
typedef struct seen {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  pthread_t thread;
  xio_err result;
  xio_ctx *ctx_to_free; /* free_in_callback: the context to free */
  xio_err free_rc;
} seen;

static void seen_init(seen *s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
}

static void seen_mark(seen *s, xio_io *io) {
  pthread_mutex_lock(&s->mu);
  s->thread = pthread_self();
  s->result = io->result;
  s->done = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

/* Waits for the callback; fails the test when it never finishes (a hang, not a
 * slow run: the guard is far beyond any real completion). */
static void seen_wait(seen *s, const char *what) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 60;
  pthread_mutex_lock(&s->mu);
  while (!s->done)
    if (pthread_cond_timedwait(&s->cv, &s->mu, &until) != 0) break;
  int done = s->done;
  pthread_mutex_unlock(&s->mu);
  if (!done) FAIL("%s never returned", what);
}

static void on_done(xio_io *io, void *ud) { seen_mark(ud, io); }

static void free_in_callback(xio_io *io, void *ud) {
  seen *s = ud;
  s->free_rc = xio_ctx_free(s->ctx_to_free);
  seen_mark(s, io);
}

TEST(ctx_free_from_a_callback_is_refused_and_returns) {
  lt_env env;
  lt_setup(&env);
  xio_ctx *ctx;
  xio_error e;
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  char path[512];
  lt_path(&env, "cb.mdf", path, sizeof path);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  oo.size = MiB;
  xio_file *f;
  ASSERT_OK(xio_file_open(ctx, path, &oo, &f, &e), &e);
  static char buf[4 * KiB];
  seen s;
  seen_init(&s);
  s.ctx_to_free = ctx;
  xio_io io = {.op = XIO_IO_WRITE, .offset = 0, .length = sizeof buf, .buf = buf};
  io.done = free_in_callback;
  io.ud = &s;
  ASSERT_OK(xio_file_submit(f, &io, &e), &e);
  seen_wait(&s, "xio_ctx_free in a completion callback");
  ASSERT_EQ(s.free_rc, XIO_EINVAL);
  ASSERT_EQ(s.result, XIO_OK);
  /* From the application thread it works, closing the file left open... */
  ASSERT_EQ(xio_ctx_free(ctx), XIO_OK);
  /* ...which released its lock: another exclusive open gets it at once. */
  oo.flags = XIO_OPEN_EXCLUSIVE;
  xio_file *again = NULL;
  ASSERT_OK(xio_file_open(env.ctx, path, &oo, &again, &e), &e);
  ASSERT_OK(xio_file_close(again, &e), &e);
  ASSERT_EQ(xio_ctx_free(NULL), XIO_OK);
  lt_teardown(&env);
}

TEST(out_of_memory_completes_on_a_worker_not_the_submitter) {
  lt_env env;
  lt_setup(&env);
  xio_error e;
  xio_file *f = lt_create(&env, "oom.mdf", XIO_KIND_DATA, MiB, XIO_INIT_NONE);
  static char buf[4 * KiB];
  /* A write whose queueing fails for want of memory: the error comes with the
   * completion, on a worker. */
  seen w;
  seen_init(&w);
  xio_io io = {.op = XIO_IO_WRITE, .offset = 0, .length = sizeof buf, .buf = buf};
  io.done = on_done;
  io.ud = &w;
  lt_alloc_fail(1);
  xio_err rc = xio_file_submit(f, &io, &e);
  lt_alloc_fail(0);
  ASSERT_OK(rc, &e);
  seen_wait(&w, "the write's completion");
  ASSERT(!pthread_equal(w.thread, pthread_self()));
  ASSERT_EQ(w.result, XIO_ENOMEM);
  /* An asynchronous flush started without memory for its job: the same. */
  seen fl;
  seen_init(&fl);
  xio_io flush = {.op = XIO_IO_FLUSH};
  flush.done = on_done;
  flush.ud = &fl;
  lt_alloc_fail(1);
  rc = xio_file_submit(f, &flush, &e);
  lt_alloc_fail(0);
  ASSERT_OK(rc, &e);
  seen_wait(&fl, "the flush's completion");
  ASSERT(!pthread_equal(fl.thread, pthread_self()));
  ASSERT_EQ(fl.result, XIO_ENOMEM); /* the failed write is the flush's result */
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}
