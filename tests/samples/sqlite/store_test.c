/*
 * store_test.c - what the VFS reads is what SQLite wrote, whatever has been sent: the
 * database file of a node driven below SQLite (store.c) with writes held until a
 * sync, reads across held bytes, cached lines, the stored end and a pending
 * truncation, syncs and truncations, checked against a copy in memory. Held bytes
 * reach a read through the file layer's reads (the cache's lines are filled by them
 * and patched by each write); the VFS takes them from the layer itself only where no
 * read can give them: a read they cover whole, which costs no request, and bytes
 * past the stored size.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sq_int.h"
#include "sqfix.h"
#include "test.h"

#define KIB 1024u
#define MAX (640u * KIB) /* ten cache lines */

typedef struct model {
  xsq_node *node;
  unsigned char *bytes; /* what SQLite wrote, zeros elsewhere */
  uint64_t size;        /* the size SQLite sees */
  uint64_t seed;
} model;

static uint64_t next(model *m) { /* xorshift64 */
  m->seed ^= m->seed << 13;
  m->seed ^= m->seed >> 7;
  m->seed ^= m->seed << 17;
  return m->seed;
}

static uint64_t below(model *m, uint64_t n) { return n ? next(m) % n : 0; }

static xsq_node *open_node(const sqfix *fx, const char *name, const char *query) {
  char url[512], full[600];
  sqfix_url(fx, name, url, sizeof url);
  snprintf(full, sizeof full, "%s%s", url, query);
  xsq_name n;
  ASSERT_EQ(xsq_name_parse(full, XSQ_DB, &n), 0);
  xsq_node *node = NULL;
  int rc = xsq_node_acquire(&n, 0, 1, &node);
  if (rc != SQLITE_OK) FAIL("open %s: rc=%d %s", full, rc, xsq_last_error());
  return node;
}

static uint64_t read_requests(const model *m) {
  xio_file_stats st;
  xio_file_get_stats(m->node->st[XSQ_DB].xf, &st);
  return st.read_requests;
}

static void write_at(model *m, uint64_t off, size_t len) {
  unsigned char *buf = malloc(len);
  ASSERT(buf != NULL);
  for (size_t i = 0; i < len; i++)
    buf[i] = (unsigned char)(next(m) | 1); /* never zero: a lost byte shows */
  int rc = xsq_store_write(m->node, XSQ_DB, buf, (int)len, off);
  if (rc != SQLITE_OK)
    FAIL("write [%llu, +%zu): rc=%d %s", (unsigned long long)off, len, rc, xsq_last_error());
  memcpy(m->bytes + off, buf, len);
  if (off + len > m->size) m->size = off + len;
  free(buf);
}

static void check_at(model *m, uint64_t off, size_t len) {
  unsigned char *buf = malloc(len), *want = calloc(1, len);
  ASSERT(buf && want);
  if (off < m->size) memcpy(want, m->bytes + off, m->size - off < len ? m->size - off : len);
  int rc = xsq_store_read(m->node, XSQ_DB, buf, (int)len, off);
  int expect = off + len <= m->size ? SQLITE_OK : SQLITE_IOERR_SHORT_READ;
  if (rc != expect)
    FAIL("read [%llu, +%zu) of %llu: rc=%d, want %d %s", (unsigned long long)off, len,
         (unsigned long long)m->size, rc, expect, xsq_last_error());
  for (size_t i = 0; i < len; i++)
    if (buf[i] != want[i])
      FAIL("read [%llu, +%zu) of %llu (stored %llu, held %llu): byte %llu is %u, SQLite "
           "wrote %u",
           (unsigned long long)off, len, (unsigned long long)m->size,
           (unsigned long long)xio_file_size(m->node->st[XSQ_DB].xf),
           (unsigned long long)xio_file_held_bytes(m->node->st[XSQ_DB].xf),
           (unsigned long long)(off + i), buf[i], want[i]);
  free(buf);
  free(want);
}

