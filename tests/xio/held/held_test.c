/*
 * held_test.c - held writes (write-back): an engine like SQLite holds its small
 * writes in the file layer's memory (xio_file_hold) and has them sent at its sync
 * (xio_file_flush), the commit range last. The tests count storage requests with
 * xio_file_stats and the trace, check what reads see while bytes are held, and read
 * what reached storage through a second, read-only open of the same file.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util.h"
#include "xfix.h"

#define KIB  1024u
#define MIB  (1024u * 1024u)
#define EXCL (XIO_OPEN_EXCLUSIVE | XIO_OPEN_UNALIGNED)

/* ------------------------------------------------------------- helpers ---- */

/* Opens file `name` of the fixture, created as a data file of `size` bytes. */
static xio_file *open_new(xfix *fx, const char *name, unsigned flags, uint64_t size) {
  return xfix_open(fx, name, XIO_OPEN_CREATE | flags, XIO_KIND_DATA, size);
}

/* A second open of file `name`, read-only: what storage holds, not the writer's memory. */
static xio_file *open_reader(xfix *fx, const char *name) {
  return xfix_open(fx, name, XIO_OPEN_READONLY, XIO_KIND_DATA, 0);
}

/* `n` bytes that differ from record to record and position to position. */
static char *pattern(size_t n, unsigned seed) {
  char *p = malloc(n);
  ASSERT(p != NULL);
  for (size_t i = 0; i < n; i++)
    p[i] = (char)('a' + (i * 7 + i / 100 + seed) % 26);
  return p;
}

/* Reads exactly `len` bytes at `off` of `f` into a new buffer (the caller frees it). */
static char *read_at(xio_file *f, uint64_t off, size_t len) {
  xio_error e;
  size_t n = 0;
  char *buf = malloc(len);
  ASSERT(buf != NULL);
  ASSERT_OK(xio_file_read(f, off, buf, len, &n, &e), &e);
  ASSERT_U64_EQ(n, len);
  return buf;
}

/* Asserts that `len` bytes of file `name` at `off` on storage equal `want`. */
static void storage_has(xfix *fx, const char *name, uint64_t off, const void *want, size_t len) {
  xio_file *r = open_reader(fx, name);
  char *got = read_at(r, off, len);
  ASSERT_MEM_EQ(got, want, len);
  free(got);
  ASSERT_OK(xio_file_close(r, NULL), NULL);
}

/* Asserts that `len` bytes of `buf` all are `c`. */
static void all_are(const char *buf, size_t len, char c) {
  for (size_t i = 0; i < len; i++)
    if (buf[i] != c) FAIL("byte %zu of %zu is 0x%02x, not 0x%02x", i, len, buf[i], c);
}

/* Nothing held on `f`. */
static void nothing_held(xio_file *f) {
  ASSERT_U64_EQ(xio_file_held_bytes(f), 0);
  ASSERT_U64_EQ(xio_file_held_end(f), 0);
}

/* The requests of one type the trace saw complete, in the order they completed. */
typedef struct seen {
  int n;
  uint64_t off[64], len[64];
} seen;

static void requests_seen(xfix *fx, xio_request_type type, seen *s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_lock(&fx->trace.mu);
  for (int i = 0; i < fx->trace.n; i++) {
    const xfix_event *ev = &fx->trace.ev[i];
    if (ev->type != type || strcmp(ev->event, "xio_send_complete") != 0) continue;
    ASSERT(s->n < 64);
    s->off[s->n] = ev->offset;
    s->len[s->n] = ev->length;
    s->n++;
  }
  pthread_mutex_unlock(&fx->trace.mu);
}

/* 1 when write `i` of `s` covers byte `at`. */
static int covers(const seen *s, int i, uint64_t at) {
  return s->off[i] <= at && at < s->off[i] + s->len[i];
}

/* The runs xio_file_held_each visits, copied. */
typedef struct runs {
  int n;
  uint64_t off[16];
  size_t len[16];
  char *buf[16];
} runs;

