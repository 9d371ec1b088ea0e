/*
 * conformance_test.c - what every backend must do the same way, compiled once per
 * backend (CONF_LOCAL selects local files, otherwise page blobs on Azurite):
 * round trips at many offsets and sizes, zeroing, growth with each init policy,
 * shrinking, concurrent writers, asynchronous completion, persistence, deletion,
 * and the open flags.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "util.h"
#include "xfix.h"

#ifdef CONF_LOCAL
#define LOCAL 1
#else
#define LOCAL 0
#endif

#define MiB (1024ull * 1024)

static void write_read(xio_file *f, uint64_t off, size_t len, uint64_t seed) {
  xio_error e;
  char *src = malloc(len), *dst = malloc(len);
  test_fill_random(src, len, seed);
  ASSERT_OK(xio_file_write(f, off, src, len, &e), &e);
  memset(dst, 0x5c, len);
  size_t got = 0;
  ASSERT_OK(xio_file_read(f, off, dst, len, &got, &e), &e);
  ASSERT_EQ(got, len);
  ASSERT_MEM_EQ(src, dst, len);
  free(src);
  free(dst);
}

static void assert_zero(xio_file *f, uint64_t off, size_t len) {
  xio_error e;
  char *buf = malloc(len);
  memset(buf, 0x33, len);
  size_t got = 0;
  ASSERT_OK(xio_file_read(f, off, buf, len, &got, &e), &e);
  ASSERT_EQ(got, len);
  ASSERT(test_all_zero(buf, len));
  free(buf);
}

TEST(round_trips_aligned) {
  xfix fx;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "rt.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, 32 * MiB);
  const uint64_t offs[] = {0, 512, 4096, 3 * MiB + 512, 5 * MiB};
  const size_t lens[] = {512, 4096, MiB, 4 * MiB, 4 * MiB + 512, 9 * MiB};
  uint64_t seed = 1;
  for (size_t i = 0; i < sizeof offs / sizeof *offs; i++)
    for (size_t j = 0; j < sizeof lens / sizeof *lens; j++)
      write_read(f, offs[i], lens[j], seed++);
  xio_error e;
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(round_trips_unaligned) {
  xfix fx;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f =
      xfix_open(&fx, "odd.mdf", XIO_OPEN_CREATE | XIO_OPEN_UNALIGNED, XIO_KIND_DATA, 16 * MiB);
  const uint64_t offs[] = {1, 700, 4 * MiB - 3, 8 * MiB + 511};
  const size_t lens[] = {1, 100, 513, 5 * MiB + 7};
  uint64_t seed = 100;
  for (size_t i = 0; i < sizeof offs / sizeof *offs; i++)
    for (size_t j = 0; j < sizeof lens / sizeof *lens; j++)
      write_read(f, offs[i], lens[j], seed++);
  /* Neighbours of an unaligned write are untouched. */
  write_read(f, 12 * MiB, 4096, 7);
  char *one = malloc(4096), *back = malloc(4096);
  test_fill_random(one, 4096, 7);
  xio_error e;
  ASSERT_OK(xio_file_write(f, 12 * MiB + 1000, "xyz", 3, &e), &e);
  memcpy(one + 1000, "xyz", 3);
  size_t got;
  ASSERT_OK(xio_file_read(f, 12 * MiB, back, 4096, &got, &e), &e);
  ASSERT_MEM_EQ(one, back, 4096);
  free(one);
  free(back);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(reads_past_the_end_are_short) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "short.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, MiB);
  char buf[8192];
  size_t got = 99;
  ASSERT_OK(xio_file_read(f, MiB - 4096, buf, sizeof buf, &got, &e), &e);
  ASSERT_EQ(got, 4096);
  ASSERT_OK(xio_file_read(f, MiB, buf, sizeof buf, &got, &e), &e);
  ASSERT_EQ(got, 0);
  ASSERT_OK(xio_file_read(f, 5 * MiB, buf, sizeof buf, &got, &e), &e);
  ASSERT_EQ(got, 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(zero_ranges_read_zero) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "z.ldf", XIO_OPEN_CREATE, XIO_KIND_LOG, 16 * MiB);
  size_t n = 16 * MiB;
  char *src = malloc(n), *dst = malloc(n);
  test_fill_random(src, n, 5);
  ASSERT_OK(xio_file_write(f, 0, src, n, &e), &e);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_zero(f, MiB, 2 * MiB, XIO_INIT_CLEAR, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_ZERO), 1); /* metadata zeroing: one request */
  ASSERT_OK(xio_file_zero(f, 8 * MiB, 5 * MiB, XIO_INIT_ZERO, &e), &e);
  ASSERT(xfix_count(&fx, XIO_REQ_ZERO) >= 2);
  size_t got;
  ASSERT_OK(xio_file_read(f, 0, dst, n, &got, &e), &e);
  memset(src + MiB, 0, 2 * MiB);
  memset(src + 8 * MiB, 0, 5 * MiB);
  ASSERT_MEM_EQ(src, dst, n);
  ASSERT_ERR(xio_file_zero(f, 15 * MiB, 2 * MiB, XIO_INIT_CLEAR, &e), XIO_ERANGE, &e);
  ASSERT_ERR(xio_file_zero(f, 0, 512, XIO_INIT_NONE, &e), XIO_EINVAL, &e);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT(st.bytes_cleared >= 2 * MiB);
  ASSERT_U64_EQ(st.bytes_zero_written, 5 * MiB);
  free(src);
  free(dst);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(growth_with_each_policy_reads_zero) {
  const xio_init policies[] = {XIO_INIT_NONE, XIO_INIT_ZERO, XIO_INIT_CLEAR};
  const int zero_events_min[] = {0, 2, 1}, zero_events_max[] = {0, 1000, 1};
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  for (int i = 0; i < 3; i++) {
    char name[32];
    snprintf(name, sizeof name, "grow%d.mdf", i);
    xio_file *f = xfix_open(&fx, name, XIO_OPEN_CREATE, XIO_KIND_DATA, MiB);
    write_read(f, 0, MiB, 9);
    xfix_trace_reset(&fx);
    ASSERT_OK(xio_file_set_size(f, 9 * MiB, policies[i], &e), &e);
    ASSERT_EQ(xfix_count(&fx, XIO_REQ_SET_SIZE), 1);
    int z = xfix_count(&fx, XIO_REQ_ZERO);
    if (z < zero_events_min[i] || z > zero_events_max[i])
      FAIL("policy %s: %d zeroing requests", xio_init_name(policies[i]), z);
    ASSERT_U64_EQ(xio_file_size(f), 9 * MiB);
    assert_zero(f, MiB, 8 * MiB);
    ASSERT_OK(xio_file_close(f, &e), &e);
  }
  xfix_teardown(&fx);
}

