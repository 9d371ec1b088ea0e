/*
 * fork_test.c - a process that has a database open forks (as Python's
 * multiprocessing and pre-forking servers do): the child opens, writes and reads a
 * database of its own through the VFS, is refused the parent's database (the
 * parent's lease holds), and a connection or xio context it inherited fails at once
 * with a message naming fork instead of hanging; the parent goes on working, its
 * lease still its own. Each child runs under a deadline: one that hangs is killed
 * and the test fails.
 *
 * A child reports through its exit status and stderr and ends with _exit: the
 * test's own exit handlers (scratch files) belong to the parent.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xio/xio.h>

#include "sqfix.h"
#include "test.h"
#include "xio_sqlite.h"

#define DEADLINE_S 60

/* In a child: ends it with status 1 and a message when `cond` is false. */
#define CHILD_CHECK(cond)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "child: %s:%d: %s | %s\n", __FILE__, __LINE__, #cond,                        \
              xio_sqlite_last_error());                                                            \
      _exit(1);                                                                                    \
    }                                                                                              \
  } while (0)

/* The first column of the first row of `sql` in a child, or -1 on an error. */
static long long child_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  long long v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* The child's part of forked_child_opens_a_database_of_its_own. */
static void vfs_child(sqlite3 *parents, const char *parent_url, const char *own_url) {
  /* A database of its own, in WAL mode: written, read back, closed. */
  sqlite3 *db = NULL;
  CHILD_CHECK(sqlite3_open_v2(own_url, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) ==
              SQLITE_OK);
  CHILD_CHECK(sqlite3_exec(db,
                           "PRAGMA journal_mode=WAL; CREATE TABLE t(x); BEGIN; " SERIES(
                               100) " INSERT INTO t SELECT value FROM s; COMMIT",
                           0, 0, 0) == SQLITE_OK);
  CHILD_CHECK(child_int(db, "SELECT sum(x) FROM t") == 5050);
  CHILD_CHECK(sqlite3_close(db) == SQLITE_OK);
  /* The parent's database: another process holds it. */
  sqlite3 *other = NULL;
  CHILD_CHECK(sqlite3_open_v2(parent_url, &other, SQLITE_OPEN_READWRITE, NULL) == SQLITE_BUSY);
  CHILD_CHECK(strstr(xio_sqlite_last_error(), "is in use") != NULL);
  sqlite3_close(other);
  /* The connection inherited from the parent fails at once, naming fork. */
  int rc = sqlite3_exec(parents, "INSERT INTO t VALUES(99)", 0, 0, 0);
  CHILD_CHECK((rc & 0xff) == SQLITE_IOERR);
  CHILD_CHECK(strstr(xio_sqlite_last_error(), "fork") != NULL);
  CHILD_CHECK(child_int(parents, "SELECT count(*) FROM t") == -1);
  /* Closing it lets go of it: the parent's lease and connections stay the parent's. */
  CHILD_CHECK(sqlite3_close(parents) == SQLITE_OK);
  _exit(0);
}

TEST(forked_child_opens_a_database_of_its_own) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], own[512], out[256];
  sqfix_url(&fx, "parent.sqlite", url, sizeof url);
  sqfix_url(&fx, "child.sqlite", own, sizeof own);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES(1)");
  fflush(NULL);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) vfs_child(db, url, own);
  ASSERT_EQ(sqfix_wait(pid, DEADLINE_S, "the forked child"), 0);
  /* The parent goes on, on its own connection and lease. */
  sqfix_exec(db, "INSERT INTO t VALUES(2)");
  ASSERT_EQ(sqfix_int(db, "SELECT sum(id) FROM t"), 3);
  const char *open_args[] = {"open", url, NULL};
  ASSERT_EQ(sqfix_run(open_args, out, sizeof out), 1); /* still held */
  ASSERT_CONTAINS(out, "is in use");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  /* What each wrote is there, seen from a new process. */
  const char *check_parent[] = {"check", url, NULL};
  ASSERT_EQ(sqfix_run(check_parent, out, sizeof out), 0);
  ASSERT_STR_EQ(out, "2 3 ok\n");
  sqlite3 *child = sqfix_open(own);
  ASSERT_EQ(sqfix_int(child, "SELECT sum(x) FROM t"), 5050);
  ASSERT_EQ(sqlite3_close(child), SQLITE_OK);
}

