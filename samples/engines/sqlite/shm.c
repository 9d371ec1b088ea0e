/*
 * shm.c - the WAL index (SQLite's -shm) in process memory.
 *
 * Only the process holding the lease has the database open, so the WAL index need
 * not be shared with any other process: its regions are plain memory of the node,
 * shared by the node's connections, and its eight lock slots are counters. SQLite
 * rebuilds the index from the WAL (recovery) whenever a process opens it first, as
 * it does after a reboot with a file-backed -shm. Called with the node's mutex held.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_int.h"

int xsq_shm_map(xsq_node *n, xsq_shm_conn *c, int region, int size, int extend,
                void volatile **pp) {
  *pp = NULL;
  if (!c->mapped) {
    c->mapped = 1;
    n->shm_refs++;
  }
  if (n->nregions && n->region_size != size) return SQLITE_IOERR_SHMSIZE;
  if (region >= n->nregions) {
    if (!extend) return SQLITE_OK;
    void **v = realloc(n->regions, (size_t)(region + 1) * sizeof *v);
    if (!v) return SQLITE_IOERR_NOMEM;
    n->regions = v;
    for (int i = n->nregions; i <= region; i++) {
      n->regions[i] = calloc(1, (size_t)size);
      if (!n->regions[i]) {
        n->nregions = i;
        return SQLITE_IOERR_NOMEM;
      }
    }
    n->nregions = region + 1;
    n->region_size = size;
  }
  *pp = n->regions[region];
  return SQLITE_OK;
}

static int lock_slots(xsq_node *n, xsq_shm_conn *c, int ofst, int cnt, int excl) {
  uint16_t mask = (uint16_t)(((1u << cnt) - 1) << ofst);
  for (int i = ofst; i < ofst + cnt; i++) {
    uint16_t bit = (uint16_t)(1u << i);
    if (excl && (n->shm_excl[i] && !(c->excl_mask & bit))) return SQLITE_BUSY;
    if (excl && n->shm_shared[i] - ((c->shared_mask & bit) ? 1 : 0) > 0) return SQLITE_BUSY;
    if (!excl && n->shm_excl[i] && !(c->excl_mask & bit)) return SQLITE_BUSY;
  }
  for (int i = ofst; i < ofst + cnt; i++) {
    uint16_t bit = (uint16_t)(1u << i);
    if (excl) {
      n->shm_excl[i] = 1;
    } else if (!(c->shared_mask & bit)) {
      n->shm_shared[i]++;
    }
  }
  if (excl)
    c->excl_mask |= mask;
  else
    c->shared_mask |= mask;
  return SQLITE_OK;
}

static void unlock_slots(xsq_node *n, xsq_shm_conn *c, int ofst, int cnt) {
  for (int i = ofst; i < ofst + cnt; i++) {
    uint16_t bit = (uint16_t)(1u << i);
    if (c->excl_mask & bit) n->shm_excl[i] = 0;
    if (c->shared_mask & bit) n->shm_shared[i]--;
    c->excl_mask &= (uint16_t)~bit;
    c->shared_mask &= (uint16_t)~bit;
  }
}

int xsq_shm_lock(xsq_node *n, xsq_shm_conn *c, int ofst, int cnt, int flags) {
  if (ofst < 0 || cnt < 1 || ofst + cnt > XSQ_SHM_NLOCK) return SQLITE_IOERR_SHMLOCK;
  if (flags & SQLITE_SHM_UNLOCK) {
    unlock_slots(n, c, ofst, cnt);
    return SQLITE_OK;
  }
  return lock_slots(n, c, ofst, cnt, (flags & SQLITE_SHM_EXCLUSIVE) != 0);
}

void xsq_shm_unmap(xsq_node *n, xsq_shm_conn *c) {
  unlock_slots(n, c, 0, XSQ_SHM_NLOCK);
  if (!c->mapped) return;
  c->mapped = 0;
  if (--n->shm_refs > 0) return;
  for (int i = 0; i < n->nregions; i++)
    free(n->regions[i]);
  free(n->regions);
  n->regions = NULL;
  n->nregions = 0;
}

/* The WAL index header: mxFrame at byte 16; the checkpoint info (nBackfill first)
 * follows the two 48-byte copies of the header. */
int xsq_shm_all_checkpointed(xsq_node *n) {
  if (!n->nregions) return 1;
  const volatile unsigned char *p = n->regions[0];
  uint32_t mx, backfill;
  memcpy(&mx, (const void *)(p + 16), 4);
  memcpy(&backfill, (const void *)(p + 96), 4);
  return mx == backfill;
}