static void collect(uint64_t off, const void *buf, size_t len, void *ud) {
  runs *r = ud;
  ASSERT(r->n < 16);
  r->off[r->n] = off;
  r->len[r->n] = len;
  r->buf[r->n] = malloc(len ? len : 1);
  ASSERT(r->buf[r->n] != NULL);
  memcpy(r->buf[r->n], buf, len);
  r->n++;
}

static void count_run(uint64_t off, const void *buf, size_t len, void *ud) {
  (void)off, (void)buf, (void)len;
  (*(int *)ud)++;
}

static void runs_of(xio_file *f, runs *r) {
  memset(r, 0, sizeof *r);
  xio_file_held_each(f, collect, r);
}

static void runs_free(runs *r) {
  for (int i = 0; i < r->n; i++)
    free(r->buf[i]);
  memset(r, 0, sizeof *r);
}

/* Holds `len` bytes of `c` at `off`. */
static void hold_fill(xio_file *f, uint64_t off, size_t len, char c) {
  xio_error e;
  char *buf = malloc(len);
  ASSERT(buf != NULL);
  memset(buf, c, len);
  ASSERT_OK(xio_file_hold(f, off, buf, len, &e), &e);
  free(buf);
}

/* Holds `records` records of `size` bytes back to back from 0, from `data`. */
static void hold_records(xio_file *f, const char *data, size_t size, int records) {
  xio_error e;
  for (int i = 0; i < records; i++)
    ASSERT_OK(xio_file_hold(f, (uint64_t)i * size, data + (size_t)i * size, size, &e), &e);
}

/* ------------------------------------------------------- holding, reads ---- */

/* 1,000 records of 100 B held over bytes already on storage: no request of any
 * kind, the held bytes counted, and every read sees them over storage's. */
static void hold_sends_nothing_and_reads_see_it(int local) {
  enum { SIZE = 100, RECORDS = 1000, TOTAL = SIZE * RECORDS, OLD = 150000 };
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_new(&fx, "hold.db", EXCL, MIB);
  char *old = malloc(OLD);
  ASSERT(old != NULL);
  memset(old, 'o', OLD);
  ASSERT_OK(xio_file_write(f, 0, old, OLD, &e), &e);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  char *data = pattern(TOTAL, 1);
  xio_file_stats before, after;
  xio_file_get_stats(f, &before);
  xfix_trace_reset(&fx);
  hold_records(f, data, SIZE, RECORDS);
  xio_file_get_stats(f, &after);
  ASSERT_U64_EQ(after.requests, before.requests);
  ASSERT_U64_EQ(after.write_requests, before.write_requests);
  ASSERT_U64_EQ(after.read_requests, before.read_requests);
  ASSERT_EQ(xfix_count_event(&fx, "xio_send_complete"), 0);
  ASSERT_EQ(xfix_count_event(&fx, "xio_failed_request"), 0);
  ASSERT_U64_EQ(xio_file_held_bytes(f), TOTAL);
  ASSERT_U64_EQ(xio_file_held_end(f), TOTAL);
  ASSERT_U64_EQ(xio_file_size(f), MIB);

  /* xio_file_held_read: all covered, partly covered, not at all. */
  char *got = malloc(TOTAL);
  ASSERT(got != NULL);
  memset(got, 'X', TOTAL);
  ASSERT_EQ(xio_file_held_read(f, 0, got, TOTAL), 1);
  ASSERT_MEM_EQ(got, data, TOTAL);
  char edge[200];
  memset(edge, 'X', sizeof edge);
  ASSERT_EQ(xio_file_held_read(f, TOTAL - 100, edge, sizeof edge), 0);
  ASSERT_MEM_EQ(edge, data + TOTAL - 100, 100);
  all_are(edge + 100, 100, 'X');
  memset(edge, 'X', sizeof edge);
  ASSERT_EQ(xio_file_held_read(f, 2 * TOTAL, edge, sizeof edge), 0);
  all_are(edge, sizeof edge, 'X');
  free(got);

  /* xio_file_read: the held bytes, then storage's. */
  got = read_at(f, 0, OLD + 1000);
  ASSERT_MEM_EQ(got, data, TOTAL);
  all_are(got + TOTAL, OLD - TOTAL, 'o');
  all_are(got + OLD, 1000, 0);
  free(got);

  /* A read submitted asynchronously across the held end. */
  char abuf[300];
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_READ;
  io.offset = TOTAL - 100;
  io.length = sizeof abuf;
  io.buf = abuf;
  ASSERT_OK(xio_file_submit(f, &io, &e), &e);
  ASSERT_OK(xio_io_wait(&io), &io.error);
  ASSERT_U64_EQ(io.transferred, sizeof abuf);
  ASSERT_MEM_EQ(abuf, data + TOTAL - 100, 100);
  all_are(abuf + 100, 200, 'o');

  /* Storage still has the old bytes: nothing was sent. */
  storage_has(&fx, "hold.db", 0, old, 1000);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(data);
  free(old);
  xfix_teardown(&fx);
}

