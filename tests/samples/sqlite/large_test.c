/*
 * large_test.c - what a large write costs, counted by request type from the trace:
 * transactions of 100 and 200 MiB in rollback-journal mode (and one of 72 MiB that
 * SQLite spills as it goes), the checkpoint of a fresh 100 MiB WAL, and the VACUUM
 * of a 100 MB database in both modes. The database goes out in Put Pages of up to
 * 4 MiB, sent early each time a transaction holds 64 MiB (one resize each), so the
 * cost grows with the size and no faster: page 1, which waits for the sync, holds
 * nothing else back. What is read again (the WAL by a checkpoint, the old pages by
 * VACUUM) is read ahead in pieces of 1 MiB, about one request per MiB.
 *
 * A transaction whose pages SQLite spills as it goes is checked after every step of
 * 8 MiB. A commit, a checkpoint or a VACUUM cannot be stopped half-way to count, so
 * a watcher thread counts the trace while it runs and fails the test as soon as a
 * count passes its bound, instead of letting a cost that grows with the square of
 * the size run on.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <xio/xio.h>

#include "sqfix.h"
#include "test.h"

#define MIB (1024ll * 1024)

/* 2,048 rows of a 4,000-byte blob: one 4 KiB page each, 8 MiB. */
#define INSERT_STEP                                                                                \
  "WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < "          \
  "2048) INSERT INTO t(v) SELECT randomblob(4000) FROM s"

/* ----------------------------------------------------------------- bounds ---- */

/* Writing `bytes` of database pages. Put Pages to the database: one per 4 MiB, one
 * more per early send (64 MiB) that ends inside 4 MiB, and a few for page 1 and
 * pages SQLite keeps longer (b-tree interior pages). Resizes of the database: one
 * per early send and one at the sync. Put Pages to the journal or WAL: SQLite syncs
 * it each time its page cache (2 MB by default) spills, so one per 2 MiB; a commit
 * from a cache that holds it all sends the WAL in 4 MiB pieces. */
static long max_writes(long long bytes) {
  return (long)(bytes / (4 * MIB) + bytes / (64 * MIB)) + 16;
}
static long max_resizes(long long bytes) { return (long)(bytes / (64 * MIB)) + 4; }
static long max_log_writes(long long bytes) { return (long)(bytes / (2 * MIB)) + 16; }

/* Reading `bytes` `passes` times: the read cache reads ahead in pieces of 1 MiB once
 * it sees a reader going on sequentially, so one request per MiB and pass, and as
 * many again for the pages read alone (b-tree interior pages, WAL frames that are
 * not in page order) and the first small windows of each stream. */
static long max_reads(long long bytes, int passes) {
  return (long)((passes + 1) * (bytes / MIB)) + 16;
}

/* What a piece of work cost, by request type. */
typedef struct cost {
  long writes, resizes, reads; /* the database */
  long log_writes, log_reads;  /* its journal and WAL */
  long all;
  long early; /* Put Pages to the database before the last read of its WAL */
} cost;

/* Adds the request of one trace line to `c` when it went to database `name` (the
 * end of its URL) or its journal or WAL. */
static void count_line(const char *line, const char *name, cost *c) {
  const char *p = strstr(line, "\"file_path\":\"");
  const char *q = p ? strchr(p + 13, '"') : NULL;
  if (!q) return;
  const char *base = q;
  while (base > p + 13 && base[-1] != '/')
    base--;
  size_t k = strlen(name), len = (size_t)(q - base);
  if (len < k || memcmp(base, name, k) != 0) return;
  int db = len == k;
  if (!db && !(len == k + 8 && memcmp(base + k, "-journal", 8) == 0) &&
      !(len == k + 4 && memcmp(base + k, "-wal", 4) == 0))
    return;
  c->all++;
  if (strstr(line, "\"request_type\":\"XIOTypeWriteFile\"")) {
    if (db)
      c->writes++;
    else
      c->log_writes++;
  } else if (db && strstr(line, "\"request_type\":\"XIOTypeSetFileSize\"")) {
    c->resizes++;
  } else if (strstr(line, "\"request_type\":\"XIOTypeReadFile\"")) {
    if (db) {
      c->reads++;
    } else {
      c->log_reads++;
      c->early = c->writes;
    }
  }
}

