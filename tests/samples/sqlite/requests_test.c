/*
 * requests_test.c - what a commit costs, counted from the XIO_TRACE events: 500
 * single-row INSERT commits into a 20,000-row table with synchronous=FULL, in WAL
 * mode (at most 1.2 requests per commit, checkpoints included) and rollback-journal
 * mode (at most 4); the open of an existing database, bounded whatever its size; and
 * the read cache's size, set in the URL or as a parameter of a URI filename.
 * The lease renewals made meanwhile are not a commit's: they come with time (every
 * 20 s per open file), so a slower machine makes more of them; they are left out.
 */
#include <stdio.h>

#include "sqfix.h"
#include "test.h"
#include "xio_sqlite.h"

#define COMMITS 500

static void commits(const char *mode, double limit) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], sql[256];
  sqfix_url(&fx, "commits.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s; PRAGMA synchronous=FULL", mode);
  sqfix_exec(db, sql);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
  sqfix_exec(db, "BEGIN; " SERIES(20000) " INSERT INTO t(v) SELECT printf('row %08d of the "
                                         "table', value) FROM s; COMMIT");
  /* Checkpoints included: at SQLite's default of 1000 pages there would be none in
   * 500 commits, so checkpoint every 100 pages here. */
  sqfix_exec(db, "PRAGMA wal_autocheckpoint=100");
  sqfix_mark(&fx);
  for (int i = 0; i < COMMITS; i++)
    sqfix_exec(db, "INSERT INTO t(v) VALUES('one more row, committed alone')");
  long leases = sqfix_count(&fx, "XIOTypeLease", NULL); /* renewals: the files stay open */
  long total = sqfix_count(&fx, NULL, NULL) - leases;
  long writes = sqfix_count(&fx, "XIOTypeWriteFile", NULL);
  double per = (double)total / COMMITS;
  printf("%s: %ld requests for %d commits: %.3f per commit (%ld Put Page); %ld lease renewals\n",
         mode, total, COMMITS, per, writes, leases);
  /* Every commit reached storage: at least one write each. */
  ASSERT(writes >= COMMITS);
  long db_writes = sqfix_count(&fx, "XIOTypeWriteFile", "commits.sqlite");
  printf("%s: %ld of the writes went to the database itself\n", mode, db_writes);
  ASSERT(db_writes > 0); /* WAL: checkpoints ran; DELETE: pages written in place */
  /* Nothing is read back: edge sectors are known, and what checkpoints copy is in
   * the cache. */
  ASSERT_EQ(sqfix_count(&fx, "XIOTypeReadFile", NULL), 0);
  if (per > limit) FAIL("%s mode: %.3f requests per commit, goal %.1f", mode, per, limit);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 20000 + COMMITS);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
}

TEST(wal_commit_costs_at_most_1_2_requests) { commits("WAL", 1.2); }

TEST(delete_commit_costs_at_most_4_requests) { commits("DELETE", 4.0); }

/* Requests to open a database and read its schema, in a fresh connection. */
static long open_cost(sqfix *fx, const char *url) {
  sqfix_mark(fx);
  sqlite3 *db = sqfix_open(url);
  sqfix_int(db, "SELECT count(*) FROM sqlite_master");
  long n = sqfix_count(fx, NULL, NULL);
  sqlite3_close(db);
  return n;
}

static void make_db(const char *url, int rows) {
  sqlite3 *db = sqfix_open(url);
  char sql[256];
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
  snprintf(sql, sizeof sql,
           "WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE "
           "value < %d) INSERT INTO t(v) SELECT printf('%%0100d', value) FROM s",
           rows);
  sqfix_exec(db, sql);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
}

TEST(open_is_bounded_whatever_the_size) {
  sqfix fx;
  sqfix_setup(&fx);
  char small[512], big[512];
  sqfix_url(&fx, "small.sqlite", small, sizeof small);
  sqfix_url(&fx, "big.sqlite", big, sizeof big);
  make_db(small, 10);
  make_db(big, 100000); /* about 12 MB */
  long a = open_cost(&fx, small), b = open_cost(&fx, big);
  printf("open + schema: %ld requests (small), %ld (12 MB)\n", a, b);
  ASSERT_EQ(a, b);
  ASSERT(b <= 6);
  ASSERT_EQ(sqfix_count(&fx, "XIOTypeReadFile", NULL), 1); /* one read, not the database */
}

/* Read requests of two full scans of `url` in one connection (opened with `flags`
 * besides READWRITE). */
static void scan_twice(sqfix *fx, const char *url, int flags, long *first, long *second) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(url, &db, SQLITE_OPEN_READWRITE | flags, NULL);
  if (rc != SQLITE_OK) FAIL("open %s: rc=%d %s", url, rc, xio_sqlite_last_error());
  sqfix_mark(fx);
  sqfix_int(db, "SELECT sum(length(v)) FROM t");
  *first = sqfix_count(fx, "XIOTypeReadFile", NULL);
  sqfix_mark(fx);
  sqfix_int(db, "SELECT sum(length(v)) FROM t");
  *second = sqfix_count(fx, "XIOTypeReadFile", NULL);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
}

/* The default cache (32 MiB) holds a 4 MB database: the second scan reads nothing.
 * With ?xio_cache_mb=1 it cannot, and the parameter never reaches storage. */
TEST(read_cache_size_can_be_changed) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], small_cache[600];
  sqfix_url(&fx, "cached.sqlite", url, sizeof url);
  snprintf(small_cache, sizeof small_cache, "%s?xio_cache_mb=1", url);
  make_db(url, 30000);
  long a1, a2, b1, b2;
  scan_twice(&fx, url, 0, &a1, &a2);
  scan_twice(&fx, small_cache, 0, &b1, &b2);
  printf("read requests per scan: %ld, %ld (32 MiB); %ld, %ld (1 MiB)\n", a1, a2, b1, b2);
  ASSERT(a1 > 0 && a1 <= 8); /* read ahead: a few windows, not a page at a time */
  ASSERT_EQ(a2, 0);
  ASSERT(b2 > 0);
}

/* The same parameter in a URI filename, opened with SQLITE_OPEN_URI: SQLite keeps it
 * beside the name it hands the VFS, not in it. */
TEST(read_cache_size_can_be_changed_in_a_uri) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], uri[600], small_cache[700];
  sqfix_url(&fx, "cached.sqlite", url, sizeof url);
  snprintf(uri, sizeof uri, "file:%s?vfs=xio", url);
  snprintf(small_cache, sizeof small_cache, "file:%s?vfs=xio&xio_cache_mb=1", url);
  make_db(url, 30000);
  long a1, a2, b1, b2;
  scan_twice(&fx, uri, SQLITE_OPEN_URI, &a1, &a2);
  scan_twice(&fx, small_cache, SQLITE_OPEN_URI, &b1, &b2);
  printf("read requests per scan: %ld, %ld (32 MiB); %ld, %ld (1 MiB)\n", a1, a2, b1, b2);
  ASSERT(a1 > 0 && a1 <= 8);
  ASSERT_EQ(a2, 0);
  ASSERT(b2 > 0);
}
