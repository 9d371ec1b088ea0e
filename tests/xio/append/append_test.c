/*
 * append_test.c - the log writer's pattern: records appended one asynchronous
 * xio_file_submit each to a log opened XIO_OPEN_EXCLUSIVE | XIO_OPEN_UNALIGNED and
 * grown ahead with clear, xio_file_flush after every N. The file layer fills edge
 * sectors from what it knows (the partial sectors it wrote, zeros past its
 * high-water mark) and combines the writes queued between flushes into one request
 * of up to 4 MiB, so a flush costs about one write request and no read. Counts come
 * from xio_file_stats and the trace; the content is checked byte for byte.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "util.h"
#include "xfix.h"

#define MIB (1024u * 1024u)

typedef struct appender {
  xio_file *f;
  xio_io *ios;
  char *data; /* every record, back to back: record i is data + i * size */
  size_t size;
  int records, flush_every;
  atomic_int completed;
} appender;

static void on_done(xio_io *io, void *ud) {
  appender *a = ud;
  if (io->result == XIO_OK && io->transferred == io->length) atomic_fetch_add(&a->completed, 1);
}

/* Record i: bytes that differ between records and positions. */
static void fill(appender *a) {
  size_t total = a->size * (size_t)a->records;
  a->data = malloc(total);
  ASSERT(a->data != NULL);
  for (size_t i = 0; i < total; i++)
    a->data[i] = (char)('a' + (i * 7 + i / a->size) % 26);
}

/* Appends every record, flushing every flush_every; each flush must find all the
 * records before it completed. */
static void run(appender *a) {
  xio_error e;
  a->ios = calloc((size_t)a->records, sizeof *a->ios);
  ASSERT(a->ios != NULL);
  for (int i = 0; i < a->records; i++) {
    xio_io *io = &a->ios[i];
    io->op = XIO_IO_WRITE;
    io->offset = (uint64_t)i * a->size;
    io->length = a->size;
    io->buf = a->data + (size_t)i * a->size;
    io->done = on_done;
    io->ud = a;
    ASSERT_OK(xio_file_submit(a->f, io, &e), &e);
    if ((i + 1) % a->flush_every == 0) {
      ASSERT_OK(xio_file_flush(a->f, &e), &e);
      ASSERT_EQ(atomic_load(&a->completed), i + 1);
    }
  }
  ASSERT_OK(xio_file_flush(a->f, &e), &e);
  ASSERT_EQ(atomic_load(&a->completed), a->records);
}

/* The file holds the records, then zeros up to `check_len`. */
static void check_content(appender *a, uint64_t check_len) {
  xio_error e;
  size_t total = a->size * (size_t)a->records, n = 0;
  char *got = malloc((size_t)check_len);
  ASSERT(got != NULL);
  ASSERT_OK(xio_file_read(a->f, 0, got, (size_t)check_len, &n, &e), &e);
  ASSERT_U64_EQ(n, check_len);
  ASSERT_MEM_EQ(got, a->data, total);
  for (size_t i = total; i < check_len; i++)
    if (got[i]) ASSERT_EQ(got[i], 0);
  free(got);
}

/* Opens a fresh log grown ahead with clear to `size` bytes. */
static xio_file *open_log(xfix *fx, const char *name, uint64_t size) {
  char url[1024];
  xfix_target(fx, name, url, sizeof url);
  return xfix_open_url(fx, url, XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE | XIO_OPEN_UNALIGNED,
                       XIO_KIND_LOG, size);
}

/* Runs the pattern and asserts its request counts: no reads at all, and at most
 * 1.2 write requests per flush for every 4 MiB a flush carries. */
