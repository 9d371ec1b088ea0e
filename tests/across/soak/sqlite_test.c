/*
 * sqlite_test.c - the fault soak of SQLite on the xio VFS: transactions of upserts
 * and deletes on a table of keyed blobs, committed through the fault proxy at the
 * soak's rates for XIO_SOAK_SECONDS, switching between WAL and rollback-journal
 * mode every SWITCH_EVERY transactions (WAL checkpoints in between), with rows read
 * back through the proxy as the run goes. A transaction that fails (every request
 * has SOAK_MAX_RETRIES retries, so only a long outage fails one) has an unknown
 * outcome; it is run again with the same values until it commits, as an
 * application would, which after REOPEN_AFTER failures in a row also closes the
 * database and opens it again (taking over its own lease, which an outage longer
 * than the lease loses).
 *
 * The model holds, per key, the version of the last committed write (0: no row);
 * a row's blob is a pure function of its version. At the end the database is closed
 * and an independent reader (a fresh xio context straight to the emulator) copies
 * the database blob, and a WAL or journal if one is left, to a local directory,
 * where the stock SQLite (the unix VFS, no xio code) checks its integrity and every
 * row against the model.
 *
 * A journal on storage is not always one SQLite may roll back: the VFS empties the
 * journal in memory only at the end of a transaction, and deletes the blob when the
 * database closes, but that delete may fail (or never come, after a crash), leaving
 * a journal of a transaction that committed. Stock SQLite takes any journal whose
 * first byte is not zero for a hot one, and rolling back a void one undoes committed
 * transactions (the journal of the switch to WAL, made on an empty database, even
 * truncates the copy to nothing, and then SQLite deletes the WAL too). So the reader
 * tells them apart as the VFS's storage format says (docs/sqlite.md): page 1 of the
 * database is written last, and every write transaction
 * changes it, so a journal whose page-1 record (or, for a database that was empty,
 * the zeros it started from) differs from page 1 of the database is void and is not
 * given to SQLite; any other journal is.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"
#include "soakfix.h"
#include "test.h"
#include "util.h"
#include "xio_sqlite.h"

#define KEYS         2000
#define MAX_VALUE    3000
#define SWITCH_EVERY 150 /* transactions between journal mode switches */
#define CHUNK        (4u << 20)
#define MAX_AGAIN    20 /* a statement failing this many times in a row fails the soak */
#define REOPEN_AFTER 4  /* failed tries of a transaction before the database is reopened */

/* One statement of a transaction: key k set to version ver (0: its row deleted). */
typedef struct tx_op {
  int k;
  uint64_t ver;
} tx_op;

typedef struct sqsoak {
  soakfix fx;
  sqlite3 *db;
  sqlite3_stmt *upsert, *del, *get;
  uint64_t ver[KEYS]; /* committed: the version of each key's row, 0 if none */
  uint64_t rng, versions;
  int reopens; /* times the database was closed and opened again after failures */
  char trace[512];
  soak_result r;
} sqsoak;

static uint64_t next_rand(uint64_t *x) {
  *x ^= *x >> 12, *x ^= *x << 25, *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Dull;
}

/* The blob of a row at version `ver`: its length, and its bytes into `out`. */
static size_t value_len(uint64_t ver) { return 16 + (size_t)(ver * 7919 % (MAX_VALUE - 16)); }

static void exec(sqsoak *s, const char *sql) {
  char *msg = NULL;
  if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK)
    FAIL("%s: %s (xio: %s)", sql, msg ? msg : "?", xio_sqlite_last_error());
  sqlite3_free(msg);
}

/* Runs `sql` until it succeeds (a failure's outcome is unknown: run it again). */
static void exec_until_done(sqsoak *s, const char *sql) {
  for (int tries = 1; sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK; tries++) {
    s->r.failed_ops++;
    if (tries == MAX_AGAIN)
      FAIL("%s failed %d times in a row: %s (xio: %s)", sql, tries, sqlite3_errmsg(s->db),
           xio_sqlite_last_error());
  }
  s->r.ops++;
}