/* The child's part of forked_child_cannot_use_the_parents_context. */
static void xio_child(xio_ctx *parents, xio_file *f, const char *held, const char *own) {
  xio_error e;
  char buf[512];
  memset(buf, 7, sizeof buf);
  /* Everything of the parent's fails at once, naming fork. */
  CHILD_CHECK(xio_file_write(f, 0, buf, sizeof buf, &e) == XIO_EINVAL);
  CHILD_CHECK(strstr(e.message, "fork") != NULL);
  CHILD_CHECK(xio_file_read(f, 0, buf, sizeof buf, NULL, &e) == XIO_EINVAL);
  CHILD_CHECK(xio_file_flush(f, &e) == XIO_EINVAL);
  xio_file *g = NULL;
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE;
  CHILD_CHECK(xio_file_open(parents, own, &o, &g, &e) == XIO_EINVAL);
  CHILD_CHECK(xio_file_delete(parents, own, &e) == XIO_EINVAL);
  /* Closing the file or freeing the context does nothing: no lease released. */
  CHILD_CHECK(xio_file_close(f, &e) == XIO_EINVAL);
  CHILD_CHECK(xio_ctx_free(parents) == XIO_EINVAL);
  /* A context of its own works, and is refused the file the parent holds. */
  xio_ctx_options co = xio_ctx_options_default();
  xio_ctx *c = NULL;
  CHILD_CHECK(xio_ctx_new(&co, &c, &e) == XIO_OK);
  o.flags = XIO_OPEN_EXCLUSIVE;
  CHILD_CHECK(xio_file_open(c, held, &o, &g, &e) == XIO_EBUSY);
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  o.size = 4096;
  CHILD_CHECK(xio_file_open(c, own, &o, &g, &e) == XIO_OK);
  CHILD_CHECK(xio_file_write(g, 512, buf, sizeof buf, &e) == XIO_OK);
  char back[512];
  CHILD_CHECK(xio_file_read(g, 512, back, sizeof back, NULL, &e) == XIO_OK);
  CHILD_CHECK(memcmp(back, buf, sizeof buf) == 0);
  CHILD_CHECK(xio_file_close(g, &e) == XIO_OK);
  CHILD_CHECK(xio_ctx_free(c) == XIO_OK);
  _exit(0);
}

TEST(forked_child_cannot_use_the_parents_context) {
  sqfix fx;
  sqfix_setup(&fx);
  char held[512], own[512];
  sqfix_url(&fx, "held.bin", held, sizeof held);
  sqfix_url(&fx, "own.bin", own, sizeof own);
  xio_ctx_options co = xio_ctx_options_default();
  xio_ctx *c = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&co, &c, &e), &e);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  o.size = 4096;
  xio_file *f = NULL;
  ASSERT_OK(xio_file_open(c, held, &o, &f, &e), &e);
  unsigned char one[512], two[512], back[512];
  memset(one, 1, sizeof one);
  memset(two, 2, sizeof two);
  ASSERT_OK(xio_file_write(f, 0, one, sizeof one, &e), &e);
  fflush(NULL);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) xio_child(c, f, held, own);
  ASSERT_EQ(sqfix_wait(pid, DEADLINE_S, "the forked child"), 0);
  /* The parent's lease is still its own: it writes, and others are refused. */
  ASSERT_OK(xio_file_write(f, 0, two, sizeof two, &e), &e);
  ASSERT_OK(xio_file_read(f, 0, back, sizeof back, NULL, &e), &e);
  ASSERT_MEM_EQ(back, two, sizeof two);
  xio_ctx *other = NULL;
  ASSERT_OK(xio_ctx_new(&co, &other, &e), &e);
  xio_file *g = NULL;
  o.flags = XIO_OPEN_EXCLUSIVE;
  ASSERT_ERR(xio_file_open(other, held, &o, &g, &e), XIO_EBUSY, &e);
  /* The child's file is there, and the parent's close releases its lease. */
  o.flags = XIO_OPEN_READONLY;
  ASSERT_OK(xio_file_open(other, own, &o, &g, &e), &e);
  ASSERT_OK(xio_file_read(g, 512, back, sizeof back, NULL, &e), &e);
  ASSERT(back[0] == 7 && back[511] == 7);
  xio_file_close(g, NULL);
  ASSERT_OK(xio_file_close(f, &e), &e);
  o.flags = XIO_OPEN_EXCLUSIVE;
  ASSERT_OK(xio_file_open(other, held, &o, &g, &e), &e);
  ASSERT_OK(xio_file_close(g, &e), &e);
  xio_ctx_free(other);
  ASSERT_EQ(xio_ctx_free(c), XIO_OK);
}
