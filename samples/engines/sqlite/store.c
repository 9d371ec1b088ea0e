/*
 * store.c - one file of a database (the database, its journal or its WAL) as the VFS
 * keeps it: an xio file, the size SQLite sees, the writes not yet sent, a read cache.
 *
 * Writes are held in memory (pending.c) until SQLite syncs. A sync hands each
 * contiguous run to the file layer as it is, unaligned, on the exclusive open: the
 * layer's write queue combines runs that share or touch a sector into one Put Page
 * (up to 4 MiB) and fills the partial sectors at their edges from what the handle
 * knows (sectors it wrote, zeros past what it wrote), so this file keeps no sector
 * code of its own. For a log file the store first tells the layer its high-water
 * mark (xio_file_forget_from): a WAL frame or journal record past it is invalid
 * anyway, so the sector after the last record is filled with zeros, not read back.
 * When sync returns, every write before it has been acknowledged by the service.
 *
 * Order, which crash recovery relies on: a database sync first sends the journal's
 * pending writes, then every run of the database except the one holding page 1, and
 * page 1 last, once the others are acknowledged. So page 1 on storage changes only
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
#include <stdlib.h>
#include <string.h>

#include "sq_int.h"

#define LOG_MIN_SIZE (4u * 1024u * 1024u)
#define PENDING_MAX  (64u * 1024u * 1024u) /* send early past this much */
#define PAGE1_HELD   65536u                /* held until the sync: page 1 of any page size */

static uint64_t rdown(uint64_t v) { return v / XIO__SQ_SECTOR * XIO__SQ_SECTOR; }
static uint64_t rup(uint64_t v) {
  return (v + XIO__SQ_SECTOR - 1) / XIO__SQ_SECTOR * XIO__SQ_SECTOR;
}

static const char *role_name(xio__sq_role r) {
  return r == XIO__SQ_DB ? "database" : r == XIO__SQ_JOURNAL ? "journal" : "WAL";
}

void xio__sq_store_init(xio__sq_store *s, xio__sq_role role, uint64_t cache_bytes) {
  memset(s, 0, sizeof *s);
  s->role = role;
  s->cut = UINT64_MAX;
  xio__sq_cache_init(&s->cache, role == XIO__SQ_DB ? cache_bytes : cache_bytes / 4);
}

/* What storage holds that SQLite may read: the file, up to a pending truncation. */
static uint64_t stored_size(const xio__sq_store *s) {
  uint64_t n = s->xf ? xio_file_size(s->xf) : 0;
  return n < s->cut ? n : s->cut;
}

/* ------------------------------------------------------------- opening ---- */

static unsigned open_flags(const xio__sq_node *node, int create, int create_only) {
  if (node->readonly) return XIO_OPEN_READONLY;
  /* Exclusive: the file layer combines the writes and fills their edge sectors from
   * what it knows; unaligned: SQLite's records are not whole sectors. */
  unsigned f = XIO_OPEN_EXCLUSIVE | XIO_OPEN_UNALIGNED;
  if (node->takeover) f |= XIO_OPEN_BREAK_LEASE;
  if (create_only)
    f |= XIO_OPEN_CREATE_ONLY;
  else if (create)
    f |= XIO_OPEN_CREATE;
  return f;
}

