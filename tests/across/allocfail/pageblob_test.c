/*
 * pageblob_test.c - allocation failure in a page blob's life on Azurite: a context
 * made, the blob opened (created on the first run), set back to its size, written
 * asynchronously, read back, grown by a metadata clear, zeroed in the grown part,
 * closed, the context freed. Every failure point (or every k-th, see failalloc.h) is
 * failed in turn: once with a small write (one request), once with a write the file
 * layer splits into two requests (4 MiB and 64 KiB), fewer points since each run
 * moves megabytes.
 *
 * After each run, a fresh context re-reads the blob: each request-sized piece of the
 * write holds either the bytes it held before or the new ones (never a mix), as the
 * API promises; a run that succeeded left all new bytes and the grown part zero. The
 * write's completion callback must run on the context's threads, never on the
 * thread that submitted it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <xio/xio.h>
#include <xio/error_int.h>

#include "failalloc.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

#define PIECE (4u << 20) /* the largest request a write is split into */
#define GROW  (1u << 20) /* what each run adds after the write */

typedef struct pb {
  char target[512];
  size_t size;           /* what each run writes, from offset 0 */
  int npieces;           /* requests the write is split into (1 or 2) */
  unsigned char *pat[4]; /* patterns 1..3 (`size` bytes each); 0 means zeros */
  int seed;              /* this run's pattern: one that no piece holds now */
  int had[2];            /* the pattern each piece held before this run (0: none) */
  unsigned char *want;   /* = pat[seed] */
  unsigned char *got;    /* what the check reads back */
  xio_io io;             /* the write: outlives its callback (it may run after a wait) */
  pthread_t submitter;   /* the thread that submitted the write */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int callbacks; /* completions seen */
  int wrong_thread;
} pb;

static uint64_t piece_off(int k) { return k ? PIECE : 0; }

static size_t piece_len(const pb *p, int k) {
  return k ? p->size - PIECE : p->size < PIECE ? p->size : PIECE;
}

static xio_ctx_options options(void) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = test_dev_connection_string();
  o.retry.base_delay_ms = 1; /* a failure that is retried costs no waiting */
  o.retry.max_delay_ms = 5;
  return o;
}