TEST(log_files_read_zero_when_grown) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "l.ldf", XIO_OPEN_CREATE, XIO_KIND_LOG, 2 * MiB);
  assert_zero(f, 0, 2 * MiB);
  ASSERT_OK(xio_file_set_size(f, 6 * MiB, XIO_INIT_DEFAULT, &e), &e);
  assert_zero(f, 2 * MiB, 4 * MiB);
  ASSERT_EQ(xio_file_kind(f), XIO_KIND_LOG);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(shrink_then_grow) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "s.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, 8 * MiB);
  write_read(f, 0, 8 * MiB, 12);
  ASSERT_OK(xio_file_set_size(f, 3 * MiB, XIO_INIT_DEFAULT, &e), &e);
  ASSERT_U64_EQ(xio_file_size(f), 3 * MiB);
  char buf[4096];
  size_t got = 1;
  ASSERT_OK(xio_file_read(f, 3 * MiB, buf, sizeof buf, &got, &e), &e);
  ASSERT_EQ(got, 0);
  ASSERT_OK(xio_file_set_size(f, 8 * MiB, XIO_INIT_NONE, &e), &e);
  assert_zero(f, 3 * MiB, 5 * MiB); /* the discarded tail does not come back */
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

typedef struct writer {
  xio_file *f;
  int index;
  xio_err rc;
} writer;

#define REGION (2 * MiB)

static void *write_region(void *arg) {
  writer *w = arg;
  char *buf = malloc(REGION);
  test_fill_random(buf, REGION, 1000 + (uint64_t)w->index);
  xio_error e;
  /* In 64 KiB pieces, so threads interleave on the file. */
  for (size_t off = 0; off < REGION && w->rc == XIO_OK; off += 65536)
    w->rc = xio_file_write(w->f, (uint64_t)w->index * REGION + off, buf + off, 65536, &e);
  free(buf);
  return NULL;
}