TEST(hold_sends_nothing_and_reads_see_it_pageblob) { hold_sends_nothing_and_reads_see_it(0); }

TEST(hold_sends_nothing_and_reads_see_it_local) { hold_sends_nothing_and_reads_see_it(1); }

/* --------------------------------------------------------------- flush ---- */

/* The same 100 KB held on a new file: flush sends it as one write request (the write
 * queue combines the records; edge sectors from the zeros of a new file), reads
 * nothing back, and leaves nothing held; a second open reads it exactly. */
static void flush_sends_a_held_run_as_one_write(int local) {
  enum { SIZE = 100, RECORDS = 1000, TOTAL = SIZE * RECORDS };
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_new(&fx, "flush.db", EXCL, MIB);
  char *data = pattern(TOTAL, 2);
  xio_file_stats before, after;
  xio_file_get_stats(f, &before);
  hold_records(f, data, SIZE, RECORDS);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  xio_file_get_stats(f, &after);
  uint64_t writes = after.write_requests - before.write_requests;
  fprintf(stderr, "%d held records of %d B (%s): %llu write requests at flush\n", RECORDS, SIZE,
          local ? "local" : "page blob", (unsigned long long)writes);
  ASSERT_U64_EQ(writes, (TOTAL + 4 * MIB - 1) / (4 * MIB)); /* one */
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 1);
  ASSERT_U64_EQ(after.read_requests - before.read_requests, 0);
  ASSERT_U64_EQ(after.readback_requests, 0);
  nothing_held(f);
  /* Read while the writer is still open, then after it closed. */
  char *want = calloc(1, TOTAL + 4096);
  ASSERT(want != NULL);
  memcpy(want, data, TOTAL);
  storage_has(&fx, "flush.db", 0, want, TOTAL + 4096);
  ASSERT_OK(xio_file_close(f, &e), &e);
  storage_has(&fx, "flush.db", 0, want, TOTAL + 4096);
  free(want);
  free(data);
  xfix_teardown(&fx);
}

TEST(flush_sends_a_held_run_as_one_write_pageblob) { flush_sends_a_held_run_as_one_write(0); }

TEST(flush_sends_a_held_run_as_one_write_local) { flush_sends_a_held_run_as_one_write(1); }

/* Held runs apart but sharing or touching sectors (100 B every 300 B: the runs never
 * meet, their sectors do) go out as one Put Page whatever the combining window: one
 * that sends each write at once (-1), one that passes between any two of them
 * (1 us, a machine too busy to run the flush's submissions back to back). The
 * window may split what an engine submits over time, never what a flush hands over
 * at once. */