/* Reads the whole lines of `f` from where it is, skipping the first `*skip` of them,
 * into `c`; a line still being written is left for the next call. */
static void count_lines(FILE *f, const char *name, long *skip, cost *c) {
  char line[4096];
  for (;;) {
    long at = ftell(f);
    if (!fgets(line, sizeof line, f)) break;
    if (!strchr(line, '\n')) { /* not all there yet */
      fseek(f, at, SEEK_SET);
      break;
    }
    if (*skip > 0)
      (*skip)--;
    else
      count_line(line, name, c);
  }
  clearerr(f);
}

/* What was sent for database `name` since the mark. */
static cost cost_of(const sqfix *fx, const char *name) {
  cost c = {0, 0, 0, 0, 0, 0, 0};
  long skip = fx->mark;
  FILE *f = fopen(fx->trace, "r");
  ASSERT(f != NULL);
  count_lines(f, name, &skip, &c);
  fclose(f);
  return c;
}

/* Fails the test when cost `c` of `bytes` of pages passes a bound. */
static void check_bounds(const cost *c, long long bytes, const char *what) {
  if (c->writes > max_writes(bytes) || c->resizes > max_resizes(bytes) ||
      c->log_writes > max_log_writes(bytes))
    FAIL("%s, %lld MiB: %ld Put Page, %ld resizes, %ld journal/WAL Put Page so far; bounds %ld, "
         "%ld, %ld",
         what, bytes / MIB, c->writes, c->resizes, c->log_writes, max_writes(bytes),
         max_resizes(bytes), max_log_writes(bytes));
}

/* Asserts that what was sent for `bytes` of pages since the mark fits the bounds. */
static void check_cost(const sqfix *fx, const char *name, long long bytes, const char *what) {
  cost c = cost_of(fx, name);
  check_bounds(&c, bytes, what);
}

static void report(const sqfix *fx, const char *name, long long bytes, const char *what) {
  cost c = cost_of(fx, name);
  printf("%s, %lld MiB: %ld requests; database: %ld Put Page (%ld before the last WAL read), %ld "
         "resizes, %ld reads; journal and WAL: %ld Put Page, %ld reads\n",
         what, bytes / MIB, c.all, c.writes, c.early, c.resizes, c.reads, c.log_writes,
         c.log_reads);
}

/* ---------------------------------------------------------------- watcher ---- */

/* Counts the trace as it grows and fails the test once the cost passes the bounds
 * for `bytes`. */
typedef struct watch {
  const sqfix *fx;
  const char *name, *what;
  long long bytes;
  int stop;
  pthread_mutex_t mu;
  pthread_t th;
} watch;

static void *watch_main(void *arg) {
  watch *w = arg;
  FILE *f = fopen(w->fx->trace, "r");
  if (!f) FAIL("cannot read the trace %s", w->fx->trace);
  long skip = w->fx->mark;
  cost c = {0, 0, 0, 0, 0, 0, 0};
  for (;;) {
    pthread_mutex_lock(&w->mu);
    int stop = w->stop;
    pthread_mutex_unlock(&w->mu);
    count_lines(f, w->name, &skip, &c);
    check_bounds(&c, w->bytes, w->what);
    if (stop) break;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  fclose(f);
  return NULL;
}

static void watch_start(watch *w, const sqfix *fx, const char *name, long long bytes,
                        const char *what) {
  *w = (watch){fx, name, what, bytes, 0, PTHREAD_MUTEX_INITIALIZER, 0};
  ASSERT_EQ(pthread_create(&w->th, NULL, watch_main, w), 0);
}

static void watch_stop(watch *w) {
  pthread_mutex_lock(&w->mu);
  w->stop = 1;
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->th, NULL);
}

/* ---------------------------------------------------------------- helpers ---- */

