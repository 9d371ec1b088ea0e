/*
 * edge_test.c - bad input (a blob that is not a page blob, one that is not a SQLite
 * database, missing and expired credentials, a lost lease: an SQLite error, a
 * message naming the problem, no secret, nothing written half-way), interop with the
 * xio CLI (a database downloaded with `xio get` is a plain SQLite file; one uploaded
 * with `xio put` opens through the VFS), and snapshots.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xio/auth.h>
#include <xio/xio.h>
#include <xio/url_int.h>

#include "scratch.h"
#include "sqfix.h"
#include "test.h"
#include "util.h"
#include "xio_sqlite.h"

/* A SAS for blob `name` of the fixture's container, valid or long expired. */
static char *sas_for(const sqfix *fx, const char *name, int expired) {
  unsigned char *key = NULL;
  size_t klen = 0;
  xio_error e;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &key, &klen, &e), &e);
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = "rcwd";
  o.start = expired ? 1577836800 : 0;                  /* 2020-01-01 */
  o.expiry = expired ? 1609459200 : time(NULL) + 3600; /* 2021-01-01 */
  o.protocol = "https,http";
  char *sas = NULL;
  const char *container = strrchr(fx->container, '/') + 1;
  ASSERT_OK(
      xio_auth_sas_generate_service("devstoreaccount1", key, klen, container, name, &o, &sas, &e),
      &e);
  free(key);
  return sas;
}

static xio_ctx *plain_ctx(void) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = getenv("AZURE_STORAGE_CONNECTION_STRING");
  xio_ctx *c = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &c, &e), &e);
  return c;
}

/* Makes the container exist (through the VFS: a small database in it). */
static void make_container(const sqfix *fx) {
  char url[512];
  sqfix_url(fx, "first.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(x)");
  sqlite3_close(db);
}

TEST(block_blob_is_refused_by_name) {
  sqfix fx;
  sqfix_setup(&fx);
  make_container(&fx);
  char url[512], cmd[2048], out[1024];
  sqfix_url(&fx, "block.sqlite", url, sizeof url);
  char *sas = sas_for(&fx, "block.sqlite", 0);
  snprintf(cmd, sizeof cmd,
           "curl -s -o /dev/null -w '%%{http_code}' -X PUT -H 'x-ms-blob-type: BlockBlob' "
           "-H 'x-ms-version: 2021-10-04' --data-binary 'not pages' '%s?%s'",
           url, sas);
  ASSERT_EQ(sqfix_shell(cmd, out, sizeof out), 0);
  ASSERT_STR_EQ(out, "201");
  char with_sas[2048];
  snprintf(with_sas, sizeof with_sas, "%s?%s", url, sas);
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open_v2(with_sas, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_CANTOPEN);
  sqlite3_close(db);
  ASSERT_CONTAINS(xio_sqlite_last_error(), "not a page blob");
  ASSERT_NOT_CONTAINS(xio_sqlite_last_error(), "sig=");
  free(sas);
}

TEST(blob_that_is_not_a_database_is_left_alone) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512];
  sqfix_url(&fx, "random.sqlite", url, sizeof url);
  unsigned char junk[8192], back[8192];
  test_fill_random(junk, sizeof junk, 7);
  xio_ctx *c = plain_ctx();
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE;
  xio_file *f;
  xio_error e;
  ASSERT_OK(xio_file_open(c, url, &o, &f, &e), &e);
  ASSERT_OK(xio_file_write(f, 0, junk, sizeof junk, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  sqlite3 *db = sqfix_open(url);
  ASSERT_EQ(sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", 0, 0, 0), SQLITE_NOTADB);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", 0, 0, 0), SQLITE_NOTADB);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  o.flags = XIO_OPEN_READONLY;
  ASSERT_OK(xio_file_open(c, url, &o, &f, &e), &e);
  ASSERT_U64_EQ(xio_file_size(f), sizeof junk);
  ASSERT_OK(xio_file_read(f, 0, back, sizeof back, NULL, &e), &e);
  ASSERT_MEM_EQ(back, junk, sizeof junk);
  xio_file_close(f, NULL);
  xio_ctx_free(c);
}