TEST(concurrent_writers_disjoint_ranges) {
  enum { THREADS = 8 };
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "mt.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, THREADS * REGION);
  pthread_t t[THREADS];
  writer w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (writer){f, i, XIO_OK};
    pthread_create(&t[i], NULL, write_region, &w[i]);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    ASSERT_EQ(w[i].rc, XIO_OK);
  }
  char *want = malloc(REGION), *got = malloc(REGION);
  for (int i = 0; i < THREADS; i++) {
    size_t n;
    test_fill_random(want, REGION, 1000 + (uint64_t)i);
    ASSERT_OK(xio_file_read(f, (uint64_t)i * REGION, got, REGION, &n, &e), &e);
    ASSERT_MEM_EQ(want, got, REGION);
  }
  free(want);
  free(got);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

typedef struct completions {
  pthread_mutex_t mu;
  int order[128];
  int n;
} completions;

static void on_complete(xio_io *io, void *ud) {
  completions *c = ud;
  pthread_mutex_lock(&c->mu);
  c->order[c->n++] = (int)(io->offset / 65536);
  pthread_mutex_unlock(&c->mu);
}

TEST(async_completion_and_flush_order) {
  enum { N = 32 };
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "async.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, N * 65536);
  char *src = malloc(N * 65536);
  test_fill_random(src, N * 65536, 31);
  static xio_io io[N + 1];
  completions c = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
  for (int i = 0; i < N; i++) {
    memset(&io[i], 0, sizeof io[i]);
    io[i].op = XIO_IO_WRITE;
    io[i].offset = (uint64_t)i * 65536;
    io[i].length = 65536;
    io[i].buf = src + (size_t)i * 65536;
    io[i].done = on_complete;
    io[i].ud = &c;
    ASSERT_OK(xio_file_submit(f, &io[i], &e), &e);
  }
  memset(&io[N], 0, sizeof io[N]);
  io[N].op = XIO_IO_FLUSH;
  ASSERT_OK(xio_file_submit(f, &io[N], &e), &e);
  ASSERT_OK(xio_io_wait(&io[N]), &io[N].error);
  /* The flush completed after every write submitted before it. */
  for (int i = 0; i < N; i++) {
    ASSERT(xio_io_poll(&io[i]));
    ASSERT_OK(io[i].result, &io[i].error);
    ASSERT_EQ(io[i].transferred, 65536);
  }
  pthread_mutex_lock(&c.mu);
  ASSERT_EQ(c.n, N); /* each exactly once */
  int seen[N] = {0};
  for (int i = 0; i < N; i++)
    seen[c.order[i]]++;
  for (int i = 0; i < N; i++)
    ASSERT_EQ(seen[i], 1);
  pthread_mutex_unlock(&c.mu);
  /* Reads, polled rather than called back. */
  char *dst = calloc(1, N * 65536);
  for (int i = 0; i < N; i++) {
    memset(&io[i], 0, sizeof io[i]);
    io[i].op = XIO_IO_READ;
    io[i].offset = (uint64_t)i * 65536;
    io[i].length = 65536;
    io[i].buf = dst + (size_t)i * 65536;
    ASSERT_OK(xio_file_submit(f, &io[i], &e), &e);
  }
  for (int i = 0; i < N; i++)
    ASSERT_OK(xio_io_wait(&io[i]), &io[i].error);
  ASSERT_MEM_EQ(src, dst, N * 65536);
  free(src);
  free(dst);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(close_reopen_persists) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "p.ldf", XIO_OPEN_CREATE, XIO_KIND_LOG, 4 * MiB);
  char *src = malloc(MiB), *dst = malloc(MiB);
  test_fill_random(src, MiB, 44);
  ASSERT_OK(xio_file_write(f, MiB, src, MiB, &e), &e);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = xfix_open(&fx, "p.ldf", XIO_OPEN_READONLY, XIO_KIND_DATA, 0);
  ASSERT_U64_EQ(xio_file_size(f), 4 * MiB);
  ASSERT_EQ(xio_file_kind(f), XIO_KIND_LOG);
  size_t got;
  ASSERT_OK(xio_file_read(f, MiB, dst, MiB, &got, &e), &e);
  ASSERT_MEM_EQ(src, dst, MiB);
  ASSERT_ERR(xio_file_write(f, 0, src, 512, &e), XIO_EREADONLY, &e);
  ASSERT_ERR(xio_file_set_size(f, 0, XIO_INIT_NONE, &e), XIO_EREADONLY, &e);
  free(src);
  free(dst);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(open_flags_and_delete) {
  xfix fx;
  xio_error e;
  char url[1024];
  xfix_setup(&fx, LOCAL, NULL);
  xfix_target(&fx, "d.mdf", url, sizeof url);
  xio_file *f = NULL;
  xio_open_options o = xio_open_options_default();
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_ENOTFOUND, &e);
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.size = 4096;
  ASSERT_OK(xio_file_open(fx.ctx, url, &o, &f, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_EEXIST, &e);
  o.flags = XIO_OPEN_READONLY | XIO_OPEN_CREATE;
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_EINVAL, &e);
  o.flags = XIO_OPEN_BREAK_LEASE;
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_EINVAL, &e);
  ASSERT_OK(xio_file_delete(fx.ctx, url, &e), &e);
  o.flags = 0;
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_ENOTFOUND, &e);
  ASSERT_ERR(xio_file_delete(fx.ctx, url, &e), XIO_ENOTFOUND, &e);
  ASSERT(e.operation[0] != '\0'); /* the detail names the operation and the file */
  ASSERT_STR_EQ(e.target, url);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_DELETE), 2);
  xfix_teardown(&fx);
}