static void append_case(int local, size_t size, int records, int flush_every) {
  xfix fx;
  /* A window longer than any stall of the submitting loop (a loaded machine, a
   * sanitizer that makes copying 6 MB take longer than the default 2 ms): the
   * flushes, not the clock, decide what is combined. */
  xio_ctx_options o = xio_ctx_options_default();
  o.combine_window_us = 60 * 1000 * 1000;
  xfix_setup(&fx, local, &o);
  uint64_t total = (uint64_t)size * (uint64_t)records, log_size = total + MIB;
  appender a = {.size = size, .records = records, .flush_every = flush_every};
  fill(&a);
  a.f = open_log(&fx, "append.ldf", log_size);
  xio_file_stats before, after;
  xio_file_get_stats(a.f, &before);
  run(&a);
  xio_file_get_stats(a.f, &after);
  uint64_t flushes = (uint64_t)((records + flush_every - 1) / flush_every);
  uint64_t per_flush = ((uint64_t)size * (uint64_t)flush_every + 4 * MIB - 1) / (4 * MIB);
  uint64_t writes = after.write_requests - before.write_requests;
  fprintf(stderr, "%zu B x %d, flush every %d (%s): %llu write requests for %llu flushes\n", size,
          records, flush_every, local ? "local" : "page blob", (unsigned long long)writes,
          (unsigned long long)flushes);
  ASSERT(writes * 10 <= flushes * per_flush * 12);
  ASSERT(writes >= flushes * per_flush);
  ASSERT_U64_EQ(after.read_requests - before.read_requests, 0);
  ASSERT_U64_EQ(after.readback_requests, 0);
  ASSERT_U64_EQ(after.writes - before.writes, (uint64_t)records); /* API writes */
  ASSERT_U64_EQ(after.bytes_written - before.bytes_written, total);
  check_content(&a, total + 4096);
  ASSERT_OK(xio_file_close(a.f, NULL), NULL);
  free(a.ios);
  free(a.data);
  xfix_teardown(&fx);
}

TEST(appends_of_100_bytes_make_one_write_per_flush_pageblob) { append_case(0, 100, 10000, 100); }

TEST(appends_of_4_kib_make_one_write_per_flush_pageblob) { append_case(0, 4096, 1000, 100); }

TEST(appends_of_60_kib_fill_4_mib_writes_pageblob) { append_case(0, 60 * 1024, 200, 100); }

TEST(appends_of_100_bytes_make_one_write_per_flush_local) { append_case(1, 100, 10000, 100); }

TEST(appends_of_60_kib_fill_4_mib_writes_local) { append_case(1, 60 * 1024, 200, 100); }

/* Flushing after every record: each record is one write of its sectors, the partial
 * sector before it coming from memory, never a read. */
TEST(flush_after_every_append_reads_nothing_pageblob) { append_case(0, 100, 300, 1); }

/* An existing log whose content the handle has not seen: each sector an append only
 * partly covers is read back the first time, and never again (50 appends of 10 bytes
 * across two sectors: two reads). */
