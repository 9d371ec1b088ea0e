/*
 * shell_test.c - the stock sqlite3 shell with the loadable extension: `.load PATH`,
 * `.open URL`, queries; the VFS stays loaded after the connection that loaded it
 * closes; the VFS's parameters in a "file:" URI; local file names behave exactly as
 * without the extension.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"
#include "sqfix.h"
#include "test.h"

#define SHELL "/usr/bin/sqlite3"

/* Runs the shell on `script`; its output in `out`. */
static int shell(const char *script, char *out, size_t size) {
  if (access(SHELL, X_OK) != 0) SKIP("no " SHELL " (install the sqlite3 package)");
  char path[512], cmd[700];
  test_scratch_file(path, sizeof path, "xio-sqlite-script");
  FILE *f = fopen(path, "w");
  ASSERT(f && fputs(script, f) >= 0 && fclose(f) == 0);
  snprintf(cmd, sizeof cmd, SHELL " -batch -bail < '%s' 2>&1", path);
  int st = sqfix_shell(cmd, out, size);
  test_remove_tree(path);
  return st;
}

TEST(shell_loads_the_extension_and_opens_a_url) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], script[4096], out[4096];
  sqfix_url(&fx, "shell.sqlite", url, sizeof url);
  /* .open closes the connection that loaded the extension: the VFS must stay. */
  snprintf(script, sizeof script,
           ".load %s\n"
           ".open %s\n"
           "PRAGMA journal_mode=WAL;\n"
           "CREATE TABLE t(x);\n"
           "INSERT INTO t VALUES(1),(2),(3);\n"
           "SELECT 'sum=' || sum(x) FROM t;\n"
           ".open %s\n"
           "SELECT 'again=' || count(*) FROM t;\n"
           "SELECT 'vfs=' || (SELECT xio_snapshot() LIKE '%%?snapshot=%%');\n",
           SQLITE_EXT, url, url);
  int st = shell(script, out, sizeof out);
  if (st != 0) FAIL("sqlite3 exited %d: %s", st, out);
  ASSERT_STR_EQ(out, "wal\nsum=6\nagain=3\nvfs=1\n");
  ASSERT(sqfix_count(&fx, "XIOTypeWriteFile", "shell.sqlite-wal") >= 1);
}

/* The shell opens "file:" names as URIs, whose query SQLite keeps beside the name it
 * hands the VFS: xio_takeover=1 there breaks the lease a killed holder left. */
TEST(shell_takes_the_vfs_parameters_from_a_uri) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], script[4096], out[4096], buf[8];
  sqfix_url(&fx, "uri.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  int from, to;
  const char *hold_args[] = {"hold", url, NULL};
  pid_t pid = sqfix_spawn(hold_args, &from, &to);
  ASSERT(read(from, buf, 6) == 6 && memcmp(buf, "ready\n", 6) == 0);
  kill(pid, SIGKILL);
  int st;
  ASSERT(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st));
  close(from);
  close(to);
  /* Without the parameter, its lease (60 s) still holds the database. */
  snprintf(script, sizeof script,
           ".load %s\n.open file:%s?vfs=xio\nSELECT 'rows=' || count(*) FROM t;\n", SQLITE_EXT,
           url);
  ASSERT(shell(script, out, sizeof out) != 0);
  ASSERT_NOT_CONTAINS(out, "rows=");
  snprintf(script, sizeof script,
           ".load %s\n.open file:%s?vfs=xio&xio_takeover=1\nSELECT 'rows=' || count(*) FROM t;\n",
           SQLITE_EXT, url);
  st = shell(script, out, sizeof out);
  if (st != 0) FAIL("sqlite3 exited %d: %s", st, out);
  ASSERT_STR_EQ(out, "rows=2\n");
}

TEST(shell_local_files_behave_as_before) {
  sqfix fx;
  sqfix_setup(&fx);
  char dir[512], script[2048], out[4096], plain[4096];
  test_scratch_dir(dir, sizeof dir, "xio-sqlite-shell");
  snprintf(script, sizeof script,
           ".load %s\n"
           ".open %s/local.db\n"
           "PRAGMA journal_mode=WAL;\n"
           "CREATE TABLE t(x);\n"
           "INSERT INTO t VALUES('local');\n"
           "SELECT x FROM t;\n",
           SQLITE_EXT, dir);
  int st = shell(script, out, sizeof out);
  if (st != 0) FAIL("sqlite3 exited %d: %s", st, out);
  ASSERT_STR_EQ(out, "wal\nlocal\n");
  ASSERT_EQ(sqfix_count(&fx, NULL, NULL), 0); /* nothing went to storage */
  /* The same file, read by the shell without the extension. */
  snprintf(script, sizeof script, ".open %s/local.db\nPRAGMA journal_mode;\nSELECT x FROM t;\n",
           dir);
  ASSERT_EQ(shell(script, plain, sizeof plain), 0);
  ASSERT_STR_EQ(plain, "wal\nlocal\n");
  test_remove_tree(dir);
}