TEST(expired_sas_is_named_and_not_shown) {
  sqfix fx;
  sqfix_setup(&fx);
  make_container(&fx);
  char url[512], with_sas[2048];
  sqfix_url(&fx, "expired.sqlite", url, sizeof url);
  char *sas = sas_for(&fx, "expired.sqlite", 1);
  snprintf(with_sas, sizeof with_sas, "%s?%s", url, sas);
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open_v2(with_sas, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
            SQLITE_CANTOPEN);
  sqlite3_close(db);
  ASSERT_CONTAINS(xio_sqlite_last_error(), "expired");
  const char *sig = strstr(sas, "sig=");
  ASSERT(sig != NULL);
  ASSERT_NOT_CONTAINS(xio_sqlite_last_error(), sig + 4);
  free(sas);
}

TEST(missing_credentials_are_named) {
  sqfix fx;
  sqfix_setup(&fx);
  make_container(&fx);
  char url[512], out[2048];
  sqfix_url(&fx, "nocred.sqlite", url, sizeof url);
  unsetenv("AZURE_STORAGE_CONNECTION_STRING");
  const char *args[] = {"open", url, NULL};
  ASSERT_EQ(sqfix_run(args, out, sizeof out), 1);
  ASSERT_CONTAINS(out, "rc=14 "); /* SQLITE_CANTOPEN */
  ASSERT_CONTAINS(out, "opening the database");
  ASSERT_CONTAINS(out, "AZURE_STORAGE_CONNECTION_STRING");
}

TEST(lost_lease_stops_writes_with_a_clear_error) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], out[512];
  sqfix_url(&fx, "stolen.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES(1)");
  /* Someone else breaks the lease and takes the blob. */
  xio_ctx *c = plain_ctx();
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_EXCLUSIVE | XIO_OPEN_BREAK_LEASE;
  xio_file *f;
  xio_error e;
  ASSERT_OK(xio_file_open(c, url, &o, &f, &e), &e);
  int rc = sqlite3_exec(db, "INSERT INTO t VALUES(2)", 0, 0, 0);
  ASSERT_EQ(rc & 0xff, SQLITE_IOERR);
  ASSERT_CONTAINS(xio_sqlite_last_error(), "lease");
  sqlite3_close(db);
  xio_file_close(f, NULL);
  xio_ctx_free(c);
  /* Nothing half-written: the database holds exactly the committed row. */
  const char *args[] = {"check", url, NULL};
  int st = sqfix_run(args, out, sizeof out);
  if (st != 0) FAIL("check after the lost lease: %s", out);
  ASSERT_STR_EQ(out, "1 1 ok\n");
}

TEST(xio_get_and_put_interoperate) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], url2[512], cmd[2048], out[4096];
  char dir[512];
  test_scratch_dir(dir, sizeof dir, "xio-sqlite-interop");
  sqfix_url(&fx, "interop.sqlite", url, sizeof url);
  sqfix_url(&fx, "uploaded.sqlite", url2, sizeof url2);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); BEGIN; " SERIES(
                     3000) " INSERT INTO t(v) SELECT printf('%050d', value) FROM s; COMMIT");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  snprintf(cmd, sizeof cmd, "'%s' --quiet get '%s' '%s/got.db' 2>&1", XIO_CLI, url, dir);
  ASSERT_EQ(sqfix_shell(cmd, out, sizeof out), 0);
  char path[600];
  snprintf(path, sizeof path, "%s/got.db", dir);
  ASSERT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, "unix"), SQLITE_OK);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 3000);
  sqfix_exec(db, "INSERT INTO t(v) VALUES('added locally')");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  snprintf(cmd, sizeof cmd, "'%s' --quiet put '%s' '%s' 2>&1", XIO_CLI, path, url2);
  ASSERT_EQ(sqfix_shell(cmd, out, sizeof out), 0);
  db = sqfix_open(url2);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 3001);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check='ok'"),
            1);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  test_remove_tree(dir);
}