/* XIO_OPEN_CREATE_ONLY is POSIX O_EXCL: on a file that exists the open fails with
 * XIO_EEXIST saying so, and nothing of the file changes (size, kind, bytes, mark),
 * whatever size, kind, init and mark the open asked for. The create itself is the
 * check (one create request, no look before it that a racing creator could slip
 * past), and it takes no lease. */
TEST(create_only_on_an_existing_file_fails_and_writes_nothing) {
  xfix fx;
  xio_error e;
  char url[1024];
  xfix_setup(&fx, LOCAL, NULL);
  xfix_target(&fx, "only.ldf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE_ONLY | XIO_OPEN_LEASE, XIO_KIND_LOG, 8192);
  char rec[4096];
  memset(rec, 'r', sizeof rec);
  ASSERT_OK(xio_file_write(f, 0, rec, sizeof rec, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);

  xfix_trace_reset(&fx);
  xio_open_options o = {XIO_OPEN_CREATE_ONLY | XIO_OPEN_LEASE | XIO_OPEN_MARK_INCOMPLETE,
                        XIO_KIND_DATA, 4 * MiB, XIO_INIT_ZERO};
  f = (xio_file *)&fx; /* not NULL: the failed open must set it */
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_EEXIST, &e);
  ASSERT(f == NULL);
  ASSERT_CONTAINS(e.message, "already exists");
  ASSERT_CONTAINS(e.message, "only.ldf");
  if (LOCAL)
    ASSERT_EQ(e.sys_errno, EEXIST); /* open(O_CREAT | O_EXCL) refused it */
  else
    ASSERT_EQ(e.http_status, 409); /* Put Blob with If-None-Match: * refused it */
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_CREATE), 1);
  ASSERT_EQ(xfix_count_event(&fx, "xio_send_complete"), 1); /* no look, no lease, no zeroing */

  xio_file_info info;
  ASSERT_OK(xio_stat(fx.ctx, url, &info, &e), &e);
  ASSERT_U64_EQ(info.size, 8192);
  ASSERT_EQ(info.kind, XIO_KIND_LOG);
  ASSERT_EQ(info.incomplete, 0);
  f = xfix_open_url(&fx, url, XIO_OPEN_READONLY, XIO_KIND_DATA, 0);
  char got[8192];
  size_t n = 0;
  ASSERT_OK(xio_file_read(f, 0, got, sizeof got, &n, &e), &e);
  ASSERT_EQ(n, sizeof got);
  ASSERT_MEM_EQ(got, rec, sizeof rec);
  ASSERT(test_all_zero(got + sizeof rec, sizeof got - sizeof rec));
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

typedef struct creator {
  xfix *fx;
  const char *url;
  pthread_barrier_t *go;
  xio_err rc;
  xio_file *f;
} creator;

static void *create_only(void *arg) {
  creator *c = arg;
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.size = 4096;
  xio_error e;
  pthread_barrier_wait(c->go);
  c->rc = xio_file_open(c->fx->ctx, c->url, &o, &c->f, &e);
  return NULL;
}

/* Creators racing for one name with XIO_OPEN_CREATE_ONLY: exactly one wins, each of
 * the others gets XIO_EEXIST. */
