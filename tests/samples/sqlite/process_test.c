/*
 * process_test.c - one process at a time: a second process is refused while the
 * first holds the database and opens it once the first has closed; and crashes: a
 * child commits in a loop and reports every acknowledged commit, is killed with
 * SIGKILL at a random moment, and after takeover every acknowledged commit is there
 * and integrity_check is ok (several runs, WAL and DELETE modes).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sqfix.h"
#include "test.h"
#include "xio_sqlite.h"

/* Starts a process that opens `url` and holds its lease, then kills it (SIGKILL):
 * its lease stays on the blob until it runs out or is broken. */
static void kill_a_holder(const char *url) {
  char buf[8];
  int out, in;
  const char *hold_args[] = {"hold", url, NULL};
  pid_t pid = sqfix_spawn(hold_args, &out, &in);
  ASSERT(read(out, buf, 6) == 6 && memcmp(buf, "ready\n", 6) == 0);
  kill(pid, SIGKILL);
  int st;
  ASSERT(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st));
  close(out);
  close(in);
}

TEST(second_process_is_refused_until_the_first_closes) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], buf[2048];
  sqfix_url(&fx, "held.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(x)");
  const char *open_args[] = {"open", url, NULL};
  /* Refused at once, with a message that says why and how to take over. */
  ASSERT_EQ(sqfix_run(open_args, buf, sizeof buf), 1);
  ASSERT_CONTAINS(buf, "rc=5 "); /* SQLITE_BUSY */
  ASSERT_CONTAINS(buf, "is in use");
  ASSERT_CONTAINS(buf, "xio_takeover=1");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  ASSERT_EQ(sqfix_run(open_args, buf, sizeof buf), 0);
  ASSERT_STR_EQ(buf, "ok\n");
  /* And the other way round: while a child holds it, this process is refused. */
  int out, in;
  const char *hold_args[] = {"hold", url, NULL};
  pid_t pid = sqfix_spawn(hold_args, &out, &in);
  ASSERT(read(out, buf, 6) == 6 && memcmp(buf, "ready\n", 6) == 0);
  ASSERT_EQ(sqlite3_open_v2(url, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_BUSY);
  ASSERT_CONTAINS(xio_sqlite_last_error(), "is in use");
  ASSERT_CONTAINS(sqfix_last_log(), "is in use"); /* the same text went to sqlite3_log */
  sqlite3_close(db);
  close(in);
  int st;
  ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  close(out);
  db = sqfix_open(url);
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 0);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
}

/* Without a takeover, a dead holder's lease runs out by itself (15 s here). */
TEST(dead_holders_lease_runs_out) {
  sqfix fx;
  sqfix_setup(&fx);
  setenv("XIO_SQLITE_LEASE_S", "15", 1);
  char url[512], buf[2048];
  sqfix_url(&fx, "expiring.sqlite", url, sizeof url);
  kill_a_holder(url);
  const char *open_args[] = {"open", url, NULL};
  ASSERT_EQ(sqfix_run(open_args, buf, sizeof buf), 1); /* still held by the dead one */
  ASSERT_CONTAINS(buf, "is in use");
  sleep(17);
  ASSERT_EQ(sqfix_run(open_args, buf, sizeof buf), 0);
  ASSERT_STR_EQ(buf, "ok\n");
  unsetenv("XIO_SQLITE_LEASE_S");
}

/* The takeover as a parameter of a URI filename ("file:URL?xio_takeover=1", opened
 * with SQLITE_OPEN_URI), where SQLite keeps it beside the name it hands the VFS:
 * without it a dead holder's lease refuses the open, with it the lease is broken. */
TEST(takeover_in_a_uri_breaks_a_dead_holders_lease) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], uri[600], takeover[700];
  sqfix_url(&fx, "uri.sqlite", url, sizeof url);
  snprintf(uri, sizeof uri, "file:%s", url);
  snprintf(takeover, sizeof takeover, "file:%s?vfs=xio&xio_takeover=1", url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1)");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  kill_a_holder(url);
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI;
  ASSERT_EQ(sqlite3_open_v2(uri, &db, flags, NULL), SQLITE_BUSY); /* the dead one's lease */
  ASSERT_CONTAINS(xio_sqlite_last_error(), "is in use");
  sqlite3_close(db);
  int rc = sqlite3_open_v2(takeover, &db, flags, NULL);
  if (rc != SQLITE_OK) FAIL("open %s: rc=%d %s", takeover, rc, xio_sqlite_last_error());
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), 1);
  sqfix_exec(db, "INSERT INTO t VALUES (2)");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  /* The parameter never reached storage: the blob is named as it is. */
  ASSERT(sqfix_count(&fx, NULL, "uri.sqlite") > 0);
}

/* Reads acknowledged ids from the child until `stop_after` of them, then kills it at
 * a random moment a little later. Returns the last acknowledged id. */
static long run_and_kill(const char *url, const char *mode, const char *sync, int stop_after,
                         unsigned seed) {
  int out;
  const char *args[] = {"loop", url, mode, sync, NULL};
  pid_t pid = sqfix_spawn(args, &out, NULL);
  FILE *f = fdopen(out, "r");
  ASSERT(f != NULL);
  char line[256];
  long last = 0;
  int n = 0;
  while (n < stop_after && fgets(line, sizeof line, f)) {
    if (strncmp(line, "rc=", 3) == 0) FAIL("worker failed: %s", line);
    last = strtol(line, NULL, 10);
    n++;
  }
  ASSERT_EQ(n, stop_after);
  struct timespec ts = {0, (long)(rand_r(&seed) % 20000) * 1000};
  nanosleep(&ts, NULL);
  kill(pid, SIGKILL);
  /* Commits acknowledged before the kill landed still count. */
  while (fgets(line, sizeof line, f))
    if (line[0] >= '0' && line[0] <= '9') last = strtol(line, NULL, 10);
  fclose(f);
  int st;
  ASSERT(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st));
  return last;
}

static void crash(const char *mode, const char *sync, int runs) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], takeover[600];
  sqfix_url(&fx, "crash.sqlite", url, sizeof url);
  snprintf(takeover, sizeof takeover, "%s?xio_takeover=1", url);
  unsigned seed = (unsigned)getpid();
  setenv("XIO_SQLITE_TAKEOVER", "1", 1); /* the children take over from the dead ones */
  for (int run = 0; run < runs; run++) {
    long last = run_and_kill(url, mode, sync, 5 + (int)(rand_r(&seed) % 60), seed + (unsigned)run);
    sqlite3 *db = sqfix_open(takeover);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM t WHERE id <= %ld", last);
    long long have = sqfix_int(db, sql);
    if (have != last)
      FAIL("%s run %d: %lld of %ld acknowledged commits present", mode, run, have, last);
    sqlite3_stmt *st;
    ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    ASSERT_STR_EQ((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    printf("%s run %d: %ld acknowledged, %lld rows after takeover\n", mode, run, last,
           sqfix_int(db, "SELECT count(*) FROM t"));
    ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  }
  unsetenv("XIO_SQLITE_TAKEOVER");
}

TEST(crash_wal_keeps_every_acknowledged_commit) { crash("WAL", "FULL", 4); }

TEST(crash_delete_keeps_every_acknowledged_commit) { crash("DELETE", "FULL", 4); }

/* A transaction is on storage when it ends, whatever synchronous says. */
TEST(crash_wal_normal_keeps_every_acknowledged_commit) { crash("WAL", "NORMAL", 3); }

TEST(crash_delete_off_keeps_every_acknowledged_commit) { crash("DELETE", "OFF", 3); }