TEST(held_runs_sharing_sectors_are_one_write_whatever_the_window) {
  enum { RUNS = 40, STEP = 300, LEN = 100 };
  const int windows[] = {-1, 1};
  for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
    xfix fx;
    xio_error e;
    xio_ctx_options o = xio_ctx_options_default();
    o.combine_window_us = windows[w];
    xfix_setup(&fx, 0, &o);
    xio_file *f = open_new(&fx, "apart.db", EXCL, 64 * KIB);
    char want[RUNS * STEP];
    memset(want, 0, sizeof want);
    for (int i = 0; i < RUNS; i++) {
      hold_fill(f, (uint64_t)i * STEP, LEN, (char)('a' + i % 26));
      memset(want + i * STEP, 'a' + i % 26, LEN);
    }
    int held = 0;
    xio_file_held_each(f, count_run, &held);
    ASSERT_EQ(held, RUNS); /* apart: nothing merged while held */
    xio_file_stats before, after;
    xio_file_get_stats(f, &before);
    xfix_trace_reset(&fx);
    ASSERT_OK(xio_file_flush(f, &e), &e);
    xio_file_get_stats(f, &after);
    fprintf(stderr, "window %d us: %d held runs sent in %d write requests\n", windows[w], RUNS,
            xfix_count(&fx, XIO_REQ_WRITE));
    ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 1);
    ASSERT_U64_EQ(after.write_requests - before.write_requests, 1);
    ASSERT_U64_EQ(after.readback_requests, 0); /* gaps and edges: zeros of a new file */
    nothing_held(f);
    storage_has(&fx, "apart.db", 0, want, sizeof want);
    ASSERT_OK(xio_file_close(f, &e), &e);
    xfix_teardown(&fx);
  }
}

/* A hold past the end leaves the size alone until it is sent; the flush grows the
 * file to cover it, the bytes between reading as zeros. */
