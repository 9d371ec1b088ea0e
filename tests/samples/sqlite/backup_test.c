/*
 * backup_test.c - SQLite databases backed up with `xio backup` from the snapshots
 * SELECT xio_snapshot() takes at consistent points: each restored point is a local
 * database equal to the live one at its snapshot (integrity_check ok, the same
 * rows), later changes travel as an incremental link, and the documented
 * restore into place (writer stopped, `xio restore --force DIR@ID URL`) brings the
 * live database back to a snapshot, as does a restore into a new blob.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"
#include "sqfix.h"
#include "test.h"

/* A consistent point: the WAL checkpointed into the database, then the snapshot. */
static void take_snapshot(sqlite3 *db, char *snap, size_t size) {
  sqlite3_stmt *st;
  sqfix_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT xio_snapshot()", -1, &st, NULL), SQLITE_OK);
  if (sqlite3_step(st) != SQLITE_ROW) FAIL("xio_snapshot(): %s", sqlite3_errmsg(db));
  snprintf(snap, size, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
}

/* `xio --json CMD...` through the shell; its output in `out`; exit status returned. */
static int xio_cli(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int xio_cli(char *out, size_t size, const char *fmt, ...) {
  char args[3000], cmd[3200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "%s %s 2>&1", XIO_CLI, args);
  return sqfix_shell(cmd, out, size);
}

static void check_point(const char *path, long long rows, long long sum) {
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  ASSERT_STR_EQ((const char *)sqlite3_column_text(st, 0), "ok");
  sqlite3_finalize(st);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), rows);
  ASSERT_EQ(sqfix_int(db, "SELECT sum(length(v)) + sum(k) FROM t"), sum);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
}

TEST(backup_of_xio_snapshot_restores_the_database_at_each_point) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], snap1[1024], snap2[1024], dir[512], p1[600], p2[600], out[8192];
  char copy[600];
  sqfix_url(&fx, "backup.sqlite", url, sizeof url);
  test_scratch_dir(dir, sizeof dir, "xio-sqlite-backup");
  snprintf(p1, sizeof p1, "%s/at1.sqlite", dir);
  snprintf(p2, sizeof p2, "%s/at2.sqlite", dir);
  strcat(dir, "/chain");
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "PRAGMA journal_mode=WAL");
  sqfix_exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)");
  sqfix_exec(db, SERIES(20000) " INSERT INTO t SELECT value, printf('%0200d', value) FROM s");
  long long rows1 = sqfix_int(db, "SELECT count(*) FROM t");
  long long sum1 = sqfix_int(db, "SELECT sum(length(v)) + sum(k) FROM t");
  take_snapshot(db, snap1, sizeof snap1);
  /* The live database moves on before the backup runs. */
  sqfix_exec(db, "UPDATE t SET v = printf('%0300d', k) WHERE k % 100 = 0");
  int st = xio_cli(out, sizeof out, "--json backup '%s' '%s' --snapshot '%s'", url, dir, snap1);
  if (st != 0) FAIL("backup exited %d: %s", st, out);
  ASSERT_CONTAINS(out, "\"base\":\ttrue");
  st = xio_cli(out, sizeof out, "restore '%s' '%s'", dir, p1);
  if (st != 0) FAIL("restore exited %d: %s", st, out);
  check_point(p1, rows1, sum1);

  /* The second point holds the update of 1% of the rows: an incremental link. */
  long long rows2 = sqfix_int(db, "SELECT count(*) FROM t");
  long long sum2 = sqfix_int(db, "SELECT sum(length(v)) + sum(k) FROM t");
  take_snapshot(db, snap2, sizeof snap2);
  st = xio_cli(out, sizeof out, "--json backup '%s' '%s' --snapshot '%s'", url, dir, snap2);
  if (st != 0) FAIL("backup exited %d: %s", st, out);
  ASSERT_CONTAINS(out, "\"base\":\tfalse");
  st = xio_cli(out, sizeof out, "restore '%s' '%s'", dir, p2);
  if (st != 0) FAIL("restore exited %d: %s", st, out);
  check_point(p2, rows2, sum2);

  /* Into a new blob, opened through the VFS. */
  snprintf(copy, sizeof copy, "%s-copy", url);
  const char *id1 = strstr(snap1, "snapshot=") + 9;
  st = xio_cli(out, sizeof out, "restore '%s@%s' '%s'", dir, id1, copy);
  if (st != 0) FAIL("restore exited %d: %s", st, out);
  sqlite3 *c = sqfix_open(copy);
  ASSERT_EQ(sqfix_int(c, "SELECT count(*) FROM t"), rows1);
  ASSERT_EQ(sqfix_int(c, "SELECT sum(length(v)) + sum(k) FROM t"), sum1);
  ASSERT_EQ(sqlite3_close(c), SQLITE_OK);

  /* Into place: the writer stopped, the live blob restored to the first point. */
  sqfix_exec(db, "DELETE FROM t WHERE k > 10");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  st = xio_cli(out, sizeof out, "restore --force '%s@%s' '%s'", dir, id1, url);
  if (st != 0) FAIL("restore exited %d: %s", st, out);
  db = sqfix_open(url);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), rows1);
  ASSERT_EQ(sqfix_int(db, "SELECT sum(length(v)) + sum(k) FROM t"), sum1);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  test_remove_tree(dir);
}