/* The database's size as SQLite sees it. */
static long long db_bytes(sqlite3 *db) {
  return sqfix_int(db, "PRAGMA page_count") * sqfix_int(db, "PRAGMA page_size");
}

/* Inserts steps of 8 MiB until the database holds `mib` MiB, checking the cost after
 * every step. Returns the bytes of pages added. */
static long long fill(const sqfix *fx, sqlite3 *db, const char *name, long long mib,
                      const char *what) {
  long long start = db_bytes(db), now = start;
  while (now < mib * MIB) {
    sqfix_exec(db, INSERT_STEP);
    now = db_bytes(db);
    check_cost(fx, name, now - start, what);
  }
  return now - start;
}

/* A new process finds `rows` rows and a database that passes integrity_check. */
static void check_in_another_process(const char *url, long long rows) {
  char out[256], want[64];
  const char *args[] = {"check", url, NULL};
  ASSERT_EQ(sqfix_run(args, out, sizeof out), 0);
  snprintf(want, sizeof want, "%lld ", rows);
  if (strncmp(out, want, strlen(want)) != 0 || !strstr(out, " ok\n"))
    FAIL("check: \"%s\", wanted %lld rows and ok", out, rows);
}

/* Deletes the test's blobs: they are large, and the emulator keeps them in memory. */
static void remove_blobs(const char *url) {
  xio_ctx_options o = xio_ctx_options_default();
  xio_ctx *c = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &c, &e), &e);
  const char *suffix[] = {"", "-journal", "-wal"};
  for (int i = 0; i < 3; i++) {
    char target[600];
    snprintf(target, sizeof target, "%s%s", url, suffix[i]);
    xio_err rc = xio_file_delete(c, target, &e);
    if (rc != XIO_OK && rc != XIO_ENOTFOUND) ASSERT_OK(rc, &e);
  }
  xio_ctx_free(c);
}

/* ------------------------------------------------------------------ tests ---- */

/* One transaction of `mib` MiB in rollback-journal mode on a database of two pages.
 * `cache_kib`: SQLite's page cache (PRAGMA cache_size=-N). A cache that holds the
 * whole transaction writes every page at the commit, page 1 first; the default one
 * spills pages (never page 1) as the transaction goes. */
static void transaction(long long mib, long cache_kib) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], what[96], sql[96];
  sqfix_url(&fx, "big.sqlite", url, sizeof url);
  snprintf(what, sizeof what, "a transaction of %lld MiB (cache %ld KiB)", mib, cache_kib);
  sqlite3 *db = sqfix_open(url);
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=DELETE; PRAGMA cache_size=-%ld", cache_kib);
  sqfix_exec(db, sql);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)");
  sqfix_mark(&fx);
  watch w;
  watch_start(&w, &fx, "big.sqlite", mib * MIB, what);
  sqfix_exec(db, "BEGIN");
  long long bytes = fill(&fx, db, "big.sqlite", mib, what);
  sqfix_exec(db, "COMMIT");
  watch_stop(&w);
  report(&fx, "big.sqlite", bytes, what);
  check_cost(&fx, "big.sqlite", bytes, what);
  /* A fresh database journals only its two first pages; nothing is read back. */
  ASSERT(cost_of(&fx, "big.sqlite").log_writes <= 2);
  ASSERT_EQ(sqfix_count(&fx, "XIOTypeReadFile", NULL), 0);
  /* Page 1 went out once, at the commit. */
  ASSERT_EQ(sqfix_count_at(&fx, "XIOTypeWriteFile", "big.sqlite", 0), 1);
  long long rows = sqfix_int(db, "SELECT count(*) FROM t");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  check_in_another_process(url, rows);
  remove_blobs(url);
}

TEST(transaction_of_100_mib_costs_requests_linear_in_its_size) { transaction(100, 262144); }

TEST(transaction_of_200_mib_costs_requests_linear_in_its_size) { transaction(200, 262144); }

TEST(transaction_of_72_mib_spilled_costs_requests_linear_in_its_size) { transaction(72, 2000); }

/* The first checkpoint of a fresh database copies 100 MiB from the WAL into it,
 * page 1 first. */
