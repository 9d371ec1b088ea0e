/*
 * async_test.c - asynchronous requests on local files (completion callbacks,
 * polling, waiting, flushes ordered after earlier writes, requests freed by their
 * own callbacks) and many threads doing I/O on one file at once.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/xio.h>

#include "fixture.h"
#include "test.h"
#include "util.h"

#define MiB ((size_t)1 << 20)

/* Counts completions; the test waits on it. */
typedef struct counter {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done, failed;
  int writes_done_at_flush;
} counter;

static void counter_init(counter *c) {
  memset(c, 0, sizeof *c);
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  c->writes_done_at_flush = -1;
}

static void counter_wait(counter *c, int n) {
  pthread_mutex_lock(&c->mu);
  while (c->done < n)
    pthread_cond_wait(&c->cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
}

static void on_done(xio_io *io, void *ud) {
  counter *c = ud;
  pthread_mutex_lock(&c->mu);
  if (io->op == XIO_IO_FLUSH) c->writes_done_at_flush = c->done;
  c->done++;
  c->failed += io->result != XIO_OK;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

static void read_all(xio_file *f, uint64_t off, void *buf, size_t len) {
  size_t n = 0;
  xio_error e;
  ASSERT_OK(xio_file_read(f, off, buf, len, &n, &e), &e);
  ASSERT_EQ(n, len);
}

TEST(async_64_writes_with_callbacks) {
  lt_env env;
  lt_setup(&env);
  enum { N = 64 };
  size_t piece = 64 * 1024 + 17; /* unaligned pieces back to back */
  xio_file *f = lt_create(&env, "a.dat", XIO_KIND_DATA, N * piece, XIO_INIT_NONE);
  char *want = malloc(N * piece), *got = malloc(N * piece);
  test_fill_random(want, N * piece, 9);
  xio_io io[N];
  counter c;
  counter_init(&c);
  lt_reset(&env);
  for (int i = 0; i < N; i++) {
    memset(&io[i], 0, sizeof io[i]);
    io[i].op = XIO_IO_WRITE;
    io[i].offset = (uint64_t)i * piece;
    io[i].length = piece;
    io[i].buf = want + (size_t)i * piece;
    io[i].done = on_done;
    io[i].ud = &c;
    xio_error e;
    ASSERT_OK(xio_file_submit(f, &io[i], &e), &e);
  }
  counter_wait(&c, N);
  ASSERT_EQ(c.failed, 0);
  for (int i = 0; i < N; i++) {
    ASSERT_OK(xio_io_wait(&io[i]), &io[i].error);
    ASSERT_EQ(xio_io_poll(&io[i]), 1);
    ASSERT_EQ(io[i].transferred, piece);
  }
  ASSERT_EQ(lt_count(&env, XIO_REQ_WRITE), N);
  read_all(f, 0, got, N * piece);
  ASSERT_MEM_EQ(got, want, N * piece);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.writes, N);
  ASSERT_U64_EQ(st.bytes_written, N * piece);
  xio_error e;
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(want);
  free(got);
  lt_teardown(&env);
}

TEST(async_poll_and_wait) {
  lt_env env;
  lt_setup(&env);
  size_t len = 20 * MiB + 1;
  xio_file *f = lt_create(&env, "p.dat", XIO_KIND_DATA, len, XIO_INIT_NONE);
  char *want = malloc(len), *got = malloc(len);
  test_fill_random(want, len, 4);
  xio_io w, r;
  memset(&w, 0, sizeof w);
  w.op = XIO_IO_WRITE;
  w.length = len;
  w.buf = want;
  xio_error e;
  ASSERT_OK(xio_file_submit(f, &w, &e), &e);
  while (!xio_io_poll(&w))
    usleep(100);
  ASSERT_OK(w.result, &w.error);
  ASSERT_EQ(w.transferred, len);
  memset(&r, 0, sizeof r);
  r.op = XIO_IO_READ;
  r.offset = 0;
  r.length = len + 100; /* past the end: short */
  r.buf = got;
  got = realloc(got, len + 100);
  r.buf = got;
  ASSERT_OK(xio_file_submit(f, &r, &e), &e);
  ASSERT_OK(xio_io_wait(&r), &r.error);
  ASSERT_EQ(xio_io_poll(&r), 1);
  ASSERT_EQ(r.transferred, len);
  ASSERT_MEM_EQ(got, want, len);
  /* A read at the end completes before submit returns. */
  memset(&r, 0, sizeof r);
  r.op = XIO_IO_READ;
  r.offset = len;
  r.length = 10;
  r.buf = got;
  ASSERT_OK(xio_file_submit(f, &r, &e), &e);
  ASSERT_EQ(xio_io_poll(&r), 1);
  ASSERT_EQ(r.transferred, 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(want);
  free(got);
  lt_teardown(&env);
}

TEST(async_flush_completes_after_earlier_writes) {
  lt_env env;
  lt_setup(&env);
  enum { N = 16 };
  size_t piece = 2 * MiB + 3;
  xio_file *f = lt_create(&env, "fl.dat", XIO_KIND_DATA, N * piece, XIO_INIT_NONE);
  char *data = malloc(N * piece);
  test_fill_random(data, N * piece, 1);
  xio_io io[N + 1];
  counter c;
  counter_init(&c);
  xio_error e;
  for (int i = 0; i <= N; i++) {
    memset(&io[i], 0, sizeof io[i]);
    io[i].op = i == N ? XIO_IO_FLUSH : XIO_IO_WRITE;
    io[i].offset = (uint64_t)i * piece;
    io[i].length = i == N ? 0 : piece;
    io[i].buf = i == N ? NULL : data + (size_t)i * piece;
    io[i].done = on_done;
    io[i].ud = &c;
    ASSERT_OK(xio_file_submit(f, &io[i], &e), &e);
  }
  counter_wait(&c, N + 1);
  ASSERT_EQ(c.failed, 0);
  ASSERT_EQ(c.writes_done_at_flush, N);
  ASSERT_OK(io[N].result, &io[N].error);
  /* A flush with nothing in flight completes too. */
  xio_io fl;
  memset(&fl, 0, sizeof fl);
  fl.op = XIO_IO_FLUSH;
  ASSERT_OK(xio_file_submit(f, &fl, &e), &e);
  ASSERT_OK(xio_io_wait(&fl), &fl.error);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(data);
  lt_teardown(&env);
}

/* A request freed by its own callback, as an engine does with pooled requests. */
typedef struct owned_io {
  xio_io io;
  counter *c;
} owned_io;

static void free_on_done(xio_io *io, void *ud) {
  owned_io *o = ud;
  counter *c = o->c;
  int ok = io->result == XIO_OK && io->transferred == io->length;
  free(o);
  pthread_mutex_lock(&c->mu);
  c->done++;
  c->failed += !ok;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

TEST(async_callback_may_free_its_request) {
  lt_env env;
  lt_setup(&env);
  enum { N = 200 };
  xio_file *f = lt_create(&env, "own.dat", XIO_KIND_DATA, N * 4096, XIO_INIT_NONE);
  static char data[N * 4096];
  test_fill_random(data, sizeof data, 2);
  counter c;
  counter_init(&c);
  xio_error e;
  for (int i = 0; i < N; i++) {
    owned_io *o = calloc(1, sizeof *o);
    o->c = &c;
    o->io.op = XIO_IO_WRITE;
    o->io.offset = (uint64_t)i * 4096;
    o->io.length = 4096;
    o->io.buf = data + (size_t)i * 4096;
    o->io.done = free_on_done;
    o->io.ud = o;
    ASSERT_OK(xio_file_submit(f, &o->io, &e), &e);
  }
  counter_wait(&c, N);
  ASSERT_EQ(c.failed, 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

/* A callback may submit further requests but not make synchronous calls. */
typedef struct chain {
  xio_file *f;
  xio_io io;
  int left;
  xio_err sync_rc;
  counter c;
  char buf[512];
} chain;

static void chain_next(xio_io *io, void *ud) {
  chain *ch = ud;
  xio_error e;
  if (ch->sync_rc == XIO_OK) ch->sync_rc = xio_file_flush(ch->f, &e);
  if (io->result == XIO_OK && --ch->left > 0) {
    io->offset += sizeof ch->buf;
    if (xio_file_submit(ch->f, io, &e) == XIO_OK) return;
  }
  on_done(io, &ch->c);
}

TEST(async_callback_chains_requests) {
  lt_env env;
  lt_setup(&env);
  chain *ch = calloc(1, sizeof *ch);
  ch->f = lt_create(&env, "ch.dat", XIO_KIND_DATA, 100 * 512, XIO_INIT_NONE);
  memset(ch->buf, 0x33, sizeof ch->buf);
  counter_init(&ch->c);
  ch->left = 100;
  ch->io.op = XIO_IO_WRITE;
  ch->io.length = sizeof ch->buf;
  ch->io.buf = ch->buf;
  ch->io.done = chain_next;
  ch->io.ud = ch;
  xio_error e;
  ASSERT_OK(xio_file_submit(ch->f, &ch->io, &e), &e);
  counter_wait(&ch->c, 1);
  ASSERT_EQ(ch->left, 0);
  ASSERT_EQ(ch->sync_rc, XIO_EINVAL);
  char *got = malloc(100 * 512);
  read_all(ch->f, 0, got, 100 * 512);
  for (int i = 0; i < 100 * 512; i++)
    ASSERT_EQ(got[i], 0x33);
  ASSERT_OK(xio_file_close(ch->f, &e), &e);
  free(got);
  free(ch);
  lt_teardown(&env);
}

/* ---------------------------------------------------------- threads ---- */

typedef struct writer {
  pthread_t thread;
  xio_file *f;
  int index;
  xio_err rc;
} writer;

/* Writes this thread's 1 MiB region in pieces of varying sizes. */
static void *write_region(void *arg) {
  writer *w = arg;
  char *buf = malloc(MiB);
  test_fill_random(buf, MiB, 1000 + (uint64_t)w->index);
  uint64_t base = (uint64_t)w->index * MiB;
  size_t step = 4096 + (size_t)w->index * 997;
  for (size_t done = 0; done < MiB && w->rc == XIO_OK;) {
    size_t n = MiB - done < step ? MiB - done : step;
    xio_error e;
    w->rc = xio_file_write(w->f, base + done, buf + done, n, &e);
    done += n;
  }
  free(buf);
  return NULL;
}

TEST(eight_threads_write_disjoint_regions) {
  lt_env env;
  lt_setup(&env);
  enum { T = 8 };
  xio_file *f = lt_create(&env, "t.dat", XIO_KIND_DATA, 0, XIO_INIT_NONE);
  writer w[T];
  for (int i = 0; i < T; i++) {
    w[i] = (writer){0, f, i, XIO_OK};
    ASSERT_EQ(pthread_create(&w[i].thread, NULL, write_region, &w[i]), 0);
  }
  for (int i = 0; i < T; i++)
    pthread_join(w[i].thread, NULL);
  for (int i = 0; i < T; i++)
    ASSERT_EQ(w[i].rc, XIO_OK);
  ASSERT_U64_EQ(xio_file_size(f), T * MiB);
  char *want = malloc(MiB), *got = malloc(T * MiB);
  read_all(f, 0, got, T * MiB);
  for (int i = 0; i < T; i++) {
    test_fill_random(want, MiB, 1000 + (uint64_t)i);
    ASSERT_MEM_EQ(got + (size_t)i * MiB, want, MiB);
  }
  xio_error e;
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(want);
  free(got);
  lt_teardown(&env);
}
