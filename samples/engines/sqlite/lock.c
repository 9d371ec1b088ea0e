/*
 * lock.c - SQLite's file lock levels, kept in memory between the connections of
 * this process.
 *
 * Between processes the lease decides: only the process holding it has the database
 * open at all. Within the process, connections share one node and take SHARED,
 * RESERVED, PENDING and EXCLUSIVE exactly as os_unix.c does between the connections
 * of one inode: the node holds the strongest level any connection holds and how many
 * connections hold SHARED or more. Called with the node's mutex held.
 */
#include "sq_int.h"

int xsq_lock(xsq_node *n, int *held, int level) {
  if (*held >= level) return SQLITE_OK;
  /* Someone else is writing, or we want more than SHARED while others hold more. */
  if (*held != n->lock && (n->lock >= SQLITE_LOCK_PENDING || level > SQLITE_LOCK_SHARED))
    return SQLITE_BUSY;
  if (level == SQLITE_LOCK_SHARED) {
    if (n->lock < SQLITE_LOCK_SHARED) n->lock = SQLITE_LOCK_SHARED;
    n->nshared++;
    *held = SQLITE_LOCK_SHARED;
    return SQLITE_OK;
  }
  if (level == SQLITE_LOCK_EXCLUSIVE && n->nshared > 1) {
    *held = n->lock = SQLITE_LOCK_PENDING; /* new readers wait; retry later */
    return SQLITE_BUSY;
  }
  *held = n->lock = level;
  return SQLITE_OK;
}

int xsq_unlock(xsq_node *n, int *held, int level) {
  if (*held <= level) return SQLITE_OK;
  if (*held > SQLITE_LOCK_SHARED) n->lock = SQLITE_LOCK_SHARED;
  if (level == SQLITE_LOCK_NONE) {
    if (--n->nshared == 0) n->lock = SQLITE_LOCK_NONE;
  }
  *held = level;
  return SQLITE_OK;
}

int xsq_reserved(xsq_node *n) { return n->lock > SQLITE_LOCK_SHARED; }
