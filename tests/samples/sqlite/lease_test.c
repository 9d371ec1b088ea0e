/*
 * lease_test.c - a lost lease stops reads, not only writes. The file layer tells
 * when a file's lease is known lost (xio_file_lease_lost: the lease clock ran past
 * it, as in a paused process, or the service refused it); the VFS asks before it
 * serves a read and when a transaction starts. Another process takes a database
 * over and writes to it; once the old holder's lease keeper has found out, at its
 * next renewal (5 s with XIO_SQLITE_LEASE_S=15), every read of the old holder fails
 * with SQLITE_IOERR and a message naming the lease, in the middle of a transaction
 * and at the start of the next, instead of answering from its cache what is no
 * longer true; opened again, the database shows what the other process wrote.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xio/xio.h>

#include "sqfix.h"
#include "test.h"
#include "xio_sqlite.h"

/* A lease clock the test moves ahead. */
static _Atomic int64_t clock_us = 1000000000;

static int64_t test_now(void *ud) {
  (void)ud;
  return atomic_load(&clock_us);
}

TEST(lease_lost_is_known_to_the_file_layer) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512];
  sqfix_url(&fx, "paused.bin", url, sizeof url);
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_clock.now_us = test_now;
  xio_ctx *c = NULL, *other = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &c, &e), &e);
  o = xio_ctx_options_default();
  ASSERT_OK(xio_ctx_new(&o, &other, &e), &e);
  xio_open_options fo = xio_open_options_default();
  fo.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  fo.size = 4096;
  xio_file *f = NULL, *ro = NULL;
  ASSERT_OK(xio_file_open(c, url, &fo, &f, &e), &e);
  fo.flags = XIO_OPEN_READONLY;
  ASSERT_OK(xio_file_open(other, url, &fo, &ro, &e), &e);
  ASSERT_EQ(xio_file_lease_lost(f), 0);
  ASSERT_EQ(xio_file_lease_lost(ro), 0); /* no lease to lose */
  /* Paused past the lease's 60 s: lost at once, without a request, and for good. */
  atomic_fetch_add(&clock_us, 61 * 1000000ll);
  ASSERT_EQ(xio_file_lease_lost(f), 1);
  unsigned char buf[512] = {0};
  ASSERT_ERR(xio_file_write(f, 0, buf, sizeof buf, &e), XIO_ELEASELOST, &e);
  ASSERT_EQ(xio_file_lease_lost(f), 1);
  xio_file_close(f, NULL);
  xio_file_close(ro, NULL);
  xio_ctx_free(c);
  xio_ctx_free(other);
}

TEST(lease_taken_over_is_known_at_the_next_refused_request) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512];
  sqfix_url(&fx, "taken.bin", url, sizeof url);
  xio_ctx_options o = xio_ctx_options_default();
  xio_ctx *c = NULL, *other = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &c, &e), &e);
  ASSERT_OK(xio_ctx_new(&o, &other, &e), &e);
  xio_open_options fo = xio_open_options_default();
  fo.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  fo.size = 4096;
  xio_file *f = NULL, *thief = NULL;
  ASSERT_OK(xio_file_open(c, url, &fo, &f, &e), &e);
  fo.flags = XIO_OPEN_EXCLUSIVE | XIO_OPEN_BREAK_LEASE;
  ASSERT_OK(xio_file_open(other, url, &fo, &thief, &e), &e);
  ASSERT_EQ(xio_file_lease_lost(f), 0); /* nothing has told it yet */
  unsigned char buf[512] = {0};
  ASSERT_ERR(xio_file_write(f, 0, buf, sizeof buf, &e), XIO_ELEASELOST, &e);
  ASSERT_EQ(xio_file_lease_lost(f), 1);
  ASSERT_EQ(xio_file_lease_lost(thief), 0);
  xio_file_close(f, NULL);
  xio_file_close(thief, NULL);
  xio_ctx_free(c);
  xio_ctx_free(other);
}

