/*
 * methods.c - the sqlite3_io_methods of a file on page blobs (database, journal or
 * WAL): each method takes the node's mutex and hands the work to store.c, lock.c,
 * shm.c or snapshot.c.
 *
 * Device characteristics, and why each holds of this VFS on page blobs:
 * - SQLITE_IOCAP_SAFE_APPEND: a file never shows garbage where it grew. Grown space
 *   of a page blob reads as zeros (the journal and WAL grow with clear, and bytes past
 *   what was written in a sector are sent as zeros), so SQLite may leave the journal's
 *   record count at "until the end" and needs no header rewrite and extra sync.
 * - SQLITE_IOCAP_POWERSAFE_OVERWRITE: a write changes no byte outside its range that
 *   SQLite relies on. Put Page changes exactly the pages it names, and the VFS fills
 *   the rest of an edge sector with the bytes already there (or, in a journal or WAL
 *   past the last valid record, with zeros, which SQLite reads as the end). So SQLite
 *   does not pad WAL commits to sector boundaries.
 * - SQLITE_IOCAP_IMMUTABLE, for snapshots only: a snapshot never changes.
 * Not claimed: SEQUENTIAL (runs of one sync are sent concurrently, so a later write
 * may land before an earlier one) and the ATOMIC flags (a sync of several runs is not
 * atomic as a whole). The sector size is 512 bytes, the page blob's page.
 *
 * A connection the parent process opened before fork() reaches the child as memory
 * only (node.c): every method there fails at once, without touching the node, and
 * closing it just lets go of it.
 */
#include <string.h>

#include "sq_int.h"

#define IOCAP (SQLITE_IOCAP_SAFE_APPEND | SQLITE_IOCAP_POWERSAFE_OVERWRITE)

static xsq_file *F(sqlite3_file *f) { return (xsq_file *)f; }

/* `code`, for a method called in a child on a connection of its parent. */
static int inherited(xsq_file *f, int code) {
  return xsq_fail(code,
                  "%s was opened by the parent process before fork(): a connection does "
                  "not cross fork(); open the database again in this process",
                  f->node->key);
}

static int m_close(sqlite3_file *file) {
  xsq_file *f = F(file);
  if (!f->node) return SQLITE_OK;
  xsq_node *node = f->node;
  f->node = NULL;
  if (xsq_node_inherited(node)) return SQLITE_OK; /* the parent's: left alone */
  pthread_mutex_lock(&node->mu);
  if (f->role == XSQ_DB) {
    xsq_shm_unmap(node, &f->shm);
    if (f->lock > SQLITE_LOCK_SHARED) xsq_node_flush(node);
    xsq_unlock(node, &f->lock, SQLITE_LOCK_NONE);
  }
  pthread_mutex_unlock(&node->mu);
  xsq_node_release(node);
  return SQLITE_OK;
}

static int m_read(sqlite3_file *file, void *buf, int amt, sqlite3_int64 off) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_READ);
  pthread_mutex_lock(&f->node->mu);
  int rc = xsq_store_read(f->node, f->role, buf, amt, (uint64_t)off);
  pthread_mutex_unlock(&f->node->mu);
  return rc;
}

static int m_write(sqlite3_file *file, const void *buf, int amt, sqlite3_int64 off) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_WRITE);
  if (f->node->readonly) return SQLITE_READONLY;
  pthread_mutex_lock(&f->node->mu);
  int rc = xsq_store_write(f->node, f->role, buf, amt, (uint64_t)off);
  pthread_mutex_unlock(&f->node->mu);
  return rc;
}

static int m_truncate(sqlite3_file *file, sqlite3_int64 size) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_TRUNCATE);
  if (f->node->readonly) return SQLITE_READONLY;
  pthread_mutex_lock(&f->node->mu);
  int rc = xsq_store_truncate(f->node, f->role, (uint64_t)size);
  pthread_mutex_unlock(&f->node->mu);
  return rc;
}

static int m_sync(sqlite3_file *file, int flags) {
  (void)flags;
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_FSYNC);
  if (f->node->readonly) return SQLITE_OK;
  pthread_mutex_lock(&f->node->mu);
  int rc = xsq_store_sync(f->node, f->role);
  pthread_mutex_unlock(&f->node->mu);
  return rc;
}

static int m_size(sqlite3_file *file, sqlite3_int64 *size) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_FSTAT);
  pthread_mutex_lock(&f->node->mu);
  *size = (sqlite3_int64)f->node->st[f->role].size;
  pthread_mutex_unlock(&f->node->mu);
  return SQLITE_OK;
}

/* A transaction starts here: not on a database whose lease is lost. */
static int m_lock(sqlite3_file *file, int level) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_LOCK);
  if (f->role != XSQ_DB) return SQLITE_OK;
  pthread_mutex_lock(&f->node->mu);
  int rc = level > f->lock ? xsq_store_lease_check(f->node, SQLITE_IOERR_LOCK) : SQLITE_OK;
  if (rc == SQLITE_OK) rc = xsq_lock(f->node, &f->lock, level);
  pthread_mutex_unlock(&f->node->mu);
  return rc;
}

