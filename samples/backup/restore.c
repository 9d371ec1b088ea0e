/*
 * restore.c - the restore side of the backup library (xio_backup.h): a chain opened
 * for reading from its chain.json, its restore points (links) described, one found
 * by its snapshot, and the blob as it was there rebuilt (rebuild.c) into a local
 * file the caller gives or into a scratch file that vanishes with the process.
 * Writing that file to a page blob is upload.c's (xio_backup_restore_to); to a
 * local file in place of another, the caller's: the xio command renames a partial
 * file it owns into place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "backup_int.h"

xio_err xio_backup_chain_open(const char *dir, xio_backup_chain **out, xio_error *err) {
  *out = NULL;
  bk_chain *ch = xio_calloc(1, sizeof *ch);
  if (!ch) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = bk_chain_load(ch, dir, 0, err);
  if (rc != XIO_OK) {
    xio_backup_chain_close(ch);
    return rc;
  }
  *out = ch;
  return XIO_OK;
}

void xio_backup_chain_close(xio_backup_chain *ch) {
  if (!ch) return;
  bk_chain_free(ch);
  xio_free(ch);
}

const char *xio_backup_chain_dir(const xio_backup_chain *ch) { return ch->dir; }

const char *xio_backup_chain_source(const xio_backup_chain *ch) { return ch->source; }

xio_kind xio_backup_chain_kind(const xio_backup_chain *ch) { return ch->kind; }

size_t xio_backup_chain_count(const xio_backup_chain *ch) { return ch->n; }

xio_err xio_backup_chain_point(const xio_backup_chain *ch, size_t index, xio_backup_point *out) {
  if (index >= ch->n) return XIO_ERANGE;
  const bk_link *l = &ch->links[index];
  out->snapshot = l->snapshot;
  out->time = l->time;
  out->size = l->size;
  out->base = l->base;
  out->written_ranges = l->written.n;
  out->written_bytes = xio_ranges_bytes(&l->written);
  out->cleared_ranges = l->cleared.n;
  out->cleared_bytes = xio_ranges_bytes(&l->cleared);
  out->pieces = l->npieces;
  return XIO_OK;
}

xio_err xio_backup_chain_find(const xio_backup_chain *ch, const char *id, size_t *index,
                              xio_error *err) {
  if (ch->n == 0) {
    xio_error_set(err, XIO_ENOTFOUND, "the chain in %.400s has no complete link yet", ch->dir);
    xio_error_set_operation(err, "Restore");
    return XIO_ENOTFOUND;
  }
  long k = id ? bk_chain_find(ch, id) : (long)ch->n - 1;
  if (k < 0) {
    xio_error_set(err, XIO_ENOTFOUND,
                  "no link of snapshot %.64s in %.200s: its %zu link%s run from %.64s to %.64s", id,
                  ch->dir, ch->n, ch->n == 1 ? "" : "s", ch->links[0].snapshot,
                  ch->links[ch->n - 1].snapshot);
    xio_error_set_operation(err, "Restore");
    return XIO_ENOTFOUND;
  }
  *index = (size_t)k;
  return XIO_OK;
}

xio_err xio_backup_restore_fd(const xio_backup_chain *ch, size_t index, int fd, const char *what,
                              uint64_t *bytes, xio_error *err) {
  if (bytes) *bytes = 0;
  if (index >= ch->n)
    return xio_error_set(err, XIO_ERANGE, "the chain in %.400s has no link %zu", ch->dir, index);
  return bk_rebuild(ch, index, fd, what, bytes, NULL, NULL, err);
}

xio_err bk_restore_scratch(const bk_chain *ch, size_t index, int *fd, uint64_t *bytes,
                           xio_backup_stop_fn stop, void *ud, xio_error *err) {
  if (bytes) *bytes = 0;
  *fd = -1;
  if (index >= ch->n)
    return xio_error_set(err, XIO_ERANGE, "the chain in %.400s has no link %zu", ch->dir, index);
  *fd = bk_scratch(ch->dir); /* else a read-only DIR: the temporary directory */
  if (*fd < 0) *fd = bk_scratch(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (*fd < 0) return xio_error_from_errno(err, errno, "Restore", "open", ch->dir);
  xio_err rc = bk_rebuild(ch, index, *fd, "the rebuilt file", bytes, stop, ud, err);
  if (rc != XIO_OK) {
    close(*fd);
    *fd = -1;
  }
  return rc;
}

xio_err xio_backup_restore_scratch(const xio_backup_chain *ch, size_t index, int *fd,
                                   uint64_t *bytes, xio_error *err) {
  return bk_restore_scratch(ch, index, fd, bytes, NULL, NULL, err);
}
