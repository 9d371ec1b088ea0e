/*
 * keep.c - pruning (the keep option, `xio backup --keep N`): a chain keeps its
 * newest N links (restore points) and the service keeps only their snapshots
 * (backup_int.h).
 *
 * The rule: restoring link k needs the base and every link up to k, and the next
 * incremental backup needs the newest link's snapshot on the service, nothing
 * older. So dropping the oldest links means folding them into the oldest link
 * kept: the blob's state at that link is rebuilt locally (every piece checked
 * against its CRC-64), written as a new data file of its allocated extents, and
 * the link becomes the chain's base, a full copy. chain.json is then replaced (the
 * one step that changes what a restore sees: before it the old chain is whole,
 * after it the new one), the data files no link names are removed, and last the
 * dropped links' snapshots are deleted on the service. The snapshot of the newest
 * link is never among them (keep >= 1), nor is any snapshot the chain did not take
 * or record. A crash at any step leaves a whole chain; files left over are removed
 * by the next backup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "backup_int.h"

/* The data extents of `fd` within [0, size) into `r`. */
static xio_err extents(int fd, uint64_t size, xio_ranges *r, xio_error *err) {
  off_t pos = 0;
  while ((uint64_t)pos < size) {
    off_t d = lseek(fd, pos, SEEK_DATA);
    if (d < 0 || (uint64_t)d >= size) break;
    off_t h = lseek(fd, d, SEEK_HOLE);
    if (h < 0) return xio_error_from_errno(err, errno, "KeepBackups", "lseek", "the rebuilt file");
    uint64_t end = (uint64_t)h < size ? (uint64_t)h : size;
    if (xio_ranges_add(r, (uint64_t)d, end - 1) != XIO_OK)
      return xio_error_set(err, XIO_ENOMEM, "out of memory");
    pos = h;
  }
  return XIO_OK;
}

static xio_err copy_pieces(bk_link *l, int src, int dst, const char *path, xio_error *err) {
  char *buf = xio_malloc(BK_PIECE);
  if (!buf) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = XIO_OK;
  for (size_t i = 0; rc == XIO_OK && i < l->npieces; i++) {
    bk_piece *p = &l->pieces[i];
    ssize_t k = pread(src, buf, (size_t)p->len, (off_t)p->off);
    if (k != (ssize_t)p->len) {
      rc = xio_error_from_errno(err, k < 0 ? errno : EIO, "KeepBackups", "pread", path);
      break;
    }
    p->crc = xio_crc64(0, buf, (size_t)p->len);
    if (pwrite(dst, buf, (size_t)p->len, (off_t)p->pos) != (ssize_t)p->len)
      rc = xio_error_from_errno(err, errno, "KeepBackups", "pwrite", path);
  }
  xio_free(buf);
  if (rc == XIO_OK && fsync(dst) != 0)
    rc = xio_error_from_errno(err, errno, "KeepBackups", "fsync", path);
  return rc;
}

/* Makes `base` (zeroed by the caller) the full copy of the state at link `m`. */
static xio_err fold(bk_chain *ch, size_t m, bk_link *base, xio_error *err) {
  const bk_link *at = &ch->links[m];
  int fd = bk_scratch(ch->dir);
  if (fd < 0) return xio_error_from_errno(err, errno, "KeepBackups", "open", ch->dir);
  xio_err rc = bk_rebuild(ch, m, fd, "the rebuilt file", NULL, NULL, NULL, err);
  memcpy(base->snapshot, at->snapshot, sizeof base->snapshot);
  memcpy(base->time, at->time, sizeof base->time);
  base->size = at->size;
  base->base = 1;
  base->seq = ch->next;
  snprintf(base->data, sizeof base->data, "link-%06" PRIu64 ".data", base->seq);
  if (rc == XIO_OK) rc = extents(fd, base->size, &base->written, err);
  if (rc == XIO_OK) rc = bk_link_cut(base, err);
  char path[4096] = "", tmp[4200] = "";
  if (rc == XIO_OK) rc = bk_path(ch->dir, base->data, path, sizeof path, err);
  if (rc == XIO_OK) snprintf(tmp, sizeof tmp, "%s.partial", path);
  int dst = rc == XIO_OK ? bk_open_private(tmp, O_RDWR | O_TRUNC) : -1;
  if (rc == XIO_OK && dst < 0) rc = xio_error_from_errno(err, errno, "KeepBackups", "open", tmp);
  if (rc == XIO_OK) rc = copy_pieces(base, fd, dst, tmp, err);
  if (dst >= 0) close(dst);
  close(fd);
  if (rc == XIO_OK && rename(tmp, path) != 0)
    rc = xio_error_from_errno(err, errno, "KeepBackups", "rename", path);
  if (rc == XIO_OK) rc = bk_sync_dir(ch->dir, err);
  if (rc != XIO_OK && tmp[0]) unlink(tmp);
  base->verified = base->npieces;
  return rc;
}

/* Deletes the snapshots `ids` (n of them) of blob `url`; returns how many went. One
 * that stays is said, not failed on. */
static size_t delete_snapshots(xio_ctx *ctx, const xio_backup_options *o, const char *url,
                               char (*ids)[BK_ID_MAX], size_t n) {
  xio_error e;
  size_t gone = 0;
  for (size_t i = 0; i < n; i++) {
    xio_err rc = xio_snapshot_delete(ctx, url, ids[i], &e);
    if (rc == XIO_OK || rc == XIO_ENOTFOUND)
      gone += rc == XIO_OK;
    else
      bk_say(o, XIO_BACKUP_NOTE_SNAPSHOT_LEFT, "the snapshot %s could not be deleted (%s): %s",
             ids[i], xio_err_name(rc), e.message);
  }
  return gone;
}

xio_err bk_keep(xio_ctx *ctx, const xio_backup_options *o, bk_chain *ch, const char *url,
                size_t keep, size_t *pruned, size_t *deleted, xio_error *err) {
  *pruned = *deleted = 0;
  if (keep < 1 || ch->n <= keep) return XIO_OK;
  size_t m = ch->n - keep;
  bk_link base;
  memset(&base, 0, sizeof base);
  xio_err rc = fold(ch, m, &base, err);
  char(*ids)[BK_ID_MAX] = xio_calloc(m, BK_ID_MAX);
  if (rc == XIO_OK && !ids) rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (rc != XIO_OK) {
    bk_link_free(&base);
    xio_free(ids);
    return rc;
  }
  for (size_t i = 0; i < m; i++)
    memcpy(ids[i], ch->links[i].snapshot, BK_ID_MAX);
  for (size_t i = 0; i <= m; i++)
    bk_link_free(&ch->links[i]);
  ch->links[0] = base;
  memmove(&ch->links[1], &ch->links[m + 1], (ch->n - m - 1) * sizeof *ch->links);
  ch->n -= m;
  ch->next = base.seq + 1;
  rc = bk_chain_save(ch, err);
  if (rc == XIO_OK) {
    bk_sweep(ch, NULL);
    *pruned = m;
    *deleted = delete_snapshots(ctx, o, url, ids, m);
  }
  xio_free(ids);
  return rc;
}