static void sync_db(model *m) {
  int rc = xsq_store_sync(m->node, XSQ_DB);
  if (rc != SQLITE_OK) FAIL("sync: rc=%d %s", rc, xsq_last_error());
  ASSERT_U64_EQ(xio_file_held_bytes(m->node->st[XSQ_DB].xf), 0);
}

static void truncate_to(model *m, uint64_t size) {
  ASSERT_EQ(xsq_store_truncate(m->node, XSQ_DB, size), SQLITE_OK);
  if (size < m->size) memset(m->bytes + size, 0, m->size - size);
  m->size = size;
}

/* Opens the database (a new node: its cache starts empty) with the mutex every VFS
 * method takes; what it holds is m->bytes up to m->size. */
static void start(model *m, const sqfix *fx, const char *name, const char *query) {
  if (!m->bytes) {
    m->bytes = calloc(1, MAX + 64 * KIB);
    ASSERT(m->bytes != NULL);
    m->seed = 0x9e3779b97f4a7c15ull;
  }
  m->node = open_node(fx, name, query);
  ASSERT_U64_EQ(m->node->st[XSQ_DB].size, m->size);
  pthread_mutex_lock(&m->node->mu);
}

/* Closes it: the last reference sends what is held. */
static void stop(model *m) {
  pthread_mutex_unlock(&m->node->mu);
  xsq_node_release(m->node);
  m->node = NULL;
}

/* Each way a byte reaches a read, with the requests it may cost. */
TEST(store_reads_what_was_written_held_cached_or_sent) {
  sqfix fx;
  sqfix_setup(&fx);
  model m = {0};
  start(&m, &fx, "store.sqlite", "");
  write_at(&m, 0, 100 * KIB); /* line 1 of the cache ends past the stored size */
  stop(&m);
  start(&m, &fx, "store.sqlite", ""); /* nothing cached */
  uint64_t r0 = read_requests(&m);
  check_at(&m, 0, 4 * KIB); /* a miss: line 0 from storage */
  ASSERT_U64_EQ(read_requests(&m), r0 + 1);
  /* A write into a cached line: the line is patched, not read again. */
  write_at(&m, 4 * KIB + 100, 3000);
  check_at(&m, 0, 16 * KIB);
  check_at(&m, 4 * KIB + 200, 100); /* held bytes alone */
  ASSERT_U64_EQ(read_requests(&m), r0 + 1);
  /* Past the stored size, in a line not cached: the held bytes alone, no request. */
  write_at(&m, 100 * KIB, 4 * KIB);
  check_at(&m, 100 * KIB, 4 * KIB);
  ASSERT_U64_EQ(read_requests(&m), r0 + 1);
  /* Across the stored size: the line from storage (held bytes below it laid over by
   * the file layer), the held bytes past it. */
  write_at(&m, 96 * KIB + 10, 20);
  check_at(&m, 90 * KIB, 14 * KIB);
  check_at(&m, 90 * KIB, 20 * KIB); /* and past what SQLite sees: zeros, a short read */
  ASSERT_U64_EQ(read_requests(&m), r0 + 2);
  /* Sent: the line now answers past the old stored size too, from memory. */
  sync_db(&m);
  r0 = read_requests(&m);
  check_at(&m, 64 * KIB, 40 * KIB);
  ASSERT_U64_EQ(read_requests(&m), r0);
  /* A truncation pending until the sync: storage past it reads as zeros, then what
   * is written there again. */
  truncate_to(&m, 60 * KIB);
  write_at(&m, 62 * KIB, 4 * KIB);
  check_at(&m, 56 * KIB, 12 * KIB);
  sync_db(&m);
  check_at(&m, 0, 70 * KIB);
  stop(&m);
  free(m.bytes);
}