TEST(create_only_racing_creators_one_wins) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  enum { CREATORS = 4, ROUNDS = 5 };
  for (int round = 0; round < ROUNDS; round++) {
    char name[32], url[1024];
    snprintf(name, sizeof name, "race-%d.mdf", round);
    xfix_target(&fx, name, url, sizeof url);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, CREATORS);
    creator c[CREATORS];
    pthread_t t[CREATORS];
    for (int i = 0; i < CREATORS; i++) {
      c[i] = (creator){&fx, url, &go, XIO_OK, NULL};
      ASSERT_EQ(pthread_create(&t[i], NULL, create_only, &c[i]), 0);
    }
    int won = 0, lost = 0;
    for (int i = 0; i < CREATORS; i++) {
      pthread_join(t[i], NULL);
      won += c[i].rc == XIO_OK;
      lost += c[i].rc == XIO_EEXIST;
      if (c[i].f) ASSERT_OK(xio_file_close(c[i].f, &e), &e);
    }
    pthread_barrier_destroy(&go);
    ASSERT_EQ(won, 1);
    ASSERT_EQ(lost, CREATORS - 1);
  }
  xfix_teardown(&fx);
}

/* XIO_OPEN_EXCLUSIVE is the former name of XIO_OPEN_LEASE: the same flag. */
TEST(exclusive_is_the_lease_flag) {
  ASSERT_EQ(XIO_OPEN_EXCLUSIVE, XIO_OPEN_LEASE);
  ASSERT((XIO_OPEN_LEASE & XIO_OPEN_CREATE_ONLY) == 0);
}

TEST(exclusive_open_is_refused_while_held) {
  xfix fx;
  xio_error e;
  char url[1024];
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "x.mdf", XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA, 4096);
  xfix_target(&fx, "x.mdf", url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_EXCLUSIVE;
  xio_file *g = NULL;
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &g, &e), XIO_EBUSY, &e);
  ASSERT_CONTAINS(e.message, "in use");
  ASSERT_STR_EQ(e.operation, "OpenFile");
  ASSERT_STR_EQ(e.target, url);
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT_OK(xio_file_open(fx.ctx, url, &o, &g, &e), &e);
  ASSERT_OK(xio_file_close(g, &e), &e);
  xfix_teardown(&fx);
}

TEST(ranges_show_where_data_is) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "r.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, 64 * MiB);
  write_read(f, 4 * MiB, MiB, 1);
  write_read(f, 40 * MiB, 2 * MiB, 2);
  xfix_trace_reset(&fx);
  xio_ranges r = {0};
  ASSERT_OK(xio_file_ranges(f, &r, &e), &e);
  ASSERT(xfix_count(&fx, XIO_REQ_RANGES) >= 1);
  /* Both regions are inside the ranges, and far less than the file is allocated. */
  uint64_t want[2][2] = {{4 * MiB, 5 * MiB}, {40 * MiB, 42 * MiB}};
  for (int k = 0; k < 2; k++) {
    int inside = 0;
    for (size_t i = 0; i < r.n; i++)
      inside |= r.v[i].start <= want[k][0] && r.v[i].end >= want[k][1] - 1;
    ASSERT(inside);
  }
  ASSERT(xio_ranges_bytes(&r) < 16 * MiB);
  xio_ranges_clear(&r);
  /* Cleared space is no longer listed (a page blob drops the pages; ext4 the blocks). */
  ASSERT_OK(xio_file_zero(f, 40 * MiB, 2 * MiB, XIO_INIT_CLEAR, &e), &e);
  ASSERT_OK(xio_file_ranges(f, &r, &e), &e);
  for (size_t i = 0; i < r.n; i++)
    ASSERT(r.v[i].end < 40 * MiB || r.v[i].start >= 42 * MiB);
  xio_ranges_clear(&r);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(snapshots_are_point_in_time_copies) {
  xfix fx;
  xio_error e;
  char url[1024], snap_url[1200], id[64];
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f =
      xfix_open(&fx, "snap.mdf", XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA, MiB);
  char before[4096], after[4096], got[4096];
  test_fill_random(before, sizeof before, 1);
  test_fill_random(after, sizeof after, 2);
  ASSERT_OK(xio_file_write(f, 8192, before, sizeof before, &e), &e);
#if LOCAL
  ASSERT_ERR(xio_file_snapshot(f, id, sizeof id, &e), XIO_EUNSUPPORTED, &e);
  (void)url, (void)snap_url, (void)after, (void)got;
#else
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_snapshot(f, id, sizeof id, &e), &e); /* carries the lease id */
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_SNAPSHOT), 1);
  ASSERT(strlen(id) > 10);
  ASSERT_OK(xio_file_write(f, 8192, after, sizeof after, &e), &e);
  xfix_target(&fx, "snap.mdf", url, sizeof url);
  snprintf(snap_url, sizeof snap_url, "%s?snapshot=%s", url, id);
  xio_open_options o = xio_open_options_default();
  xio_file *s = NULL;
  ASSERT_ERR(xio_file_open(fx.ctx, snap_url, &o, &s, &e), XIO_EINVAL, &e); /* read-only */
  o.flags = XIO_OPEN_READONLY;
  ASSERT_OK(xio_file_open(fx.ctx, snap_url, &o, &s, &e), &e);
  size_t n = 0;
  ASSERT_OK(xio_file_read(s, 8192, got, sizeof got, &n, &e), &e);
  ASSERT_MEM_EQ(got, before, sizeof got); /* the snapshot kept the old bytes */
  ASSERT_OK(xio_file_close(s, &e), &e);
  ASSERT_OK(xio_file_read(f, 8192, got, sizeof got, &n, &e), &e);
  ASSERT_MEM_EQ(got, after, sizeof got);
