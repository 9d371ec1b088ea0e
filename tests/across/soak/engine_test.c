/*
 * engine_test.c - the fault soak of an engine's I/O pattern on page blobs: worker
 * threads write and read random 8 KiB pages of a data file, a log thread appends
 * records to a log file, growing it in steps (clear init policy) and recycling it
 * after a checkpoint (zeroed by clear, shrunk), with flush points on both; all
 * through the fault proxy at the soak's rates for XIO_SOAK_SECONDS.
 *
 * The model: for every data page the seed of the last write acknowledged to its
 * worker (each page belongs to one worker, so acknowledgement order is write order),
 * for the log the records acknowledged since its last checkpoint; everything else
 * reads as zeros. A call that fails has an unknown outcome, so it is issued again
 * until it is acknowledged, as an engine would. Reads through the proxy are checked
 * against the model as the run goes; at the end an independent reader (a fresh
 * context straight to the emulator) reads both files whole and counts the bytes that
 * differ from the model, which must be none.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soakfix.h"
#include "test.h"
#include "util.h"

#define PAGE        8192u
#define DATA_PAGES  4096u /* a 32 MiB data file */
#define WORKERS     6
#define LOG_STEP    (1u << 20)  /* the log grows by 1 MiB */
#define LOG_MAX     (16u << 20) /* and is recycled (checkpoint) before it passes 16 MiB */
#define LOG_RECORDS (LOG_MAX / 512u)
#define MAX_AGAIN   20 /* a call failing this many times in a row fails the soak */
#define CHUNK       (4u << 20)

typedef struct log_record {
  uint64_t off, len, seed;
} log_record;

typedef struct engine {
  soakfix fx;
  xio_file *data, *log;
  uint64_t *page_seed; /* the acknowledged content of each page (0: zeros) */
  log_record *rec;     /* the acknowledged log records since the last checkpoint */
  size_t nrec;
  uint64_t log_size, log_tail;
} engine;

typedef struct worker {
  engine *en;
  int id;
  uint64_t rng;
  soak_result r;
} worker;

static uint64_t next_rand(uint64_t *x) {
  *x ^= *x >> 12, *x ^= *x << 25, *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Dull;
}

/* Reports a failed call (its outcome unknown) and whether to issue it again. */
static int again(soak_result *r, int *tries, const char *what, const xio_error *e) {
  r->failed_ops++;
  if (++*tries < MAX_AGAIN) return 1;
  char buf[1600];
  FAIL("%s failed %d times in a row: %s", what, *tries, xio_error_format(e, buf, sizeof buf));
}

static void write_until_done(xio_file *f, uint64_t off, const void *buf, size_t len, soak_result *r,
                             const char *what) {
  xio_error e;
  int tries = 0;
  while (xio_file_write(f, off, buf, len, &e) != XIO_OK)
    again(r, &tries, what, &e);
}

static void flush_until_done(xio_file *f, soak_result *r, const char *what) {
  xio_error e;
  int tries = 0;
  r->ops++;
  while (xio_file_flush(f, &e) != XIO_OK)
    again(r, &tries, what, &e);
}

/* Reads `len` bytes at `off` through the proxy and compares them with `want`. */
static void read_check(xio_file *f, uint64_t off, void *buf, const void *want, size_t len,
                       soak_result *r) {
  xio_error e;
  size_t n = 0;
  r->ops++;
  if (xio_file_read(f, off, buf, len, &n, &e) != XIO_OK) {
    r->failed_ops++;
    return;
  }
  r->read_checked += len;
  r->read_differ += soakfix_diff(buf, want, len) + (len - n);
}

