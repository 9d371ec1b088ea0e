/*
 * worker.c - the second process of the SQLite VFS tests: opens a database through
 * the xio VFS (credentials from the environment) and does one thing.
 *   sqlite_worker loop URL JOURNAL_MODE [SYNCHRONOUS]  insert one row per transaction
 *                                        forever and print each committed row's id on
 *                                        stdout (synchronous=FULL unless given)
 *   sqlite_worker hold URL               open, read, print "ready", wait for EOF on
 *                                        stdin, close
 *   sqlite_worker open URL               open and read the schema; print
 *                                        "ok" or "rc=N errmsg | VFS message"
 *   sqlite_worker check URL              print "COUNT SUM INTEGRITY"
 *   sqlite_worker insert URL N           add N rows to t(id, v) in one transaction and
 *                                        print the row count
 * Exit status 0 when it did what it was asked, 1 otherwise.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_sqlite.h"

static sqlite3 *open_db(const char *url, int *rc_out) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(url, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", 0, 0, 0);
  *rc_out = rc;
  return db;
}

static int fail(sqlite3 *db, int rc) {
  printf("rc=%d %s | %s\n", rc, db ? sqlite3_errmsg(db) : "", xio_sqlite_last_error());
  fflush(stdout);
  sqlite3_close(db);
  return 1;
}

static int loop(const char *url, const char *mode, const char *sync) {
  int rc;
  sqlite3 *db = open_db(url, &rc);
  if (rc != SQLITE_OK) return fail(db, rc);
  char sql[128];
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s; PRAGMA synchronous=%s;", mode, sync);
  rc = sqlite3_exec(db, sql, 0, 0, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v TEXT)", 0, 0, 0);
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(db, "INSERT INTO t(v) VALUES(printf('row %d', random() % 1000000))", -1,
                            &st, NULL);
  while (rc == SQLITE_OK) {
    rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) break;
    printf("%lld\n", (long long)sqlite3_last_insert_rowid(db));
    fflush(stdout);
    rc = sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return fail(db, rc);
}

static int hold(const char *url) {
  int rc;
  sqlite3 *db = open_db(url, &rc);
  if (rc != SQLITE_OK) return fail(db, rc);
  printf("ready\n");
  fflush(stdout);
  char buf[64];
  while (fgets(buf, sizeof buf, stdin))
    ;
  return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}

static int check(const char *url) {
  int rc;
  sqlite3 *db = open_db(url, &rc);
  if (rc != SQLITE_OK) return fail(db, rc);
  sqlite3_stmt *st = NULL;
  rc = sqlite3_prepare_v2(db,
                          "SELECT count(*), total(id), (SELECT group_concat(integrity_check) FROM "
                          "pragma_integrity_check) FROM t",
                          -1, &st, NULL);
  if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    printf("%lld %.0f %s\n", sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1),
           (const char *)sqlite3_column_text(st, 2));
  else
    return fail(db, rc ? rc : sqlite3_errcode(db));
  sqlite3_finalize(st);
  return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}

static int insert(const char *url, const char *rows) {
  int rc;
  sqlite3 *db = open_db(url, &rc);
  if (rc != SQLITE_OK) return fail(db, rc);
  char sql[256];
  snprintf(sql, sizeof sql,
           "BEGIN; WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE "
           "value < %d) INSERT INTO t(v) SELECT printf('%%01000d', value) FROM s; COMMIT",
           (int)strtol(rows, NULL, 10));
  rc = sqlite3_exec(db, sql, 0, 0, 0);
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, NULL);
  if (rc == SQLITE_OK && sqlite3_step(st) != SQLITE_ROW) rc = sqlite3_errcode(db);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(st);
    return fail(db, rc);
  }
  printf("%lld\n", sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: sqlite_worker loop|hold|open|check|insert URL [MODE|ROWS]\n");
    return 2;
  }
  if (xio_sqlite_register(1) != SQLITE_OK) return 1;
  const char *mode = argv[1], *url = argv[2];
  if (strcmp(mode, "loop") == 0 && argc > 3) return loop(url, argv[3], argc > 4 ? argv[4] : "FULL");
  if (strcmp(mode, "hold") == 0) return hold(url);
  if (strcmp(mode, "check") == 0) return check(url);
  if (strcmp(mode, "insert") == 0 && argc > 3) return insert(url, argv[3]);
  if (strcmp(mode, "open") == 0) {
    int rc;
    sqlite3 *db = open_db(url, &rc);
    if (rc != SQLITE_OK) return fail(db, rc);
    printf("ok\n");
    return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
  }
  fprintf(stderr, "sqlite_worker: unknown mode %s\n", mode);
  return 2;
}