TEST(checkpoint_of_100_mib_costs_requests_linear_in_its_size) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512];
  sqfix_url(&fx, "ckpt.sqlite", url, sizeof url);
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0");
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)");
  sqfix_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  sqfix_mark(&fx);
  sqfix_exec(db, "BEGIN");
  long long bytes = fill(&fx, db, "ckpt.sqlite", 100, "filling the WAL");
  sqfix_exec(db, "COMMIT");
  ASSERT_EQ(cost_of(&fx, "ckpt.sqlite").writes, 0); /* all in the WAL so far */
  sqfix_mark(&fx);
  watch w;
  watch_start(&w, &fx, "ckpt.sqlite", bytes, "the checkpoint");
  sqfix_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  watch_stop(&w);
  report(&fx, "ckpt.sqlite", bytes, "the checkpoint");
  check_cost(&fx, "ckpt.sqlite", bytes, "the checkpoint");
  /* Pages went out while the checkpoint still read the WAL, page 1 once at the end;
   * the WAL was read once. */
  cost c = cost_of(&fx, "ckpt.sqlite");
  ASSERT(c.early >= 16);
  if (c.log_reads > max_reads(bytes, 1))
    FAIL("the checkpoint read the WAL in %ld requests, bound %ld", c.log_reads,
         max_reads(bytes, 1));
  ASSERT_EQ(sqfix_count_at(&fx, "XIOTypeWriteFile", "ckpt.sqlite", 0), 1);
  long long rows = sqfix_int(db, "SELECT count(*) FROM t");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  check_in_another_process(url, rows);
  remove_blobs(url);
}

/* VACUUM of a 100 MB database (made in transactions of 8 MiB, in rollback mode to
 * spare the emulator's memory a copy through the WAL) that lost a tenth of its rows:
 * it rewrites every page, through the journal or the WAL. */
static void vacuum(const char *mode) {
  sqfix fx;
  sqfix_setup(&fx);
  char url[512], sql[128], what[64];
  sqfix_url(&fx, "vac.sqlite", url, sizeof url);
  snprintf(what, sizeof what, "VACUUM in %s mode", mode);
  int wal = strcmp(mode, "WAL") == 0;
  sqlite3 *db = sqfix_open(url);
  sqfix_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)");
  while (db_bytes(db) < 100 * MIB)
    sqfix_exec(db, INSERT_STEP);
  sqfix_exec(db, "DELETE FROM t WHERE id % 10 = 0");
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", mode);
  sqfix_exec(db, sql);
  long long bytes = db_bytes(db), rows = sqfix_int(db, "SELECT count(*) FROM t");
  sqfix_mark(&fx);
  watch w;
  watch_start(&w, &fx, "vac.sqlite", bytes, what);
  sqfix_exec(db, "VACUUM");
  if (wal) sqfix_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  watch_stop(&w);
  report(&fx, "vac.sqlite", bytes, what);
  check_cost(&fx, "vac.sqlite", bytes, what);
  /* In WAL mode the checkpoint sends pages while it still reads the WAL: at most
   * 64 MiB of them wait for its sync. The database is read twice (the copy, and in
   * rollback mode the pages the journal keeps; in WAL mode the checkpoint reads the
   * WAL instead). */
  cost c = cost_of(&fx, "vac.sqlite");
  if (wal) ASSERT(c.early >= 16);
  if (c.reads + c.log_reads > max_reads(bytes, 2))
    FAIL("%s: %ld reads, bound %ld", what, c.reads + c.log_reads, max_reads(bytes, 2));
  ASSERT(db_bytes(db) < bytes); /* the deleted rows' pages are gone */
  ASSERT_EQ(sqfix_int(db, "SELECT count(*) FROM t"), rows);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  check_in_another_process(url, rows);
  remove_blobs(url);
}

TEST(vacuum_of_100_mb_costs_requests_linear_in_its_size_delete) { vacuum("DELETE"); }

TEST(vacuum_of_100_mb_costs_requests_linear_in_its_size_wal) { vacuum("WAL"); }
