/*
 * store.c - one file of a database (the database, its journal or its WAL) as the VFS
 * keeps it: an xio file, the size SQLite sees, the writes not yet sent, a read cache.
 *
 * Writes are held by the file layer (xio_file_hold) until SQLite syncs, and SQLite's
 * reads see them; a sync is xio_file_flush, which hands the held runs to the layer's
 * write queue: it combines runs that share or touch a sector into one Put Page (up to
 * 4 MiB) and fills the partial sectors at their edges from what the handle knows
 * (sectors it wrote, zeros past what it wrote), so this file keeps no write buffer
 * or sector code of its own. For a log file the store first tells the layer its
 * high-water mark (xio_file_forget_from): a WAL frame or journal record past it is
 * invalid anyway, so the sector after the last record is filled with zeros, not read
 * back. When sync returns, every write before it has been acknowledged.
 *
 * Order, which crash recovery relies on: a database sync first sends the journal's
 * held writes, then the database's; the database's first 64 KiB (page 1 of any page
 * size) is its commit range, sent only once the rest is acknowledged (see
 * xio_file_set_commit_range). So page 1 on storage changes only
 * when a transaction's other pages are all there; journal.c uses that to tell a
 * journal left by a committed transaction from one that must be rolled back, which
 * lets the journal's deletion be lazy (no request at each commit).
 *
 * Growth: the database grows to exactly what SQLite wrote (its size stays a multiple
 * of the page size); the journal and WAL grow ahead geometrically (at least 4 MiB,
 * doubling) with clear, so growth is rare.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sq_int.h"

#define LOG_MIN_SIZE (4u * 1024u * 1024u)
#define HELD_MAX     (64u * 1024u * 1024u) /* send early past this much */

static uint64_t rup(uint64_t v) { return (v + XSQ_SECTOR - 1) / XSQ_SECTOR * XSQ_SECTOR; }

static const char *role_name(xsq_role r) {
  return r == XSQ_DB ? "database" : r == XSQ_JOURNAL ? "journal" : "WAL";
}

void xsq_store_init(xsq_store *s, xsq_role role, uint64_t cache_bytes) {
  memset(s, 0, sizeof *s);
  s->role = role;
  s->cut = UINT64_MAX;
  xsq_cache_init(&s->cache, role == XSQ_DB ? cache_bytes : cache_bytes / 4);
}

/* What storage holds that SQLite may read: the file, up to a pending truncation. */
static uint64_t stored_size(const xsq_store *s) {
  uint64_t n = s->xf ? xio_file_size(s->xf) : 0;
  return n < s->cut ? n : s->cut;
}

/* ------------------------------------------------------------- opening ---- */

static unsigned open_flags(const xsq_node *node, int create, int create_only) {
  if (node->readonly) return XIO_OPEN_READONLY;
  /* Exclusive: the file layer combines the writes and fills their edge sectors from
   * what it knows; unaligned: SQLite's records are not whole sectors. */
  unsigned f = XIO_OPEN_LEASE | XIO_OPEN_UNALIGNED;
  if (node->takeover) f |= XIO_OPEN_BREAK_LEASE;
  if (create_only)
    f |= XIO_OPEN_CREATE_ONLY;
  else if (create)
    f |= XIO_OPEN_CREATE;
  return f;
}

/* Opens the journal or WAL blob. ENOTFOUND is returned as is (no message). */
static xio_err open_log(xsq_node *node, xsq_role role, int create, xio_error *e) {
  xsq_store *s = &node->st[role];
  xio_ctx *ctx = node->ctx;
  xio_open_options o = xio_open_options_default();
  int create_only = create && s->absent;
  o.flags = open_flags(node, create, create_only) | XIO_OPEN_MISSING_OK; /* "does it exist?" */
  o.kind = XIO_KIND_LOG;
  o.size = LOG_MIN_SIZE;
  o.init = XIO_INIT_NONE; /* a new blob reads as zeros already */
  xio_err rc = xio_file_open(ctx, node->targets[role], &o, &s->xf, e);
  if (rc == XIO_EEXIST && create_only) {
    o.flags = open_flags(node, 1, 0);
    rc = xio_file_open(ctx, node->targets[role], &o, &s->xf, e);
  }
  return rc;
}

int xsq_store_open(xsq_node *node, xsq_role role, int create) {
  xsq_store *s = &node->st[role];
  if (s->xf) return SQLITE_OK;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = open_log(node, role, create, &e);
  if (rc == XIO_ENOTFOUND && !create) {
    s->known = s->absent = 1;
    s->exists = 0;
    return SQLITE_OK;
  }
  s->absent = 0;
  if (rc != XIO_OK) return xsq_fail_xio(SQLITE_CANTOPEN, "opening the journal or WAL", &e);
  if (!s->known) { /* first sight in this process: what is there is what SQLite sees */
    s->size = s->hwm = xio_file_size(s->xf);
    s->on_storage = s->size > 0;
  }
  s->known = 1;
  return SQLITE_OK;
}