static void on_write(xio_io *io, void *ud) {
  (void)io;
  pb *p = ud;
  pthread_mutex_lock(&p->mu);
  if (pthread_equal(pthread_self(), p->submitter)) p->wrong_thread = 1;
  p->callbacks++;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

static void pb_reset(void *ud) {
  pb *p = ud;
  for (p->seed = 1; p->seed == p->had[0] || p->seed == p->had[1]; p->seed++)
    ;
  p->want = p->pat[p->seed];
  p->callbacks = 0;
  p->wrong_thread = 0;
}

/* The write, submitted asynchronously; waits for its callback. */
static xio_err write_async(pb *p, xio_file *f, xio_error *err) {
  xio_io *io = &p->io;
  memset(io, 0, sizeof *io);
  io->op = XIO_IO_WRITE;
  io->offset = 0;
  io->length = p->size;
  io->buf = p->want;
  io->done = on_write;
  io->ud = p;
  p->submitter = pthread_self();
  xio_err rc = xio_file_submit(f, io, err);
  if (rc != XIO_OK) return rc;
  pthread_mutex_lock(&p->mu);
  while (p->callbacks == 0)
    pthread_cond_wait(&p->cv, &p->mu);
  pthread_mutex_unlock(&p->mu);
  rc = io->result;
  if (rc != XIO_OK) *err = io->error;
  return rc;
}

static xio_err file_steps(pb *p, xio_file *f, xio_error *err) {
  xio_err rc = xio_file_set_size(f, p->size, XIO_INIT_CLEAR, err);
  if (rc == XIO_OK) rc = write_async(p, f, err);
  size_t n = 0, at = p->size - 4096; /* across the two requests when there are two */
  if (p->npieces == 2) at = PIECE - 2048;
  if (rc == XIO_OK) rc = xio_file_read(f, at, p->got, 4096, &n, err);
  if (rc == XIO_OK && (n != 4096 || memcmp(p->got, p->want + at, 4096) != 0))
    return xio_error_set(err, XIO_EIO, "read back other bytes than written");
  if (rc == XIO_OK) rc = xio_file_set_size(f, p->size + GROW, XIO_INIT_CLEAR, err);
  if (rc == XIO_OK) rc = xio_file_zero(f, p->size, 64 << 10, XIO_INIT_CLEAR, err);
  return rc;
}

static xio_err pb_op(void *ud, xio_error *err) {
  pb *p = ud;
  xio_ctx_options o = options();
  xio_ctx *ctx = NULL;
  xio_err rc = xio_ctx_new(&o, &ctx, err);
  if (rc != XIO_OK) return rc;
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE;
  oo.kind = XIO_KIND_LOG;
  oo.size = p->size;
  xio_file *f = NULL;
  rc = xio_file_open(ctx, p->target, &oo, &f, err);
  if (rc == XIO_OK) {
    rc = file_steps(p, f, err);
    xio_error cerr;
    xio_error_clear(&cerr);
    xio_err crc = xio_file_close(f, &cerr);
    if (rc == XIO_OK && crc != XIO_OK) rc = crc, *err = cerr;
  }
  xio_ctx_free(ctx);
  return rc;
}

/* Which pattern piece `k` holds: the new one, the old one, or -1 (a mix). */
static int piece_state(pb *p, int k) {
  const unsigned char *g = p->got + piece_off(k);
  size_t n = piece_len(p, k);
  if (memcmp(g, p->want + piece_off(k), n) == 0) return p->seed;
  if (memcmp(g, p->pat[p->had[k]] + piece_off(k), n) == 0) return p->had[k];
  return -1;
}

static void pb_check(void *ud, xio_err rc, int injected) {
  pb *p = ud;
  (void)injected;
  if (p->wrong_thread) FAIL("a write completion ran on the submitting thread");
  if (p->callbacks > 1) FAIL("a write completion ran twice");
  xio_ctx_options o = options();
  xio_ctx *ctx = NULL;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_err orc = xio_file_open(ctx, p->target, &oo, &f, &e);
  if (orc == XIO_ENOTFOUND && rc != XIO_OK && p->had[0] == 0) { /* never created */
    xio_ctx_free(ctx);
    return;
  }
  ASSERT_OK(orc, &e);
  uint64_t size = xio_file_size(f);
  size_t n = 0;
  memset(p->got, 0xEE, p->size);
  ASSERT_OK(xio_file_read(f, 0, p->got, p->size, &n, &e), &e);
  for (int k = 0; k < p->npieces; k++) {
    if (piece_off(k) + piece_len(p, k) > n) FAIL("the blob lost its first %zu bytes", p->size);
    int st = piece_state(p, k);
    if (st < 0)
      FAIL("%s (%s): piece %d (offset %llu, %zu bytes) holds neither its old nor its new "
           "bytes: a write applied half-way",
           p->target, xio_err_name(rc), k, (unsigned long long)piece_off(k), piece_len(p, k));
    p->had[k] = st;
  }
  if (rc == XIO_OK) {
    if (p->callbacks != 1) FAIL("the write completed without its callback");
    ASSERT_U64_EQ(size, p->size + GROW);
    ASSERT(p->had[0] == p->seed && (p->npieces == 1 || p->had[1] == p->seed));
    ASSERT_OK(xio_file_read(f, p->size, p->got, GROW, &n, &e), &e);
    ASSERT(n == GROW && test_all_zero(p->got, n));
  }
  ASSERT_OK(xio_file_close(f, &e), &e);
  xio_ctx_free(ctx);
}

/* Drives the life of a blob written `size` bytes at a time, within `budget` points. */
static void life(const char *name, size_t size, int budget, int min_points) {
  af_install();
  pb p;
  memset(&p, 0, sizeof p);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.cv, NULL);
  char cont[64];
  test_unique_name(cont, sizeof cont, "allocfail");
  snprintf(p.target, sizeof p.target, "%s/%s/%s.ldf", test_account_url(), cont, name);
  p.size = size;
  p.npieces = size > PIECE ? 2 : 1;
  p.got = malloc(size + GROW);
  ASSERT(p.got != NULL);
  for (int i = 0; i < 4; i++) {
    p.pat[i] = i ? malloc(size) : calloc(1, size);
    ASSERT(p.pat[i] != NULL);
    if (i) test_fill_random(p.pat[i], size, (uint64_t)i);
  }
  af_scenario s = {.name = name,
                   .op = pb_op,
                   .reset = pb_reset,
                   .check = pb_check,
                   .ud = &p,
                   .budget = budget,
                   .min_points = min_points};
  af_run(&s);
  for (int i = 0; i < 4; i++)
    free(p.pat[i]);
  free(p.got);
}

TEST(pageblob_life) { life("pageblob_life", 64 << 10, 400, 200); }

TEST(pageblob_split_write) { life("pageblob_split_write", PIECE + (64 << 10), 40, 30); }