/* The first column of `sql`; `*rc` gets SQLite's code (SQLITE_ROW when it worked). */
static long long try_int(sqlite3 *db, const char *sql, int *rc) {
  sqlite3_stmt *st = NULL;
  long long v = -1;
  *rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (*rc == SQLITE_OK) *rc = sqlite3_step(st);
  if (*rc == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Waits (at most 30 s) for the VFS to log the loss of the lease, its message into
 * `told`. */
static void wait_lease_news(const char *mode, char *told, size_t size) {
  struct timespec start, now, pause = {0, 100 * 1000 * 1000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (sqfix_lease_log(told, size); !told[0]; sqfix_lease_log(told, size)) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > 30)
      FAIL("%s mode: no lease news 30 s after the takeover", mode);
    nanosleep(&pause, NULL);
  }
}

static void reads_stop(const char *mode) {
  sqfix fx;
  sqfix_setup(&fx);
  setenv("XIO_SQLITE_LEASE_S", "15", 1); /* renewed every 5 s */
  char url[512], takeover[600], sql[128], out[512];
  sqfix_url(&fx, "taken.sqlite", url, sizeof url);
  snprintf(takeover, sizeof takeover, "%s?xio_takeover=1", url);
  sqlite3 *db = sqfix_open(url);
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", mode);
  sqfix_exec(db, sql);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); BEGIN; " SERIES(
                     200) " INSERT INTO t(v) SELECT printf('%01000d', value) FROM s; COMMIT");
  /* SQLite keeps only a few pages itself: every scan reads through the VFS. */
  sqfix_exec(db, "PRAGMA cache_size=4");
  sqfix_exec(db, "BEGIN");
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 200);
  /* Another process takes the database over and adds rows. */
  const char *args[] = {"insert", takeover, "50", NULL};
  int st = sqfix_run(args, out, sizeof out);
  if (st != 0) FAIL("the takeover: %s", out);
  ASSERT_STR_EQ(out, "250\n");
  /* The lease keeper's next renewal is refused: the loss is logged then, on its own,
   * before any statement of this connection runs into it. */
  struct timespec start, now, pause = {0, 100 * 1000 * 1000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  char told[1024];
  wait_lease_news(mode, told, sizeof told);
  ASSERT_CONTAINS(told, "taken.sqlite");
  ASSERT_CONTAINS(told, "another process may own the database");
  /* Reads in the open transaction may go on from the cache until the VFS asks; from
   * then on they fail. */
  int rc;
  long long n;
  while ((n = try_int(db, "SELECT count(*) + 0 * sum(length(v)) FROM t", &rc)) == 200) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > 30)
      FAIL("%s mode: reads still answered %ld s after the takeover (%lld rows)", mode,
           (long)(now.tv_sec - start.tv_sec), n);
    nanosleep(&pause, NULL);
  }
  if ((rc & 0xff) != SQLITE_IOERR) FAIL("%s mode: rc=%d, %lld rows", mode, rc, n);
  ASSERT_CONTAINS(xio_sqlite_last_error(), "lease");
  ASSERT_CONTAINS(xio_sqlite_last_error(), "was lost");
  ASSERT_CONTAINS(xio_sqlite_last_error(), "taken.sqlite");
  sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  /* A new transaction does not start either. */
  try_int(db, "SELECT count(*) FROM t", &rc);
  ASSERT_EQ(rc & 0xff, SQLITE_IOERR);
  ASSERT_CONTAINS(xio_sqlite_last_error(), "was lost");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  /* Opened again (the other process has closed it): what it wrote. */
  db = sqfix_open(url);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 250);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  unsetenv("XIO_SQLITE_LEASE_S");
}

TEST(lost_lease_stops_reads_delete) { reads_stop("DELETE"); }

TEST(lost_lease_stops_reads_wal) { reads_stop("WAL"); }

/* A database small enough for SQLite's own cache: after the takeover a new read
 * transaction would answer from that cache without reading anything, so the VFS
 * must refuse where every read transaction starts (the lock of a rollback-mode
 * transaction, the WAL index's read lock in WAL mode), not only in xRead. */
static void cached_reads_stop(const char *mode) {
  sqfix fx;
  sqfix_setup(&fx);
  setenv("XIO_SQLITE_LEASE_S", "15", 1); /* renewed every 5 s */
  char url[512], takeover[600], sql[128], out[512];
  sqfix_url(&fx, "cached.sqlite", url, sizeof url);
  snprintf(takeover, sizeof takeover, "%s?xio_takeover=1", url);
  sqlite3 *db = sqfix_open(url);
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", mode);
  sqfix_exec(db, sql);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('a')");
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 1);
  const char *args[] = {"insert", takeover, "2", NULL};
  int st = sqfix_run(args, out, sizeof out);
  if (st != 0) FAIL("the takeover: %s", out);
  ASSERT_STR_EQ(out, "3\n");
  char told[1024];
  wait_lease_news(mode, told, sizeof told);
  /* The loss is known: the next read transaction fails instead of answering 1. */
  int rc;
  long long n = try_int(db, "SELECT count(*) FROM t", &rc);
  if ((rc & 0xff) != SQLITE_IOERR) FAIL("%s mode: rc=%d, answered %lld rows", mode, rc, n);
  ASSERT_CONTAINS(xio_sqlite_last_error(), "was lost");
  ASSERT_CONTAINS(xio_sqlite_last_error(), "cached.sqlite");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  db = sqfix_open(url);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 3);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  unsetenv("XIO_SQLITE_LEASE_S");
}

TEST(lost_lease_stops_cached_reads_delete) { cached_reads_stop("DELETE"); }

TEST(lost_lease_stops_cached_reads_wal) { cached_reads_stop("WAL"); }