/* xsq_store_read for the journal check (journal.c), which knows no node. */
static int read_for_journal(void *node, xsq_role role, void *buf, int amt, uint64_t off) {
  return xsq_store_read(node, role, buf, amt, off);
}

int xsq_store_check(xsq_node *node, xsq_role role, int *exists) {
  xsq_store *s = &node->st[role];
  if (s->known) {
    *exists = s->exists;
    return SQLITE_OK;
  }
  int rc = xsq_store_open(node, role, 0);
  if (rc != SQLITE_OK) return rc;
  s->exists = s->xf != NULL;
  if (s->exists && role == XSQ_JOURNAL) {
    int hot = 0;
    xsq_journal_src src = {read_for_journal, node, s->size};
    rc = xsq_journal_is_hot(&src, &hot);
    if (rc != SQLITE_OK) return rc;
    if (!hot) { /* left by a committed transaction: SQLite sees no journal */
      s->exists = 0;
      s->size = s->hwm = 0;
    }
  }
  *exists = s->exists;
  return SQLITE_OK;
}

/* ------------------------------------------------------------- reading ---- */

int xsq_store_lease_check(xsq_node *node, int code) {
  for (int r = 0; r < 3; r++) {
    xio_file *xf = node->st[r].xf;
    if (xf && xio_file_lease_lost(xf))
      return xsq_fail(code,
                      "the lease on %s was lost (another process took the database over, "
                      "or this one was paused past its lease): what this process holds of "
                      "it may be stale, so nothing more is read or written; close the "
                      "database and open it again",
                      xio_file_path(xf));
  }
  return SQLITE_OK;
}

/* Where a read's bytes come from, each from one place. Held bytes (written since the
 * last sync) reach SQLite through the file layer, which lays them over every read
 * (xio_file_submit, xio_file_read): the cache's lines are filled by such reads, and a
 * write copies itself into the lines it touches (xsq_store_write), so what the cache
 * answers below the stored size already holds them and nothing here lays them over
 * it again. Two kinds of bytes no read can give, since the layer's reads stop at the
 * stored size, come from xio_file_held_read alone (into zeros, before anything is
 * read): a read that held bytes cover whole (a page SQLite wrote in this transaction:
 * no request), and bytes past the stored size (a database grown or truncated since
 * the last sync, a log past its blob's end): held bytes or zeros. */