static void *data_worker(void *arg) {
  worker *w = arg;
  engine *en = w->en;
  unsigned char *buf = malloc(PAGE), *want = malloc(PAGE);
  ASSERT(buf && want);
  uint64_t writes = 0;
  while (soakfix_running(&en->fx)) {
    uint64_t x = next_rand(&w->rng);
    uint64_t page = (x >> 8) % (DATA_PAGES / WORKERS) * WORKERS + (uint64_t)w->id;
    unsigned op = (unsigned)(x % 100);
    if (op < 50) { /* write a page */
      uint64_t seed = ((uint64_t)(w->id + 1) << 40) | ++writes;
      soakfix_fill(buf, PAGE, seed);
      w->r.ops++;
      write_until_done(en->data, page * PAGE, buf, PAGE, &w->r, "a data page write");
      en->page_seed[page] = seed; /* acknowledged */
    } else if (op < 95) {         /* read a page back */
      soakfix_fill(want, PAGE, en->page_seed[page]);
      read_check(en->data, page * PAGE, buf, want, PAGE, &w->r);
    } else { /* an fsync point */
      flush_until_done(en->data, &w->r, "a data file flush");
    }
  }
  free(buf);
  free(want);
  return NULL;
}

/* Makes `size` the log's size (clear init for growth), until acknowledged. */
static void log_set_size(engine *en, uint64_t size, soak_result *r) {
  xio_error e;
  int tries = 0;
  r->ops++;
  while (xio_file_set_size(en->log, size, XIO_INIT_DEFAULT, &e) != XIO_OK)
    again(r, &tries, "a log growth", &e);
  en->log_size = size;
}

/* A checkpoint: the log's records are no longer needed; zero them (clear) and
 * shrink the log back to one step. */
static void log_recycle(engine *en, soak_result *r) {
  xio_error e;
  int tries = 0;
  r->ops++;
  while (xio_file_zero(en->log, 0, en->log_tail, XIO_INIT_CLEAR, &e) != XIO_OK)
    again(r, &tries, "zeroing the log", &e);
  en->nrec = 0;
  en->log_tail = 0;
  log_set_size(en, LOG_STEP, r);
}

/* Reads the last record and the zeros after it back through the proxy. */
static void log_read_back(engine *en, unsigned char *buf, unsigned char *want, soak_result *r) {
  if (en->nrec) {
    const log_record *l = &en->rec[en->nrec - 1];
    soakfix_fill(want, l->len, l->seed);
    read_check(en->log, l->off, buf, want, l->len, r);
  }
  uint64_t n = en->log_size - en->log_tail < 65536 ? en->log_size - en->log_tail : 65536;
  if (n) {
    memset(want, 0, n);
    read_check(en->log, en->log_tail, buf, want, n, r);
  }
}

static void *log_writer(void *arg) {
  worker *w = arg;
  engine *en = w->en;
  unsigned char *buf = malloc(65536), *want = malloc(65536);
  ASSERT(buf && want);
  uint64_t appends = 0;
  while (soakfix_running(&en->fx)) {
    uint64_t len = 512 * (1 + next_rand(&w->rng) % 128);
    if (en->log_tail + len > LOG_MAX) log_recycle(en, &w->r);
    if (en->log_tail + len > en->log_size) log_set_size(en, en->log_size + LOG_STEP, &w->r);
    uint64_t seed = (0xffull << 40) | ++appends;
    soakfix_fill(buf, len, seed);
    w->r.ops++;
    write_until_done(en->log, en->log_tail, buf, len, &w->r, "a log append");
    en->rec[en->nrec++] = (log_record){en->log_tail, len, seed};
    en->log_tail += len;
    if (appends % 8 == 0) flush_until_done(en->log, &w->r, "a log flush"); /* a commit */
    if (appends % 16 == 0) log_read_back(en, buf, want, &w->r);
  }
  free(buf);
  free(want);
  return NULL;
}

static xio_file *open_proxied(engine *en, const char *name, xio_kind kind, uint64_t size) {
  char url[512];
  soakfix_url(&en->fx, name, 0, url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  o.kind = kind;
  o.size = size;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(en->fx.ctx, url, &o, &f, &e), &e);
  ASSERT_U64_EQ(xio_file_size(f), size);
  return f;
}