static void flush_grows_the_file_for_a_hold_past_its_end(int local) {
  enum { AT = 10000, LEN = 3000 };
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_new(&fx, "grow.db", EXCL, 4096);
  char *data = pattern(LEN, 3);
  xio_file_stats before, after;
  xio_file_get_stats(f, &before);
  ASSERT_OK(xio_file_hold(f, AT, data, LEN, &e), &e);
  xio_file_get_stats(f, &after);
  ASSERT_U64_EQ(after.requests, before.requests);
  ASSERT_U64_EQ(xio_file_size(f), 4096);
  ASSERT_U64_EQ(xio_file_held_end(f), AT + LEN);
  char *held = malloc(LEN); /* held_read sees held bytes past the size too */
  ASSERT(held != NULL);
  memset(held, 'X', LEN);
  ASSERT_EQ(xio_file_held_read(f, AT, held, LEN), 1);
  ASSERT_MEM_EQ(held, data, LEN);
  free(held);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT(xio_file_size(f) >= AT + LEN);
  nothing_held(f);
  xio_file *r = open_reader(&fx, "grow.db");
  ASSERT_U64_EQ(xio_file_size(r), xio_file_size(f));
  char *got = read_at(r, 0, AT + LEN);
  all_are(got, AT, 0);
  ASSERT_MEM_EQ(got + AT, data, LEN);
  free(got);
  ASSERT_OK(xio_file_close(r, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(data);
  xfix_teardown(&fx);
}

TEST(flush_grows_the_file_for_a_hold_past_its_end_pageblob) {
  flush_grows_the_file_for_a_hold_past_its_end(0);
}

TEST(flush_grows_the_file_for_a_hold_past_its_end_local) {
  flush_grows_the_file_for_a_hold_past_its_end(1);
}

/* ------------------------------------------------------------- overlap ---- */

/* Holds that overlap or touch merge into one run, the newest bytes winning; a hold
 * apart stays its own run; flush writes what the runs say. */
static void newer_holds_win_and_runs_merge(int local) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_new(&fx, "overlap.db", EXCL, 64 * KIB);
  char want0[400], want1[14];
  hold_fill(f, 0, 10, 'a');
  hold_fill(f, 20, 10, 'b');
  hold_fill(f, 10, 10, 'c'); /* touches both: one run [0, 30) */
  hold_fill(f, 5, 20, 'e');  /* over parts of all three */
  hold_fill(f, 100, 100, 'x');
  hold_fill(f, 90, 120, 'y'); /* covers the older one whole */
  hold_fill(f, 300, 100, 'p');
  hold_fill(f, 350, 10, 'q'); /* inside the older one */
  hold_fill(f, 30, 60, 'm');  /* joins [0, 30) and [90, 210) */
  hold_fill(f, 210, 90, 'n'); /* and [300, 400): one run [0, 400) */
  hold_fill(f, 4096, 10, 'd');
  hold_fill(f, 4106, 4, 'f'); /* touches it: one run [4096, 4110) */
  memset(want0, 'a', 5);
  memset(want0 + 5, 'e', 20);
  memset(want0 + 25, 'b', 5);
  memset(want0 + 30, 'm', 60);
  memset(want0 + 90, 'y', 120);
  memset(want0 + 210, 'n', 90);
  memset(want0 + 300, 'p', 100);
  memset(want0 + 350, 'q', 10);
  memset(want1, 'd', 10);
  memset(want1 + 10, 'f', 4);
  ASSERT_U64_EQ(xio_file_held_bytes(f), sizeof want0 + sizeof want1);
  ASSERT_U64_EQ(xio_file_held_end(f), 4110);
  runs r;
  runs_of(f, &r);
  ASSERT_EQ(r.n, 2);
  ASSERT_U64_EQ(r.off[0], 0);
  ASSERT_U64_EQ(r.len[0], sizeof want0);
  ASSERT_MEM_EQ(r.buf[0], want0, sizeof want0);
  ASSERT_U64_EQ(r.off[1], 4096);
  ASSERT_U64_EQ(r.len[1], sizeof want1);
  ASSERT_MEM_EQ(r.buf[1], want1, sizeof want1);
  runs_free(&r);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  nothing_held(f);
  runs_of(f, &r);
  ASSERT_EQ(r.n, 0);
  char want[4200];
  memset(want, 0, sizeof want);
  memcpy(want, want0, sizeof want0);
  memcpy(want + 4096, want1, sizeof want1);
  storage_has(&fx, "overlap.db", 0, want, sizeof want);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(newer_holds_win_and_runs_merge_pageblob) { newer_holds_win_and_runs_merge(0); }

TEST(newer_holds_win_and_runs_merge_local) { newer_holds_win_and_runs_merge(1); }

/* -------------------------------------------------------- commit range ---- */

/* A commit range over the first sector, 100 bytes held there ('h') and 4 KiB held at
 * 1 MiB ('x') and 2 MiB ('y'): a header and what it points to. */
static void hold_header_and_far(xio_file *f) {
  xio_file_set_commit_range(f, 0, 512);
  hold_fill(f, 0, 100, 'h');
  hold_fill(f, MIB, 4096, 'x');
  hold_fill(f, 2 * MIB, 4096, 'y');
}

/* The commit range's write is the last write request to complete at flush, after the
 * far-away ones it "points to". */
static void commit_range_is_the_last_write(int local) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_new(&fx, "commit.db", EXCL, 3 * MIB);
  hold_header_and_far(f);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  seen s;
  requests_seen(&fx, XIO_REQ_WRITE, &s);
  ASSERT_EQ(s.n, 3);
  ASSERT(covers(&s, s.n - 1, 0));
  for (int i = 0; i < s.n - 1; i++)
    ASSERT(!covers(&s, i, 0));
  ASSERT(covers(&s, 0, MIB) || covers(&s, 1, MIB));
  ASSERT(covers(&s, 0, 2 * MIB) || covers(&s, 1, 2 * MIB));
  /* The far writes raised what the handle wrote past the sector at 0, so the commit
   * write's edge sector there may be read back (zeros are known only past it); no
   * other sector is. */
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT(st.readback_requests <= 1);
  requests_seen(&fx, XIO_REQ_READ, &s);
  ASSERT_EQ(s.n, (int)st.readback_requests);
  if (s.n) ASSERT(s.off[0] + s.len[0] <= 512);
  nothing_held(f);
  char want[100];
  memset(want, 'h', sizeof want);
  storage_has(&fx, "commit.db", 0, want, sizeof want);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(commit_range_is_the_last_write_pageblob) { commit_range_is_the_last_write(0); }

TEST(commit_range_is_the_last_write_local) { commit_range_is_the_last_write(1); }

/* xio_file_send_held sends all but the commit range: storage has the far bytes, the
 * commit range's bytes stay held (and read) until the flush sends them. */
static void send_held_keeps_the_commit_range(int local) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_new(&fx, "send.db", EXCL, 3 * MIB);
  hold_header_and_far(f);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_send_held(f, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 2);
  ASSERT_U64_EQ(xio_file_held_bytes(f), 100);
  ASSERT_U64_EQ(xio_file_held_end(f), 100);
  char h[100], x[4096], zeros[100];
  memset(h, 'h', sizeof h);
  memset(x, 'x', sizeof x);
  memset(zeros, 0, sizeof zeros);
  char got[100];
  memset(got, 'X', sizeof got);
  ASSERT_EQ(xio_file_held_read(f, 0, got, sizeof got), 1);
  ASSERT_MEM_EQ(got, h, sizeof h);
  memset(got, 'X', sizeof got);
  ASSERT_EQ(xio_file_held_read(f, MIB, got, sizeof got), 0);
  all_are(got, sizeof got, 'X');
  storage_has(&fx, "send.db", MIB, x, sizeof x);
  storage_has(&fx, "send.db", 0, zeros, sizeof zeros);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 1);
  nothing_held(f);
  storage_has(&fx, "send.db", 0, h, sizeof h);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(send_held_keeps_the_commit_range_pageblob) { send_held_keeps_the_commit_range(0); }

TEST(send_held_keeps_the_commit_range_local) { send_held_keeps_the_commit_range(1); }

/* A held run that crosses the commit range's end is cut there: send_held sends the
 * part past it, [64 KiB, 70 KiB), and holds [60 KiB, 64 KiB) for the flush. */
TEST(send_held_cuts_a_run_at_the_commit_range_end) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f = open_new(&fx, "cut.db", EXCL, MIB);
  xio_file_set_commit_range(f, 0, 64 * KIB);
  hold_fill(f, 60 * KIB, 10 * KIB, 'z');
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_send_held(f, &e), &e);
  seen s;
  requests_seen(&fx, XIO_REQ_WRITE, &s);
  ASSERT_EQ(s.n, 1);
  ASSERT_U64_EQ(s.off[0], 64 * KIB);
  ASSERT_U64_EQ(s.len[0], 6 * KIB);
  ASSERT_U64_EQ(xio_file_held_bytes(f), 4 * KIB);
  ASSERT_U64_EQ(xio_file_held_end(f), 64 * KIB);
  char z[10 * KIB], zeros[4 * KIB];
  memset(z, 'z', sizeof z);
  memset(zeros, 0, sizeof zeros);
  ASSERT_EQ(xio_file_held_read(f, 60 * KIB, z, 4 * KIB), 1);
  storage_has(&fx, "cut.db", 64 * KIB, z, 6 * KIB);
  storage_has(&fx, "cut.db", 60 * KIB, zeros, sizeof zeros);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  nothing_held(f);
  storage_has(&fx, "cut.db", 60 * KIB, z, sizeof z);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