TEST(an_unknown_sector_is_read_back_once) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  char url[1024];
  xfix_target(&fx, "known.ldf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE | XIO_OPEN_UNALIGNED, XIO_KIND_LOG, 8192);
  char old[1000];
  memset(old, 'o', sizeof old);
  ASSERT_OK(xio_file_write(f, 0, old, sizeof old, &e), &e); /* aligned middle, sector edge */
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = xfix_open_url(&fx, url, XIO_OPEN_EXCLUSIVE | XIO_OPEN_UNALIGNED, XIO_KIND_LOG, 0);
  char rec[10];
  memset(rec, 'n', sizeof rec);
  for (int i = 0; i < 50; i++)
    ASSERT_OK(xio_file_write(f, sizeof old + (uint64_t)i * sizeof rec, rec, sizeof rec, &e), &e);
  xio_file_stats s;
  xio_file_get_stats(f, &s);
  ASSERT_U64_EQ(s.readback_requests, 2); /* the sectors at 512 and 1024 */
  ASSERT_U64_EQ(s.read_requests, 2);
  char got[1600];
  size_t n = 0;
  ASSERT_OK(xio_file_read(f, 0, got, sizeof got, &n, &e), &e);
  for (size_t i = 0; i < sizeof got; i++)
    ASSERT_EQ(got[i], i < 1000 ? 'o' : i < 1500 ? 'n' : 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

/* The same kind of log, but the engine says that nothing past where it starts
 * appending is relied on (xio_file_forget_from: a log that starts over): the edge
 * sectors past its records are filled with zeros, nothing is read back, and bytes
 * the appends do not reach stay as they were on storage. */
TEST(forgotten_bytes_are_not_read_back) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  char url[1024];
  xfix_target(&fx, "restart.ldf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE | XIO_OPEN_UNALIGNED, XIO_KIND_LOG, 8192);
  char old[2000];
  memset(old, 'o', sizeof old);
  ASSERT_OK(xio_file_write(f, 0, old, sizeof old, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = xfix_open_url(&fx, url, XIO_OPEN_EXCLUSIVE | XIO_OPEN_UNALIGNED, XIO_KIND_LOG, 0);
  xio_file_forget_from(f, 1024);
  char rec[10];
  memset(rec, 'n', sizeof rec);
  for (int i = 0; i < 50; i++)
    ASSERT_OK(xio_file_write(f, 1024 + (uint64_t)i * sizeof rec, rec, sizeof rec, &e), &e);
  xio_file_stats s;
  xio_file_get_stats(f, &s);
  ASSERT_U64_EQ(s.readback_requests, 0);
  ASSERT_U64_EQ(s.read_requests, 0);
  char got[2600];
  size_t n = 0;
  ASSERT_OK(xio_file_read(f, 0, got, sizeof got, &n, &e), &e);
  for (size_t i = 0; i < sizeof got; i++)
    ASSERT_EQ(got[i], i < 1024 ? 'o' : i < 1524 ? 'n' : i < 1536 ? 0 : i < 2000 ? 'o' : 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

/* Writes to the same sectors submitted one after the other land in that order, and
 * each write's callback runs once; a write in between that touches neither goes
 * too. */
static void overlapping_keep_order(int local) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_log(&fx, "order.ldf", MIB);
  enum { N = 64 };
  static char bufs[N][700];
  xio_io ios[N];
  appender a = {0};
  memset(ios, 0, sizeof ios);
  for (int i = 0; i < N; i++) {
    memset(bufs[i], 'A' + i % 26, sizeof bufs[i]);
    ios[i].op = XIO_IO_WRITE;
    /* all overlap the sector at 512; every 8th is far away */
    ios[i].offset = i % 8 == 7 ? 65536 + (uint64_t)i * 1000 : 300 + (uint64_t)(i % 5) * 50;
    ios[i].length = sizeof bufs[i];
    ios[i].buf = bufs[i];
    ios[i].done = on_done;
    ios[i].ud = &a;
    ASSERT_OK(xio_file_submit(f, &ios[i], &e), &e);
    if (i % 16 == 15) ASSERT_OK(xio_io_wait(&ios[i]), &ios[i].error); /* some sent mid-way */
  }
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_EQ(atomic_load(&a.completed), N);
  /* The last overlapping write wins where it covers; earlier ones show around it. */
  char want[2048], got[2048];
  memset(want, 0, sizeof want);
  for (int i = 0; i < N; i++)
    if (i % 8 != 7) memcpy(want + ios[i].offset, bufs[i], sizeof bufs[i]);
  size_t n = 0;
  ASSERT_OK(xio_file_read(f, 0, got, sizeof got, &n, &e), &e);
  ASSERT_MEM_EQ(got, want, sizeof want);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(overlapping_writes_keep_their_order_pageblob) { overlapping_keep_order(0); }

TEST(overlapping_writes_keep_their_order_local) { overlapping_keep_order(1); }

/* A write nobody waits for still goes out once the combining window passes: its
 * callback runs without a flush. */
TEST(a_write_nobody_waits_for_completes_on_its_own) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f = open_log(&fx, "alone.ldf", MIB);
  appender a = {0};
  char rec[100];
  memset(rec, 'r', sizeof rec);
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_WRITE;
  io.offset = 10;
  io.length = sizeof rec;
  io.buf = rec;
  io.done = on_done;
  io.ud = &a;
  ASSERT_OK(xio_file_submit(f, &io, &e), &e);
  for (int i = 0; i < 10000 && atomic_load(&a.completed) == 0; i++) {
    struct timespec ts = {0, 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  ASSERT_EQ(atomic_load(&a.completed), 1);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

/* Submits a write of `len` bytes of `buf` at `off` to `f`. */
static void submit_at(xio_file *f, xio_io *io, uint64_t off, char *buf, size_t len) {
  xio_error e;
  memset(io, 0, sizeof *io);
  io->op = XIO_IO_WRITE;
  io->offset = off;
  io->length = len;
  io->buf = buf;
  ASSERT_OK(xio_file_submit(f, io, &e), &e);
}

static void sleep_s(int s) {
  struct timespec ts = {s, 0};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* The combining window of a write counts from the first write queued after the last
 * send, not from a write a flush already sent: with a 5 s window, a record flushed at
 * once, then 3 s later a record and 3 s after it one that touches it, then a flush:
 * one write request for the two (what was left of the first record's window would
 * have passed between them and sent the first alone). The sleeps leave a busy
 * machine 2 s of lateness. */
TEST(a_flush_restarts_the_combining_window) {
  xfix fx;
  xio_error e;
  xio_ctx_options o = xio_ctx_options_default();
  o.combine_window_us = 5 * 1000 * 1000;
  xfix_setup(&fx, 1, &o);
  xio_file *f = open_log(&fx, "restart.ldf", MIB);
  static char rec[3][100];
  memset(rec, 'w', sizeof rec);
  xio_io io[3];
  submit_at(f, &io[0], 0, rec[0], sizeof rec[0]);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  xio_file_stats before, after;
  xio_file_get_stats(f, &before);
  sleep_s(3);
  submit_at(f, &io[1], 100, rec[1], sizeof rec[1]);
  sleep_s(3);
  submit_at(f, &io[2], 200, rec[2], sizeof rec[2]);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  xio_file_get_stats(f, &after);
  ASSERT_U64_EQ(after.write_requests - before.write_requests, 1);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

/* Group commit: records queued on a log and pages on a data file, then one
 * xio_ctx_wait: both files' writes are sent then (the window is far off) and every
 * one has completed when it returns, each file's in one write request. */
TEST(ctx_wait_sends_and_waits_for_every_file) {
  xfix fx;
  xio_error e;
  xio_ctx_options o = xio_ctx_options_default();
  o.combine_window_us = 60 * 1000 * 1000; /* only the wait sends them */
  xfix_setup(&fx, 0, &o);
  xio_file *log = open_log(&fx, "group.ldf", MIB);
  char url[1024];
  xfix_target(&fx, "group.mdf", url, sizeof url);
  xio_file *data =
      xfix_open_url(&fx, url, XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA, MIB);
  appender a = {0};
  static char rec[10][300], page[4][8192];
  xio_io ios[14];
  memset(ios, 0, sizeof ios);
  for (int i = 0; i < 14; i++) {
    xio_io *io = &ios[i];
    io->op = XIO_IO_WRITE;
    io->done = on_done;
    io->ud = &a;
    if (i < 10) {
      memset(rec[i], 'a' + i, sizeof rec[i]);
      io->offset = (uint64_t)i * sizeof rec[i], io->length = sizeof rec[i], io->buf = rec[i];
      ASSERT_OK(xio_file_submit(log, io, &e), &e);
    } else {
      memset(page[i - 10], 'P', sizeof page[i - 10]);
      io->offset = (uint64_t)(i - 10) * 8192, io->length = 8192, io->buf = page[i - 10];
      ASSERT_OK(xio_file_submit(data, io, &e), &e);
    }
  }
  ASSERT_EQ(atomic_load(&a.completed), 0); /* held for combining */
  ASSERT_OK(xio_ctx_wait(fx.ctx, &e), &e);
  ASSERT_EQ(atomic_load(&a.completed), 14);
  xio_file_stats ls, ds;
  xio_file_get_stats(log, &ls);
  xio_file_get_stats(data, &ds);
  ASSERT_U64_EQ(ls.write_requests, 1);
  ASSERT_U64_EQ(ds.write_requests, 1);
  ASSERT_U64_EQ(ls.read_requests + ds.read_requests, 0);
  /* xio_file_wait alike, on one file. */
  memset(&ios[0], 0, sizeof ios[0]);
  ios[0].op = XIO_IO_WRITE, ios[0].offset = 3000, ios[0].length = 10, ios[0].buf = rec[0];
  ASSERT_OK(xio_file_submit(log, &ios[0], &e), &e);
  ASSERT_OK(xio_file_wait(log, &e), &e);
  ASSERT_EQ(xio_io_poll(&ios[0]), 1);
  ASSERT_OK(ios[0].result, &ios[0].error);
  ASSERT_OK(xio_file_close(log, &e), &e);
  ASSERT_OK(xio_file_close(data, &e), &e);
  xfix_teardown(&fx);
}