/* The end of a write transaction sends whatever is still pending, so a transaction
 * is on storage when it ends even with synchronous=OFF or NORMAL. */
static int m_unlock(sqlite3_file *file, int level) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_UNLOCK);
  if (f->role != XSQ_DB) return SQLITE_OK;
  pthread_mutex_lock(&f->node->mu);
  int rc = SQLITE_OK;
  if (f->lock > SQLITE_LOCK_SHARED && level <= SQLITE_LOCK_SHARED && !f->node->readonly)
    rc = xsq_node_flush(f->node);
  xsq_unlock(f->node, &f->lock, level);
  pthread_mutex_unlock(&f->node->mu);
  return rc;
}

static int m_reserved(sqlite3_file *file, int *out) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_CHECKRESERVEDLOCK);
  pthread_mutex_lock(&f->node->mu);
  *out = f->role == XSQ_DB && xsq_reserved(f->node);
  pthread_mutex_unlock(&f->node->mu);
  return SQLITE_OK;
}

static int m_fcntl(sqlite3_file *file, int op, void *arg) {
  xsq_file *f = F(file);
  switch (op) {
  case SQLITE_FCNTL_VFSNAME: *(char **)arg = sqlite3_mprintf("xio"); return SQLITE_OK;
  case XSQ_FCNTL_SNAPSHOT: {
    if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR);
    pthread_mutex_lock(&f->node->mu);
    int rc = xsq_snapshot_fcntl(f, arg);
    pthread_mutex_unlock(&f->node->mu);
    return rc;
  }
  default: return SQLITE_NOTFOUND;
  }
}

static int m_sector(sqlite3_file *file) {
  (void)file;
  return (int)XSQ_SECTOR;
}

static int m_device(sqlite3_file *file) {
  return IOCAP | (F(file)->immutable ? SQLITE_IOCAP_IMMUTABLE : 0);
}

static int m_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **pp) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_SHMMAP);
  pthread_mutex_lock(&f->node->mu);
  int rc = xsq_shm_map(f->node, &f->shm, region, size, extend, pp);
  pthread_mutex_unlock(&f->node->mu);
  return rc;
}

/* In WAL mode a transaction starts here (a read lock of the WAL index), not in
 * m_lock: the database's SHARED lock is held all along. So a lock is not taken on a
 * database whose lease is lost: SQLite would answer from its cache, which another
 * process may have made stale. */
static int m_shm_lock(sqlite3_file *file, int ofst, int n, int flags) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return inherited(f, SQLITE_IOERR_SHMLOCK);
  pthread_mutex_lock(&f->node->mu);
  int writer_done = (flags & SQLITE_SHM_UNLOCK) && ofst == 0 && (f->shm.excl_mask & 1u);
  int rc =
      (flags & SQLITE_SHM_LOCK) ? xsq_store_lease_check(f->node, SQLITE_IOERR_SHMLOCK) : SQLITE_OK;
  if (rc == SQLITE_OK) rc = xsq_shm_lock(f->node, &f->shm, ofst, n, flags);
  if (writer_done && !f->node->readonly) xsq_node_flush(f->node);
  pthread_mutex_unlock(&f->node->mu);
  return rc;
}

/* Taking and releasing the node's mutex orders memory like a full barrier (and
 * ThreadSanitizer sees it). */
static void m_shm_barrier(sqlite3_file *file) {
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return;
  pthread_mutex_lock(&f->node->mu);
  pthread_mutex_unlock(&f->node->mu);
}

static int m_shm_unmap(sqlite3_file *file, int delete_flag) {
  (void)delete_flag;
  xsq_file *f = F(file);
  if (xsq_node_inherited(f->node)) return SQLITE_OK; /* the parent's index stays */
  pthread_mutex_lock(&f->node->mu);
  xsq_shm_unmap(f->node, &f->shm);
  pthread_mutex_unlock(&f->node->mu);
  return SQLITE_OK;
}

const sqlite3_io_methods xsq_methods = {
    2,          m_close,       m_read,      m_write, m_truncate, m_sync,   m_size,
    m_lock,     m_unlock,      m_reserved,  m_fcntl, m_sector,   m_device, m_shm_map,
    m_shm_lock, m_shm_barrier, m_shm_unmap, NULL,    NULL,
};

/* Snapshots: immutable, so SQLite takes no locks and keeps no WAL index. */
const sqlite3_io_methods xsq_methods_immutable = {
    1,       m_close,  m_read,   m_write, m_truncate, m_sync, m_size, m_lock, m_unlock, m_reserved,
    m_fcntl, m_sector, m_device, NULL,    NULL,       NULL,   NULL,   NULL,   NULL,
};