/* ---------------------------------------------------------------- drop ---- */

/* drop_held(off) forgets what is held at or past off, cutting the run across it;
 * drop_held(0) forgets everything, and the flush then sends nothing. */
static void drop_held_forgets_unsent(int local) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_new(&fx, "drop.db", EXCL, 64 * KIB);
  hold_fill(f, 0, 1000, 'a');
  hold_fill(f, 2000, 1000, 'b');
  hold_fill(f, 5000, 1000, 'c');
  xio_file_drop_held(f, 2500);
  ASSERT_U64_EQ(xio_file_held_bytes(f), 1500);
  ASSERT_U64_EQ(xio_file_held_end(f), 2500);
  char got[500];
  ASSERT_EQ(xio_file_held_read(f, 2000, got, sizeof got), 1);
  all_are(got, sizeof got, 'b');
  memset(got, 'X', sizeof got);
  ASSERT_EQ(xio_file_held_read(f, 2500, got, sizeof got), 0);
  all_are(got, sizeof got, 'X');
  runs r;
  runs_of(f, &r);
  ASSERT_EQ(r.n, 2);
  ASSERT_U64_EQ(r.off[0], 0);
  ASSERT_U64_EQ(r.len[0], 1000);
  ASSERT_U64_EQ(r.off[1], 2000);
  ASSERT_U64_EQ(r.len[1], 500);
  all_are(r.buf[1], 500, 'b');
  runs_free(&r);
  xio_file_drop_held(f, 0);
  nothing_held(f);
  runs_of(f, &r);
  ASSERT_EQ(r.n, 0);
  xio_file_stats before, after;
  xio_file_get_stats(f, &before);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  xio_file_get_stats(f, &after);
  ASSERT_U64_EQ(after.write_requests, before.write_requests);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 0);
  char zeros[6000];
  memset(zeros, 0, sizeof zeros);
  storage_has(&fx, "drop.db", 0, zeros, sizeof zeros);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(drop_held_forgets_unsent_pageblob) { drop_held_forgets_unsent(0); }