#endif
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(ranges_list_merges_in_any_order) {
  xio_ranges r = {0};
  ASSERT_EQ(xio_ranges_add(&r, 100, 199), XIO_OK);
  ASSERT_EQ(xio_ranges_add(&r, 0, 9), XIO_OK);     /* before: inserted first */
  ASSERT_EQ(xio_ranges_add(&r, 300, 399), XIO_OK); /* after: appended */
  ASSERT_EQ(r.n, 3);
  ASSERT_EQ(xio_ranges_add(&r, 10, 99), XIO_OK); /* touches both neighbours: one range */
  ASSERT_EQ(r.n, 2);
  ASSERT_EQ(r.v[0].start, 0);
  ASSERT_EQ(r.v[0].end, 199);
  ASSERT_EQ(xio_ranges_add(&r, 150, 350), XIO_OK); /* overlaps both: one range */
  ASSERT_EQ(r.n, 1);
  ASSERT_EQ(r.v[0].end, 399);
  ASSERT_EQ(xio_ranges_bytes(&r), 400);
  ASSERT_EQ(xio_ranges_add(&r, 5, 4), XIO_EINVAL);
  ASSERT_EQ(xio_ranges_add(NULL, 0, 1), XIO_EINVAL);
  xio_ranges_clear(&r);
  ASSERT_EQ(r.n, 0);
  ASSERT(r.v == NULL);
  ASSERT_EQ(xio_ranges_bytes(NULL), 0);
}

TEST(stat_reports_the_storage_properties) {
  xfix fx;
  xio_error e;
  char url[1024];
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "st.ldf", XIO_OPEN_CREATE, XIO_KIND_LOG, 3 * MiB + 100);
  write_read(f, 0, MiB, 3);
  xfix_trace_reset(&fx);
  xio_file_info in;
  ASSERT_OK(xio_file_stat(f, &in, &e), &e);
  ASSERT_STR_EQ(in.backend, LOCAL ? "local" : "pageblob");
  ASSERT_EQ(in.kind, XIO_KIND_LOG);
  ASSERT_EQ(in.size, 3 * MiB + 100);
  ASSERT(in.last_modified[0] != '\0');
#if LOCAL
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_GET_SIZE), 0); /* fstat: no request */
  ASSERT_EQ(in.stored_size, 3 * MiB + 100);
  ASSERT(in.allocated >= MiB && in.allocated != XIO_UNKNOWN_SIZE);
  ASSERT_STR_EQ(in.lease_state, ""); /* local files have no lease */
  ASSERT_STR_EQ(in.etag, "");
#else
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_GET_SIZE), 1);
  ASSERT_EQ(in.stored_size, 3 * MiB + 512); /* whole pages */
  ASSERT_EQ(in.allocated, XIO_UNKNOWN_SIZE);
  ASSERT_STR_EQ(in.blob_type, "PageBlob");
  ASSERT_STR_EQ(in.lease_state, "available");
  ASSERT(in.etag[0] != '\0');
#endif
  ASSERT_OK(xio_file_close(f, &e), &e);
  /* By target, without keeping it open. */
  xfix_target(&fx, "st.ldf", url, sizeof url);
  memset(&in, 0, sizeof in);
  ASSERT_OK(xio_stat(fx.ctx, url, &in, &e), &e);
  ASSERT_EQ(in.size, 3 * MiB + 100);
  ASSERT_EQ(in.kind, XIO_KIND_LOG);
  xfix_target(&fx, "missing.mdf", url, sizeof url);
  ASSERT_ERR(xio_stat(fx.ctx, url, &in, &e), XIO_ENOTFOUND, &e);
  xfix_teardown(&fx);
}

