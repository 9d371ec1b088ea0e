/*
 * queue_test.c - a big transaction keeps its lease. A commit that changes pages far
 * apart (one row in every 128 of a 20 MB table: a page every 128 KiB, too far apart
 * to be joined) sends hundreds of Put Pages at once; with each of them held 4 s by a
 * fault proxy in front of the emulator, the queue takes longer than the 15 s lease
 * (XIO_SQLITE_LEASE_S=15, renewed every 5 s). The lease keeper's renewals go ahead of
 * the queue, so the lease holds and the transaction commits, every row checked
 * afterwards; were they queued behind the writes, the lease would run out at the
 * service and the commit fail with "disk I/O error".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faultproxy.h"
#include "sqfix.h"
#include "test.h"
#include "util.h"

#define ROWS  20000 /* of about 900 bytes: four to a 4 KiB page, 20 MB */
#define EVERY 128   /* rows apart that the commit changes: 32 pages, 128 KiB */

TEST(a_commit_whose_writes_outlast_the_lease_keeps_it) {
  sqfix fx;
  sqfix_setup(&fx);
  faultproxy *proxy = faultproxy_start(test_endpoint());
  ASSERT(proxy != NULL);
  char conn[900], name[64], url[700];
  test_dev_connection_string_at(faultproxy_endpoint(proxy), conn, sizeof conn);
  setenv("AZURE_STORAGE_CONNECTION_STRING", conn, 1);
  setenv("XIO_SQLITE_LEASE_S", "15", 1);
  test_unique_name(name, sizeof name, "queue");
  snprintf(url, sizeof url, "%s/devstoreaccount1/%s/big.sqlite", faultproxy_endpoint(proxy), name);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB, n INTEGER DEFAULT 0);"
                 "BEGIN; " SERIES(20000) " INSERT INTO t(v) SELECT randomblob(900) FROM s; COMMIT");
  faultproxy_fault stall;
  memset(&stall, 0, sizeof stall);
  stall.kind = FAULTPROXY_STALL;
  stall.method = "PUT";
  stall.match = "big.sqlite?comp=page";
  stall.stall_ms = 4000;
  stall.times = ROWS / EVERY + 16; /* every page the commit writes */
  ASSERT(faultproxy_add(proxy, &stall) == 0);
  sqfix_mark(&fx);
  char sql[128];
  snprintf(sql, sizeof sql, "UPDATE t SET n = 1 WHERE id %% %d = 0", EVERY);
  sqfix_exec(db, sql);
  /* The commit's writes took longer than the lease, renewed meanwhile. */
  long writes = sqfix_count(&fx, "XIOTypeWriteFile", "big.sqlite");
  if (writes < ROWS / EVERY)
    FAIL("%ld Put Pages of the database: the commit did not outlast the lease", writes);
  if (sqfix_count(&fx, "XIOTypeLease", "big.sqlite") < 2)
    FAIL("fewer than two renewals during the commit");
  faultproxy_clear_faults(proxy);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t WHERE n = 1"), ROWS / EVERY);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  db = sqfix_open(url);
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  ASSERT_STR_EQ((const char *)sqlite3_column_text(st, 0), "ok");
  sqlite3_finalize(st);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t WHERE n = 1"), ROWS / EVERY);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  unsetenv("XIO_SQLITE_LEASE_S");
  faultproxy_free(proxy);
}