/* The independent reader: reads `name` whole straight from the emulator and counts
 * the bytes that differ from `want` (`size` bytes). */
static void verify_file(engine *en, xio_ctx *direct, const char *name, const unsigned char *want,
                        uint64_t size, soak_result *r) {
  char url[512];
  soakfix_url(&en->fx, name, 1, url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(direct, url, &o, &f, &e), &e);
  ASSERT_U64_EQ(xio_file_size(f), size);
  unsigned char *buf = malloc(CHUNK);
  ASSERT(buf != NULL);
  for (uint64_t off = 0; off < size; off += CHUNK) {
    size_t len = size - off < CHUNK ? (size_t)(size - off) : CHUNK, n = 0;
    ASSERT_OK(xio_file_read(f, off, buf, len, &n, &e), &e);
    ASSERT_EQ(n, len);
    r->bytes_checked += len;
    r->bytes_differ += soakfix_diff(buf, want + off, len);
  }
  free(buf);
  ASSERT_OK(xio_file_close(f, &e), &e);
}

static void verify(engine *en, soak_result *r) {
  xio_ctx *direct = soakfix_direct_ctx(&en->fx);
  unsigned char *want = malloc((size_t)DATA_PAGES * PAGE);
  ASSERT(want != NULL);
  for (uint64_t p = 0; p < DATA_PAGES; p++)
    soakfix_fill(want + p * PAGE, PAGE, en->page_seed[p]);
  verify_file(en, direct, "soak.mdf", want, (uint64_t)DATA_PAGES * PAGE, r);
  memset(want, 0, en->log_size);
  for (size_t i = 0; i < en->nrec; i++)
    soakfix_fill(want + en->rec[i].off, en->rec[i].len, en->rec[i].seed);
  verify_file(en, direct, "soak_log.ldf", want, en->log_size, r);
  free(want);
  xio_ctx_free(direct);
}

static void add_result(soak_result *to, const soak_result *r) {
  to->ops += r->ops;
  to->failed_ops += r->failed_ops;
  to->read_checked += r->read_checked;
  to->read_differ += r->read_differ;
}

TEST(pages_and_log_through_faults) {
  engine en;
  memset(&en, 0, sizeof en);
  soakfix_setup(&en.fx, "soak-engine");
  soakfix_ctx(&en.fx);
  en.page_seed = calloc(DATA_PAGES, sizeof *en.page_seed);
  en.rec = calloc(LOG_RECORDS, sizeof *en.rec);
  ASSERT(en.page_seed && en.rec);
  en.data = open_proxied(&en, "soak.mdf", XIO_KIND_DATA, (uint64_t)DATA_PAGES * PAGE);
  en.log = open_proxied(&en, "soak_log.ldf", XIO_KIND_LOG, LOG_STEP);
  en.log_size = LOG_STEP;
  worker w[WORKERS + 1];
  pthread_t th[WORKERS + 1];
  for (int i = 0; i <= WORKERS; i++) {
    w[i] = (worker){&en, i, 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1) ^ en.fx.rates.seed, {0}};
    ASSERT_EQ(pthread_create(&th[i], NULL, i < WORKERS ? data_worker : log_writer, &w[i]), 0);
  }
  soak_result total = {0};
  for (int i = 0; i <= WORKERS; i++) {
    ASSERT_EQ(pthread_join(th[i], NULL), 0);
    add_result(&total, &w[i].r);
  }
  /* Closing releases the leases through the proxy too; a failure there loses no
   * data (the reader needs no lease), so it is counted, not fatal. */
  xio_error e;
  if (xio_file_close(en.data, &e) != XIO_OK) total.failed_ops++;
  if (xio_file_close(en.log, &e) != XIO_OK) total.failed_ops++;
  total.ops += 2;
  verify(&en, &total);
  soakfix_report(&en.fx, "engine", &en.fx.trace, &total);
  soakfix_teardown(&en.fx);
  free(en.page_seed);
  free(en.rec);
}