int xsq_store_read(xsq_node *node, xsq_role role, void *buf, int amt, uint64_t off) {
  int lost = xsq_store_lease_check(node, SQLITE_IOERR_READ);
  if (lost != SQLITE_OK) return lost;
  xsq_store *s = &node->st[role];
  size_t len = (size_t)amt, avail = 0;
  if (off < s->size) avail = s->size - off < len ? (size_t)(s->size - off) : len;
  memset(buf, 0, len);
  uint64_t fsize = stored_size(s);
  if (avail && !xio_file_held_read(s->xf, off, buf, avail) && s->xf && off < fsize) {
    size_t stored = fsize - off < avail ? (size_t)(fsize - off) : avail;
    xio_error e;
    xio_error_clear(&e);
    xio_err rc = xsq_cache_read(&s->cache, s->xf, fsize, off, buf, stored, &e);
    if (rc != XIO_OK) return xsq_fail_xio(SQLITE_IOERR_READ, "reading", &e);
  }
  if (avail < len) {
    memset((unsigned char *)buf + avail, 0, len - avail);
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

/* ------------------------------------------------------------- writing ---- */

static int flush_store(xsq_node *node, xsq_role role, int early);

/* Sends a transaction's writes before its sync, when too much is held. The database's
 * commit range (its first 64 KiB: page 1, whatever the page size) stays held: page 1
 * may reach storage only at a sync, after everything else (see journal.c). Only those
 * bytes: a run that starts there and goes on (pages 1 to N written in order by a
 * checkpoint, a VACUUM or a commit from a large cache) is cut at 64 KiB and its rest
 * sent, so what stays held is small and the next early send comes only after another
 * HELD_MAX. The journal goes first, as at a sync. */
static int flush_early(xsq_node *node, xsq_role role) {
  if (role != XSQ_DB) return flush_store(node, role, 0);
  int rc = flush_store(node, XSQ_JOURNAL, 0);
  return rc == SQLITE_OK ? flush_store(node, XSQ_DB, 1) : rc;
}

int xsq_store_write(xsq_node *node, xsq_role role, const void *buf, int amt, uint64_t off) {
  xsq_store *s = &node->st[role];
  if (s->sticky != XIO_OK) return xsq_fail_xio(SQLITE_IOERR_WRITE, "writing", &s->sticky_detail);
  if (!s->xf) { /* a journal or WAL SQLite writes first: the blob is made now */
    int orc = xsq_store_open(node, role, 1);
    if (orc != SQLITE_OK) return orc;
  }
  if (role != XSQ_DB && off == 0) s->hwm = 0; /* a new journal or WAL: older bytes are void */
  xio_error e;
  xio_error_clear(&e);
  if (xio_file_hold(s->xf, off, buf, (size_t)amt, &e) != XIO_OK) {
    char what[64];
    snprintf(what, sizeof what, "holding a write to the %s", role_name(role));
    return xsq_fail_xio(e.code == XIO_ENOMEM ? SQLITE_IOERR_NOMEM : SQLITE_IOERR_WRITE, what, &e);
  }
  xsq_cache_patch(&s->cache, off, buf, (size_t)amt); /* cached lines stay what SQLite reads */
  uint64_t end = off + (uint64_t)amt;
  if (end > s->size) s->size = end;
  if (end > s->hwm) s->hwm = end;
  s->known = s->exists = 1;
  return xio_file_held_bytes(s->xf) <= HELD_MAX ? SQLITE_OK : flush_early(node, role);
}

int xsq_store_truncate(xsq_node *node, xsq_role role, uint64_t size) {
  xsq_store *s = &node->st[role];
  if (s->xf) xio_file_drop_held(s->xf, size);
  xsq_cache_truncate(&s->cache, size);
  s->size = size;
  if (role == XSQ_DB) { /* sent at the next sync */
    if (size < s->cut) s->cut = size;
    return SQLITE_OK;
  }
  if (s->hwm > size) s->hwm = size;
  if (role == XSQ_WAL && size < 32 && s->xf && xio_file_size(s->xf) >= XSQ_SECTOR) {
    /* An emptied WAL must not replay after a crash: clear its header. */
    xio_error e;
    xio_error_clear(&e);
    xio_err rc = xio_file_zero(s->xf, 0, XSQ_SECTOR, XIO_INIT_CLEAR, &e);
    if (rc != XIO_OK) return xsq_fail_xio(SQLITE_IOERR_TRUNCATE, "truncating the WAL", &e);
    xsq_cache_truncate(&s->cache, 0);
    s->hwm = 0;
  }
  return SQLITE_OK; /* journal: emptied lazily, see journal.c */
}

/* ----------------------------------------------------------- flushing ---- */

static xio_err grow(xsq_store *s, uint64_t need, xio_error *e) {
  uint64_t cur = xio_file_size(s->xf);
  if (need <= cur) return XIO_OK;
  if (s->role == XSQ_DB) return xio_file_set_size(s->xf, need, XIO_INIT_NONE, e);
  uint64_t to = cur * 2 > need ? cur * 2 : need;
  if (to < LOG_MIN_SIZE) to = LOG_MIN_SIZE;
  to = (to + XSQ_LINE - 1) / XSQ_LINE * XSQ_LINE;
  return xio_file_set_size(s->xf, to, XIO_INIT_CLEAR, e);
}

/* The read cache learns what is about to be on storage: each held run, in offset
 * order, with the size storage has now. Lines it already holds have the runs' bytes
 * below the old stored size (filled by reads that include held bytes, patched by each
 * write), but not past it, where a fill put zeros and reads took held bytes instead:
 * those become readable from the cache now. And lines the runs cover whole (or up to
 * the file's end) become cached, so a checkpoint reads the WAL it just wrote from
 * memory. Before the send, since the layer forgets the runs once they are
 * acknowledged; a failed send keeps them held, so the cache never shows SQLite what
 * it did not write. */
typedef struct cache_arg {
  xsq_cache *cache;
  uint64_t fsize;
} cache_arg;

static void cache_run(uint64_t off, const void *buf, size_t len, void *ud) {
  cache_arg *a = ud;
  xsq_cache_update(a->cache, off, buf, len, a->fsize);
}

/* Past the end it gives, a run's line is zeros: the database's size, or a log's
 * high-water mark (bytes past it are void; before it they are on storage). */
static void cache_held(xsq_store *s) {
  cache_arg a = {&s->cache, s->role == XSQ_DB ? xio_file_size(s->xf) : s->hwm};
  xio_file_held_each(s->xf, cache_run, &a);
}

/* Sends the held writes: all of them, page 1 of the database last (xio_file_flush),
 * or, `early`, all but the commit range (xio_file_send_held). A journal or WAL first
 * tells the file layer that nothing at or past its high-water mark is relied on, so
 * the edge sector after its last record is filled with zeros rather than read back. */
static xio_err send_all(xsq_store *s, int early, xio_error *e) {
  if (s->role != XSQ_DB) xio_file_forget_from(s->xf, s->hwm);
  int had = xio_file_held_bytes(s->xf) > 0;
  cache_held(s);
  xio_err rc = early ? xio_file_send_held(s->xf, e) : xio_file_flush(s->xf, e);
  if (rc == XIO_OK && had && s->role == XSQ_JOURNAL) s->on_storage = 1;
  return rc;
}

static xio_err flush_xio(xsq_store *s, int early, xio_error *e) {
  uint64_t end = xio_file_held_end(s->xf), held = xio_file_held_bytes(s->xf);
  xio_err rc = XIO_OK;
  if (s->role == XSQ_DB) {
    if (!held && s->size == xio_file_size(s->xf) && s->cut == UINT64_MAX) return XIO_OK;
    if (s->cut < xio_file_size(s->xf)) /* truncated, maybe grown again: cut first */
      rc = xio_file_set_size(s->xf, s->cut, XIO_INIT_NONE, e);
    if (rc == XIO_OK) s->cut = UINT64_MAX;
    if (rc == XIO_OK && s->size > xio_file_size(s->xf)) rc = grow(s, s->size, e);
  } else {
    if (!held) return XIO_OK;
    rc = grow(s, rup(end), e);
  }
  if (rc == XIO_OK) rc = send_all(s, early, e);
  if (rc == XIO_OK && s->role == XSQ_DB && s->size < xio_file_size(s->xf))
    rc = xio_file_set_size(s->xf, s->size, XIO_INIT_NONE, e);
  return rc;
}

static int flush_store(xsq_node *node, xsq_role role, int early) {
  xsq_store *s = &node->st[role];
  if (s->sticky != XIO_OK) return xsq_fail_xio(SQLITE_IOERR_FSYNC, "syncing", &s->sticky_detail);
  if (!s->xf) return SQLITE_OK;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = flush_xio(s, early, &e);
  if (rc == XIO_OK) return SQLITE_OK;
  if (rc == XIO_ELEASELOST) {
    s->sticky = rc;
    s->sticky_detail = e;
  }
  return xsq_fail_xio(SQLITE_IOERR_FSYNC,
                      role == XSQ_DB    ? "syncing the database"
                      : role == XSQ_WAL ? "syncing the WAL"
                                        : "syncing the journal",
                      &e);
}

int xsq_store_sync(xsq_node *node, xsq_role role) {
  int rc = SQLITE_OK;
  if (role == XSQ_DB) rc = flush_store(node, XSQ_JOURNAL, 0);
  return rc == SQLITE_OK ? flush_store(node, role, 0) : rc;
}

int xsq_node_flush(xsq_node *node) {
  int rc = flush_store(node, XSQ_JOURNAL, 0);
  if (rc == SQLITE_OK) rc = flush_store(node, XSQ_WAL, 0);
  if (rc == SQLITE_OK) rc = flush_store(node, XSQ_DB, 0);
  return rc;
}

/* ----------------------------------------------------------- deleting ---- */

static void forget_content(xsq_store *s) {
  if (s->xf) xio_file_drop_held(s->xf, 0);
  xsq_cache_truncate(&s->cache, 0);
  s->size = s->hwm = 0;
  s->known = 1;
  s->exists = 0;
}

int xsq_store_delete(xsq_node *node, xsq_role role) {
  xsq_store *s = &node->st[role];
  if (role == XSQ_JOURNAL) {
    /* The end of a transaction: the journal must reach storage before the database
     * writes that depend on it; then it is emptied in memory only. */
    xio_file *db = node->st[XSQ_DB].xf;
    int rc = db && xio_file_held_bytes(db) ? xsq_store_sync(node, XSQ_DB) : SQLITE_OK;
    if (rc != SQLITE_OK) return rc;
    forget_content(s);
    return SQLITE_OK;
  }
  forget_content(s);
  if (!s->xf) return SQLITE_OK;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio_file_close(s->xf, &e);
  s->xf = NULL;
  /* Gone already is as good as deleted: its 404 is traced as expected, no failure. */
  if (rc == XIO_OK) rc = xio_file_delete_if_exists(node->ctx, node->targets[role], NULL, &e);
  if (rc != XIO_OK) return xsq_fail_xio(SQLITE_IOERR_DELETE, "deleting the WAL", &e);
  s->absent = 1;
  return SQLITE_OK;
}

void xsq_store_close(xsq_node *node, xsq_role role) {
  xsq_store *s = &node->st[role];
  xio_error e;
  xio_error_clear(&e);
  if (s->xf) {
    int drop = role == XSQ_JOURNAL && !s->exists && s->sticky == XIO_OK;
    xio_file_drop_held(s->xf, 0); /* sent by the last sync, or not to be sent */
    xio_file_close(s->xf, &e);
    s->xf = NULL;
    if (drop) xio_file_delete_if_exists(node->ctx, node->targets[role], NULL, &e);
  }
  xsq_cache_free(&s->cache);
}