TEST(lease_actions_by_hand) {
  xfix fx;
  xio_error e;
  char url[1024];
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "l.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, MiB);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_target(&fx, "l.mdf", url, sizeof url);
  xio_lease_request rq = {XIO_LEASE_RENEW, NULL, -1, 0};
  xio_lease_result res;
  ASSERT_ERR(xio_lease(fx.ctx, url, &rq, &res, &e), XIO_EINVAL, &e); /* renew needs an id */
  rq = (xio_lease_request){XIO_LEASE_ACQUIRE, NULL, 5, 0};
  ASSERT_ERR(xio_lease(fx.ctx, url, &rq, &res, &e), XIO_EINVAL, &e); /* 5 s: too short */
  rq = (xio_lease_request){XIO_LEASE_BREAK, NULL, 0, 0};
  ASSERT_ERR(xio_lease(fx.ctx, "ftp://host/c/b", &rq, &res, &e), XIO_EUNSUPPORTED, &e);
  xfix_trace_reset(&fx);
  rq = (xio_lease_request){XIO_LEASE_ACQUIRE, NULL, -1, 0};
#if LOCAL
  ASSERT_ERR(xio_lease(fx.ctx, url, &rq, &res, &e), XIO_EUNSUPPORTED, &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 0);
#else
  ASSERT_OK(xio_lease(fx.ctx, url, &rq, &res, &e), &e);
  ASSERT(strlen(res.id) == 36);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 1);
  xio_file_info in;
  ASSERT_OK(xio_stat(fx.ctx, url, &in, &e), &e);
  ASSERT_STR_EQ(in.lease_state, "leased");
  ASSERT_STR_EQ(in.lease_duration, "infinite");
  /* Another acquire with another id is refused; renew and release take the id. */
  xio_lease_result other;
  ASSERT_ERR(xio_lease(fx.ctx, url, &rq, &other, &e), XIO_EBUSY, &e);
  char id[64];
  snprintf(id, sizeof id, "%s", res.id);
  rq = (xio_lease_request){XIO_LEASE_RENEW, id, 0, 0};
  ASSERT_OK(xio_lease(fx.ctx, url, &rq, &res, &e), &e);
  rq = (xio_lease_request){XIO_LEASE_RELEASE, id, 0, 0};
  ASSERT_OK(xio_lease(fx.ctx, url, &rq, &res, &e), &e);
  ASSERT_OK(xio_stat(fx.ctx, url, &in, &e), &e);
  ASSERT_STR_EQ(in.lease_state, "available");
  /* A proposed id is the lease's id; break ends it at once with period 0. */
  rq = (xio_lease_request){XIO_LEASE_ACQUIRE, "0f0f0f0f-1111-2222-3333-444444444444", 15, 0};
  ASSERT_OK(xio_lease(fx.ctx, url, &rq, &res, &e), &e);
  ASSERT_STR_EQ(res.id, "0f0f0f0f-1111-2222-3333-444444444444");
  rq = (xio_lease_request){XIO_LEASE_BREAK, NULL, 0, 0};
  ASSERT_OK(xio_lease(fx.ctx, url, &rq, &res, &e), &e);
  ASSERT_EQ(res.remaining_s, 0);
  ASSERT_OK(xio_stat(fx.ctx, url, &in, &e), &e);
  ASSERT_STR_EQ(in.lease_state, "broken");
#endif
  xfix_teardown(&fx);
}

/* Writes `len` bytes of `c` at `off` through a handle of its own, as another client
 * would, then closes it. */
static void write_elsewhere(xfix *fx, const char *name, uint64_t off, size_t len, char c) {
  xio_error e;
  char *buf = malloc(len);
  memset(buf, c, len);
  xio_file *w = xfix_open(fx, name, 0, XIO_KIND_DATA, 0);
  ASSERT_OK(xio_file_write(w, off, buf, len, &e), &e);
  ASSERT_OK(xio_file_close(w, &e), &e);
  free(buf);
}