TEST(drop_held_forgets_unsent_local) { drop_held_forgets_unsent(1); }

/* --------------------------------------------------------------- close ---- */

/* Close sends what is held: a new open finds the bytes. */
static void close_sends_held(int local) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_new(&fx, "close.db", EXCL, 64 * KIB);
  hold_fill(f, 100, 200, 'k');
  hold_fill(f, 8000, 100, 'l');
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT(xfix_count(&fx, XIO_REQ_WRITE) >= 1);
  char want[8100];
  memset(want, 0, sizeof want);
  memset(want + 100, 'k', 200);
  memset(want + 8000, 'l', 100);
  storage_has(&fx, "close.db", 0, want, sizeof want);
  xfix_teardown(&fx);
}

TEST(close_sends_held_pageblob) { close_sends_held(0); }

TEST(close_sends_held_local) { close_sends_held(1); }

/* ------------------------------------------------------------ refusals ---- */

/* `f` refuses a hold of `len` bytes at `off` with `want` and holds nothing. */
static void refused(xio_file *f, uint64_t off, size_t len, xio_err want, xio_error *e) {
  char buf[1024];
  ASSERT(len <= sizeof buf);
  memset(buf, 'r', len);
  ASSERT_ERR(xio_file_hold(f, off, buf, len, e), want, e);
  nothing_held(f);
}

/* Holds a file cannot take: not opened exclusively (the message names it), opened
 * read-only, past 2^64 - 1 or XIO_FILE_MAX_SIZE; and on a page blob unaligned
 * without XIO_OPEN_UNALIGNED. Nothing is held after any of them. */
static void holds_refused(int local) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, local, NULL);
  xio_file *f = open_new(&fx, "refuse.db", XIO_OPEN_UNALIGNED, 64 * KIB);
  refused(f, 0, 512, XIO_EINVAL, &e);
  if (!strstr(e.message, "XIO_OPEN_LEASE")) FAIL("message names no leased open: %s", e.message);
  ASSERT_OK(xio_file_close(f, &e), &e);

  f = xfix_open(&fx, "refuse.db", XIO_OPEN_READONLY, XIO_KIND_DATA, 0);
  refused(f, 0, 512, XIO_EREADONLY, &e);
  ASSERT_OK(xio_file_close(f, &e), &e);

  if (!local) { /* local files take unaligned writes without the flag */
    f = xfix_open(&fx, "refuse.db", XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA, 0);
    refused(f, 100, 100, XIO_EALIGN, &e);
    refused(f, 0, 100, XIO_EALIGN, &e);
    hold_fill(f, 512, 512, 's'); /* aligned: held */
    ASSERT_U64_EQ(xio_file_held_bytes(f), 512);
    xio_file_drop_held(f, 0);
    ASSERT_OK(xio_file_close(f, &e), &e);
  }

  f = xfix_open(&fx, "refuse.db", EXCL, XIO_KIND_DATA, 0);
  refused(f, UINT64_MAX - 10, 100, XIO_ERANGE, &e);
  refused(f, XIO_FILE_MAX_SIZE - 10, 100, XIO_ELIMIT, &e);
  xio_file_stats s;
  xio_file_get_stats(f, &s);
  ASSERT_U64_EQ(s.write_requests, 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(holds_refused_pageblob) { holds_refused(0); }

TEST(holds_refused_local) { holds_refused(1); }