/* Opens the journal or WAL blob. ENOTFOUND is returned as is (no message). */
static xio_err open_log(xio__sq_node *node, xio__sq_role role, int create, xio_error *e) {
  xio__sq_store *s = &node->st[role];
  xio_ctx *ctx = xio__sq_ctx(e);
  if (!ctx) return e->code ? e->code : XIO_EINVAL;
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

int xio__sq_store_open(xio__sq_node *node, xio__sq_role role, int create) {
  xio__sq_store *s = &node->st[role];
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
  if (rc != XIO_OK) return xio__sq_fail_xio(SQLITE_CANTOPEN, "opening the journal or WAL", &e);
  if (!s->known) { /* first sight in this process: what is there is what SQLite sees */
    s->size = s->hwm = xio_file_size(s->xf);
    s->on_storage = s->size > 0;
  }
  s->known = 1;
  return SQLITE_OK;
}

int xio__sq_store_check(xio__sq_node *node, xio__sq_role role, int *exists) {
  xio__sq_store *s = &node->st[role];
  if (s->known) {
    *exists = s->exists;
    return SQLITE_OK;
  }
  int rc = xio__sq_store_open(node, role, 0);
  if (rc != SQLITE_OK) return rc;
  s->exists = s->xf != NULL;
  if (s->exists && role == XIO__SQ_JOURNAL) {
    int hot = 0;
    rc = xio__sq_journal_is_hot(node, &hot);
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

int xio__sq_store_lease_check(xio__sq_node *node, int code) {
  for (int r = 0; r < 3; r++) {
    xio_file *xf = node->st[r].xf;
    if (xf && xio_file_lease_lost(xf))
      return xio__sq_fail(code,
                          "the lease on %s was lost (another process took the database over, "
                          "or this one was paused past its lease): what this process holds of "
                          "it may be stale, so nothing more is read or written; close the "
                          "database and open it again",
                          xio_file_path(xf));
  }
  return SQLITE_OK;
}

int xio__sq_store_read(xio__sq_node *node, xio__sq_role role, void *buf, int amt, uint64_t off) {
  int lost = xio__sq_store_lease_check(node, SQLITE_IOERR_READ);
  if (lost != SQLITE_OK) return lost;
  xio__sq_store *s = &node->st[role];
  size_t len = (size_t)amt, avail = 0;
  if (off < s->size) avail = s->size - off < len ? (size_t)(s->size - off) : len;
  memset(buf, 0, len);
  if (avail && !xio__sq_pending_overlay(&s->pend, off, buf, avail)) {
    uint64_t fsize = stored_size(s);
    if (s->xf && off < fsize) {
      xio_error e;
      xio_error_clear(&e);
      xio_err rc = xio__sq_cache_read(&s->cache, s->xf, fsize, off, buf, avail, &e);
      if (rc != XIO_OK) return xio__sq_fail_xio(SQLITE_IOERR_READ, "reading", &e);
    }
    xio__sq_pending_overlay(&s->pend, off, buf, avail);
  }
  if (avail < len) {
    memset((unsigned char *)buf + avail, 0, len - avail);
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

/* ------------------------------------------------------------- writing ---- */

static int flush_store(xio__sq_node *node, xio__sq_role role);

/* Sends a transaction's writes before its sync, when too much is held. The database's
 * first 64 KiB (page 1, whatever the page size) stay held: page 1 may reach storage
 * only at a sync, after everything else (see journal.c). Only those bytes: a run that
 * starts there and goes on (pages 1 to N written in order by a checkpoint, a VACUUM or
 * a commit from a large cache) is cut at 64 KiB and its rest sent, so what stays held
 * is small and the next early send comes only after another PENDING_MAX. */
static int flush_early(xio__sq_node *node, xio__sq_role role) {
  if (role != XIO__SQ_DB) return flush_store(node, role);
  int rc = flush_store(node, XIO__SQ_JOURNAL);
  if (rc != SQLITE_OK) return rc;
  xio__sq_pending *p = &node->st[XIO__SQ_DB].pend, held = {NULL, 0, 0, 0};
  if (xio__sq_pending_take(p, PAGE1_HELD, &held))
    return xio__sq_fail(SQLITE_IOERR_NOMEM, "out of memory sending writes");
  rc = flush_store(node, XIO__SQ_DB);
  for (size_t i = 0; i < held.n; i++) /* back in front of whatever is still pending */
    if (xio__sq_pending_write(p, held.v[i].off, held.v[i].buf, held.v[i].len) && rc == SQLITE_OK)
      rc = xio__sq_fail(SQLITE_IOERR_NOMEM, "out of memory holding page 1");
  xio__sq_pending_clear(&held);
  return rc;
}

int xio__sq_store_write(xio__sq_node *node, xio__sq_role role, const void *buf, int amt,
                        uint64_t off) {
  xio__sq_store *s = &node->st[role];
  if (s->sticky != XIO_OK)
    return xio__sq_fail_xio(SQLITE_IOERR_WRITE, "writing", &s->sticky_detail);
  if (role != XIO__SQ_DB && off == 0) s->hwm = 0; /* a new journal or WAL: older bytes are void */
  if (xio__sq_pending_write(&s->pend, off, buf, (size_t)amt))
    return xio__sq_fail(SQLITE_IOERR_NOMEM, "out of memory holding a write to the %s",
                        role_name(role));
  uint64_t end = off + (uint64_t)amt;
  if (end > s->size) s->size = end;
  if (end > s->hwm) s->hwm = end;
  s->known = s->exists = 1;
  return s->pend.bytes <= PENDING_MAX ? SQLITE_OK : flush_early(node, role);
}

int xio__sq_store_truncate(xio__sq_node *node, xio__sq_role role, uint64_t size) {
  xio__sq_store *s = &node->st[role];
  xio__sq_pending_truncate(&s->pend, size);
  xio__sq_cache_truncate(&s->cache, size);
  s->size = size;
  if (role == XIO__SQ_DB) { /* sent at the next sync */
    if (size < s->cut) s->cut = size;
    return SQLITE_OK;
  }
  if (s->hwm > size) s->hwm = size;
  if (role == XIO__SQ_WAL && size < 32 && s->xf && xio_file_size(s->xf) >= XIO__SQ_SECTOR) {
    /* An emptied WAL must not replay after a crash: clear its header. */
    xio_error e;
    xio_error_clear(&e);
    xio_err rc = xio_file_zero(s->xf, 0, XIO__SQ_SECTOR, XIO_INIT_CLEAR, &e);
    if (rc != XIO_OK) return xio__sq_fail_xio(SQLITE_IOERR_TRUNCATE, "truncating the WAL", &e);
    xio__sq_cache_truncate(&s->cache, 0);
    s->hwm = 0;
  }
  return SQLITE_OK; /* journal: emptied lazily, see journal.c */
}

/* ----------------------------------------------------------- flushing ---- */

static xio_err grow(xio__sq_store *s, uint64_t need, xio_error *e) {
  uint64_t cur = xio_file_size(s->xf);
  if (need <= cur) return XIO_OK;
  if (s->role == XIO__SQ_DB) return xio_file_set_size(s->xf, need, XIO_INIT_NONE, e);
  uint64_t to = cur * 2 > need ? cur * 2 : need;
  if (to < LOG_MIN_SIZE) to = LOG_MIN_SIZE;
  to = (to + XIO__SQ_LINE - 1) / XIO__SQ_LINE * XIO__SQ_LINE;
  return xio_file_set_size(s->xf, to, XIO_INIT_CLEAR, e);
}

/* Hands pending runs [from, to) to the file layer as they are and waits until all are
 * acknowledged. The layer combines runs that share or touch a sector into one Put
 * Page and fills the edge sectors from what it knows (see xio_file_open). */
static xio_err send_runs(xio__sq_store *s, size_t from, size_t to, xio_error *e) {
  if (from == to) return XIO_OK;
  xio_io *io = calloc(to - from, sizeof *io);
  if (!io) return xio_error_set(e, XIO_ENOMEM, "out of memory sending writes");
  xio_err first = XIO_OK;
  size_t submitted = 0;
  for (size_t i = from; i < to; i++, submitted++) {
    xio_io *w = &io[i - from];
    w->op = XIO_IO_WRITE;
    w->offset = s->pend.v[i].off;
    w->length = s->pend.v[i].len;
    w->buf = s->pend.v[i].buf;
    if ((first = xio_file_submit(s->xf, w, e)) != XIO_OK) break;
  }
  for (size_t i = 0; i < submitted; i++) {
    xio_err rc = xio_io_wait(&io[i]);
    if (rc != XIO_OK && first == XIO_OK) {
      first = rc;
      *e = io[i].error;
    }
  }
  free(io);
  return first;
}

/* The pending runs of the database that go out with page 1: the first run when it
 * starts in the first sector, and every run after it that shares or touches a sector
 * with them (the file layer would combine them with it anyway). */
static size_t page1_runs(const xio__sq_store *s) {
  const xio__sq_pending *p = &s->pend;
  if (s->role != XIO__SQ_DB || !p->n || rdown(p->v[0].off) != 0) return 0;
  uint64_t end = rup(p->v[0].off + p->v[0].len);
  size_t k = 1;
  for (; k < p->n && rdown(p->v[k].off) <= end; k++)
    if (rup(p->v[k].off + p->v[k].len) > end) end = rup(p->v[k].off + p->v[k].len);
  return k;
}

/* After a successful send: the read cache learns what is on storage. */
static void sent(xio__sq_store *s) {
  uint64_t fsize = s->role == XIO__SQ_DB ? xio_file_size(s->xf) : 0;
  for (size_t i = 0; i < s->pend.n; i++)
    xio__sq_cache_update(&s->cache, s->pend.v[i].off, s->pend.v[i].buf, s->pend.v[i].len, fsize);
  xio__sq_pending_clear(&s->pend);
  if (s->role == XIO__SQ_JOURNAL) s->on_storage = 1;
}

/* Sends every pending run: page 1 of the database last, alone with the runs next to
 * it, once the rest is acknowledged. A journal or WAL first tells the file layer that
 * nothing at or past its high-water mark is relied on, so the edge sector after its
 * last record is filled with zeros rather than read back. */
static xio_err send_all(xio__sq_store *s, xio_error *e) {
  if (s->role != XIO__SQ_DB) xio_file_forget_from(s->xf, s->hwm);
  size_t last = page1_runs(s);
  xio_err rc = send_runs(s, last, s->pend.n, e);
  if (rc == XIO_OK) rc = send_runs(s, 0, last, e);
  if (rc == XIO_OK) rc = xio_file_flush(s->xf, e);
  if (rc == XIO_OK) sent(s);
  return rc;
}

static xio_err flush_xio(xio__sq_node *node, xio__sq_store *s, xio_error *e) {
  uint64_t end = xio__sq_pending_end(&s->pend);
  xio_err rc = XIO_OK;
  if (s->role == XIO__SQ_DB) {
    if (!s->pend.n && s->size == xio_file_size(s->xf) && s->cut == UINT64_MAX) return XIO_OK;
    if (s->cut < xio_file_size(s->xf)) /* truncated, maybe grown again: cut first */
      rc = xio_file_set_size(s->xf, s->cut, XIO_INIT_NONE, e);
    if (rc == XIO_OK) s->cut = UINT64_MAX;
    if (rc == XIO_OK && s->size > xio_file_size(s->xf)) rc = grow(s, s->size, e);
  } else {
    if (!s->pend.n) return XIO_OK;
    if (!s->xf) {
      int src = xio__sq_store_open(node, s->role, 1);
      if (src != SQLITE_OK) return xio_error_set(e, XIO_EIO, "%s", xio__sq_last_error());
    }
    rc = grow(s, rup(end), e);
  }
  if (rc == XIO_OK) rc = send_all(s, e);
  if (rc == XIO_OK && s->role == XIO__SQ_DB && s->size < xio_file_size(s->xf))
    rc = xio_file_set_size(s->xf, s->size, XIO_INIT_NONE, e);
  return rc;
}

static int flush_store(xio__sq_node *node, xio__sq_role role) {
  xio__sq_store *s = &node->st[role];
  if (s->sticky != XIO_OK)
    return xio__sq_fail_xio(SQLITE_IOERR_FSYNC, "syncing", &s->sticky_detail);
  if (!s->xf && !s->pend.n) return SQLITE_OK;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = flush_xio(node, s, &e);
  if (rc == XIO_OK) return SQLITE_OK;
  if (rc == XIO_ELEASELOST) {
    s->sticky = rc;
    s->sticky_detail = e;
  }
  return xio__sq_fail_xio(SQLITE_IOERR_FSYNC,
                          role == XIO__SQ_DB    ? "syncing the database"
                          : role == XIO__SQ_WAL ? "syncing the WAL"
                                                : "syncing the journal",
                          &e);
}

int xio__sq_store_sync(xio__sq_node *node, xio__sq_role role) {
  int rc = SQLITE_OK;
  if (role == XIO__SQ_DB) rc = flush_store(node, XIO__SQ_JOURNAL);
  return rc == SQLITE_OK ? flush_store(node, role) : rc;
}

int xio__sq_node_flush(xio__sq_node *node) {
  int rc = flush_store(node, XIO__SQ_JOURNAL);
  if (rc == SQLITE_OK) rc = flush_store(node, XIO__SQ_WAL);
  if (rc == SQLITE_OK) rc = flush_store(node, XIO__SQ_DB);
  return rc;
}

/* ----------------------------------------------------------- deleting ---- */

static void forget_content(xio__sq_store *s) {
  xio__sq_pending_clear(&s->pend);
  xio__sq_cache_truncate(&s->cache, 0);
  s->size = s->hwm = 0;
  s->known = 1;
  s->exists = 0;
}

int xio__sq_store_delete(xio__sq_node *node, xio__sq_role role) {
  xio__sq_store *s = &node->st[role];
  if (role == XIO__SQ_JOURNAL) {
    /* The end of a transaction: the journal must reach storage before the database
     * writes that depend on it; then it is emptied in memory only. */
    int rc = node->st[XIO__SQ_DB].pend.n ? xio__sq_store_sync(node, XIO__SQ_DB) : SQLITE_OK;
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
  xio_ctx *ctx = xio__sq_ctx(&e);
  /* Gone already is as good as deleted: its 404 is traced as expected, no failure. */
  if (rc == XIO_OK && ctx) rc = xio_file_delete_if_exists(ctx, node->targets[role], NULL, &e);
  if (rc != XIO_OK) return xio__sq_fail_xio(SQLITE_IOERR_DELETE, "deleting the WAL", &e);
  s->absent = 1;
  return SQLITE_OK;
}

void xio__sq_store_close(xio__sq_node *node, xio__sq_role role) {
  xio__sq_store *s = &node->st[role];
  xio_error e;
  xio_error_clear(&e);
  if (s->xf) {
    int drop = role == XIO__SQ_JOURNAL && !s->exists && s->sticky == XIO_OK;
    xio_file_close(s->xf, &e);
    s->xf = NULL;
    xio_ctx *ctx = xio__sq_ctx(&e);
    if (drop && ctx) xio_file_delete_if_exists(ctx, node->targets[role], NULL, &e);
  }
  xio__sq_pending_clear(&s->pend);
  xio__sq_cache_free(&s->cache);
}