TEST(pinned_reads_see_one_version_or_fail) {
  xfix fx;
  xio_error e;
  char url[1024];
  xfix_setup(&fx, LOCAL, NULL);
  xio_file *f = xfix_open(&fx, "pin.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, 8 * MiB);
  write_read(f, 0, 2 * MiB, 11);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_target(&fx, "pin.mdf", url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_PINNED; /* a pin without read-only is refused before any request */
  xio_file *p = NULL;
  xfix_trace_reset(&fx);
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &p, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "XIO_OPEN_READONLY");
  ASSERT_EQ(fx.trace.n, 0);
  o.flags = XIO_OPEN_READONLY | XIO_OPEN_PINNED;
  ASSERT_OK(xio_file_open(fx.ctx, url, &o, &p, &e), &e);
  /* Unchanged: reads and listings go through. */
  char *buf = malloc(2 * MiB), *want = malloc(2 * MiB);
  test_fill_random(want, 2 * MiB, 11);
  size_t got = 0;
  ASSERT_OK(xio_file_read(p, 0, buf, 2 * MiB, &got, &e), &e);
  ASSERT_MEM_EQ(buf, want, 2 * MiB);
  xio_ranges r = {0};
  ASSERT_OK(xio_file_ranges(p, &r, &e), &e);
  xio_ranges_clear(&r);
  /* Another client writes the same size in place (a local file's change time must
   * move: wait out a coarse clock's tick first). */
  if (LOCAL) {
    struct timespec tick = {0, 20 * 1000 * 1000};
    nanosleep(&tick, NULL);
  }
  write_elsewhere(&fx, "pin.mdf", MiB, 4096, 'n');
  ASSERT_ERR(xio_file_read(p, 0, buf, 2 * MiB, &got, &e), XIO_ECHANGED, &e);
  ASSERT_CONTAINS(e.message, "changed since it was opened");
  ASSERT_STR_EQ(e.target, xio_file_path(p));
  ASSERT_STR_EQ(e.operation, "ReadFile");
  ASSERT_ERR(xio_file_read(p, 4 * MiB, buf, 4096, &got, &e), XIO_ECHANGED, &e);
  ASSERT_ERR(xio_file_ranges(p, &r, &e), XIO_ECHANGED, &e);
  xio_ranges_clear(&r);
  ASSERT_OK(xio_file_close(p, &e), &e);
  /* A new pinned open sees the new version, as one. */
  ASSERT_OK(xio_file_open(fx.ctx, url, &o, &p, &e), &e);
  ASSERT_OK(xio_file_read(p, MiB, buf, 4096, &got, &e), &e);
  ASSERT_EQ(buf[0], 'n');
  ASSERT_OK(xio_file_close(p, &e), &e);
  free(buf);
  free(want);
  xfix_teardown(&fx);
}

/* XIO_OPEN_MARK_INCOMPLETE: a file the open creates is marked incomplete by its
 * create (no request of its own), so it never exists unmarked; the open that made
 * it may use it, other opens need XIO_OPEN_INCOMPLETE_OK until it is unmarked. It
 * needs a create flag, and a file that exists is opened as it is. */
TEST(a_file_created_marked_incomplete_is_marked_by_its_create) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, LOCAL, NULL);
  char url[600];
  xfix_target(&fx, "marked.mdf", url, sizeof url);
  xfix_trace_reset(&fx);
  xio_file *f = xfix_open(&fx, "marked.mdf", XIO_OPEN_CREATE_ONLY | XIO_OPEN_MARK_INCOMPLETE,
                          XIO_KIND_DATA, MiB);
  ASSERT_EQ(xio_file_incomplete(f), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_SET_SIZE), 0); /* the mark came with the create */
  ASSERT_OK(xio_file_close(f, &e), &e);
  xio_open_options o = xio_open_options_default(); /* the mark is stored: refused */
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_ECONFLICT, &e);
  ASSERT_CONTAINS(e.message, "is incomplete");
  /* With a create flag on a file that exists: opened as it is, still refused. */
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_MARK_INCOMPLETE;
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_ECONFLICT, &e);
  o.flags = XIO_OPEN_INCOMPLETE_OK;
  ASSERT_OK(xio_file_open(fx.ctx, url, &o, &f, &e), &e);
  ASSERT_EQ(xio_file_incomplete(f), 1);
  ASSERT_OK(xio_file_set_incomplete(f, 0, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_MARK_INCOMPLETE; /* exists, unmarked: stays so */
  ASSERT_OK(xio_file_open(fx.ctx, url, &o, &f, &e), &e);
  ASSERT_EQ(xio_file_incomplete(f), 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  o.flags = XIO_OPEN_MARK_INCOMPLETE; /* nothing to create */
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "XIO_OPEN_MARK_INCOMPLETE");
  xfix_teardown(&fx);
}
