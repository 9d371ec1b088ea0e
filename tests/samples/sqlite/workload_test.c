/*
 * workload_test.c - SQLite workloads on page blobs, in WAL and rollback-journal
 * (DELETE) mode: create, many rows in one transaction, many single-row transactions,
 * integrity_check, close, reopen in a new process, same contents. Also several
 * connections of one process on one database, and local names through the VFS.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>

#include "scratch.h"
#include "sqfix.h"
#include "test.h"

static void workload(const char *mode) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], sql[256], out[512], want[512];
  sqfix_url(&fx, "work.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", mode);
  sqfix_exec(db, sql);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
  sqfix_exec(db,
             "BEGIN; " SERIES(5000) " INSERT INTO t(v) SELECT printf('bulk %08d', value) FROM s; "
                                    "COMMIT");
  for (int i = 0; i < 200; i++)
    sqfix_exec(db, "INSERT INTO t(v) VALUES('single row')");
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 5200);
  sqlite3_stmt *st;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  ASSERT_STR_EQ((const char *)sqlite3_column_text(st, 0), "ok");
  sqlite3_finalize(st);
  long long sum = sqfix_int(db, "SELECT total(id) FROM t");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  /* A new process sees the same contents. */
  const char *args[] = {"check", url, NULL};
  ASSERT_EQ(sqfix_run(args, out, sizeof out), 0);
  snprintf(want, sizeof want, "5200 %lld ok\n", sum);
  ASSERT_STR_EQ(out, want);
}

TEST(wal_workload) { workload("WAL"); }

TEST(delete_workload) { workload("DELETE"); }

/* A transaction larger than what the VFS holds (64 MiB) sends its pages early,
 * except page 1, and still rolls back whole. */
TEST(large_transaction_is_sent_early_but_page_1_waits) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], out[256];
  sqfix_url(&fx, "large.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)");
  sqfix_exec(db, "INSERT INTO t(v) VALUES(zeroblob(10))");
  sqfix_mark(&fx);
  sqfix_exec(db, "BEGIN; " SERIES(20000) " INSERT INTO t(v) SELECT randomblob(4000) FROM s");
  long early = sqfix_count(&fx, "XIOTypeWriteFile", "large.sqlite");
  printf("%ld Put Page to the database before the commit\n", early);
  ASSERT(early > 0);
  ASSERT_EQ(sqfix_count_at(&fx, "XIOTypeWriteFile", "large.sqlite", 0), 0);
  sqfix_exec(db, "ROLLBACK");
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 1);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  const char *args[] = {"check", url, NULL};
  ASSERT_EQ(sqfix_run(args, out, sizeof out), 0);
  ASSERT_STR_EQ(out, "1 1 ok\n");
}

/* Several connections of one process share the database, WAL index included. */
TEST(connections_share_one_database) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512];
  sqfix_url(&fx, "shared.sqlite", url, sizeof url);
  sqlite3 *a = sqfix_open(url), *b = sqfix_open(url);
  sqfix_exec(a, "PRAGMA journal_mode=WAL; CREATE TABLE t(x)");
  sqfix_exec(a, "INSERT INTO t VALUES(1),(2)");
  ASSERT_EQ(sqfix_int(b, "SELECT count(*) FROM t"), 2);
  /* b reads a snapshot while a writes on. */
  sqfix_exec(b, "BEGIN");
  ASSERT_EQ(sqfix_int(b, "SELECT count(*) FROM t"), 2);
  sqfix_exec(a, "INSERT INTO t VALUES(3)");
  ASSERT_EQ(sqfix_int(b, "SELECT count(*) FROM t"), 2);
  /* Only one writer at a time. */
  sqfix_exec(a, "BEGIN IMMEDIATE");
  ASSERT_EQ(sqlite3_exec(b, "INSERT INTO t VALUES(4)", 0, 0, 0), SQLITE_BUSY);
  sqfix_exec(a, "COMMIT");
  sqfix_exec(b, "COMMIT");
  ASSERT_EQ(sqfix_int(b, "SELECT count(*) FROM t"), 3);
  ASSERT_EQ(sqlite3_close(a), SQLITE_OK);
  ASSERT_EQ(sqfix_int(b, "SELECT sum(x) FROM t"), 6);
  ASSERT_EQ(sqlite3_close(b), SQLITE_OK);
}

typedef struct writer {
  const char *url;
  int id, rc;
} writer;

/* One connection of its own, 100 single-row transactions. */
static void *write_rows(void *arg) {
  writer *w = arg;
  sqlite3 *db = NULL;
  w->rc = sqlite3_open_v2(w->url, &db, SQLITE_OPEN_READWRITE, NULL);
  sqlite3_busy_timeout(db, 10000);
  char sql[96];
  for (int i = 0; i < 100 && w->rc == SQLITE_OK; i++) {
    snprintf(sql, sizeof sql, "INSERT INTO t(who, n) VALUES(%d, %d)", w->id, i);
    w->rc = sqlite3_exec(db, sql, 0, 0, 0);
  }
  if (w->rc == SQLITE_OK) w->rc = sqlite3_close(db);
  return NULL;
}

/* Threads of one process write at once through their own connections. */
static void threads(const char *mode) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], sql[128];
  sqfix_url(&fx, "threads.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s; CREATE TABLE t(who, n)", mode);
  sqfix_exec(db, sql);
  pthread_t th[4];
  writer w[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (writer){url, i, 0};
    ASSERT_EQ(pthread_create(&th[i], NULL, write_rows, &w[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    if (w[i].rc != SQLITE_OK) FAIL("%s writer %d: rc=%d", mode, i, w[i].rc);
  }
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 400);
  ASSERT_EQ(sqfix_int(db, "SELECT count(DISTINCT who || '-' || n) FROM t"), 400);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  char out[128];
  const char *args[] = {"open", url, NULL};
  ASSERT_EQ(sqfix_run(args, out, sizeof out), 0);
}

TEST(threads_write_at_once_wal) { threads("WAL"); }

TEST(threads_write_at_once_delete) { threads("DELETE"); }

/* A local name through the default xio VFS is an ordinary local file. */
TEST(local_names_go_to_the_previous_vfs) {
  sqfix fx;
  sqfix_setup(&fx);
  char dir[512], path[600];
  test_scratch_dir(dir, sizeof dir, "xio-sqlite-local");
  snprintf(path, sizeof path, "%s/local.db", dir);
  sqlite3 *db = sqfix_open(path);
  sqfix_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(42)");
  char *vfs = NULL;
  ASSERT_EQ(sqlite3_file_control(db, "main", SQLITE_FCNTL_VFSNAME, &vfs), SQLITE_OK);
  ASSERT_STR_EQ(vfs, "unix");
  sqlite3_free(vfs);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  struct stat sb;
  ASSERT_EQ(stat(path, &sb), 0);
  ASSERT(sb.st_size >= 4096);
  ASSERT_EQ(sqfix_count(&fx, NULL, NULL), 0); /* no storage request at all */
  /* The base VFS reads it back. */
  ASSERT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, "unix"), SQLITE_OK);
  ASSERT_EQ(sqfix_int(db, "SELECT x FROM t"), 42);
  sqlite3_close(db);
  test_remove_tree(dir);
}