/* Random writes of any alignment, reads, syncs and truncations. */
static void random_ops(const char *name, const char *query, int ops) {
  sqfix fx;
  sqfix_setup(&fx);
  model m = {0};
  start(&m, &fx, name, query);
  for (int i = 0; i < ops; i++) {
    unsigned op = (unsigned)below(&m, 100);
    if (op < 40) { /* a write, growing the file by whole sectors as SQLite does */
      uint64_t off = below(&m, m.size + 70 * KIB < MAX ? m.size + 70 * KIB : MAX);
      uint64_t len = 1 + below(&m, below(&m, 4) ? 4 * KIB : 80 * KIB);
      if (off + len > MAX) len = MAX - off;
      if (off + len > m.size) len = (off + len + 511) / 512 * 512 - off;
      if (len) write_at(&m, off, (size_t)len);
    } else if (op < 88) {
      uint64_t off = below(&m, m.size + 8 * KIB);
      check_at(&m, off, (size_t)(1 + below(&m, below(&m, 4) ? 8 * KIB : 140 * KIB)));
    } else if (op < 96) {
      sync_db(&m);
    } else {
      truncate_to(&m, below(&m, m.size / 512 + 1) * 512);
    }
  }
  sync_db(&m);
  check_at(&m, 0, (size_t)(m.size + 1));
  stop(&m);
  start(&m, &fx, name, ""); /* storage holds what SQLite wrote */
  if (m.size) check_at(&m, 0, (size_t)m.size);
  stop(&m);
  free(m.bytes);
}

TEST(store_random_writes_read_back_with_a_large_cache) { random_ops("random.sqlite", "", 600); }

/* One line of cache (xio_cache_mb=0): lines are evicted and filled again all along. */
TEST(store_random_writes_read_back_with_a_cache_of_one_line) {
  random_ops("evicting.sqlite", "?xio_cache_mb=0", 600);
}

/* A WAL run rewritten from the start of a cache line while what follows it is on
 * storage already (SQLite rewrites a frame of the transaction in place after an early
 * send): the line the sync caches must not be the run followed by zeros. */
TEST(store_log_rewrite_at_a_line_start_keeps_what_follows) {
  sqfix fx;
  sqfix_setup(&fx);
  xsq_node *node = open_node(&fx, "log.sqlite", "?xio_cache_mb=0"); /* a line each */
  pthread_mutex_lock(&node->mu);
  const size_t n = 200 * KIB;
  unsigned char *log = malloc(n), *buf = malloc(8 * KIB);
  ASSERT(log && buf);
  for (size_t i = 0; i < n; i++)
    log[i] = (unsigned char)(i % 251 + 1);
  ASSERT_EQ(xsq_store_write(node, XSQ_WAL, log, (int)n, 0), SQLITE_OK);
  ASSERT_EQ(xsq_store_sync(node, XSQ_WAL), SQLITE_OK);
  memset(log + 64 * KIB, 0xab, 100);
  ASSERT_EQ(xsq_store_write(node, XSQ_WAL, log + 64 * KIB, 100, 64 * KIB), SQLITE_OK);
  ASSERT_EQ(xsq_store_sync(node, XSQ_WAL), SQLITE_OK);
  ASSERT_EQ(xsq_store_read(node, XSQ_WAL, buf, 8 * KIB, 64 * KIB), SQLITE_OK);
  ASSERT_MEM_EQ(buf, log + 64 * KIB, 8 * KIB);
  /* A run that reaches the high-water mark: what follows it is void, the line cached. */
  memset(log + 128 * KIB, 0xcd, n - 128 * KIB);
  ASSERT_EQ(xsq_store_write(node, XSQ_WAL, log + 128 * KIB, (int)(n - 128 * KIB), 128 * KIB),
            SQLITE_OK);
  ASSERT_EQ(xsq_store_sync(node, XSQ_WAL), SQLITE_OK);
  xio_file_stats before, after;
  xio_file_get_stats(node->st[XSQ_WAL].xf, &before);
  ASSERT_EQ(xsq_store_read(node, XSQ_WAL, buf, 8 * KIB, 192 * KIB), SQLITE_OK);
  ASSERT_MEM_EQ(buf, log + 192 * KIB, 8 * KIB);
  xio_file_get_stats(node->st[XSQ_WAL].xf, &after);
  ASSERT_U64_EQ(after.read_requests, before.read_requests);
  free(log);
  free(buf);
  pthread_mutex_unlock(&node->mu);
  xsq_node_release(node);
}
