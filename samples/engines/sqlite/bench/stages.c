/*
 * stages.c - the benchmark's stages, timed one by one on one database: open of a new
 * database, 100,000 rows in one transaction, 1,000 single-row commits, a full scan,
 * close, reopen of the result, a full scan after the reopen. Requests are the lines
 * the xio context appended to its XIO_TRACE file during the stage.
 */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <xio/base.h>

#include "bench.h"

static double cpu_ms(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static long trace_lines(const char *trace) {
  if (!trace) return 0;
  FILE *f = fopen(trace, "r");
  if (!f) return 0;
  long n = 0;
  int c;
  while ((c = getc(f)) != EOF)
    n += c == '\n';
  fclose(f);
  return n;
}

typedef struct clock_mark {
  double wall, cpu;
  long req;
} clock_mark;

static clock_mark mark(const char *trace) {
  return (clock_mark){(double)xio_auth_monotonic_us() / 1e3, cpu_ms(), trace_lines(trace)};
}

static void stage_done(bench_stage *s, const char *name, clock_mark m, const char *trace,
                       long commits) {
  s->name = name;
  s->wall_ms = (double)xio_auth_monotonic_us() / 1e3 - m.wall;
  s->cpu_ms = cpu_ms() - m.cpu;
  s->requests = trace_lines(trace) - m.req;
  s->commits = commits;
}

static int exec(sqlite3 *db, const char *sql) {
  char *msg = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK) fprintf(stderr, "xio-sqlite-bench: %s: %s\n", sql, msg ? msg : "");
  sqlite3_free(msg);
  return rc == SQLITE_OK ? 0 : -1;
}

static int scan(sqlite3 *db) { return exec(db, "SELECT sum(length(v)) FROM t"); }

static int single_commits(sqlite3 *db, int n) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "INSERT INTO t(v) VALUES(printf('%0100d', random()))", -1, &st,
                         NULL) != SQLITE_OK)
    return -1;
  int rc = SQLITE_DONE;
  for (int i = 0; i < n && rc == SQLITE_DONE; i++) {
    rc = sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

static int open_db(const char *name, sqlite3 **db) {
  int rc = sqlite3_open_v2(name, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc != SQLITE_OK) fprintf(stderr, "xio-sqlite-bench: open %s: %s\n", name, sqlite3_errstr(rc));
  return rc == SQLITE_OK ? 0 : -1;
}

int bench_run_stages(bench_run *r, const char *name, const char *trace) {
  sqlite3 *db = NULL;
  char sql[160];
  snprintf(sql, sizeof sql,
           "PRAGMA journal_mode=%s; PRAGMA synchronous=FULL;"
           "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)",
           r->mode);
  clock_mark m = mark(trace);
  if (open_db(name, &db) || exec(db, sql)) return -1;
  stage_done(&r->st[0], "open a new database", m, trace, 0);
  m = mark(trace);
  if (exec(db, "BEGIN; WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE "
               "x < 100000) INSERT INTO t(v) SELECT printf('%0100d', x) FROM s; COMMIT"))
    return -1;
  stage_done(&r->st[1], "100,000 rows in one transaction", m, trace, 1);
  m = mark(trace);
  if (single_commits(db, 1000)) return -1;
  stage_done(&r->st[2], "1,000 single-row commits", m, trace, 1000);
  m = mark(trace);
  if (scan(db)) return -1;
  stage_done(&r->st[3], "full scan", m, trace, 0);
  m = mark(trace);
  if (sqlite3_close(db) != SQLITE_OK) return -1;
  stage_done(&r->st[4], "close", m, trace, 0);
  m = mark(trace);
  if (open_db(name, &db) || exec(db, "SELECT count(*) FROM sqlite_master")) return -1;
  stage_done(&r->st[5], "reopen the result", m, trace, 0);
  m = mark(trace);
  if (scan(db)) return -1;
  stage_done(&r->st[6], "full scan after reopen", m, trace, 0);
  sqlite3_int64 pages = 0, psize = 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT page_count * page_size FROM pragma_page_count, "
                         "pragma_page_size",
                         -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    pages = sqlite3_column_int64(st, 0), psize = 1;
  sqlite3_finalize(st);
  r->db_mb = psize ? pages / 1e6 : 0;
  return sqlite3_close(db) == SQLITE_OK ? 0 : -1;
}