TEST(snapshot_is_consistent_and_opens_read_only) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], snap[2048];
  sqfix_url(&fx, "snap.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t(x)");
  sqfix_exec(db, "BEGIN; " SERIES(1000) " INSERT INTO t SELECT value FROM s; COMMIT");
  sqfix_exec(db, "INSERT INTO t VALUES(-1)");
  sqfix_mark(&fx);
  ASSERT_EQ(xio_sqlite_snapshot(db, NULL, snap, sizeof snap), SQLITE_OK);
  ASSERT_EQ(sqfix_count(&fx, "XIOTypeSnapshot", NULL), 1);
  printf("snapshot: %ld requests (checkpoint included)\n", sqfix_count(&fx, NULL, NULL));
  ASSERT(sqfix_count(&fx, NULL, NULL) <= 8);
  ASSERT_CONTAINS(snap, "?snapshot=");
  sqfix_exec(db, "INSERT INTO t VALUES(-2)");
  /* The snapshot has the state at the call, read-only. */
  sqlite3 *s = NULL;
  ASSERT_EQ(sqlite3_open_v2(snap, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ASSERT_EQ(sqfix_int(s, "SELECT count(*) FROM t"), 1001);
  ASSERT_EQ(sqfix_int(s, "SELECT min(x) FROM t"), -1);
  ASSERT(sqlite3_exec(s, "INSERT INTO t VALUES(5)", 0, 0, 0) != SQLITE_OK);
  ASSERT_EQ(sqlite3_close(s), SQLITE_OK);
  /* The same as a URI filename: SQLite keeps snapshot=ID beside the name it hands the
   * VFS, which must still open the snapshot, not the database itself. */
  char uri[2100];
  snprintf(uri, sizeof uri, "file:%s", snap);
  ASSERT_EQ(sqlite3_open_v2(uri, &s, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL), SQLITE_OK);
  ASSERT_EQ(sqfix_int(s, "SELECT count(*) FROM t"), 1001);
  ASSERT(sqlite3_exec(s, "INSERT INTO t VALUES(5)", 0, 0, 0) != SQLITE_OK);
  ASSERT_EQ(sqlite3_close(s), SQLITE_OK);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 1002);
  /* The SQL function, in rollback mode, from a plain query. */
  sqfix_exec(db, "PRAGMA journal_mode=DELETE");
  sqlite3_stmt *st;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT xio_snapshot()", -1, &st, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  snprintf(snap, sizeof snap, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_open_v2(snap, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ASSERT_EQ(sqfix_int(s, "SELECT count(*) FROM t"), 1002);
  ASSERT_EQ(sqlite3_close(s), SQLITE_OK);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
}

/* VACUUM shrinks the database: the blob ends where SQLite's last page does. */
TEST(vacuum_shrinks_the_blob) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], out[256];
  sqfix_url(&fx, "vacuum.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE keep(x);"
                 "INSERT INTO keep VALUES(7); BEGIN; " SERIES(
                     5000) " INSERT INTO t(v) SELECT printf('%0200d', value) FROM s; COMMIT");
  long long before = sqfix_int(db, "PRAGMA page_count");
  sqfix_exec(db, "DELETE FROM t WHERE id > 10; VACUUM");
  long long after = sqfix_int(db, "PRAGMA page_count");
  ASSERT(after < before / 10);
  sqfix_exec(db, "INSERT INTO t(v) VALUES('after the vacuum')");
  long long pages = sqfix_int(db, "PRAGMA page_count");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  xio_ctx *c = plain_ctx();
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f;
  xio_error e;
  ASSERT_OK(xio_file_open(c, url, &o, &f, &e), &e);
  ASSERT_U64_EQ(xio_file_size(f), (uint64_t)pages * 4096);
  xio_file_close(f, NULL);
  xio_ctx_free(c);
  const char *args[] = {"check", url, NULL};
  ASSERT_EQ(sqfix_run(args, out, sizeof out), 0);
  ASSERT_STR_EQ(out, "11 66 ok\n");
}