static void prepare(sqsoak *s, const char *sql, sqlite3_stmt **st) {
  if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
    FAIL("%s: %s", sql, sqlite3_errmsg(s->db));
}

/* Opens the database through the proxy and prepares the statements; the first
 * time also makes the table. */
static void db_open(sqsoak *s, int first) {
  char url[512];
  soakfix_url(&s->fx, "soak.db", 0, url, sizeof url);
  if (sqlite3_open_v2(url, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
    FAIL("opening %s: %s (xio: %s)", url, sqlite3_errmsg(s->db), xio_sqlite_last_error());
  if (first) {
    exec(s, "PRAGMA journal_mode=WAL");
    exec(s, "CREATE TABLE kv(k INTEGER PRIMARY KEY, ver INTEGER NOT NULL, v BLOB NOT NULL)");
  }
  prepare(s,
          "INSERT INTO kv(k, ver, v) VALUES(?1, ?2, ?3) ON CONFLICT(k) DO UPDATE SET "
          "ver = excluded.ver, v = excluded.v",
          &s->upsert);
  prepare(s, "DELETE FROM kv WHERE k = ?1", &s->del);
  prepare(s, "SELECT ver, v FROM kv WHERE k = ?1", &s->get);
}

/* Closes the database (what the VFS could not send is lost with it: nothing of it
 * was acknowledged). */
static int db_close(sqsoak *s) {
  sqlite3_finalize(s->upsert);
  sqlite3_finalize(s->del);
  sqlite3_finalize(s->get);
  int rc = sqlite3_close(s->db);
  s->db = NULL;
  return rc;
}

/* After failures in a row, the application restarts: closes the database and opens
 * it again, taking over its own lease (which an outage longer than the lease may
 * have lost, and then every write is refused). */
static void db_reopen(sqsoak *s) {
  db_close(s);
  s->reopens++;
  setenv("XIO_SQLITE_TAKEOVER", "1", 1);
  db_open(s, 0);
  unsetenv("XIO_SQLITE_TAKEOVER");
}

/* One statement of a transaction: 0, or the SQLite code of its failure. */
static int step(sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? 0 : rc;
}

/* Tries the transaction of `n` ops once: key op[i].k set to version op[i].ver
 * (0: deleted). Returns 0 once it is committed, else the SQLite code of the
 * failure, after rolling back what is left of it. */
static int try_transaction(sqsoak *s, const tx_op *op, int n, unsigned char *buf) {
  int rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  for (int i = 0; rc == 0 && i < n; i++) {
    if (op[i].ver) {
      size_t len = value_len(op[i].ver);
      soakfix_fill(buf, len, op[i].ver);
      sqlite3_bind_int(s->upsert, 1, op[i].k);
      sqlite3_bind_int64(s->upsert, 2, (sqlite3_int64)op[i].ver);
      sqlite3_bind_blob(s->upsert, 3, buf, (int)len, SQLITE_STATIC);
      rc = step(s->upsert);
    } else {
      sqlite3_bind_int(s->del, 1, op[i].k);
      rc = step(s->del);
    }
  }
  if (rc == 0) rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
  if (rc != 0 && !sqlite3_get_autocommit(s->db))
    (void)sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

/* One transaction of 1..16 upserts and deletes. A failed one (its outcome unknown:
 * it may have been committed) is run again, the same statements with the same
 * values, until it commits: whichever way the failed try went, the rows end as the
 * transaction sets them, as an engine's application would have them. */
static void transaction(sqsoak *s, unsigned char *buf) {
  tx_op op[16];
  int n = 1 + (int)(next_rand(&s->rng) % 16);
  for (int i = 0; i < n; i++) {
    uint64_t x = next_rand(&s->rng);
    op[i].k = (int)((x >> 8) % KEYS);
    op[i].ver = x % 100 < 85 ? ++s->versions : 0;
  }
  for (int tries = 1; try_transaction(s, op, n, buf) != 0; tries++) {
    s->r.failed_ops++;
    if (tries == MAX_AGAIN)
      FAIL("a transaction failed %d times in a row: %s (xio: %s)", tries, sqlite3_errmsg(s->db),
           xio_sqlite_last_error());
    if (tries % REOPEN_AFTER == 0) db_reopen(s);
  }
  for (int i = 0; i < n; i++)
    s->ver[op[i].k] = op[i].ver; /* acknowledged */
  s->r.ops++;
}

/* Reads a few rows back through the proxy and compares them with the model. */
static void read_back(sqsoak *s, unsigned char *want) {
  for (int i = 0; i < 4; i++) {
    int k = (int)(next_rand(&s->rng) % KEYS);
    sqlite3_bind_int(s->get, 1, k);
    int rc = sqlite3_step(s->get);
    s->r.ops++;
    if (rc == SQLITE_ROW) {
      uint64_t v = (uint64_t)sqlite3_column_int64(s->get, 0);
      const void *got = sqlite3_column_blob(s->get, 1);
      size_t len = value_len(s->ver[k]), glen = (size_t)sqlite3_column_bytes(s->get, 1);
      soakfix_fill(want, len, s->ver[k]);
      s->r.read_checked += len;
      if (v != s->ver[k] || glen != len)
        s->r.read_differ += len;
      else
        s->r.read_differ += soakfix_diff(got, want, len);
    } else if (rc == SQLITE_DONE) {
      if (s->ver[k]) s->r.read_differ += value_len(s->ver[k]);
    } else {
      s->r.failed_ops++; /* nothing learned; the end's reader checks the row */
    }
    sqlite3_reset(s->get);
  }
}

static void workload(sqsoak *s) {
  db_open(s, 1);
  unsigned char *buf = malloc(MAX_VALUE);
  ASSERT(buf != NULL);
  uint64_t tx = 0;
  while (soakfix_running(&s->fx)) {
    transaction(s, buf);
    if (++tx % 8 == 0) read_back(s, buf);
    if (tx % 50 == 0) /* no-op in DELETE mode */
      exec_until_done(s, "PRAGMA wal_checkpoint(TRUNCATE)");
    if (tx % SWITCH_EVERY == 0)
      exec_until_done(s, tx / SWITCH_EVERY % 2 ? "PRAGMA journal_mode=DELETE"
                                               : "PRAGMA journal_mode=WAL");
  }
  free(buf);
  if (db_close(s) != SQLITE_OK) FAIL("closing the database (xio: %s)", xio_sqlite_last_error());
}

/* The independent reader's copy of blob `name` into `path`; 0 when there is no
 * such blob. Returns its size. */
static uint64_t copy_blob(sqsoak *s, xio_ctx *direct, const char *name, const char *path) {
  char url[512];
  soakfix_url(&s->fx, name, 1, url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_error e;
  xio_err rc = xio_file_open(direct, url, &o, &f, &e);
  if (rc == XIO_ENOTFOUND) return 0;
  ASSERT_OK(rc, &e);
  uint64_t size = xio_file_size(f);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT(fd >= 0);
  unsigned char *buf = malloc(CHUNK);
  ASSERT(buf != NULL);
  for (uint64_t off = 0; off < size; off += CHUNK) {
    size_t len = size - off < CHUNK ? (size_t)(size - off) : CHUNK, n = 0;
    ASSERT_OK(xio_file_read(f, off, buf, len, &n, &e), &e);
    ASSERT_EQ(n, len);
    ASSERT_EQ(pwrite(fd, buf, len, (off_t)off), (ssize_t)len);
  }
  free(buf);
  close(fd);
  ASSERT_OK(xio_file_close(f, &e), &e);
  return size;
}

/* Checks every row of the local copy against the model. */
static void check_rows(sqsoak *s, sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT k, ver, v FROM kv ORDER BY k", -1, &st, NULL) != SQLITE_OK)
    FAIL("the copy of the database cannot be read: %s", sqlite3_errmsg(db));
  static uint64_t seen[KEYS];
  unsigned char *want = malloc(MAX_VALUE);
  ASSERT(want != NULL);
  memset(seen, 0, sizeof seen);
  while (sqlite3_step(st) == SQLITE_ROW) {
    int k = sqlite3_column_int(st, 0);
    uint64_t v = (uint64_t)sqlite3_column_int64(st, 1);
    if (k < 0 || k >= KEYS || !s->ver[k]) { /* a row the model does not have */
      s->r.bytes_differ += (size_t)sqlite3_column_bytes(st, 2);
      continue;
    }
    seen[k] = 1;
    size_t len = value_len(s->ver[k]);
    soakfix_fill(want, len, s->ver[k]);
    if (v != s->ver[k] || (size_t)sqlite3_column_bytes(st, 2) != len)
      s->r.bytes_differ += len;
    else
      s->r.bytes_differ += soakfix_diff(sqlite3_column_blob(st, 2), want, len);
  }
  sqlite3_finalize(st);
  for (int k = 0; k < KEYS; k++) {
    if (!s->ver[k]) continue;
    s->r.bytes_checked += value_len(s->ver[k]);
    if (!seen[k]) s->r.bytes_differ += value_len(s->ver[k]); /* a committed row is gone */
  }
  free(want);
}

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads `len` bytes at `off` of the local file `fd`, zeros past its end. */
static void read_local(int fd, uint64_t off, unsigned char *buf, size_t len) {
  memset(buf, 0, len);
  for (size_t got = 0; got < len;) {
    ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));
    ASSERT(n >= 0);
    if (n == 0) break;
    got += (size_t)n;
  }
}

/* The journal record's checksum as SQLite computes it: the header's nonce plus
 * every 200th byte of the page, from the end. */
static uint32_t record_checksum(uint32_t nonce, const unsigned char *page, uint32_t pgsz) {
  for (int i = (int)pgsz - 200; i > 0; i -= 200)
    nonce += page[i];
  return nonce;
}

/* The page-1 record of the journal's first segment (8-byte magic, record count,
 * nonce, original page count, sector size, page size; records of page number,
 * page and checksum from the next sector on, up to the first zero or bad one)
 * into `page`: 1 when found, 0 when not, -1 when the journal names a
 * super-journal (SQLite decides). */
static int journal_page1(int fd, uint64_t size, uint32_t nrec, uint32_t nonce, uint32_t sector,
                         uint32_t pgsz, unsigned char *page) {
  uint64_t recsz = 8 + (uint64_t)pgsz;
  unsigned char *rec = malloc(recsz);
  ASSERT(rec != NULL);
  int found = 0;
  uint64_t off = sector;
  for (uint64_t i = 0; off + recsz <= size; i++, off += recsz) {
    if (nrec != 0 && nrec != 0xffffffffu && i >= nrec) break;
    read_local(fd, off, rec, recsz);
    uint32_t pgno = be32(rec);
    if (pgno == 0 || record_checksum(nonce, rec + 4, pgsz) != be32(rec + 4 + pgsz)) break;
    if (pgno == 0x40000000u / pgsz + 1) { /* the super-journal's page: not ours */
      found = -1;
      break;
    }
    if (pgno == 1) {
      memcpy(page, rec + 4, pgsz);
      found = 1;
      break;
    }
  }
  free(rec);
  return found;
}

/* 1 when the local copy `journal` (`size` bytes) is void by the VFS's format: left
 * by a transaction that committed, as its page 1 (or the empty database's zeros)
 * differs from page 1 of the database copy `db_path`. 0 when SQLite must see it. */
static int journal_void(const char *journal, uint64_t size, const char *db_path) {
  static const unsigned char magic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
  unsigned char h[28];
  int fd = open(journal, O_RDONLY);
  ASSERT(fd >= 0);
  read_local(fd, 0, h, sizeof h);
  uint32_t nrec = be32(h + 8), nonce = be32(h + 12), orig = be32(h + 16), sector = be32(h + 20),
           pgsz = be32(h + 24);
  if (memcmp(h, magic, 8) != 0 || sector < 32 || sector > 65536 || (sector & (sector - 1)) ||
      pgsz < 512 || pgsz > 65536 || (pgsz & (pgsz - 1))) {
    close(fd);
    return 0; /* not a header SQLite can play back: leave it to SQLite */
  }
  unsigned char *then = calloc(1, pgsz), *now = malloc(pgsz);
  ASSERT(then != NULL && now != NULL);
  int found = orig == 0 ? 1 : journal_page1(fd, size, nrec, nonce, sector, pgsz, then);
  close(fd);
  fd = open(db_path, O_RDONLY);
  ASSERT(fd >= 0);
  read_local(fd, 0, now, pgsz);
  close(fd);
  int is_void = found == 1 && memcmp(then, now, pgsz) != 0;
  free(then);
  free(now);
  return is_void;
}

/* Copies and checks the database; returns 1 when a journal was left on storage and
 * found void. */
static int verify(sqsoak *s) {
  char dir[512], db_path[600], wal[620], journal[620];
  test_scratch_dir(dir, sizeof dir, "xio-soak");
  snprintf(db_path, sizeof db_path, "%s/soak.db", dir);
  snprintf(wal, sizeof wal, "%s-wal", db_path);
  snprintf(journal, sizeof journal, "%s-journal", db_path);
  /* A failed check ends the process and removes the copies and the trace, unless
   * XIO_TEST_KEEP_SCRATCH=1 keeps them for a look. */
  printf("soak sqlite: the reader copies to %s (the VFS's trace: %s)\n", dir, s->trace);
  xio_ctx *direct = soakfix_direct_ctx(&s->fx);
  uint64_t dsize = copy_blob(s, direct, "soak.db", db_path);
  ASSERT(dsize > 0);
  uint64_t wsize = copy_blob(s, direct, "soak.db-wal", wal);
  uint64_t jsize = copy_blob(s, direct, "soak.db-journal", journal);
  xio_ctx_free(direct);
  const char *jstate = "none";
  if (jsize && journal_void(journal, jsize, db_path)) {
    char kept[640];
    snprintf(kept, sizeof kept, "%s-void", journal);
    ASSERT_EQ(rename(journal, kept), 0);
    jstate = "void, kept from SQLite";
  } else if (jsize) {
    jstate = "given to SQLite";
  }
  printf("soak sqlite: copied the database (%" PRIu64 " bytes), WAL (%" PRIu64
         "), journal (%" PRIu64 ", %s)\n",
         dsize, wsize, jsize, jstate);
  fflush(stdout);
  sqlite3 *db = NULL;
  ASSERT_EQ(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, "unix"), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  ASSERT_STR_EQ((const char *)sqlite3_column_text(st, 0), "ok");
  sqlite3_finalize(st);
  check_rows(s, db);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  test_remove_tree(dir);
  return strncmp(jstate, "void", 4) == 0;
}

/* The VFS's context writes its trace to a file (XIO_TRACE): count its lines. */
static void count_trace(sqsoak *s) {
  FILE *f = fopen(s->trace, "r");
  ASSERT(f != NULL);
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    const char *r = strstr(line, "\"retries\":");
    line[strcspn(line, "\n")] = '\0';
    soakfix_count(&s->fx.trace, r ? (int)strtol(r + 10, NULL, 10) : 0,
                  strstr(line, "\"result\":\"ok\"") != NULL, line);
  }
  fclose(f);
  test_remove_tree(s->trace);
}

/* Points the VFS at the proxy, with the soak's retry policy and a trace file. */
static void vfs_setup(sqsoak *s) {
  s->rng = s->fx.rates.seed | 1;
  test_scratch_file(s->trace, sizeof s->trace, "xio-soak-trace");
  /* The VFS's context is made from the environment on the first open. */
  setenv("AZURE_STORAGE_CONNECTION_STRING", s->fx.proxy_connstr, 1);
  setenv("XIO_TRACE", s->trace, 1);
  char v[32];
  snprintf(v, sizeof v, "%d", SOAK_MAX_RETRIES);
  setenv("XIO_SQLITE_RETRIES", v, 1);
  snprintf(v, sizeof v, "%d", SOAK_BASE_DELAY_MS);
  setenv("XIO_SQLITE_RETRY_DELAY_MS", v, 1);
  snprintf(v, sizeof v, "%d", SOAK_TRY_TIMEOUT_MS);
  setenv("XIO_SQLITE_TRY_TIMEOUT_MS", v, 1);
  /* A read cache smaller than the database: pages are read from storage too, so
   * responses with bodies meet the faults (torn ones among them). */
  setenv("XIO_SQLITE_CACHE_MB", "1", 1);
  ASSERT_EQ(xio_sqlite_register(1), SQLITE_OK);
}

TEST(transactions_through_faults) {
  static sqsoak s;
  soakfix_setup(&s.fx, "soak-sqlite");
  vfs_setup(&s);
  workload(&s);
  printf("soak sqlite: the database was reopened %d time%s after failures\n", s.reopens,
         s.reopens == 1 ? "" : "s");
  verify(&s);
  count_trace(&s);
  soakfix_report(&s.fx, "sqlite", &s.fx.trace, &s.r);
  soakfix_teardown(&s.fx);
}

/* Commits `n` transactions with no faults, in journal mode `mode` (after the first
 * open's WAL), then closes the database while the service refuses the delete of the
 * journal, as a lease it still holds would: the journal stays on storage, void. The
 * independent reader must find it void and check every committed row. */
static void void_journal_left(const char *prefix, const char *mode, int n) {
  static sqsoak s;
  soakfix_setup(&s.fx, prefix);
  faultproxy_rates none;
  memset(&none, 0, sizeof none);
  faultproxy_set_rates(s.fx.proxy, &none);
  printf("soak %s: no random faults after all; the journal's delete is refused once\n", prefix);
  vfs_setup(&s);
  faultproxy_fault refuse;
  memset(&refuse, 0, sizeof refuse);
  refuse.kind = FAULTPROXY_STATUS;
  refuse.method = "DELETE";
  refuse.match = "soak.db-journal";
  refuse.status = 412;
  refuse.error_code = "LeaseIdMissing";
  refuse.times = 1;
  ASSERT_EQ(faultproxy_add(s.fx.proxy, &refuse), 0);
  db_open(&s, 1);
  if (mode) exec(&s, mode);
  unsigned char *buf = malloc(MAX_VALUE);
  ASSERT(buf != NULL);
  for (int i = 0; i < n; i++)
    transaction(&s, buf);
  free(buf);
  ASSERT_EQ(s.r.failed_ops, 0);
  ASSERT_EQ(db_close(&s), SQLITE_OK);
  int found_void = verify(&s);
  ASSERT(s.r.bytes_checked > 0);
  ASSERT_U64_EQ(s.r.bytes_differ, 0);
  ASSERT_EQ(found_void, 1); /* the case above was made */
  unlink(s.trace);
  soakfix_teardown(&s.fx);
}

/* The journal of the switch to WAL on the empty database (no record; the database
 * had 0 pages), left while every transaction went to the WAL: stock SQLite would
 * truncate the copy to nothing and drop the WAL with it. */
TEST(void_journal_of_the_switch_to_wal) { void_journal_left("soak-sqlite-wal", NULL, 20); }

/* The journal of the last of transactions in rollback mode: rolling it back would
 * undo that committed transaction. */
TEST(void_journal_of_a_committed_transaction) {
  void_journal_left("soak-sqlite-delete", "PRAGMA journal_mode=DELETE", 20);
}
